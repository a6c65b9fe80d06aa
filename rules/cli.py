"""``python -m rules battles|resolve|start|verify-rolls|render``: the adjudicator as a command
(RULES.md Appendix A, extended for rule modules by MODULES.md A2.13).

Reads one JSON document on standard input and writes one JSON answer on standard output.
Exit status 0 when the document was understood (rejected orders are data), 2 with a message on
standard error when it was not; ``verify-rolls`` exits 1 when a roll does not verify.

With rule modules (``ruleset.modules``), the turn document may also carry ``state.modules``,
each side's ``modules`` and ``late`` orders (``[{module, data}]``), ``seeds`` (``{roll,
deal}``) and results' ``modules``; the answers then add ``state.modules``, ``rolls``,
``modules`` (and ``late_rejected`` for ``resolve``). With no module enabled, answers are
byte-identical to those before modules existed. ``start`` answers the state when the turn's
orders window opens (``rules.start_turn``: a module's pieces enter and its cards are dealt
from ``seeds.deal``) and the values it drew (``rolls``).
"""

from __future__ import annotations

import argparse
import json
import sys
from typing import IO, Any, NoReturn

from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr, ValidationError

import rules.modules
from rules.battles import BattleResult, SeedsRequiredError, plan_battles
from rules.deployment import start_turn
from rules.dice import SeedMissingError, TurnSeeds
from rules.game import (
    Game,
    ModuleConflictError,
    ModuleSettingsError,
    ModuleStateError,
    UnknownModuleError,
)
from rules.maps import BUILTIN_MAPS, CampaignMap, MapError, builtin_map, parse_map
from rules.orders import Attack, ModuleOrder, Move, OrderRule, Rejection, SideOrders, order_json
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
    modules: dict[str, Any] = {}


class _MoveDoc(_Strict):
    source: str = Field(alias="from")
    to: str
    count: StrictInt


class _AttackDoc(_Strict):
    sector: str
    target: str


class _ModuleOrderDoc(_Strict):
    module: str
    data: dict[str, Any]


class _OrdersDoc(_Strict):
    moves: list[_MoveDoc] = []
    attacks: list[_AttackDoc] = []
    reinforce: str | None = None
    modules: list[_ModuleOrderDoc] = []
    late: list[_ModuleOrderDoc] = []


class _SeedsDoc(_Strict):
    roll: str | None = Field(default=None, min_length=1)
    deal: str | None = Field(default=None, min_length=1)


class _TurnDoc(_Strict):
    map: str | dict[str, Any] = "planet-5"
    ruleset: dict[str, Any] = {}
    state: _StateDoc
    orders: dict[str, _OrdersDoc] = {}
    results: list[Any] = []
    seeds: _SeedsDoc | None = None


class TurnDocument:
    """A turn document, understood: the game, the state, orders, late orders, the raw results
    (checked by the command that uses them) and the seeds."""

    def __init__(
        self,
        game: Game,
        state: CampaignState,
        orders: dict[str, SideOrders],
        late: dict[str, tuple[ModuleOrder, ...]],
        results: list[Any],
        seeds: TurnSeeds | None,
    ) -> None:
        self.game = game
        self.state = state
        self.orders = orders
        self.late = late
        self.results = results
        self.seeds = seeds


def _module_order(game: Game, given: _ModuleOrderDoc) -> ModuleOrder:
    module = game.module(given.module)
    if module is None:
        return ModuleOrder(module=given.module, data=given.data)
    return module.parse_order(given.data)


def _create_game(campaign_map: CampaignMap, ruleset: Ruleset) -> Game:
    try:
        return Game.create(campaign_map, ruleset, rules.modules.BUILTIN_MODULES)
    except UnknownModuleError as error:
        known = ", ".join(module.name for module in rules.modules.BUILTIN_MODULES)
        raise DocumentError(
            f"ruleset.modules: unknown rule module {error.args[0]!r} (built-in: {known})"
        ) from error
    except (ModuleSettingsError, ModuleConflictError) as error:
        raise DocumentError(f"ruleset.{error}") from error
    except MapError as error:
        raise DocumentError(f"map: {error}") from error


def _load(text: str) -> tuple[Game, CampaignState, dict[str, SideOrders], list[Any]]:
    """Game, state, orders and raw results of a turn document (the map renderer's reader)."""
    turn = load_turn_document(text)
    return turn.game, turn.state, turn.orders, turn.results


def load_turn_document(text: str) -> TurnDocument:
    """Read a turn document; raises :class:`DocumentError` when it cannot be used."""
    try:
        doc = _TurnDoc.model_validate_json(text)
    except ValidationError as error:
        raise DocumentError(_first_errors(error)) from error
    game = _create_game(_load_map(doc.map), _load_ruleset(doc.ruleset))
    for side, sectors in doc.state.armies.items():
        for sector, count in sectors.items():
            if sector not in game.map.by_id:
                raise DocumentError(f"state.armies.{side}: sector {sector!r} is not on the map")
            if count < 0:
                raise DocumentError(f"state.armies.{side}.{sector}: negative army count {count}")
    state = CampaignState(turn=doc.state.turn, armies=doc.state.armies, modules=doc.state.modules)
    orders = {
        side: SideOrders(
            moves=tuple(Move(source=m.source, to=m.to, count=m.count) for m in given.moves),
            attacks=tuple(Attack(sector=a.sector, target=a.target) for a in given.attacks),
            reinforce=given.reinforce,
            extra=tuple(_module_order(game, m) for m in given.modules),
        )
        for side, given in doc.orders.items()
    }
    late = {
        side: tuple(_module_order(game, m) for m in given.late)
        for side, given in doc.orders.items()
        if given.late
    }
    seeds = None if doc.seeds is None else TurnSeeds(roll=doc.seeds.roll, deal=doc.seeds.deal)
    return TurnDocument(game, state, orders, late, doc.results, seeds)


def _load_map(value: str | dict[str, Any]) -> CampaignMap:
    if isinstance(value, str):
        if value not in BUILTIN_MAPS and value not in rules.modules.module_maps():
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
        return Ruleset.with_overrides(overrides)
    except ValidationError as error:
        raise DocumentError("ruleset: " + _first_errors(error)) from error


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
    modules: dict[str, Any] = {}


def _results(raw: list[Any]) -> list[BattleResult]:
    results: list[BattleResult] = []
    for index, item in enumerate(raw):
        try:
            given = _ResultDoc.model_validate(item)
            results.append(BattleResult.model_validate(given.model_dump(exclude_defaults=True)))
        except ValidationError as error:
            raise DocumentError(f"results[{index}]: " + _first_errors(error)) from error
    return results


def describe_rejection(rejection: Rejection, game: Game | None = None) -> str:
    """English text for a refused order, naming the rule and what to do instead (a module's
    own text for its rules, where ``game`` has the module)."""
    p = rejection.params
    module = game.module(str(p.get("module"))) if game is not None else None
    if rejection.rule is OrderRule.MODULE_RULE and module is not None:
        text = module.describe_rejection(rejection)
        if text is not None:
            return text
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
        OrderRule.SECTOR_HAS_MODULE_ORDER: (
            f"sector {p.get('sector')} already has a {p.get('module')} order: one order per sector"
        ),
    }
    return texts.get(rejection.rule, rejection.rule.value)


def _rejected_json(rejections: tuple[Rejection, ...], game: Game) -> list[dict[str, Any]]:
    return [
        {
            "side": r.side,
            "order": order_json(r.order) if r.order is not None else None,
            "rule": r.rule.value,
            **({"params": dict(r.params)} if game.modules and r.params else {}),
            "message": describe_rejection(r, game),
        }
        for r in rejections
    ]


_RULE_ERRORS = (SeedsRequiredError, SeedMissingError, ModuleStateError)


def battles_answer(text: str) -> dict[str, Any]:
    """The answer of ``battles`` for a turn document; raises :class:`DocumentError`."""
    turn = load_turn_document(text)
    try:
        plan = plan_battles(turn.game, turn.state, turn.orders, turn.seeds)
    except _RULE_ERRORS as error:
        raise DocumentError(str(error)) from error
    answer: dict[str, Any] = {
        "rejected": _rejected_json(plan.rejected, turn.game),
        "battles": [battle.as_json() for battle in plan.battles],
    }
    if turn.game.modules:
        answer["rolls"] = [roll.as_json() for roll in plan.rolls]
        answer["modules"] = plan.modules
    return answer


def resolve_answer(text: str) -> dict[str, Any]:
    """The answer of ``resolve`` for a turn document; raises :class:`DocumentError`."""
    turn = load_turn_document(text)
    results = _results(turn.results)
    try:
        resolution = resolve_turn(
            turn.game, turn.state, turn.orders, results, turn.seeds, turn.late
        )
    except ResultsError as error:
        raise DocumentError(f"results: {error}") from error
    except _RULE_ERRORS as error:
        raise DocumentError(str(error)) from error
    report, game = resolution.report, turn.game
    state: dict[str, Any] = {"turn": resolution.state.turn, "armies": resolution.state.armies}
    if game.modules:
        state["modules"] = resolution.state.modules
    answer: dict[str, Any] = {
        "rejected": _rejected_json(report.rejected, game),
        "battles": [battle.as_json() for battle in report.battles],
        "state": state,
        "captured": {side: list(sectors) for side, sectors in report.captured.items()},
        "winner": report.winner,
        "log": list(report.log),
    }
    if game.modules:
        answer["late_rejected"] = _rejected_json(report.late_rejected, game)
        answer["unplayed"] = list(report.unplayed)
        answer["rolls"] = [roll.as_json() for roll in report.rolls]
        answer["modules"] = report.modules
    return answer


def start_answer(text: str) -> dict[str, Any]:
    """The answer of ``start`` for a turn document (its orders and results are not used);
    raises :class:`DocumentError`."""
    turn = load_turn_document(text)
    try:
        started = start_turn(turn.game, turn.state, turn.seeds)
    except _RULE_ERRORS as error:
        raise DocumentError(str(error)) from error
    state = started.state
    return {
        "state": {"turn": state.turn, "armies": state.armies, "modules": state.modules},
        "rolls": [roll.as_json() for roll in started.rolls],
    }


class _UsageError(Exception):
    """Bad command-line arguments."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def verify_rolls_answer(text: str) -> dict[str, Any]:
    """The answer of ``verify-rolls`` for a campaign export (see :mod:`rules.verify`)."""
    from rules.verify import verify_export  # noqa: PLC0415 (rules.verify reads documents here)

    return verify_export(text)


COMMANDS = {
    "battles": battles_answer,
    "resolve": resolve_answer,
    "start": start_answer,
    "verify-rolls": verify_rolls_answer,
}
RENDER = "render"
"""The one command that answers a picture, not JSON (:func:`rules.render.render_main`)."""
SUMMARIES = {
    "battles": "the Friday battle list of a turn document: battles, rejected orders, rolls",
    "resolve": "the Monday resolution of a turn document: the new state, captures, winner",
    "start": "the state when the turn's orders window opens (heroes enter, hands are dealt)",
    "verify-rolls": "re-derive every roll of an exported campaign (exit 1 when one fails)",
    RENDER: "draw a turn document's map as PNG on stdout (render --help for its options)",
}
"""One line per subcommand for ``--help``."""


def main(
    argv: list[str] | None = None,
    stdin: IO[str] | None = None,
    stdout: IO[str] | None = None,
    stderr: IO[str] | None = None,
) -> int:
    """Run the command line; returns the exit status."""
    stdin, stdout, stderr = stdin or sys.stdin, stdout or sys.stdout, stderr or sys.stderr
    argv = sys.argv[1:] if argv is None else argv
    if argv[:1] == [RENDER]:
        from rules.render import render_main  # noqa: PLC0415 (Pillow only for pictures)

        return render_main(argv[1:], stdin, getattr(stdout, "buffer", sys.stdout.buffer), stderr)
    width = max(len(name) for name in SUMMARIES)
    parser = _Parser(
        prog="python -m rules",
        formatter_class=argparse.RawDescriptionHelpFormatter,
        description=(
            "Adjudicate a turn of the campaign from a JSON turn document on stdin, draw its "
            "map, or re-derive every roll of an exported campaign."
        ),
        epilog="commands:\n"
        + "\n".join(f"  {name.ljust(width)}  {line}" for name, line in SUMMARIES.items())
        + "\n\nexamples/ holds turn documents to try: python -m rules resolve < "
        "examples/siege-turn.json",
    )
    parser.add_argument(
        "command", choices=[*sorted(COMMANDS), RENDER], help="what to compute (below)"
    )
    try:
        args = parser.parse_args(argv)
    except _UsageError as error:
        print(parser.format_usage().rstrip(), file=stderr)
        print(f"python -m rules: {error}", file=stderr)
        return 2
    try:
        answer = COMMANDS[args.command](stdin.read())
    except (DocumentError, UnknownModuleError) as error:
        what = "export" if args.command == "verify-rolls" else "turn document"
        print(f"python -m rules {args.command}: malformed {what}: {error}", file=stderr)
        return 2
    except UnicodeDecodeError as error:
        print(f"python -m rules {args.command}: input is not UTF-8 text: {error}", file=stderr)
        return 2
    json.dump(answer, stdout, ensure_ascii=False, indent=2)
    stdout.write("\n")
    return 1 if answer.get("failed") else 0
