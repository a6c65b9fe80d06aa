"""The «replay» invariant read on its own, and what makes a campaign seed replay exactly.

Campaign seed 3 broke «replay» on some runs only: the bot draws each turn's dice seeds with
``secrets``, so every run dealt other spells (the dependence on ``PYTHONHASHSEED`` was chance).
On the runs that broke, a duel step played a spell while the campaign was still running; the
export of a running campaign leaves the heroes' hands out (they come from the deal seed,
revealed when the campaign finishes), so ``python -m rules resolve`` refused the spell as "not
in hand" and replayed the turn without its wounds. Such a turn is replayed at the end, from
the finished campaign's export, which has the hands."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from types import SimpleNamespace
from typing import Any

import pytest

from bot.services import dice
from tests.campaigns import invariants
from tests.campaigns.invariants import Broken, Checks, _plays_hidden_spells
from tests.campaigns.play import turn_seeds_of

HEROES = [{"id": "h02", "side": "s1", "sector": "cafe", "wounds": 0, "alive": True}]
SPELL = {
    "module": "watch",
    "data": {"order": "duel_step", "hero": "h02", "plays": [{"card": "A3", "target": "h02"}]},
}
NOTHING = {"module": "watch", "data": {"order": "duel_step", "hero": "h02", "plays": []}}


def _document(*, hands: bool, late: list[dict[str, Any]]) -> dict[str, Any]:
    heroes = [{**hero, "hand": ["A3"]} if hands else hero for hero in HEROES]
    return {
        "state": {"turn": 1, "armies": {}, "modules": {"watch": {"heroes": heroes}}},
        "orders": {"s1": {"late": late}},
    }


def test_a_spell_from_a_hidden_hand_is_seen() -> None:
    assert _plays_hidden_spells(_document(hands=False, late=[SPELL]))
    assert not _plays_hidden_spells(_document(hands=True, late=[SPELL]))
    assert not _plays_hidden_spells(_document(hands=False, late=[NOTHING]))
    assert not _plays_hidden_spells({"state": {"turn": 1, "armies": {}}, "orders": {}})


def _checks(exports: list[dict[str, Any]]) -> Checks:
    """Checks on a store whose export is the last of ``exports``."""

    async def resolutions(campaign_id: int, turn: int) -> list[Any]:
        return [SimpleNamespace(revision=1)] if turn == 1 else []

    async def export_campaign(campaign_id: int) -> dict[str, Any]:
        return exports[-1]

    checks = Checks.__new__(Checks)
    checks.count = 0
    checks._replayed = set()
    checks._deferred = set()
    clock = SimpleNamespace(now=lambda: datetime(2027, 5, 24, tzinfo=UTC))
    store = SimpleNamespace(resolutions=resolutions, export_campaign=export_campaign)
    checks.world = SimpleNamespace(step=1, clock=clock, store=store)  # type: ignore[assignment]
    return checks


def _export(*, hands: bool, status: str) -> dict[str, Any]:
    document = _document(hands=hands, late=[SPELL])
    after = {
        "turn": 2,
        "armies": {},
        "modules": {"watch": {"heroes": [{**HEROES[0], "wounds": 3}]}},
    }
    turn = {"turn": 1, "revision": 1, "document": document, "state_after": after, "winner": None}
    return {"campaign": {"status": status}, "turns": [turn]}


async def test_a_hidden_spell_replays_at_the_end_not_before(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    replayed: list[dict[str, Any]] = []

    def without_the_wounds(text: str) -> dict[str, Any]:
        replayed.append(json.loads(text))
        return {"state": {"turn": 2, "armies": {}, "modules": {"watch": {"heroes": HEROES}}}}

    monkeypatch.setattr(invariants, "resolve_answer", without_the_wounds)
    exports = [_export(hands=False, status="running")]
    checks = _checks(exports)
    campaign = SimpleNamespace(id=1, turn=2)
    await checks.replay(campaign)  # type: ignore[arg-type]
    await checks.replay(campaign)  # type: ignore[arg-type]
    assert replayed == []
    assert checks._deferred == {(1, 1)}
    assert checks.count == 2
    # Once the campaign finishes, the export has the hands and the turn replays: a replay that
    # misses the wounds is caught.
    exports.append(_export(hands=True, status="finished"))
    with pytest.raises(Broken, match=r"turn 1 \(revision 1\) replays .* stored"):
        await checks.replay(campaign, final=True)  # type: ignore[arg-type]
    assert len(replayed) == 1
    assert replayed[0]["state"]["modules"]["watch"]["heroes"][0]["hand"] == ["A3"]


def test_a_campaigns_turn_seeds_come_from_its_seed() -> None:
    with turn_seeds_of(3):
        first = [dice.new_seed() for _ in range(4)]
    with turn_seeds_of(3):
        again = [dice.new_seed() for _ in range(4)]
    with turn_seeds_of(4):
        other = dice.new_seed()
    assert first == again
    assert len(set(first)) == 4
    assert all(len(seed) == 2 * dice.SEED_BYTES and int(seed, 16) >= 0 for seed in first)
    assert other not in first
    assert dice.new_seed() not in first  # the bot's own seeds again outside
