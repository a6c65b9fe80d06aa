"""What a map picture shows, as data: :class:`MapView` and its parts (the sides, their orders,
the week's moves and battles, rule modules' marks, dials and named figures), the words drawn
(:class:`MapLabels`), and the helpers that make a view (:func:`week_of`, :func:`held_sectors`,
:func:`side_tags`, :func:`default_palette`). Nothing here draws.
"""

from __future__ import annotations

import gettext
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from typing import Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

from rules.battles import Battle
from rules.colours import palette_for
from rules.maps import CampaignMap, SectorId
from rules.orders import SideOrders
from rules.resolution import Arrival, TurnReport
from rules.ruleset import Outcome, OutcomeLosses
from rules.state import CampaignState, SideId

_HEX_COLOUR = re.compile(r"^#[0-9a-fA-F]{6}$")


_ENGLISH_PLURAL = "nplurals=2; plural=(n != 1);"


class MapLabels(BaseModel):
    """The words drawn on the map, English by default; the bot passes its catalog's.

    ``armies`` and ``progress`` hold one form per plural category of ``plural`` (a gettext
    ``Plural-Forms`` header): ``armies`` takes ``{n}``, ``progress`` ``{held}`` and ``{need}``
    and is chosen by ``need``.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: str = "Turn"
    battles: str = "Battles of the week"
    orders: str = "Secret orders"
    reinforce: str = "reinforcement"
    plural: str = _ENGLISH_PLURAL
    armies: tuple[str, ...] = Field(default=("{n} army", "{n} armies"), min_length=1)
    progress: tuple[str, ...] = Field(
        default=("{held} of {need} sector", "{held} of {need} sectors"), min_length=1
    )
    last_turn: str = "Turn {turn}: moves and battles"
    winner: str = "{side} wins the campaign"
    no_winner: str = "The campaign ends without a winner"
    held: str = "held by the side with this tag"
    new: str = "new"
    new_key: str = "captured this turn"
    moved: str = "move, with the armies moved"
    battle: str = "battle and its number"
    won: str = "won the battle"
    draw: str = "draw"
    no_result: str = "no result: a draw without losses"
    lost: str = "armies this side lost"
    linked: str = "also next to these sectors"
    hub: str = "hub: the way between the other sectors"
    hero: str = "hero: initiative, name, wounds"
    hero_moved: str = "hero's move this turn"
    killed: str = "hero killed this turn"
    npc: str = "NPC: moved by the GM"

    def count(self, forms: tuple[str, ...], n: int) -> str:
        """The form of ``forms`` for the number ``n``."""
        return forms[min(plural_index(self.plural, n), len(forms) - 1)]

    def armies_of(self, n: int) -> str:
        """ "13 armies"."""
        return self.count(self.armies, n).format(n=n)

    def progress_of(self, held: int, need: int) -> str:
        """ "2 of 3 sectors"."""
        return self.count(self.progress, need).format(held=held, need=need)


def plural_index(header: str, n: int) -> int:
    """The plural category of ``n`` under a gettext ``Plural-Forms`` header
    ("nplurals=2; plural=(n != 1);")."""
    return _plural_rule(header)(n)


@cache
def _plural_rule(header: str) -> Callable[[int], int]:
    expression = header.split("plural=", 1)[-1].strip().rstrip(";")
    return gettext.c2py(expression)


RUSSIAN_LABELS = MapLabels(
    turn="Ход",
    battles="Бои недели",
    orders="Секретные приказы",
    reinforce="подкрепление",
    plural=(
        "nplurals=3; plural=(n%10==1 && n%100!=11 ? 0 : n%10>=2 && n%10<=4 && "
        "(n%100<10 || n%100>=20) ? 1 : 2);"
    ),
    armies=("{n} армия", "{n} армии", "{n} армий"),
    progress=("{held} из {need} сектора", "{held} из {need} секторов", "{held} из {need} секторов"),
    last_turn="Ход {turn}: перемещения и бои",
    winner="Победа в кампании: {side}",
    no_winner="Кампания окончена без победителя",
    held="сектор удерживает сторона с этой меткой",
    new="новый",
    new_key="захвачен в этот ход",
    moved="перемещение и число армий",
    battle="бой и его номер",
    won="победа в бою",
    draw="ничья",
    no_result="нет результата: ничья без потерь",
    lost="столько армий потеряла сторона",
    linked="граничит также с этими секторами",
    hub="узел: путь между другими локациями",
    hero="Иной: инициатива, имя, раны",
    hero_moved="перемещение Иного за этот ход",
    killed="Иной убит в этот ход",
    npc="маркер NPC: его перемещает мастер",
)
"""Russian labels, used by the ``render`` command for ``--lang ru``."""


class SideView(BaseModel):
    """How a side is drawn: its name, its colour (Okabe-Ito index or ``#rrggbb``) and its tag.

    ``tag`` is the short text beside each of the side's counts; by default the first letter of
    its name, made unique among the sides by :func:`side_tags`. The colour is drawn as given:
    whoever makes the view chose it once (the bot when the side was added, the command by
    :func:`default_palette`), so every picture of the side agrees.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: SideId
    name: str = Field(min_length=1, max_length=64)
    colour: int | str = Field(default=0)
    tag: str | None = Field(default=None, min_length=1, max_length=3)

    @model_validator(mode="after")
    def _colour_is_known(self) -> Self:
        if isinstance(self.colour, int) and self.colour < 0:
            raise ValueError(f"side {self.id}: palette index {self.colour} is negative")
        if isinstance(self.colour, str) and not _HEX_COLOUR.match(self.colour):
            raise ValueError(f"side {self.id}: colour {self.colour!r} is not #rrggbb")
        return self


class PrivateOrders(BaseModel):
    """One side's orders for the turn, drawn on its strategists' private map."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    side: SideId
    orders: SideOrders


class BattleMark(BaseModel):
    """A battle of last turn as the Monday map shows it: who attacked whom, how it ended
    (``outcome`` ``None``: no result came, a draw without losses) and each side's losses."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: int = Field(ge=1)
    sector: SectorId
    attacker: SideId
    defender: SideId
    outcome: Outcome | None
    winner: SideId | None = None
    losses: dict[SideId, int] = Field(default_factory=dict)


class WeekView(BaseModel):
    """What turn ``turn`` did, drawn on the map after it: the moves, the battles, the sectors
    captured this turn (``new``: held now and not before), and the campaign's end."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    turn: int = Field(ge=0)
    moves: tuple[Arrival, ...] = ()
    battles: tuple[BattleMark, ...] = ()
    new: dict[SideId, tuple[SectorId, ...]] = Field(default_factory=dict)
    game_over: bool = False
    winner: SideId | None = None


class SectorMark(BaseModel):
    """A rule module's mark on a sector (say, a fortification): a short ``text`` in a chip of
    ``side``'s colours (grey without a side), explained in the legend by ``meaning``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sector: SectorId
    text: str = Field(min_length=1, max_length=6)
    side: SideId | None = None
    meaning: str = Field(min_length=1, max_length=80)


class HeroMark(BaseModel):
    """A rule module's named figure on the map (a hero, say): drawn in its sector in its
    side's colours with its initiative in a disc and one pip per wound up to
    ``wounds_to_kill`` (filled: taken). ``killed`` draws it struck through (killed this turn);
    a figure killed earlier is not passed at all. Nothing secret (a hand) belongs here."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    id: str = Field(min_length=1, max_length=32)
    name: str = Field(min_length=1, max_length=64)
    side: SideId
    sector: SectorId
    initiative: int = Field(ge=0)
    wounds: int = Field(ge=0)
    wounds_to_kill: int = Field(ge=1, le=12)
    killed: bool = False


class HeroMove(BaseModel):
    """A named figure's move this turn, drawn as an arrow labelled with its name's first word."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    hero: str = Field(min_length=1, max_length=32)
    source: SectorId
    to: SectorId


class NpcMark(BaseModel):
    """A public marker that belongs to no side (an NPC), drawn as a diamond and
    its name."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=64)
    sector: SectorId


@dataclass(frozen=True)
class MapFigures:
    """A rule module's named figures on a map, as its :meth:`~rules.game.RulesModule.map_figures`
    gives them: the :class:`MapView` fields ``heroes``, ``hero_moves`` and ``npc``."""

    heroes: tuple[HeroMark, ...] = ()
    hero_moves: tuple[HeroMove, ...] = ()
    npc: NpcMark | None = None

    def view_fields(self) -> dict[str, object]:
        """The fields to set on a map view."""
        return {"heroes": self.heroes, "hero_moves": self.hero_moves, "npc": self.npc}


def week_of(
    report: TurnReport,
    losses: OutcomeLosses,
    held_before: Mapping[SideId, Sequence[SectorId]] | None,
) -> WeekView:
    """The week a resolved turn makes: ``held_before`` is what each side held before it (the
    previous turn's ``captured``; ``None`` or empty before the first resolution)."""
    results = {result.battle: result for result in report.results}
    marks: list[BattleMark] = []
    # A chain's battle is drawn between the sides that fought it (its defender taken from the
    # battle before), as the resolution had them.
    for battle in report.fought_battles():
        result = results.get(battle.id)
        if result is None or battle.id in report.unreported:
            marks.append(_mark(battle, None, None, {}))
            continue
        amount = losses.for_outcome(result.outcome)
        if result.winner is not None:
            loser = battle.defender if result.winner == battle.attacker else battle.attacker
            lost = {loser: amount}
        else:
            lost = {battle.attacker: amount, battle.defender: amount}
        marks.append(_mark(battle, result.outcome, result.winner, lost))
    before = held_before or {}
    new = {
        side: fresh
        for side, held in report.captured.items()
        if (fresh := tuple(s for s in held if s not in before.get(side, ())))
    }
    return WeekView(
        turn=report.turn,
        moves=report.arrivals,
        battles=tuple(marks),
        new=new,
        game_over=report.game_over,
        winner=report.winner,
    )


def _mark(
    battle: Battle, outcome: Outcome | None, winner: SideId | None, losses: dict[SideId, int]
) -> BattleMark:
    return BattleMark(
        id=battle.id,
        sector=battle.sector,
        attacker=battle.attacker,
        defender=battle.defender,
        outcome=outcome,
        winner=winner,
        losses={side: n for side, n in losses.items() if n > 0},
    )


class DialView(BaseModel):
    """A rule module's dial (a wind rose of the weather, say): ``states`` around a circle,
    clockwise from the top, the ``current`` one highlighted (``None``: none yet), ``title``
    above it (the caller's words, e.g. "Weather: North-East")."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    title: str = Field(min_length=1, max_length=60)
    states: tuple[str, ...] = Field(min_length=2, max_length=12)
    current: int | None = None

    @model_validator(mode="after")
    def _current_is_a_state(self) -> Self:
        if any(not state.strip() or len(state) > 40 for state in self.states):
            raise ValueError("a dial's state needs a name of 1 to 40 characters")
        if self.current is not None and not 0 <= self.current < len(self.states):
            raise ValueError(f"current {self.current} is not one of {len(self.states)} states")
        return self


class MapView(BaseModel):
    """Everything one map picture shows.

    ``captured`` is each side's held sectors (``TurnReport.captured`` of the last resolved
    turn): they are tinted in its colour (``None``: nothing held yet). ``sectors_to_win`` adds
    each side's progress ("2 of 3") to the legend. ``battles`` makes the Friday variant;
    ``week`` the Monday one (last turn's moves, battles and captures; the winner on the final
    map); ``private`` a side's private variant with its orders; ``marks`` are rule modules'.
    ``dial`` is a rule module's dial (drawn in a free corner of the map, else under the
    legend); ``side_notes`` add a module's short words to a side's line in the legend ("3 VP").
    ``heroes``, ``hero_moves`` and ``npc`` are a rule module's named figures, drawn in
    their sectors; a sector tagged ``hub`` is ringed as a hub whatever the module.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    map: CampaignMap
    state: CampaignState
    sides: tuple[SideView, ...]
    title: str = Field(min_length=1, max_length=120)
    language: str = "en"
    labels: MapLabels = MapLabels()
    captured: dict[SideId, tuple[SectorId, ...]] | None = None
    sectors_to_win: int | None = Field(default=None, ge=1)
    battles: tuple[Battle, ...] | None = None
    week: WeekView | None = None
    private: PrivateOrders | None = None
    marks: tuple[SectorMark, ...] = ()
    dial: DialView | None = None
    side_notes: dict[SideId, str] = Field(default_factory=dict)
    heroes: tuple[HeroMark, ...] = ()
    hero_moves: tuple[HeroMove, ...] = ()
    npc: NpcMark | None = None

    @model_validator(mode="after")
    def _names_are_known(self) -> Self:
        side_ids = [side.id for side in self.sides]
        if len(set(side_ids)) != len(side_ids):
            raise ValueError("a side id is listed twice in sides")
        tags = [side.tag for side in self.sides if side.tag is not None]
        if len(set(tags)) != len(tags):
            raise ValueError("two sides have the same tag")
        known_sides, known_sectors = set(side_ids), set(self.map.by_id)
        captured = self.captured or {}
        used_sides = set(self.state.armies) | set(captured)
        used_sectors = {s for sectors in self.state.armies.values() for s in sectors}
        used_sectors.update(s for sectors in captured.values() for s in sectors)
        for battle in self.battles or ():
            used_sides.update(battle.participants())
            used_sectors.add(battle.sector)
        if self.week is not None:
            week = self.week
            used_sides.update(move.side for move in week.moves)
            used_sectors.update(s for move in week.moves for s in (move.source, move.to))
            for mark in week.battles:
                used_sides.update((mark.attacker, mark.defender, *mark.losses))
                used_sectors.add(mark.sector)
            used_sides.update(week.new)
            used_sectors.update(s for sectors in week.new.values() for s in sectors)
            if week.winner is not None:
                used_sides.add(week.winner)
        used_sides.update(self.side_notes)
        if any(not note or len(note) > 40 for note in self.side_notes.values()):
            raise ValueError("a side's note needs 1 to 40 characters")
        for token in self.marks:
            used_sectors.add(token.sector)
            if token.side is not None:
                used_sides.add(token.side)
        used_sides.update(hero.side for hero in self.heroes)
        used_sectors.update(self._figure_sectors())
        if self.private is not None:
            orders = self.private.orders
            used_sides.add(self.private.side)
            used_sides.update(attack.target for attack in orders.attacks)
            used_sectors.update(s for move in orders.moves for s in (move.source, move.to))
            used_sectors.update(attack.sector for attack in orders.attacks)
            if orders.reinforce is not None:
                used_sectors.add(orders.reinforce)
        if unknown := sorted(used_sides - known_sides):
            raise ValueError(f"sides {', '.join(unknown)} are used but not listed in sides")
        if unknown := sorted(used_sectors - known_sectors):
            raise ValueError(f"sectors {', '.join(unknown)} are not on map {self.map.id}")
        return self

    def _figure_sectors(self) -> set[SectorId]:
        """The sectors the named figures use; refuses a hero listed twice or a move of a hero
        not listed."""
        heroes = {hero.id for hero in self.heroes}
        if len(heroes) != len(self.heroes):
            raise ValueError("a hero id is listed twice in heroes")
        sectors = {hero.sector for hero in self.heroes}
        for move in self.hero_moves:
            if move.hero not in heroes:
                raise ValueError(f"hero {move.hero} moves but is not listed in heroes")
            sectors.update((move.source, move.to))
        if self.npc is not None:
            sectors.add(self.npc.sector)
        return sectors


def side_tags(sides: Sequence[SideView]) -> dict[SideId, str]:
    """Each side's tag: its own, else its name's first letter, lengthened until unique."""
    given = {side.tag for side in sides if side.tag is not None}
    tags: dict[SideId, str] = {}
    for side in sides:
        if side.tag is not None:
            tags[side.id] = side.tag
            continue
        letters = [ch for ch in side.name if ch.isalnum()] or list(side.id)
        taken = given | set(tags.values())
        tag = letters[0].upper()
        if tag in taken and len(letters) > 1:
            tag = letters[0].upper() + letters[1].lower()
        number = 2
        base = tag
        while tag in taken:
            tag, number = f"{base[:2]}{number}", number + 1
        tags[side.id] = tag
    return tags


def default_palette(side_ids: Sequence[SideId]) -> dict[SideId, int]:
    """Palette indexes for sides named after their ids: an id that names a colour picks the safe
    colour nearest to it (``red`` is vermillion), the others take the free colours in palette
    order (past eight, the outlined chips)."""
    return dict(zip(side_ids, palette_for(list(side_ids)), strict=True))


def held_sectors(
    state: CampaignState, capture_min_armies: int
) -> dict[SideId, tuple[SectorId, ...]]:
    """The sectors each side holds in ``state`` (RULES.md capture: at least
    ``capture_min_armies`` of its armies there and no other side's), as a resolution that ended
    in ``state`` reported them."""
    held: dict[SideId, tuple[SectorId, ...]] = {}
    for side in state.sides():
        held[side] = tuple(
            sector
            for sector, count in state.armies[side].items()
            if count >= capture_min_armies
            and not any(
                state.armies_of(other, sector) > 0 for other in state.sides() if other != side
            )
        )
    return held
