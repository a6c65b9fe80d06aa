"""``python -m rules battles|resolve``: the adjudicator as a command (RULES.md Appendix A).

Reads one JSON turn document on standard input and writes one JSON answer on standard output.
Exit status 0 when the document was understood (rejected orders are data), 2 with a message on
standard error when it was not.
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any, NoReturn

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

from rules.battles import BattleResult, plan_battles
from rules.game import Game, UnknownModuleError
from rules.maps import BUILTIN_MAPS, CampaignMap, MapError, builtin_map, parse_map
from rules.orders import Attack, Move, OrderRule, Rejection, SideOrders, order_json
from rules.resolution import ResultsError, resolve_turn
from rules.ruleset import Outcome, Ruleset
from rules.state import CampaignState


class DocumentError(ValueError):
    """The turn document cannot be used; the message says where and why."""


class _Strict(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)


class _StateDoc(_Strict):
    turn: StrictInt = Field(ge=0)
    armies: dict[str, dict[str, StrictInt]]


class _MoveDoc(_Strict):
    source: str = Field(alias="from")
    to: str
    count: StrictInt


class _AttackDoc(_Strict):
    sector: str
    target: str


class _OrdersDoc(_Strict):
    moves: list[_MoveDoc] = []
    attacks: list[_AttackDoc] = []
    reinforce: str | None = None


class _TurnDoc(_Strict):
    map: str | dict[str, Any] = "planet-5"
    ruleset: dict[str, Any] = {}
    state: _StateDoc
    orders: dict[str, _OrdersDoc] = {}
    results: list[Any] = []


def _load(text: str) -> tuple[Game, CampaignState, dict[str, SideOrders], list[Any]]:
    try:
        doc = _TurnDoc.model_validate_json(text)
    except ValidationError as error:
        raise DocumentError(_first_errors(error)) from error
    game = Game.create(_load_map(doc.map), _load_ruleset(doc.ruleset))
    for side, sectors in doc.state.armies.items():
        for sector, count in sectors.items():
            if sector not in game.map.by_id:
                raise DocumentError(f"state.armies.{side}: sector {sector!r} is not on the map")
            if count < 0:
                raise DocumentError(f"state.armies.{side}.{sector}: negative army count {count}")
    state = CampaignState(turn=doc.state.turn, armies=doc.state.armies)
    orders = {
        side: SideOrders(
            moves=tuple(Move(source=m.source, to=m.to, count=m.count) for m in given.moves),
            attacks=tuple(Attack(sector=a.sector, target=a.target) for a in given.attacks),
            reinforce=given.reinforce,
        )
        for side, given in doc.orders.items()
    }
    return game, state, orders, doc.results


def _load_map(value: str | dict[str, Any]) -> CampaignMap:
    if isinstance(value, str):
        if value not in BUILTIN_MAPS:
            raise DocumentError(
                f"map: unknown built-in map {value!r} (built-in: {', '.join(BUILTIN_MAPS)}); "
                "or give the map itself as an object"
            )
        return builtin_map(value)
    try:
        return parse_map(value)
    except MapError as error:
        raise DocumentError(f"map: {error}") from error


def _load_ruleset(overrides: dict[str, Any]) -> Ruleset:
    try:
        ruleset = Ruleset.with_overrides(overrides)
    except ValidationError as error:
        raise DocumentError("ruleset: " + _first_errors(error)) from error
    if ruleset.modules:
        raise DocumentError(
            f"ruleset.modules: this command has no rule modules ({', '.join(ruleset.modules)})"
        )
    return ruleset


def _first_errors(error: ValidationError, limit: int = 5) -> str:
    parts = []
    for issue in error.errors()[:limit]:
        where = ".".join(str(part) for part in issue["loc"])
        parts.append(f"{where}: {issue['msg']}" if where else issue["msg"])
    more = error.error_count() - limit
    return "; ".join(parts) + (f" (and {more} more)" if more > 0 else "")


class _ResultDoc(BaseModel):
    model_config = ConfigDict(extra="forbid")

    battle: StrictInt
    outcome: Outcome
    winner: StrictStr | None = None


def _results(raw: list[Any]) -> list[BattleResult]:
    results: list[BattleResult] = []
    for index, item in enumerate(raw):
        try:
            given = _ResultDoc.model_validate(item)
            results.append(BattleResult.model_validate(given.model_dump()))
        except ValidationError as error:
            raise DocumentError(f"results[{index}]: " + _first_errors(error)) from error
    return results


def describe_rejection(rejection: Rejection) -> str:
    """English text for a refused order, naming the rule and what to do instead."""
    p = rejection.params
    texts = {
        OrderRule.SIDE_NOT_IN_PLAY: "this side has no armies on the map and cannot give orders",
        OrderRule.UNKNOWN_SECTOR: f"there is no sector {p.get('sector')} on the map",
        OrderRule.NO_ARMIES_IN_SECTOR: (
            f"no armies of this side in sector {p.get('sector')} at the start of the turn"
        ),
        OrderRule.SECOND_MOVE_FROM_SECTOR: (
            f"armies already move from sector {p.get('sector')} to {p.get('to')}: "
            "one destination per sector"
        ),
        OrderRule.MOVE_TO_SAME_SECTOR: "a move must go to another sector",
        OrderRule.MOVE_NOT_ADJACENT: (
            f"sector {p.get('to')} is not adjacent to sector {p.get('sector')}"
        ),
        OrderRule.MOVE_COUNT_OUT_OF_RANGE: (
            f"cannot move {p.get('count')} from sector {p.get('sector')}: "
            f"move {p.get('min')} to {p.get('max')}, at least one army stays"
            if int(p.get("max", 0)) >= 1
            else f"only one army in sector {p.get('sector')}: at least one army stays"
        ),
        OrderRule.MOVE_AND_ATTACK_IN_SECTOR: (
            f"armies move from sector {p.get('sector')}: one order per sector, "
            "a move or attacks, not both"
        ),
        OrderRule.ATTACK_OWN_SIDE: "a side cannot attack itself",
        OrderRule.UNKNOWN_SIDE: f"there is no side {p.get('target')} on the map",
        OrderRule.ATTACK_WITHOUT_OPPONENT: (
            f"{p.get('target')} has no armies in sector {p.get('sector')} at the start of the turn"
        ),
        OrderRule.ATTACK_LIMIT_EXCEEDED: (
            f"{p.get('armies')} armies in sector {p.get('sector')} allow "
            f"{p.get('limit')} attack(s) (one per 3 armies, rounded up)"
        ),
        OrderRule.REINFORCE_WITHOUT_ARMIES: (
            f"reinforcements can go only to a sector with this side's armies, not {p.get('sector')}"
        ),
        OrderRule.UNKNOWN_MODULE: f"rule module {p.get('module')} is not enabled",
        OrderRule.MODULE_RULE: f"rule module {p.get('module')} refuses it: {p.get('rule')}",
    }
    return texts.get(rejection.rule, rejection.rule.value)


def _rejected_json(rejections: tuple[Rejection, ...]) -> list[dict[str, Any]]:
    return [
        {
            "side": r.side,
            "order": order_json(r.order) if r.order is not None else None,
            "rule": r.rule.value,
            "message": describe_rejection(r),
        }
        for r in rejections
    ]


def battles_answer(text: str) -> dict[str, Any]:
    """The answer of ``battles`` for a turn document; raises :class:`DocumentError`."""
    game, state, orders, _ = _load(text)
    plan = plan_battles(game, state, orders)
    return {
        "rejected": _rejected_json(plan.rejected),
        "battles": [battle.as_json() for battle in plan.battles],
    }


def resolve_answer(text: str) -> dict[str, Any]:
    """The answer of ``resolve`` for a turn document; raises :class:`DocumentError`."""
    game, state, orders, raw_results = _load(text)
    results = _results(raw_results)
    try:
        resolution = resolve_turn(game, state, orders, results)
    except ResultsError as error:
        raise DocumentError(f"results: {error}") from error
    report = resolution.report
    return {
        "rejected": _rejected_json(report.rejected),
        "battles": [battle.as_json() for battle in report.battles],
        "state": {"turn": resolution.state.turn, "armies": resolution.state.armies},
        "captured": {side: list(sectors) for side, sectors in report.captured.items()},
        "winner": report.winner,
        "log": list(report.log),
    }


class _UsageError(Exception):
    """Bad command-line arguments."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


COMMANDS = {"battles": battles_answer, "resolve": resolve_answer}


def main(
    argv: list[str] | None = None,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """Run the command line; returns the exit status."""
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    parser = _Parser(
        prog="python -m rules",
        description="Adjudicate a turn of the planetary campaign from a JSON document on stdin.",
    )
    parser.add_argument("command", choices=sorted(COMMANDS), help="what to compute")
    try:
        args = parser.parse_args(argv)
    except _UsageError as error:
        print(parser.format_usage().rstrip(), file=stderr)
        print(f"python -m rules: {error}", file=stderr)
        return 2
    try:
        answer = COMMANDS[args.command](stdin.read())
    except (DocumentError, UnknownModuleError) as error:
        print(f"python -m rules {args.command}: malformed turn document: {error}", file=stderr)
        return 2
    except UnicodeDecodeError as error:
        print(f"python -m rules {args.command}: input is not UTF-8 text: {error}", file=stderr)
        return 2
    json.dump(answer, stdout, ensure_ascii=False, indent=2)
    stdout.write("\n")
    return 0
