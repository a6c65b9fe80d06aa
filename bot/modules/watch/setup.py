"""The GM's Night Watch settings in the setup wizard (MODULES.md W1, W3): switching the module
on, the heroes (name, side, initiative, start location, the turn a hero enters), the NPC
marker, the duel mode and the hours of a duel step; the heroes' victory, the wounds that kill,
the spells in hand and the spell deck.

Settings live in the campaign's ruleset overrides (``modules`` and ``module_settings.watch``)
as every module's do; :func:`bot.services.setup_map.problem` checks them against the
map, so a campaign never stores settings its game cannot be built from. Heroes get the ids
``h01``, ``h02``, … in the order the GM lists them (names are the GM's and may repeat letters of
any alphabet), so heroes of equal initiative, ordered by id (W1), step in that order; a list
stored with the older ``h1``, ``h2``, … keeps them. A side's id is the campaign's own (``s1``,
…), so the bot checks the sides itself.
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Any

from bot.services import module_settings
from bot.texts.orders import normalise, partial_matches
from rules import CampaignMap
from rules.modules.watch import DEFAULT_SPELL_DECK, WatchSettings
from rules.modules.watch import NAME as WATCH
from rules.modules.watch.settings import MAX_DECK, MAX_HAND, MAX_WOUNDS
from storage.names import clean_name

MAX_HEROES = 24
MAX_HERO_NAME = 64
MAX_INITIATIVE = 99
MAX_ENTERS_TURN = 99
DEMO_MAP = "night-demo"
STEP_HOURS = (1, 2, 3, 4, 6, 8, 12, 24, 48, 72)
"""The hours of a duel step the −/+ buttons go through."""


def is_on(overrides: Mapping[str, Any]) -> bool:
    """Whether ``watch`` is enabled in these overrides."""
    return WATCH in (overrides.get("modules") or ())


def settings(overrides: Mapping[str, Any]) -> dict[str, Any]:
    """The watch settings as stored (only what differs from the defaults)."""
    return dict((overrides.get("module_settings") or {}).get(WATCH) or {})


def effective(overrides: Mapping[str, Any]) -> WatchSettings:
    """The watch settings in force (defaults filled in)."""
    return WatchSettings.model_validate(settings(overrides))


def _with_settings(overrides: Mapping[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    return module_settings.with_settings(overrides, WATCH, new)


def switched(overrides: Mapping[str, Any], on: bool) -> dict[str, Any]:
    """The overrides with watch switched on or off (its settings kept for switching back)."""
    return module_settings.switched(overrides, WATCH, on)


def heroes(overrides: Mapping[str, Any]) -> list[dict[str, Any]]:
    """The GM's heroes as stored, in the order they were listed."""
    return [dict(hero) for hero in settings(overrides).get("heroes") or ()]


_PADDED_ID = re.compile(r"h(\d{2})")
_LEGACY_ID = re.compile(r"h(\d+)")


def next_hero_id(taken: set[str]) -> str:
    """A new hero's id, after every id taken: ``h01``, ``h02``, …, so that heroes of equal
    initiative, ordered by id (W1), keep the order the GM listed them in. A list stored with
    the older ids ``h1``, ``h2``, … goes on with those (its order stays as it was); past
    ``h99`` the first free number is used."""
    padded = all(_PADDED_ID.fullmatch(hero) for hero in taken)
    numbers = [int(m.group(1)) for m in map(_LEGACY_ID.fullmatch, taken) if m is not None]
    after = max(numbers, default=0) + 1
    free = (n for n in [after, *range(1, 100)] if n <= 99 or not padded)
    for number in free:
        candidate = f"h{number:02d}" if padded else f"h{number}"
        if candidate not in taken:
            return candidate
    raise ValueError("no hero id left")  # more than 99 heroes are never listed (MAX_HEROES)


class HeroInputProblem(StrEnum):
    """Why a typed hero line cannot be used."""

    SHAPE = "shape"
    NAME = "name"
    NAME_TAKEN = "name_taken"
    SIDE = "side"
    INITIATIVE = "initiative"
    SECTOR = "sector"
    SECTOR_AMBIGUOUS = "sector_ambiguous"  # the word begins the names of several locations
    TURN = "turn"
    TOO_MANY = "too_many"


class HeroInputError(ValueError):
    """A typed hero or NPC list that cannot be used: the first bad line (1-based) and why."""

    def __init__(self, line: int, problem: HeroInputProblem, word: str = "") -> None:
        super().__init__(f"line {line}: {problem}")
        self.line = line
        self.problem = problem
        self.word = word


@dataclass(frozen=True)
class Names:
    """What a GM may call sides and locations in a typed line: normalised name -> id."""

    sides: Mapping[str, str]
    sectors: Mapping[str, str]

    @classmethod
    def build(cls, campaign_map: CampaignMap, sides: Sequence[tuple[str, str]]) -> Names:
        """Side ids and names; sector ids, names in every language and "id name" labels."""
        sectors: dict[str, str] = {}
        for sector in campaign_map.sectors:
            spelled = [sector.name, *sector.names.values()]
            for name in (sector.id, *spelled, *(f"{sector.id} {n}" for n in spelled)):
                sectors.setdefault(normalise(name), sector.id)
        side_names: dict[str, str] = {}
        for side_id, name in sides:
            side_names.setdefault(normalise(name), side_id)
            side_names.setdefault(normalise(side_id), side_id)
        return cls(sides=side_names, sectors=sectors)

    def location(self, typed: str, line: int) -> str:
        """The location ``typed`` names: a name, or an unambiguous beginning of a name or of
        one of its words («Квартира» for «Квартира Егора»); :class:`HeroInputError` at
        ``line`` if none or several."""
        return _location(self, typed, line)


def _location(names: Names, typed: str, line: int) -> str:
    found = names.sectors.get(normalise(typed))
    if found is not None:
        return found
    matches = partial_matches(normalise(typed), names.sectors)
    if len(matches) == 1:
        return matches[0]
    problem = HeroInputProblem.SECTOR_AMBIGUOUS if matches else HeroInputProblem.SECTOR
    raise HeroInputError(line, problem, typed[:32])


def _parts(line: str) -> list[str]:
    separator = ";" if ";" in line else ","
    return [part.strip() for part in line.split(separator)]


def _number(text: str, low: int, high: int) -> int | None:
    try:
        value = int(text)
    except ValueError:
        return None
    return value if low <= value <= high else None


def parse_heroes(text: str, names: Names) -> list[dict[str, Any]]:
    """Typed heroes, one a line: ``name, side, initiative, start[, turn it enters]`` (``;``
    also separates). Raises :class:`HeroInputError` at the first line that cannot be used."""
    found: list[dict[str, Any]] = []
    lines = [line for line in text.splitlines() if line.strip()]
    if not lines:
        raise HeroInputError(0, HeroInputProblem.SHAPE)
    for number, line in enumerate(lines, start=1):
        parts = _parts(line)
        if len(parts) not in (4, 5):
            raise HeroInputError(number, HeroInputProblem.SHAPE)
        name = clean_name(parts[0])
        if not name or len(name) > MAX_HERO_NAME:
            raise HeroInputError(number, HeroInputProblem.NAME, parts[0][:32])
        side = names.sides.get(normalise(parts[1]))
        if side is None:
            raise HeroInputError(number, HeroInputProblem.SIDE, parts[1][:32])
        initiative = _number(parts[2], 0, MAX_INITIATIVE)
        if initiative is None:
            raise HeroInputError(number, HeroInputProblem.INITIATIVE, parts[2][:32])
        start = names.location(parts[3], number)
        hero: dict[str, Any] = {"name": name, "side": side, "initiative": initiative}
        hero["start"] = start
        if len(parts) == 5:
            turn = _number(parts[4], 1, MAX_ENTERS_TURN)
            if turn is None:
                raise HeroInputError(number, HeroInputProblem.TURN, parts[4][:32])
            if turn > 1:
                hero["enters_turn"] = turn
        found.append(hero)
    return found


def with_heroes(overrides: Mapping[str, Any], added: Sequence[dict[str, Any]]) -> dict[str, Any]:
    """The overrides with ``added`` heroes after the GM's others (a hero of the same name is
    replaced in place: typing a hero again corrects it)."""
    new = settings(overrides)
    listed = heroes(overrides)
    for number, hero in enumerate(added, start=1):
        key = normalise(hero["name"])
        same = next((i for i, old in enumerate(listed) if normalise(old["name"]) == key), None)
        if same is not None:
            listed[same] = {"id": listed[same]["id"], **hero}
            continue
        if len(listed) >= MAX_HEROES:
            raise HeroInputError(number, HeroInputProblem.TOO_MANY)
        listed.append({"id": next_hero_id({h["id"] for h in listed}), **hero})
    new["heroes"] = listed
    return _with_settings(overrides, new)


def without_hero(overrides: Mapping[str, Any], hero_id: str) -> dict[str, Any] | None:
    """The overrides without hero ``hero_id``; ``None`` if there is no such hero."""
    listed = heroes(overrides)
    kept = [hero for hero in listed if hero["id"] != hero_id]
    if len(kept) == len(listed):
        return None
    new = settings(overrides)
    if kept:
        new["heroes"] = kept
    else:
        new.pop("heroes", None)
    return _with_settings(overrides, new)


def with_initiative(
    overrides: Mapping[str, Any], hero_id: str, change: int
) -> dict[str, Any] | None:
    """The overrides with hero ``hero_id``'s initiative changed by ``change`` (0 to 99)."""
    listed = heroes(overrides)
    hero = next((h for h in listed if h["id"] == hero_id), None)
    if hero is None:
        return None
    hero["initiative"] = max(0, min(MAX_INITIATIVE, int(hero["initiative"]) + change))
    new = settings(overrides)
    new["heroes"] = listed
    return _with_settings(overrides, new)


def parse_npc(text: str, names: Names) -> dict[str, Any] | None:
    """A typed NPC marker ``name, start`` (``-``: no marker). Raises :class:`HeroInputError`."""
    if text.strip() in ("-", "—", "–"):
        return None
    parts = _parts(text.strip())
    if len(parts) != 2:
        raise HeroInputError(1, HeroInputProblem.SHAPE)
    name = clean_name(parts[0])
    if not name or len(name) > MAX_HERO_NAME:
        raise HeroInputError(1, HeroInputProblem.NAME, parts[0][:32])
    start = names.location(parts[1], 1)
    return {"name": name, "start": start}


def with_npc(overrides: Mapping[str, Any], npc: dict[str, Any] | None) -> dict[str, Any]:
    """The overrides with the NPC marker ``npc`` (``None``: none)."""
    new = settings(overrides)
    if npc is None:
        new.pop("npc", None)
    else:
        new["npc"] = npc
    return _with_settings(overrides, new)


def with_duel_mode(overrides: Mapping[str, Any], mode: str) -> dict[str, Any] | None:
    """The overrides with duels fought step by step (``initiative``) or sealed (``sealed``)."""
    if mode not in ("initiative", "sealed"):
        return None
    new = settings(overrides)
    if mode == WatchSettings().duel_mode:
        new.pop("duel_mode", None)
    else:
        new["duel_mode"] = mode
    return _with_settings(overrides, new)


def with_step_hours(overrides: Mapping[str, Any], direction: int) -> dict[str, Any]:
    """The overrides with a duel step's hours one notch up or down :data:`STEP_HOURS`."""
    now = effective(overrides).duel_step_hours
    lower = [hours for hours in STEP_HOURS if hours < now]
    higher = [hours for hours in STEP_HOURS if hours > now]
    wanted = (lower[-1] if lower else now) if direction < 0 else (higher[0] if higher else now)
    new = settings(overrides)
    if wanted == WatchSettings().duel_step_hours:
        new.pop("duel_step_hours", None)
    else:
        new["duel_step_hours"] = wanted
    return _with_settings(overrides, new)


def fitted(
    overrides: Mapping[str, Any], new_map: CampaignMap, sides: Sequence[str]
) -> dict[str, Any]:
    """The overrides for a campaign whose map becomes ``new_map`` or whose sides are ``sides``:
    heroes of a side that is gone, or starting off the map, are dropped, and so is an NPC
    marker off the map, so the watch settings always fit."""
    new = settings(overrides)
    if not new.get("heroes") and not new.get("npc"):
        return dict(overrides)
    sectors = set(new_map.sector_ids())
    kept = [
        hero
        for hero in new.get("heroes") or ()
        if hero.get("side") in sides and hero.get("start") in sectors
    ]
    if kept:
        new["heroes"] = kept
    else:
        new.pop("heroes", None)
    npc = new.get("npc")
    if isinstance(npc, dict) and npc.get("start") not in sectors:
        new.pop("npc", None)
    return _with_settings(overrides, new)


# ---- hero victory, wounds, hands and the spell deck (issue 19) ---------------------------------


def _with_value(overrides: Mapping[str, Any], key: str, value: Any) -> dict[str, Any]:
    """The overrides with setting ``key`` at ``value``: stored only when it is not the default."""
    new = settings(overrides)
    if value == getattr(WatchSettings(), key):
        new.pop(key, None)
    else:
        new[key] = value
    return _with_settings(overrides, new)


def with_hero_victory(overrides: Mapping[str, Any], on: bool) -> dict[str, Any]:
    """The overrides with the heroes' victory (W7) on or off."""
    return _with_value(overrides, "hero_victory", on)


def with_wounds_to_kill(overrides: Mapping[str, Any], change: int) -> dict[str, Any]:
    """The overrides with the wounds that kill a hero changed by ``change`` (1 to 99)."""
    now = effective(overrides).wounds_to_kill
    return _with_value(overrides, "wounds_to_kill", max(1, min(MAX_WOUNDS, now + change)))


def with_hand_size(overrides: Mapping[str, Any], change: int) -> dict[str, Any]:
    """The overrides with the spells a hero holds changed by ``change`` (0 to 6)."""
    now = effective(overrides).hand_size
    return _with_value(overrides, "hand_size", max(0, min(MAX_HAND, now + change)))


class DeckInputProblem(StrEnum):
    """Why a typed spell deck cannot be used."""

    EMPTY = "empty"
    CARD = "card"  # a word that is not a spell (or a power over 99)
    COPIES = "copies"  # «×n» with no card before it, or n not 1-200
    TOO_MANY = "too_many"


class DeckInputError(ValueError):
    """A typed spell deck that cannot be used: why, and the word (or the count) at fault."""

    def __init__(self, problem: DeckInputProblem, word: str = "") -> None:
        super().__init__(f"{problem}: {word}")
        self.problem = problem
        self.word = word


DECK_DEFAULT_WORDS = ("default", "standard", "по умолчанию", "стандарт", "стандартная", "-", "—")
"""What a GM types for the standard deck."""
_KINDS = {
    "a": "A",
    "а": "A",  # Cyrillic
    "attack": "A",
    "атака": "A",
    "d": "D",
    "з": "D",
    "defence": "D",
    "defense": "D",
    "защита": "D",
}
MAX_POWER = 99
"""The highest power of a spell (``rules.modules.watch.settings.CARD``)."""
_SPELL = re.compile(r"^(?P<kind>[^\W\d_]+)-?(?P<power>\d{1,3})(?:[x×х*](?P<copies>\d{1,3}))?$")
_COPIES = re.compile(r"^[×*](?P<copies>\d{1,3})$")
"""Copies as a word of their own: «×2» (not «x2», which reads as a card «X2»)."""


def _card_order(card: str) -> tuple[str, int]:
    return card[0], int(card[1:])


def parse_deck(text: str) -> tuple[str, ...] | None:
    """A typed spell deck: cards separated by spaces or commas, ``A<power>``/``D<power>`` (also
    «А3», «З2», «Атака-3», «attack-3»), ``×n`` after a card (``A2x3``, or ``A2 ×3``) for n
    copies; ``None`` for the standard deck (:data:`DECK_DEFAULT_WORDS`). The cards come back
    in deck order (attacks, then defences, by power), so a deck typed in another order is the
    same deck. Raises :class:`DeckInputError` at the first word that cannot be used."""
    if text.strip().lower() in DECK_DEFAULT_WORDS:
        return None
    cards: list[str] = []
    for word in re.split(r"[\s,;]+", text.strip()):
        if not word:
            continue
        lowered = word.lower()
        more = _COPIES.fullmatch(lowered)
        if more is not None:
            copies = int(more["copies"])
            if not cards or not 1 <= copies <= MAX_DECK:
                raise DeckInputError(DeckInputProblem.COPIES, word[:16])
            cards += [cards[-1]] * (copies - 1)
        else:
            spell = _SPELL.fullmatch(lowered)
            kind = _KINDS.get(spell["kind"]) if spell is not None else None
            if spell is None or kind is None or int(spell["power"]) > MAX_POWER:
                raise DeckInputError(DeckInputProblem.CARD, word[:16])
            copies = int(spell["copies"] or 1)
            if not 1 <= copies <= MAX_DECK:
                raise DeckInputError(DeckInputProblem.COPIES, word[:16])
            cards += [f"{kind}{int(spell['power'])}"] * copies
        if len(cards) > MAX_DECK:
            raise DeckInputError(DeckInputProblem.TOO_MANY, str(len(cards)))
    if not cards:
        raise DeckInputError(DeckInputProblem.EMPTY)
    return tuple(sorted(cards, key=_card_order))


def with_spell_deck(overrides: Mapping[str, Any], deck: Sequence[str] | None) -> dict[str, Any]:
    """The overrides with the spell deck ``deck`` (``None``: the standard one)."""
    chosen = tuple(sorted(deck, key=_card_order)) if deck is not None else DEFAULT_SPELL_DECK
    new = settings(overrides)
    if chosen == DEFAULT_SPELL_DECK:
        new.pop("spell_deck", None)
    else:
        new["spell_deck"] = list(chosen)
    return _with_settings(overrides, new)


def deck_groups(deck: Sequence[str]) -> list[tuple[str, int]]:
    """The deck as (card, copies) in deck order: «A2 A2 A3» -> [("A2", 2), ("A3", 1)]."""
    counted = Counter(deck)
    return [(card, counted[card]) for card in sorted(counted, key=_card_order)]
