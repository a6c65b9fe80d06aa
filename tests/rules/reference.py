"""A second, deliberately simple adjudicator of one campaign turn, for differential tests.

Written only from `../shared/RULES.md` (sections 3.2-3.4, Appendix A) and `docs/rules.md`,
without looking at `rules/`. It takes a well-formed turn document (a dict) and returns the
answer of `battles` or `resolve` as a dict, without the `log`. It does not check that the
document is well formed: that is the engine's job, and the tests only give it good ones.
"""

from __future__ import annotations

from typing import Any

Doc = dict[str, Any]

PLANET_5: dict[str, list[str]] = {
    "1": ["2", "3", "4", "5"],
    "2": ["1", "3", "4", "5"],
    "3": ["1", "2", "4", "5"],
    "4": ["1", "2", "3"],
    "5": ["1", "2", "3"],
}

DEFAULT_LOSSES = {"draw": 0, "bloody_draw": 1, "solid": 1, "crushing": 2, "slaughter": 3}
DRAWS = ("draw", "bloody_draw")


def ruleset(doc: Doc) -> dict[str, Any]:
    """The defaults of RULES.md with the document's overrides applied."""
    overrides = doc.get("ruleset", {})
    losses = dict(DEFAULT_LOSSES)
    losses.update(overrides.get("losses", {}))
    return {
        "armies_per_attack": overrides.get("armies_per_attack", 3),
        "capture_min_armies": overrides.get("capture_min_armies", 3),
        "sectors_to_win": overrides.get("sectors_to_win", 3),
        "losses": losses,
    }


def map_of(doc: Doc) -> tuple[list[str], dict[str, list[str]]]:
    """Sector ids in map order and each sector's neighbours."""
    given = doc["map"]
    if given == "planet-5":
        return list(PLANET_5), PLANET_5
    order = [sector["id"] for sector in given["sectors"]]
    return order, {sector["id"]: list(sector["neighbours"]) for sector in given["sectors"]}


def sector_key(sector: str) -> tuple[int, int, str]:
    """The "lowest sector id" order of docs/rules.md: numbers as numbers, before text ids."""
    if sector.isascii() and sector.isdigit():
        return (0, int(sector), sector)
    return (1, 0, sector)


def ceil_div(a: int, b: int) -> int:
    """The smallest integer not below a / b."""
    return -(-a // b)


def foc(armies: int) -> dict[str, Any]:
    """The default force organisation row for a participant's army count (RULES.md 3.3)."""
    if armies <= 1:
        return {
            "hq": 1,
            "troops": [2, 6],
            "elite": 1,
            "fast_attack": 1,
            "heavy_support": 1,
            "elite_fa_hs_total": 1,
        }
    hq, other = {2: (1, 1), 3: (1, 2), 4: (2, 2)}.get(armies, (2, 3))
    return {
        "hq": hq,
        "troops": [2, 6],
        "elite": other,
        "fast_attack": other,
        "heavy_support": other,
    }


def start_armies(doc: Doc) -> dict[str, dict[str, int]]:
    """Turn-start armies of the sides in play (in state order), without zero counts."""
    armies: dict[str, dict[str, int]] = {}
    for side, counts in doc["state"]["armies"].items():
        kept = {sector: n for sector, n in counts.items() if n > 0}
        if kept:
            armies[side] = kept
    return armies


def check_orders(doc: Doc) -> tuple[list[Doc], dict[str, list[Doc]], dict[str, list[Doc]]]:
    """The rejected orders in answer order, then the accepted moves and attacks per side."""
    _, neighbours = map_of(doc)
    rules = ruleset(doc)
    start = start_armies(doc)
    all_orders: dict[str, Doc] = doc.get("orders", {})
    rejected: list[Doc] = []
    moves: dict[str, list[Doc]] = {side: [] for side in start}
    attacks: dict[str, list[Doc]] = {side: [] for side in start}

    def reject(side: str, given: Doc, rule: str) -> None:
        rejected.append({"side": side, "order": given, "rule": rule})

    for side in start:
        mine = start[side]
        side_orders = all_orders.get(side, {})
        for move in side_orders.get("moves", []):
            source, target, count = move["from"], move["to"], move["count"]
            if source not in neighbours:
                reject(side, move, "unknown_sector")
            elif source not in mine:
                reject(side, move, "no_armies_in_sector")
            elif any(m["from"] == source for m in moves[side]):
                reject(side, move, "second_move_from_sector")
            elif target == source:
                reject(side, move, "move_to_same_sector")
            elif target not in neighbours:
                reject(side, move, "unknown_sector")
            elif target not in neighbours[source]:
                reject(side, move, "move_not_adjacent")
            elif not 1 <= count <= mine[source] - 1:
                reject(side, move, "move_count_out_of_range")
            else:
                moves[side].append(move)
        for attack in side_orders.get("attacks", []):
            sector, target = attack["sector"], attack["target"]
            if sector not in neighbours:
                reject(side, attack, "unknown_sector")
            elif sector not in mine:
                reject(side, attack, "no_armies_in_sector")
            elif target == side:
                reject(side, attack, "attack_own_side")
            elif target not in start:
                reject(side, attack, "unknown_side")
            elif sector not in start[target]:
                reject(side, attack, "attack_without_opponent")
            elif any(m["from"] == sector for m in moves[side]):
                reject(side, attack, "move_and_attack_in_sector")
            elif sum(a["sector"] == sector for a in attacks[side]) >= ceil_div(
                mine[sector], rules["armies_per_attack"]
            ):
                reject(side, attack, "attack_limit_exceeded")
            else:
                attacks[side].append(attack)
    for side, side_orders in all_orders.items():
        if side in start:
            continue
        for given in [*side_orders.get("moves", []), *side_orders.get("attacks", [])]:
            reject(side, given, "side_not_in_play")
    return rejected, moves, attacks


def staying(start: dict[str, dict[str, int]], moves: dict[str, list[Doc]]) -> dict[str, Any]:
    """Each side's armies per sector that do not move out this turn."""
    stay = {side: dict(counts) for side, counts in start.items()}
    for side, side_moves in moves.items():
        for move in side_moves:
            stay[side][move["from"]] -= move["count"]
    return stay


def battle_list(doc: Doc) -> tuple[list[Doc], dict[str, list[Doc]], dict[str, list[Doc]]]:
    """The numbered battles (RULES.md 3.3, Appendix A) with the accepted moves and attacks."""
    order, _ = map_of(doc)
    start = start_armies(doc)
    _, moves, attacks = check_orders(doc)
    stay = staying(start, moves)

    def fortified(side: str, sector: str) -> bool:
        moved = any(m["from"] == sector for m in moves[side])
        attacked = any(a["sector"] == sector for a in attacks[side])
        return sector in start[side] and not moved and not attacked

    battles: list[Doc] = []
    for sector in order:
        for side in start:
            for attack in attacks[side]:
                if attack["sector"] != sector:
                    continue
                defender = attack["target"]
                counts = {side: stay[side][sector], defender: stay[defender][sector]}
                battles.append(
                    {
                        "id": len(battles) + 1,
                        "sector": sector,
                        "attacker": side,
                        "defender": defender,
                        "armies": counts,
                        "fortified": defender if fortified(defender, sector) else None,
                        "foc": {who: foc(n) for who, n in counts.items()},
                    }
                )
    return battles, moves, attacks


def battles_answer(doc: Doc) -> Doc:
    """The answer of `python -m rules battles`."""
    rejected, _, _ = check_orders(doc)
    battles, _, _ = battle_list(doc)
    return {"rejected": rejected, "battles": battles}


def resolve_answer(doc: Doc) -> Doc:
    """The answer of `python -m rules resolve`, without its log (RULES.md 3.4)."""
    order, _ = map_of(doc)
    rules = ruleset(doc)
    start = start_armies(doc)
    rejected, _, _ = check_orders(doc)
    battles, moves, _ = battle_list(doc)
    stay = staying(start, moves)

    # 1. Losses, summed per side and sector, hit the staying armies, never below 0.
    results = {r["battle"]: r for r in doc.get("results", [])}
    loss: dict[tuple[str, str], int] = {}
    for battle in battles:
        result = results.get(battle["id"])
        if result is None:
            continue  # unreported: "a draw without losses" (RULES.md 3.4), whatever losses.draw
        amount = rules["losses"][result["outcome"]]
        if result["outcome"] in DRAWS:
            losers = [battle["attacker"], battle["defender"]]
        else:
            losers = [b for b in (battle["attacker"], battle["defender"]) if b != result["winner"]]
        for side in losers:
            key = (side, battle["sector"])
            loss[key] = loss.get(key, 0) + amount
    for (side, sector), amount in loss.items():
        stay[side][sector] = max(0, stay[side][sector] - amount)

    # 2. Arrivals.
    armies = {side: dict(counts) for side, counts in stay.items()}
    for side, side_moves in moves.items():
        for move in side_moves:
            armies[side][move["to"]] = armies[side].get(move["to"], 0) + move["count"]

    # 3. Capture: at least capture_min_armies and no opponent there.
    captured: dict[str, list[str]] = {side: [] for side in start}
    for sector in order:
        present = [side for side in start if armies[side].get(sector, 0) > 0]
        if len(present) == 1 and armies[present[0]][sector] >= rules["capture_min_armies"]:
            captured[present[0]].append(sector)

    # 4. Replenishment: only armies that did not move count.
    for sector in order:
        holders = [side for side in start if stay[side].get(sector, 0) > 0]
        if len(holders) == 1:
            armies[holders[0]][sector] += 1

    # 5. Orbital reinforcement for every side still on the map.
    on_map = [side for side in start if sum(armies[side].values()) > 0]
    for side in on_map:
        declared = doc.get("orders", {}).get(side, {}).get("reinforce")
        if declared in start[side] and armies[side].get(declared, 0) > 0:
            armies[side][declared] += 1
        else:
            held = [s for s, n in armies[side].items() if n > 0]
            smallest = min(held, key=lambda s: (armies[side][s], sector_key(s)))
            armies[side][smallest] += 1

    # 6. Victory: sectors first, ties broken by captured count, then armies; then early.
    totals = {side: sum(armies[side].values()) for side in start}
    winner = None
    reached = [side for side in start if len(captured[side]) >= rules["sectors_to_win"]]
    if reached:
        best = max((len(captured[s]), totals[s]) for s in reached)
        top = [s for s in reached if (len(captured[s]), totals[s]) == best]
        if len(top) == 1:
            winner = top[0]
    alive = [side for side in start if totals[side] > 0]
    if winner is None and len(start) > 1 and len(alive) == 1:
        winner = alive[0]

    state = {
        side: {sector: n for sector, n in armies[side].items() if n > 0}
        for side in start
        if totals[side] > 0
    }
    return {
        "rejected": rejected,
        "battles": battles,
        "state": {"turn": doc["state"]["turn"] + 1, "armies": state},
        "captured": captured,
        "winner": winner,
    }
