"""The Watches (module ``watch``) in words (MODULES.md W): the map's passages, hero moves as
typed orders read them back (``bot.texts.orders``), why the rules refuse one and what to do
instead, the heroes' positions and a side's hands, the battle list's moves and duels and the
Monday summary's wounds and kills.

Hero names reach these functions in the same mapping as the side names (hero ids ``h1``, …
never meet a side id ``s1``, …). Hands are shown only from :func:`rules.modules.watch.public_view`
for the side whose private chat it is: nothing here reads a hand from anything else.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.modules.watch.orders import hero_ids, side_heroes
from bot.modules.watch.setup import DeckInputProblem, HeroInputProblem, Names, deck_groups
from bot.modules.watch.typed import HEROES
from bot.texts.orders import LineProblem, ParsedLine, normalise, partial_matches
from bot.texts.sectors import sector_label
from rules import CampaignMap, ModuleOrder, TurnReport

if TYPE_CHECKING:
    from bot.services.orders import Desk


def _text(data: Mapping[str, JsonValue], key: str) -> str:
    value = data.get(key)
    return "" if value is None else str(value)


def _number(data: Mapping[str, JsonValue], key: str) -> int:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def _records(value: JsonValue) -> list[dict[str, JsonValue]]:
    return [item for item in value if isinstance(item, dict)] if isinstance(value, list) else []


def location_candidates(campaign_map: CampaignMap, word: str) -> list[str]:
    """The locations whose names ``word`` begins (or a word of them), in map order."""
    table = Names.build(campaign_map, []).sectors
    found = set(partial_matches(normalise(word), table))
    return [sector for sector in campaign_map.sector_ids() if sector in found]


def ambiguous_location(campaign_map: CampaignMap, word: str, language: str) -> str:
    """A typed location that begins the names of several: which of them."""
    candidates = ", ".join(
        sector_label(campaign_map, sector, language)
        for sector in location_candidates(campaign_map, word)
    )
    return _(
        "«{word}» could be any of these locations: {candidates}. Type more of the name."
    ).format(word=word, candidates=candidates)


def typed_problem(
    line: ParsedLine, desk: Desk, names: Mapping[str, str], language: str
) -> str | None:
    """A typed hero's move whose hero is none of the side's (its heroes listed), or whose place
    begins the names of several locations (which of them)."""
    match line.problem:
        case LineProblem.UNKNOWN_PIECE if line.piece == HEROES:
            own = [
                names.get(hero, hero)
                for hero in hero_ids(desk.state)
                if hero in side_heroes(desk.state, desk.side)
            ]
            return _("There is no hero «{word}». Your heroes: {heroes}.").format(
                word=line.word, heroes=", ".join(own) or _("none")
            )
        case LineProblem.AMBIGUOUS_LOCATION:
            return ambiguous_location(desk.game.map, line.word or "", language)
        case _:
            return None


MOST_PASSAGES_LISTED = 12
"""A map with more locations than this is not listed passage by passage (the picture shows it)."""


def passages(campaign_map: CampaignMap, language: str) -> str | None:
    """Where a hero can go from where, as the map's edges say, each passage once: the
    locations with the most neighbours first (night-demo: «Метро» — «Парикмахерская», «Кафе»,
    «Подъезд»; «Подъезд» — «Квартира Егора», «Крыша»); ``None`` for a map too big to list."""
    if len(campaign_map.sectors) > MOST_PASSAGES_LISTED:
        return None
    order = campaign_map.order
    ranked = sorted(
        campaign_map.sectors, key=lambda sector: (-len(sector.neighbours), order[sector.id])
    )
    said: set[frozenset[str]] = set()
    parts: list[str] = []
    for sector in ranked:
        onward = [
            other
            for other in sorted(sector.neighbours, key=order.__getitem__)
            if frozenset((sector.id, other)) not in said
        ]
        if not onward:
            continue
        said.update(frozenset((sector.id, other)) for other in onward)
        parts.append(
            _("{location} — {neighbours}").format(
                location=sector_label(campaign_map, sector.id, language),
                neighbours=", ".join(sector_label(campaign_map, o, language) for o in onward),
            )
        )
    return "; ".join(parts) if parts else None


def hero_name(names: Mapping[str, str], hero: str) -> str:
    """A hero's name (its id if the campaign does not know it)."""
    return names.get(hero, hero)


def describe_hero_move(
    order: ModuleOrder, campaign_map: CampaignMap, names: Mapping[str, str], language: str
) -> str:
    """A hero's move in words that read back as it (``герой Лариса в metro «Метро»``)."""
    data = order.data
    if data.get("order") == "hero_move":
        return _("hero {hero} to {sector}").format(
            hero=hero_name(names, _text(data, "hero")),
            sector=sector_label(campaign_map, _text(data, "to"), language),
        )
    return _("{module} order").format(module=order.module)


_REASONS: dict[str, Callable[[], str]] = {
    "unknown_hero": lambda: _(
        "There is no hero «{hero}» in this campaign: /hand lists your side's heroes."
    ),
    "not_your_hero": lambda: _(
        "{hero} is another side's hero: you move only your side's heroes (/hand lists them)."
    ),
    "hero_dead": lambda: _("{hero} has fallen and moves no more."),
    "hero_not_in_play": lambda: _(
        "{hero} enters the game on turn {enters_turn}: a hero moves from the turn it enters."
    ),
    "bad_order": lambda: _(
        "That is not an order of the Watches: give a hero's move as «hero Larisa to Metro»."
    ),
    "hero_move_not_adjacent": lambda: _(
        "{hero} moves one location a turn, only to a neighbouring one: {to} is not next to "
        "{sector}. Choose one of the locations the orders screen offers."
    ),
    "not_in_duel": lambda: _("{hero} is in no duel this turn."),
    "card_not_in_hand": lambda: _(
        "{hero} has no spell {card} in hand: play only the spells of the hand (/hand)."
    ),
    "target_not_in_sector": lambda: _(
        "A spell goes only to a hero in the same location: {target} is not in this duel."
    ),
    "not_your_step": lambda: _("It is not {hero}'s step yet: the steps go in initiative order."),
    "step_already_played": lambda: _("{hero} has already made this turn's step."),
}


def describe_watch_rejection(
    params: Mapping[str, str | int],
    campaign_map: CampaignMap,
    names: Mapping[str, str],
    language: str,
) -> str:
    """Why the Night Watch refused an order, from its ``params`` (``rule`` and what it names),
    with what to do instead."""
    rule = str(params.get("rule", ""))
    words = {key: str(value) for key, value in params.items()}
    words.setdefault("hero", "?")
    words.setdefault("enters_turn", "?")
    for key in ("hero", "target"):
        if key in words:
            words[key] = hero_name(names, words[key])
    for key in ("sector", "to", "from"):
        if key in words:
            words[key] = sector_label(campaign_map, words[key], language)
    words.setdefault("sector", "?")
    words.setdefault("to", "?")
    reason = _REASONS.get(rule)
    if reason is None:
        return _("This order is not part of this campaign's rules.")
    try:
        return reason().format(**words)
    except (KeyError, IndexError):
        return _("This order is not part of this campaign's rules.")


# ---- the setup wizard ------------------------------------------------------------------------


def duel_mode_words(mode: str) -> str:
    """How duels are fought, in words."""
    if mode == "sealed":
        return _("sealed: every hero's spells by one deadline, revealed together")
    return _("step by step in initiative order, each step posted when it closes")


def spell_code(card: str) -> str:
    """A spell as the GM types it in the deck: «A3», «D2» (Russian «А3», «З2»)."""
    kind, power = card[:1], card[1:]
    if kind == "A":
        return _("A{power}").format(power=power)
    if kind == "D":
        return _("D{power}").format(power=power)
    return card


def deck_words(deck: Sequence[str]) -> str:
    """A spell deck as the GM types it, copies counted: «A1 A2×2 A3×2 D1 D2×2»."""
    return " ".join(
        spell_code(card) if copies == 1 else f"{spell_code(card)}×{copies}"
        for card, copies in deck_groups(deck)
    )


def deck_input_help(problem: DeckInputProblem, word: str) -> str:
    """Why a typed spell deck cannot be used (naming the word at fault), and how to write it."""
    match problem:
        case DeckInputProblem.CARD:
            reason = _("«{word}» is not a spell.")
        case DeckInputProblem.COPIES:
            reason = _("«{word}»: write «×n» right after a spell, n from 1 to 200.")
        case DeckInputProblem.TOO_MANY:
            reason = _("A deck holds at most 200 spells; this one has {word}.")
        case _:
            reason = _("There are no spells in that deck.")
    return (
        reason.format(word=word)
        + " "
        + _(
            "Write the spells separated by spaces: A and the power (0 to 99) for an attack, "
            "D and the power for a defence, «×n» after a spell for n copies: «A1 A2 A2 A3×2 D1 "
            "D2×2 D3». «default» restores the standard deck."
        )
    )


def hero_input_help(
    line: int,
    problem: HeroInputProblem,
    word: str,
    campaign_map: CampaignMap | None = None,
    language: str = "en",
    sides: Sequence[str] | None = None,
) -> str:
    """Why a typed hero or NPC line cannot be used, and how to write it (a location that could
    be several is answered with them, from ``campaign_map``). ``sides``: the names of the sides
    in play when a GM adds a hero to a running campaign (the wizard's words otherwise)."""
    where = _("Line {line}: ").format(line=line) if line else ""
    if problem is HeroInputProblem.SECTOR_AMBIGUOUS and campaign_map is not None:
        return where + ambiguous_location(campaign_map, word, language)
    match problem:
        case HeroInputProblem.NAME:
            reason = _("a name is 1 to 64 characters.")
        case HeroInputProblem.SIDE if sides is not None:
            reason = _("there is no side «{word}» in play; a hero joins one of these: {sides}.")
        case HeroInputProblem.SIDE:
            reason = _("there is no side «{word}»; add the sides first, then the heroes.")
        case HeroInputProblem.INITIATIVE:
            reason = _("the initiative «{word}» is not a whole number from 0 to 99.")
        case HeroInputProblem.SECTOR:
            reason = _("there is no location «{word}» on this map.")
        case HeroInputProblem.TURN:
            reason = _("the turn a hero enters, «{word}», is not a number from 1 to 99.")
        case HeroInputProblem.TOO_MANY:
            reason = _("a campaign has at most 24 heroes.")
        case _:
            reason = _("the line does not have every part a hero needs.")
    if sides is not None:
        said = reason.format(word=word, sides=", ".join(f"«{side}»" for side in sides))
        return (
            said[:1].upper()
            + said[1:]
            + " "
            + _(
                "Write the hero on the first line: name, side, initiative, start location "
                "(and the turn it enters, if later), e.g. «Zavulon, Day Watch, 9, Entrance»; "
                "the reason for the group on the second."
            )
        )
    return (
        where
        + reason.format(word=word)
        + " "
        + _(
            "Write one hero a line: name, side, initiative, start location and, for a hero "
            "who comes later, the turn it enters: «Larisa, Day Watch, 2, Hairdresser» or "
            "«Zavulon, Day Watch, 9, Entrance, 3». For the NPC marker: name, start."
        )
    )


# ---- heroes and hands ------------------------------------------------------------------------


def wounds_words(wounds: int, to_kill: int) -> str:
    """A hero's wounds out of the wounds that kill."""
    return _("{n} wound of {kill}", "{n} wounds of {kill}", wounds).format(n=wounds, kill=to_kill)


def spell_words(card: str) -> str:
    """A spell in words: «A3» -> «attack 3», «D2» -> «defence 2»."""
    kind, power = card[:1], card[1:]
    if kind == "A":
        return _("attack {power}").format(power=power)
    if kind == "D":
        return _("defence {power}").format(power=power)
    return card


def hero_lines(
    view: JsonValue,
    campaign_map: CampaignMap,
    names: Mapping[str, str],
    language: str,
    to_kill: int,
    *,
    side: str | None = None,
    turn: int | None = None,
    played: Mapping[str, Sequence[str]] | None = None,
) -> list[str]:
    """The heroes of a module state as :func:`rules.modules.watch.public_view` gave it, one a
    line: where, wounds, and a hand where the view kept one (only ``side``'s, in its private
    chat) with the spells ``played`` this turn (hero -> cards); ``side`` set: that side's
    heroes only. Then the NPC marker."""
    data = view if isinstance(view, dict) else {}
    lines: list[str] = []
    for hero in _records(data.get("heroes")):
        if side is not None and hero.get("side") != side:
            continue
        name = hero_name(names, _text(hero, "id"))
        if hero.get("alive") is False:
            lines.append(
                _("✝ {hero} (side «{side}»): fallen").format(
                    hero=name, side=names.get(_text(hero, "side"), _text(hero, "side"))
                )
            )
            continue
        enters = _number(hero, "enters_turn")
        if turn is not None and enters > turn:
            lines.append(
                _("⏳ {hero} (side «{side}»): enters on turn {turn} in {sector}").format(
                    hero=name,
                    side=names.get(_text(hero, "side"), _text(hero, "side")),
                    turn=enters,
                    sector=sector_label(campaign_map, _text(hero, "sector"), language),
                )
            )
            continue
        line = _("🧙 {hero} (side «{side}», initiative {initiative}): {sector}, {wounds}").format(
            hero=name,
            side=names.get(_text(hero, "side"), _text(hero, "side")),
            initiative=_number(hero, "initiative"),
            sector=sector_label(campaign_map, _text(hero, "sector"), language),
            wounds=wounds_words(_number(hero, "wounds"), to_kill),
        )
        hand = hero.get("hand")
        if isinstance(hand, list):
            cards = ", ".join(spell_words(str(card)) for card in hand) or _("no spells")
            line += "\n    " + _("hand: {cards}").format(cards=cards)
            spent = (played or {}).get(_text(hero, "id"), ())
            if spent:
                line += "\n    " + _("played this turn: {cards}").format(
                    cards=", ".join(spell_words(str(card)) for card in spent)
                )
        lines.append(line)
    npc = data.get("npc")
    if isinstance(npc, dict):
        lines.append(
            _("👤 {name}: {sector}").format(
                name=_text(npc, "name"),
                sector=sector_label(campaign_map, _text(npc, "sector"), language),
            )
        )
    return lines


def hand_text(
    view: JsonValue,
    campaign_map: CampaignMap,
    names: Mapping[str, str],
    language: str,
    to_kill: int,
    side: str,
    turn: int,
    *,
    played: Mapping[str, Sequence[str]] | None = None,
) -> str:
    """The private /hand screen: the side's heroes and their hands (from the side's view), with
    the spells ``played`` in closed duel steps this turn."""
    lines = hero_lines(
        view, campaign_map, names, language, to_kill, side=side, turn=turn, played=played
    )
    head = _("Secret: the heroes of side «{side}» and their spells, turn {turn}.").format(
        side=names.get(side, side), turn=turn
    )
    if not lines:
        return head + "\n" + _("Your side has no heroes in this campaign.")
    return "\n".join([head, *lines])


# ---- the battle list and the Monday summary --------------------------------------------------


def describe_watch_plan(
    data: JsonValue, campaign_map: CampaignMap, names: Mapping[str, str], language: str
) -> list[str]:
    """The battle list's Night Watch part: the NPC marker, the hero moves in initiative order,
    the positions and the duels with their step order."""
    plan = data if isinstance(data, dict) else {}
    lines: list[str] = []
    npc = plan.get("npc")
    if isinstance(npc, str):
        lines.append(
            _("👤 The NPC marker stands in {sector}.").format(
                sector=sector_label(campaign_map, npc, language)
            )
        )
    moves = _records(plan.get("moves"))
    if moves:
        lines.append(_("Hero moves, in initiative order:"))
        for number, move in enumerate(moves, start=1):
            lines.append(
                _("{number}. {hero}: {source} → {to}").format(
                    number=number,
                    hero=hero_name(names, _text(move, "hero")),
                    source=sector_label(campaign_map, _text(move, "from"), language),
                    to=sector_label(campaign_map, _text(move, "to"), language),
                )
            )
    positions = plan.get("positions")
    if isinstance(positions, dict) and positions:
        where = [
            _("{hero} in {sector}").format(
                hero=hero_name(names, hero), sector=sector_label(campaign_map, str(s), language)
            )
            for hero, s in positions.items()
        ]
        lines.append(_("Heroes: {where}.").format(where="; ".join(where)))
    duels = _records(plan.get("duels"))
    for duel in duels:
        steps = duel.get("steps")
        order = [hero_name(names, str(h)) for h in steps] if isinstance(steps, list) else []
        lines.append(
            _("⚡ Duel in {sector}; steps: {steps}.").format(
                sector=sector_label(campaign_map, _text(duel, "sector"), language),
                steps=", ".join(order),
            )
        )
    if positions and not duels:
        lines.append(_("No duels this turn: no location holds heroes of two sides."))
    return lines


def _played_power(card: str, power: int) -> str:
    """A played spell as it counted: «attack 3», or «attack 3 (GM's −1: counts 2)»."""
    printed = card[1:]
    if not printed.isdigit() or int(printed) == power:
        return spell_words(card)
    return _("{spell} (GM's −{n}: counts {power})").format(
        spell=spell_words(card), n=int(printed) - power, power=power
    )


def describe_watch_report(
    data: JsonValue, campaign_map: CampaignMap, names: Mapping[str, str], language: str
) -> list[str]:
    """The Monday summary's Night Watch part: the spells played, wounds and the fallen."""
    report = data if isinstance(data, dict) else {}
    lines: list[str] = []
    for step in _records(report.get("steps")):
        plays = _records(step.get("plays"))
        played = [
            _("{spell} on {target}").format(
                spell=_played_power(_text(play, "card"), _number(play, "power")),
                target=hero_name(names, _text(play, "target")),
            )
            for play in plays
        ]
        lines.append(
            _("🪄 {hero}: {played}").format(
                hero=hero_name(names, _text(step, "hero")),
                played="; ".join(played) or _("no spell"),
            )
        )
    wounds = report.get("wounds")
    if isinstance(wounds, dict):
        for hero, added in wounds.items():
            if isinstance(added, int) and added > 0:
                lines.append(
                    _("🩸 {hero}: +{n} wound", "🩸 {hero}: +{n} wounds", added).format(
                        hero=hero_name(names, hero), n=added
                    )
                )
    killed = report.get("killed")
    if isinstance(killed, list):
        for fallen in killed:
            lines.append(_("✝ {hero} has fallen.").format(hero=hero_name(names, str(fallen))))
    return lines


def summary_lines(
    data: JsonValue,
    report: TurnReport,
    campaign_map: CampaignMap,
    names: Mapping[str, str],
    language: str,
) -> list[str]:
    """The Monday summary's Night Watch part and its hero victory."""
    lines = describe_watch_report(data, campaign_map, names, language)
    if report.victory == "watch_heroes" and report.winner is not None:
        lines.append(
            _("🏆 Side «{side}» has the only living heroes: the campaign is over.").format(
                side=names.get(report.winner, report.winner)
            )
        )
    return lines


def entering_lines(
    view: JsonValue, campaign_map: CampaignMap, names: Mapping[str, str], language: str, turn: int
) -> list[str]:
    """The orders-open post's Night Watch part: heroes entering this turn and the NPC marker."""
    data = view if isinstance(view, dict) else {}
    lines = [
        _("🧙 {hero} (side «{side}») enters the game in {sector}.").format(
            hero=hero_name(names, _text(hero, "id")),
            side=names.get(_text(hero, "side"), _text(hero, "side")),
            sector=sector_label(campaign_map, _text(hero, "sector"), language),
        )
        for hero in _records(data.get("heroes"))
        if _number(hero, "enters_turn") == turn and turn > 1 and hero.get("alive") is not False
    ]
    npc = data.get("npc")
    if isinstance(npc, dict):
        lines.append(
            _("👤 {name} is in {sector}.").format(
                name=_text(npc, "name"),
                sector=sector_label(campaign_map, _text(npc, "sector"), language),
            )
        )
    return lines


def hero_names(view: JsonValue) -> dict[str, str]:
    """Hero id -> name, from a module state (any view of it)."""
    data = view if isinstance(view, dict) else {}
    return {_text(h, "id"): _text(h, "name") for h in _records(data.get("heroes"))}


def settings_hero_names(heroes: Sequence[Mapping[str, JsonValue]]) -> dict[str, str]:
    """Hero id -> name, from the GM's settings."""
    return {_text(h, "id"): _text(h, "name") for h in heroes}
