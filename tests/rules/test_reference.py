"""Differential test: the engine and the independent reference agree on random turns."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from rules.cli import battles_answer, resolve_answer
from tests.rules import reference

Doc = dict[str, Any]

SIDES = ["red", "blue", "green", "gold"]
GHOST = "ghost"
UNKNOWN_SECTOR = "zz"
ID_POOL = ["1", "2", "3", "9", "10", "11", "a", "b", "B", "n2"]
OUTCOMES = ["draw", "bloody_draw", "solid", "crushing", "slaughter"]


@st.composite
def maps(draw: st.DrawFn) -> Any:
    """Planet-5 or a small connected inline map with mixed numeric and text ids."""
    if draw(st.booleans()):
        return "planet-5"
    ids = draw(st.lists(st.sampled_from(ID_POOL), min_size=2, max_size=6, unique=True))
    edges: set[frozenset[str]] = set()
    for i in range(1, len(ids)):
        edges.add(frozenset((ids[i], ids[draw(st.integers(0, i - 1))])))
    pairs = [frozenset((a, b)) for i, a in enumerate(ids) for b in ids[i + 1 :]]
    edges |= set(draw(st.lists(st.sampled_from(pairs), max_size=len(pairs))))
    sectors = [
        {
            "id": sid,
            "name": f"Sector {sid}",
            "neighbours": [other for other in ids if frozenset((sid, other)) in edges],
            "x": 0.2 + 0.3 * (i % 3),
            "y": 0.25 + 0.5 * (i // 3),
        }
        for i, sid in enumerate(ids)
    ]
    return {"id": "custom", "name": "Custom", "sectors": sectors}


@st.composite
def rulesets(draw: st.DrawFn) -> Doc:
    """Random overrides of the parameters the turn uses."""
    overrides: Doc = {}
    if draw(st.booleans()):
        overrides["armies_per_attack"] = draw(st.integers(1, 4))
    if draw(st.booleans()):
        overrides["capture_min_armies"] = draw(st.integers(1, 5))
    if draw(st.booleans()):
        overrides["sectors_to_win"] = draw(st.integers(1, 4))
    if draw(st.booleans()):
        outcomes = draw(st.lists(st.sampled_from(OUTCOMES), unique=True))
        overrides["losses"] = {o: draw(st.integers(0, 4)) for o in outcomes}
    return overrides


@st.composite
def side_orders(draw: st.DrawFn, side: str, armies: dict[str, dict[str, int]], sectors: Doc) -> Doc:
    """Orders for one side: mostly plausible ones, with every kind of mistake mixed in."""
    ids = list(sectors)
    sides = list(armies)
    mine = {s: n for s, n in armies.get(side, {}).items() if n > 0}
    any_sector = st.sampled_from([*ids, UNKNOWN_SECTOR])
    own = st.sampled_from(list(mine)) if mine else any_sector
    targets = st.sampled_from([*sides, GHOST])
    moves: list[Doc] = []
    attacks: list[Doc] = []
    for sector, n in mine.items():
        kind = draw(st.sampled_from(["fortify", "move", "attack"]))
        if kind == "move" and sectors[sector]:
            to = draw(st.sampled_from(sectors[sector]))
            moves.append({"from": sector, "to": to, "count": draw(st.integers(-1, n))})
        elif kind == "attack":
            there = [s for s in sides if s != side and armies.get(s, {}).get(sector, 0) > 0]
            foes = st.sampled_from(there) if there else targets
            for _ in range(draw(st.integers(1, 3))):
                attacks.append({"sector": sector, "target": draw(foes)})
    for _ in range(draw(st.integers(0, 2))):
        source = draw(st.one_of(own, any_sector))
        moves.append(
            {
                "from": source,
                "to": draw(st.one_of(any_sector, st.just(source))),
                "count": draw(st.integers(-1, mine.get(source, 2) + 1)),
            }
        )
    for _ in range(draw(st.integers(0, 2))):
        attacks.append({"sector": draw(st.one_of(own, any_sector)), "target": draw(targets)})
    orders: Doc = {}
    keep_empty: bool = draw(st.booleans())
    if moves or keep_empty:
        orders["moves"] = draw(st.permutations(moves))
    if attacks or keep_empty:
        orders["attacks"] = draw(st.permutations(attacks))
    reinforce = draw(st.one_of(st.none(), own, any_sector))
    if reinforce is not None:
        orders["reinforce"] = reinforce
    return orders


@st.composite
def turns(draw: st.DrawFn) -> Doc:
    """A well-formed turn document whose results fit the battles it produces."""
    the_map = draw(maps())
    order, neighbours = reference.map_of({"map": the_map})
    sides = draw(st.permutations(SIDES))[: draw(st.integers(2, 4))]
    armies: dict[str, dict[str, int]] = {}
    for side in sides:
        least = 0 if draw(st.integers(0, 9)) == 0 else 1
        held = draw(
            st.lists(st.sampled_from(order), min_size=least, max_size=len(order), unique=True)
        )
        counts = {sector: draw(st.integers(1, 8)) for sector in held}
        if draw(st.integers(0, 9)) == 0:
            counts[draw(st.sampled_from(order))] = 0
        armies[side] = counts
    orders: Doc = {}
    for side in draw(st.permutations([*sides, GHOST])):
        if side == GHOST and draw(st.integers(0, 4)) != 0:
            continue
        if side != GHOST and draw(st.integers(0, 9)) == 0:
            continue
        orders[side] = draw(side_orders(side, armies, neighbours))
    doc: Doc = {
        "map": the_map,
        "ruleset": draw(rulesets()),
        "state": {"turn": draw(st.integers(1, 9)), "armies": armies},
        "orders": orders,
    }
    battles, _, _ = reference.battle_list(doc)
    unreported = [None]
    results: list[Doc] = []
    for battle in battles:
        outcome = draw(st.sampled_from([*unreported, *OUTCOMES]))
        if outcome is None:
            continue  # unreported
        result: Doc = {"battle": battle["id"], "outcome": outcome}
        if outcome not in reference.DRAWS:
            result["winner"] = draw(st.sampled_from([battle["attacker"], battle["defender"]]))
        results.append(result)
    doc["results"] = draw(st.permutations(results))
    return doc


def comparable(answer: Doc) -> Doc:
    """The parts of an answer both implementations must agree on (messages and log left out)."""
    kept = {key: value for key, value in answer.items() if key != "log"}
    kept["rejected"] = [
        {"side": r["side"], "order": r["order"], "rule": r["rule"]} for r in answer["rejected"]
    ]
    return kept


@given(turns())
def test_engine_agrees_with_reference(doc: Doc) -> None:
    """Both give the same Friday list, rejections, new state, captures and winner."""
    text = json.dumps(doc)
    assert comparable(battles_answer(text)) == reference.battles_answer(doc)
    assert comparable(resolve_answer(text)) == reference.resolve_answer(doc)
