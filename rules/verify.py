"""``python -m rules verify-rolls < export.json``: re-derive every roll of a campaign (G4).

The export (``python -m storage export``; docs/rules.md, "Verifying rolls") lists the turns,
each with its turn document, its seeds as far as they are revealed, their commitments and the
rolls recorded. For each turn:

1. each revealed seed must match its commitment (SHA-256, posted before any order existed);
2. the turn is replayed from its document and seeds, and every roll the engine makes must be
   recorded with the same label, number of sides and value;
3. every recorded roll (the engine's, and rolls asked for at the table) is re-drawn from its
   seed by its label.

A roll whose seed is not revealed yet (the deal seed before the campaign ends, the roll seed of
a turn not summarised yet) is *unverifiable*, never failed. The answer lists what failed; the
exit status is 1 when anything failed.
"""

from __future__ import annotations

import json
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, StrictInt, ValidationError

from rules.battles import SeedsRequiredError
from rules.cli import DocumentError, _results, load_turn_document
from rules.dice import Roll, SeedKind, SeedMissingError, TurnSeeds, commitment
from rules.game import ModuleStateError
from rules.resolution import ResultsError, resolve_turn


class _Lenient(BaseModel):
    model_config = ConfigDict(extra="ignore")


class _SeedPair(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    roll: str | None = None
    deal: str | None = None


class _RecordedRoll(BaseModel):
    model_config = ConfigDict(extra="forbid", strict=True)

    label: str = Field(min_length=1)
    sides: StrictInt = Field(ge=1)
    value: StrictInt = Field(ge=1)
    seed: SeedKind = "roll"


class _TurnEntry(_Lenient):
    turn: StrictInt = Field(ge=0)
    document: dict[str, Any] | None = None
    seeds: _SeedPair = _SeedPair()
    commitments: _SeedPair = _SeedPair()
    rolls: list[_RecordedRoll] = []


class _Export(_Lenient):
    turns: list[_TurnEntry]


def _failure(turn: int, reason: str, label: str | None = None) -> dict[str, Any]:
    entry: dict[str, Any] = {"turn": turn}
    if label is not None:
        entry["label"] = label
    entry["reason"] = reason
    return entry


def _replay(entry: _TurnEntry, index: int) -> tuple[list[Roll] | None, str | None]:
    """The engine's rolls for the turn, or ``None`` and why it cannot be replayed."""
    if entry.document is None:
        return None, "no turn document (the turn is not resolved)"
    where = f"turns[{index}].document"
    try:
        turn = load_turn_document(json.dumps(entry.document))
        results = _results(turn.results)
    except DocumentError as error:
        raise DocumentError(f"{where}: {error}") from error
    if turn.state.turn != entry.turn:
        raise DocumentError(f"{where}: state.turn is {turn.state.turn}, not {entry.turn}")
    seeds = TurnSeeds(roll=entry.seeds.roll, deal=entry.seeds.deal)
    try:
        resolution = resolve_turn(turn.game, turn.state, turn.orders, results, seeds, turn.late)
    except (SeedsRequiredError, SeedMissingError) as error:
        return None, f"a seed is not revealed yet ({error})"
    except (ResultsError, ModuleStateError) as error:
        raise DocumentError(f"{where}: {error}") from error
    return list(resolution.report.rolls), None


def verify_export(text: str) -> dict[str, Any]:
    """The answer of ``verify-rolls`` for an export; raises ``DocumentError`` if malformed."""
    try:
        export = _Export.model_validate_json(text)
    except ValidationError as error:
        issue = error.errors()[0]
        where = ".".join(str(part) for part in issue["loc"])
        raise DocumentError(f"{where}: {issue['msg']}" if where else issue["msg"]) from error
    failed: list[dict[str, Any]] = []
    unverifiable: list[dict[str, Any]] = []
    turns: list[dict[str, Any]] = []
    verified_total = 0
    for index, entry in enumerate(export.turns):
        turn_failed = len(failed)
        seeds = {"roll": entry.seeds.roll, "deal": entry.seeds.deal}
        for kind, seed in seeds.items():
            committed = getattr(entry.commitments, kind)
            if seed is not None and committed is not None and commitment(seed) != committed:
                failed.append(
                    _failure(entry.turn, f"the {kind} seed does not match its commitment")
                )
        labels: set[str] = set()
        verified = 0
        for recorded in entry.rolls:
            if recorded.label in labels:
                failed.append(_failure(entry.turn, "label used twice", recorded.label))
                continue
            labels.add(recorded.label)
            seed = seeds[recorded.seed]
            if seed is None:
                unverifiable.append(
                    {"turn": entry.turn, "label": recorded.label, "seed": recorded.seed}
                )
            elif Roll.model_validate(recorded.model_dump()).verify(seed):
                verified += 1
            else:
                failed.append(
                    _failure(
                        entry.turn,
                        f"the {recorded.seed} seed does not give this value",
                        recorded.label,
                    )
                )
        engine, why_not = _replay(entry, index)
        if engine is not None:
            recorded_by_label = {r.label: r for r in entry.rolls}
            for roll in engine:
                kept = recorded_by_label.get(roll.label)
                if kept is None:
                    failed.append(
                        _failure(entry.turn, "the engine draws it; not recorded", roll.label)
                    )
                elif (kept.sides, kept.value, kept.seed) != (roll.sides, roll.value, roll.seed):
                    failed.append(
                        _failure(
                            entry.turn,
                            f"recorded d{kept.sides} = {kept.value}, "
                            f"the engine draws d{roll.sides} = {roll.value}",
                            roll.label,
                        )
                    )
        verified_total += verified
        turns.append(
            {
                "turn": entry.turn,
                "rolls": len(entry.rolls),
                "verified": verified,
                "failed": len(failed) - turn_failed,
                "replayed": engine is not None,
                **({"not_replayed": why_not} if why_not is not None else {}),
            }
        )
    return {
        "verified": verified_total,
        "unverifiable": unverifiable,
        "failed": failed,
        "turns": turns,
    }
