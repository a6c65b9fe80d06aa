"""The campaign map as a PNG picture: what the group sees every Friday and Monday (``docs/map.md``).

:func:`render_map` draws a :class:`MapView` (map, state, sides, title, language, labels, the
sectors each side holds, and optionally the Friday battles, last turn's :class:`WeekView` or
one side's secret orders) with Pillow and returns PNG bytes. The picture is a pure function of
the view: no clock, no randomness, no system fonts (PT Sans is shipped in ``rules/data/fonts``),
text laid out by FreeType alone (no Raqm), and the PNG written with fixed settings and no
metadata, so the same view always gives the same bytes.

Speed: what does not change from one turn to the next (the background, the lines between
sectors, the sectors' outlines and names) is drawn once per map and kept (:func:`compute_layout`); a
picture copies it and draws the rest. Pictures are palette images (one byte a pixel) and
every text's glyph mask is kept once drawn, so a planet-5 map takes a few milliseconds.

Side colours come from the Okabe-Ito palette, which people with colour-blindness can tell
apart (:mod:`rules.colours`); each side is drawn in the one colour its view gives. Every
mark also carries the side's tag (its initial by default) or a shape as a second cue, and the
legend explains every mark the picture shows. Rule modules put their own marks on sectors
through :class:`SectorMark`.
"""

from __future__ import annotations

import argparse
import gettext
import io
import math
import re
import struct
import zlib
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import cache, lru_cache
from importlib import resources
from itertools import pairwise
from typing import IO, Any, Literal, NoReturn, Protocol, Self

from PIL import Image, ImageDraw, ImageFont
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from rules.battles import Battle, plan_battles
from rules.cli import DocumentError, _results, load_turn_document
from rules.colours import OKABE_ITO, Rgb, palette_for, parse_hex
from rules.game import ModuleStateError, StateOffMapError, UnknownModuleError
from rules.maps import CampaignMap, Point, Sector, SectorId
from rules.orders import SideOrders
from rules.resolution import Arrival, ResultsError, TurnReport, resolve_turn
from rules.ruleset import Outcome, OutcomeLosses
from rules.state import CampaignState, SideId

WIDTH = 1280
MAX_HEIGHT = 1280
HEADER_HEIGHT = 112
MARGIN = 20
BACKGROUND: Rgb = (0xE9, 0xE6, 0xDF)
SECTOR_FILL: Rgb = (0xFF, 0xFF, 0xFF)
INK: Rgb = (0x22, 0x22, 0x22)
MUTED: Rgb = (0x5F, 0x63, 0x68)
CONNECTOR: Rgb = (0xA3, 0xA8, 0xB0)
WHITE: Rgb = (0xFF, 0xFF, 0xFF)
PNG_COMPRESS_LEVEL = 1
FONT_FILES = {False: "PT_Sans-Web-Regular.ttf", True: "PT_Sans-Web-Bold.ttf"}
LEGEND_SIDE_ROW = 66
LEGEND_KEY_ROW = 40

Box = tuple[float, float, float, float]
"""Left, top, right, bottom, in pixels."""

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
    """A rule module's mark on a sector (say, a siege token): a short ``text`` in a chip of
    ``side``'s colours (grey without a side), explained in the legend by ``meaning``."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    sector: SectorId
    text: str = Field(min_length=1, max_length=6)
    side: SideId | None = None
    meaning: str = Field(min_length=1, max_length=80)


class HeroMark(BaseModel):
    """A rule module's named figure on the map (watch: a hero): drawn in its sector in its
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
    """A public marker that belongs to no side (watch: the NPC Egor), drawn as a diamond and
    its name."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(min_length=1, max_length=64)
    sector: SectorId


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
    """A rule module's dial (siege: the wind rose of the weather): ``states`` around a circle,
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
    ``heroes``, ``hero_moves`` and ``npc`` are a rule module's named figures (watch), drawn
    in their sectors; a sector tagged ``hub`` is ringed as a hub whatever the module.
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


# ---- drawing helpers ---------------------------------------------------------------------


@cache
def _font_bytes(bold: bool) -> bytes:
    return resources.files("rules").joinpath("data", "fonts", FONT_FILES[bold]).read_bytes()


@cache
def _font(size: int, bold: bool = False) -> ImageFont.FreeTypeFont:
    return ImageFont.truetype(
        io.BytesIO(_font_bytes(bold)), max(size, 6), layout_engine=ImageFont.Layout.BASIC
    )


@lru_cache(maxsize=8192)
def _text_width(text: str, font: ImageFont.FreeTypeFont) -> float:
    return float(font.getlength(text))


@lru_cache(maxsize=8192)
def _glyphs(text: str, size: int, bold: bool, anchor: str) -> tuple[Any, tuple[int, int]]:
    """The one-bit mask of ``text`` and where it goes relative to its anchor point, drawn once
    and kept: most texts (counts, tags, names) recur on every map."""
    mask, offset = _font(size, bold).getmask2(text, "1", anchor=anchor)
    return mask, offset


class _Canvas:
    """A palette image being drawn: Pillow's drawing calls, and text from kept glyph masks."""

    def __init__(self, image: Image.Image) -> None:
        self.image = image
        self.draw = ImageDraw.Draw(image)

    def ink(self, colour: Rgb) -> int:
        """The palette index of ``colour``, added to the palette the first time."""
        palette = self.image.palette
        if palette is None:
            raise ValueError("only palette images are drawn on")
        return palette.getcolor(colour, self.image)

    def text(
        self,
        xy: Point,
        text: str,
        size: int,
        bold: bool,
        fill: Rgb,
        anchor: str = "lm",
    ) -> None:
        if not text:
            return
        mask, (dx, dy) = _glyphs(text, max(size, 6), bold, anchor)
        self.draw.draw.draw_bitmap((round(xy[0]) + dx, round(xy[1]) + dy), mask, self.ink(fill))

    def stamp(self, stamp: _Stamp, colours: Sequence[Rgb], at: tuple[int, int] = (0, 0)) -> None:
        """Paste each of ``stamp``'s masks in its colour, its top left corner moved by ``at``."""
        left, top = stamp.left + at[0], stamp.top + at[1]
        for mask, colour in zip(stamp.layers, colours, strict=True):
            box = (left, top, left + mask.width, top + mask.height)
            self.image.paste(self.ink(colour), box, mask)


@dataclass(frozen=True)
class _Stamp:
    """Shapes drawn once as one-bit masks (``layers``, bottom first) at ``(left, top)``, then
    pasted in any colours: a polygon drawn with a thick outline costs Pillow a mask the size
    of the whole picture each time, a rounded box a dozen calls."""

    left: int
    top: int
    layers: tuple[Image.Image, ...]


def _stamp(
    box: tuple[float, float, float, float],
    *painters: Callable[[ImageDraw.ImageDraw, Callable[[Point], Point]], None],
) -> _Stamp:
    """A stamp of ``box`` (rounded out): one layer per painter, which draws with fill 1 given a
    function moving picture coordinates into the layer."""
    left, top = math.floor(box[0]) - 1, math.floor(box[1]) - 1
    size = (math.ceil(box[2]) - left + 2, math.ceil(box[3]) - top + 2)

    def shift(point: Point) -> Point:
        return (point[0] - left, point[1] - top)

    layers = []
    for paint in painters:
        layer = Image.new("1", size, 0)
        paint(ImageDraw.Draw(layer), shift)
        layers.append(layer)
    return _Stamp(left, top, tuple(layers))


@lru_cache(maxsize=1024)
def _box_stamp(width: int, height: int, radius: int, border: int) -> _Stamp:
    """A rounded box at the origin: its fill and its border."""
    box = (0, 0, width - 1, height - 1)
    return _Stamp(
        0,
        0,
        tuple(
            _painted((width, height), lambda d: d.rounded_rectangle(box, radius=radius, fill=1)),
        )
        + tuple(
            _painted(
                (width, height),
                lambda d: d.rounded_rectangle(box, radius=radius, outline=1, width=border),
            ),
        ),
    )


def _painted(
    size: tuple[int, int], paint: Callable[[ImageDraw.ImageDraw], None]
) -> list[Image.Image]:
    layer = Image.new("1", size, 0)
    paint(ImageDraw.Draw(layer))
    return [layer]


def _draw_box(
    canvas: _Canvas,
    box: tuple[float, float, float, float],
    radius: float,
    fill: Rgb,
    border: Rgb,
    border_width: int,
) -> None:
    """A rounded box, from a kept stamp."""
    left, top = round(box[0]), round(box[1])
    width, height = round(box[2]) - left + 1, round(box[3]) - top + 1
    stamp = _box_stamp(width, height, round(radius), border_width)
    canvas.stamp(stamp, (fill, border), (left, top))


def _fit(text: str, font: ImageFont.FreeTypeFont, width: float) -> str:
    """``text``, cut with an ellipsis if it is wider than ``width``."""
    if _text_width(text, font) <= width:
        return text
    while text and _text_width(text + "…", font) > width:
        text = text[:-1]
    return text.rstrip() + "…" if text else ""


def _luminance(colour: Rgb) -> float:
    def channel(value: int) -> float:
        c = value / 255
        return c / 12.92 if c <= 0.03928 else ((c + 0.055) / 1.055) ** 2.4

    r, g, b = (channel(v) for v in colour)
    return 0.2126 * r + 0.7152 * g + 0.0722 * b


def _text_on(colour: Rgb) -> Rgb:
    """Ink or white, whichever contrasts more with ``colour``."""
    lum = _luminance(colour)
    return INK if (lum + 0.05) / 0.05 >= 1.05 / (lum + 0.05) else WHITE


def tint(colour: Rgb, share: float) -> Rgb:
    r, g, b = (round(255 + (c - 255) * share) for c in colour)
    return (r, g, b)


@dataclass(frozen=True)
class Style:
    """A side's drawing style: fill, text and border colours of its chips."""

    tag: str
    colour: Rgb
    fill: Rgb
    text: Rgb
    border: Rgb
    border_width: int


NEUTRAL = Style("", MUTED, WHITE, INK, MUTED, 2)
"""The style of a module's mark that belongs to no side."""


def _side_colours(sides: Sequence[SideView]) -> dict[SideId, tuple[Rgb, bool]]:
    """Each side's colour, as given (one colour per side, chosen once by whoever made the
    view), and whether its chips are outlined (palette index past eight)."""
    colours: dict[SideId, tuple[Rgb, bool]] = {}
    for side in sides:
        if isinstance(side.colour, str):
            colours[side.id] = (parse_hex(side.colour), False)
        else:
            palette_colour = OKABE_ITO[side.colour % len(OKABE_ITO)][1]
            colours[side.id] = (palette_colour, side.colour >= len(OKABE_ITO))
    return colours


def side_styles(sides: Sequence[SideView]) -> dict[SideId, Style]:
    tags = side_tags(sides)
    styles: dict[SideId, Style] = {}
    for side_id, (colour, outlined) in _side_colours(sides).items():
        if outlined:
            styles[side_id] = Style(tags[side_id], colour, WHITE, INK, colour, 4)
        else:
            styles[side_id] = Style(tags[side_id], colour, colour, _text_on(colour), INK, 2)
    return styles


# Segments of an inline row: text, a small drawn icon, or a side-coloured chip with text.
@dataclass(frozen=True)
class _Text:
    text: str
    size: int
    bold: bool = False
    colour: Rgb = INK


_IconKind = Literal["swords", "flag", "link", "arrow", "star", "swatch", "ring", "hub"]


@dataclass(frozen=True)
class _Icon:
    kind: _IconKind
    size: int
    colour: Rgb = INK
    fill: Rgb = WHITE


@dataclass(frozen=True)
class _Chip:
    text: str
    size: int
    style: Style


class Marker(Protocol):
    """A segment of a row that draws itself (a module's figure): how wide it is, and drawing
    it with its left edge at ``left`` and its middle at ``middle``."""

    def width(self) -> float: ...

    def draw(self, canvas: _Canvas, left: float, middle: float) -> None: ...


@dataclass(frozen=True)
class HeroChip:
    """A named figure's marker: its initiative in a white disc, its name, one pip per wound up
    to the killing one (filled: taken), in its side's colours; struck through when killed."""

    name: str
    initiative: int
    wounds: int
    pips: int
    size: int
    style: Style
    killed: bool = False

    def width(self) -> float:
        s = self.size
        pips = self.pips * s * 0.5 + max(self.pips - 1, 0) * s * 0.16
        return s * 0.25 + s * 1.1 + s * 0.3 + _name_width(self.name, s) + s * 0.35 + pips + s * 0.35

    def draw(self, canvas: _Canvas, left: float, middle: float) -> None:
        _draw_hero(canvas, self, left, middle)


@dataclass(frozen=True)
class NpcChip:
    """The NPC's marker: a black diamond and its name on a pale box, no side's colours."""

    name: str
    size: int

    def width(self) -> float:
        s = self.size
        return s * 0.3 + s * 0.9 + s * 0.3 + _name_width(self.name, s) + s * 0.4

    def draw(self, canvas: _Canvas, left: float, middle: float) -> None:
        _draw_npc(canvas, self, left, middle)


_Segment = _Text | _Icon | _Chip | Marker
NPC_FILL: Rgb = (0xFF, 0xF3, 0xC4)


def _segment_width(segment: _Segment) -> float:
    match segment:
        case _Text():
            return _text_width(segment.text, _font(segment.size, segment.bold))
        case _Icon():
            wide = segment.kind in ("link", "arrow", "swatch")
            return segment.size * (1.5 if wide else 1.3 if segment.kind == "hub" else 1.0)
        case _Chip():
            return _text_width(segment.text, _font(segment.size, True)) + segment.size * 0.6
        case _:
            return segment.width()


def _name_width(name: str, size: int) -> float:
    return _text_width(name, _font(size, True))


def _row_width(segments: Sequence[_Segment], gap: float) -> float:
    return sum(_segment_width(s) for s in segments) + gap * max(len(segments) - 1, 0)


def _star(cx: float, cy: float, radius: float) -> list[Point]:
    points: list[Point] = []
    for index in range(10):
        r = radius if index % 2 == 0 else radius * 0.45
        angle = -math.pi / 2 + index * math.pi / 5
        points.append((cx + r * math.cos(angle), cy + r * math.sin(angle)))
    return points


def _draw_icon(canvas: _Canvas, icon: _Icon, left: float, middle: float) -> None:
    draw = canvas.draw
    s = icon.size
    top, bottom, right = middle - s / 2, middle + s / 2, left + _segment_width(icon)
    width = max(2, round(s / 7))
    match icon.kind:
        case "swords":
            draw.line([(left, top), (right, bottom)], fill=icon.colour, width=width)
            draw.line([(left, bottom), (right, top)], fill=icon.colour, width=width)
            guard = s * 0.2
            for cx, cy, slope in (
                (left + s * 0.28, bottom - s * 0.28, 1),
                (right - s * 0.28, bottom - s * 0.28, -1),
            ):
                draw.line(
                    [(cx - guard, cy - slope * guard), (cx + guard, cy + slope * guard)],
                    fill=icon.colour,
                    width=width,
                )
        case "flag":
            pole = left + width / 2
            draw.line([(pole, top), (pole, bottom)], fill=INK, width=width)
            draw.polygon(
                [(pole, top), (right, top + s * 0.28), (pole, top + s * 0.56)],
                fill=icon.colour,
                outline=INK,
            )
        case "star":
            draw.polygon(_star(left + s / 2, middle, s * 0.55), fill=icon.colour, outline=INK)
        case "ring":
            draw.ellipse((left, top, right, bottom), outline=icon.colour, width=width + 1)
        case "hub":
            cx = (left + right) / 2
            for reach, line in ((s * 0.65, 2), (s * 0.5, 2), (s * 0.32, width)):
                draw.ellipse(
                    (cx - reach, middle - reach, cx + reach, middle + reach),
                    fill=icon.fill if line == width else None,
                    outline=icon.colour,
                    width=line,
                )
        case "swatch":
            draw.rectangle((left, top, right, bottom), fill=icon.fill, outline=icon.colour, width=3)
        case "link" | "arrow":
            head = s * 0.45
            draw.line([(left + 1, middle), (right - 1, middle)], fill=icon.colour, width=width)
            draw.polygon(
                [
                    (right, middle),
                    (right - head, middle - head * 0.6),
                    (right - head, middle + head * 0.6),
                ],
                fill=icon.colour,
            )
            if icon.kind == "link":
                draw.polygon(
                    [
                        (left, middle),
                        (left + head, middle - head * 0.6),
                        (left + head, middle + head * 0.6),
                    ],
                    fill=icon.colour,
                )


def _draw_chip(canvas: _Canvas, chip: _Chip, left: float, middle: float) -> None:
    width = _segment_width(chip)
    height = chip.size * 1.25
    _draw_box(
        canvas,
        (left, middle - height / 2, left + width, middle + height / 2),
        height * 0.25,
        chip.style.fill,
        chip.style.border,
        max(1, chip.style.border_width - 1),
    )
    canvas.text((left + width / 2, middle), chip.text, chip.size, True, chip.style.text, "mm")


def _draw_row(
    canvas: _Canvas,
    segments: Sequence[_Segment],
    left: float,
    middle: float,
    gap: float,
) -> None:
    x = left
    for segment in segments:
        match segment:
            case _Text():
                canvas.text(
                    (x, middle), segment.text, segment.size, segment.bold, segment.colour, "lm"
                )
            case _Icon():
                _draw_icon(canvas, segment, x, middle)
            case _Chip():
                _draw_chip(canvas, segment, x, middle)
            case _:
                segment.draw(canvas, x, middle)
        x += _segment_width(segment) + gap


@dataclass(frozen=True)
class HeroParts:
    """A hero marker's parts in pixels, for the PNG and the SVG alike: its box, colours, the
    initiative disc, where the name starts, the wound pips' centres (x) and radius."""

    box: tuple[float, float, float, float]
    fill: Rgb
    border: Rgb
    text: Rgb
    disc: tuple[float, float]
    name_x: float
    pips: tuple[float, ...]
    pip_radius: float


def hero_parts(hero: HeroChip, left: float, middle: float) -> HeroParts:
    """Where the parts of ``hero``'s marker go when its left edge is at ``left``."""
    s, style = hero.size, hero.style
    width, height = _segment_width(hero), s * 1.5
    fill, border, text = (
        (WHITE, MUTED, MUTED) if hero.killed else (style.fill, style.border, style.text)
    )
    name_x = left + s * 1.65
    pip_x = name_x + _name_width(hero.name, s) + s * 0.35
    radius = s * 0.25
    return HeroParts(
        box=(left, middle - height / 2, left + width, middle + height / 2),
        fill=fill,
        border=border,
        text=text,
        disc=(left + s * 0.8, s * 0.55),
        name_x=name_x,
        pips=tuple(pip_x + index * s * 0.66 + radius for index in range(hero.pips)),
        pip_radius=radius,
    )


def _draw_hero(canvas: _Canvas, hero: HeroChip, left: float, middle: float) -> None:
    s = hero.size
    parts = hero_parts(hero, left, middle)
    box = parts.box
    border_width = max(2, hero.style.border_width)
    _draw_box(canvas, box, (box[3] - box[1]) * 0.3, parts.fill, parts.border, border_width)
    disc_x, reach = parts.disc
    canvas.draw.ellipse(
        (disc_x - reach, middle - reach, disc_x + reach, middle + reach),
        fill=canvas.ink(WHITE),
        outline=canvas.ink(INK),
        width=2,
    )
    canvas.text((disc_x, middle), str(hero.initiative), round(s * 0.72), True, INK, "mm")
    canvas.text((parts.name_x, middle), hero.name, s, True, parts.text, "lm")
    radius = parts.pip_radius
    for index, cx in enumerate(parts.pips):
        canvas.draw.ellipse(
            (cx - radius, middle - radius, cx + radius, middle + radius),
            fill=canvas.ink(parts.text) if index < hero.wounds else None,
            outline=canvas.ink(parts.text),
            width=max(2, round(s / 10)),
        )
    if hero.killed:
        canvas.draw.line(
            [(box[0] + s * 0.2, middle), (box[2] - s * 0.2, middle)],
            fill=canvas.ink(INK),
            width=max(3, round(s / 7)),
        )


def _draw_npc(canvas: _Canvas, npc: NpcChip, left: float, middle: float) -> None:
    s = npc.size
    width, height = _segment_width(npc), s * 1.5
    box = (left, middle - height / 2, left + width, middle + height / 2)
    _draw_box(canvas, box, height * 0.15, NPC_FILL, INK, 2)
    cx, reach = left + s * 0.3 + s * 0.45, s * 0.45
    canvas.draw.polygon(
        [(cx, middle - reach), (cx + reach, middle), (cx, middle + reach), (cx - reach, middle)],
        fill=canvas.ink(INK),
    )
    canvas.text((left + s * 1.5, middle), npc.name, s, True, INK, "lm")


# ---- geometry ----------------------------------------------------------------------------


@dataclass(frozen=True)
class Shape:
    """A sector in pixels: its outline (polygon or circle) and the box its content goes in."""

    sector: Sector
    centre: Point
    polygon: tuple[Point, ...] | None
    radius: float
    box: tuple[float, float, float, float]
    bounds: tuple[float, float, float, float]
    stamp: _Stamp = field(init=False, compare=False)

    def __post_init__(self) -> None:
        object.__setattr__(self, "stamp", _sector_stamp(self))

    def contains(self, point: Point) -> bool:
        if self.polygon is None:
            return math.dist(point, self.centre) < self.radius
        return _inside(point, self.polygon)


def _inside(point: Point, polygon: Sequence[Point]) -> bool:
    x, y = point
    inside = False
    for (x1, y1), (x2, y2) in zip(polygon, [*polygon[1:], polygon[0]], strict=True):
        if (y1 > y) != (y2 > y) and x < x1 + (y - y1) * (x2 - x1) / (y2 - y1):
            inside = not inside
    return inside


def _segment_distance(point: Point, a: Point, b: Point) -> float:
    (px, py), (ax, ay), (bx, by) = point, a, b
    length = (bx - ax) ** 2 + (by - ay) ** 2
    t = (
        0.0
        if length == 0
        else max(0.0, min(1.0, ((px - ax) * (bx - ax) + (py - ay) * (by - ay)) / length))
    )
    return math.dist(point, (ax + t * (bx - ax), ay + t * (by - ay)))


def _marker_radii(campaign_map: CampaignMap) -> dict[SectorId, float]:
    """Radius (unit coordinates) of the circle drawn for each sector without a polygon: clear
    of the other sectors' polygons and of the circles around the other centres."""
    radii: dict[SectorId, float] = {}
    for sector in campaign_map.sectors:
        if sector.polygon is not None:
            continue
        centre = (sector.x, sector.y)
        radius = 0.16
        for other in campaign_map.sectors:
            if other.id == sector.id:
                continue
            radius = min(radius, math.dist(centre, (other.x, other.y)) * 0.42)
            if other.polygon is not None:
                edges = zip(other.polygon, [*other.polygon[1:], other.polygon[0]], strict=True)
                nearest = min(_segment_distance(centre, p, q) for p, q in edges)
                radius = min(radius, nearest * 0.92)
        radii[sector.id] = max(radius, 0.01)
    return radii


@dataclass(frozen=True)
class _Frame:
    """Unit coordinates to pixels: ``scale`` pixels per unit, ``(left, top)`` the offset."""

    scale: float
    left: float
    top: float
    origin: Point

    def point(self, point: Point) -> Point:
        return (
            self.left + (point[0] - self.origin[0]) * self.scale,
            self.top + (point[1] - self.origin[1]) * self.scale,
        )


def _map_bounds(campaign_map: CampaignMap) -> tuple[float, float, float, float]:
    radii = _marker_radii(campaign_map)
    xs: list[float] = []
    ys: list[float] = []
    for sector in campaign_map.sectors:
        if sector.polygon is not None:
            xs.extend((sector.x, *(x for x, _ in sector.polygon)))
            ys.extend((sector.y, *(y for _, y in sector.polygon)))
        else:
            radius = radii[sector.id]
            xs.extend((sector.x - radius, sector.x + radius))
            ys.extend((sector.y - radius, sector.y + radius))
    return min(xs), min(ys), max(xs), max(ys)


def _largest_box(
    centre: Point, polygon: tuple[Point, ...], reach_w: float, reach_h: float
) -> tuple[float, float]:
    """Half width and height of the largest box of this shape centred at ``centre`` inside."""
    cx, cy = centre
    low, high = 0.0, 1.0
    while high - low > 0.01:
        k = (low + high) / 2
        w, h = reach_w * k, reach_h * k
        probes = [
            (cx + fx * w, cy + fy * h)
            for fx in (-1, -0.5, 0, 0.5, 1)
            for fy in (-1, -0.5, 0, 0.5, 1)
            if abs(fx) == 1 or abs(fy) == 1
        ]
        if all(_inside(p, polygon) for p in probes):
            low = k
        else:
            high = k
    return reach_w * low, reach_h * low


def _content_box(
    centre: Point, polygon: tuple[Point, ...] | None, radius: float
) -> tuple[float, float, float, float]:
    cx, cy = centre
    if polygon is None:
        half = radius / math.sqrt(2)
        half_w = half_h = half
    else:
        xs = [x for x, _ in polygon]
        ys = [y for _, y in polygon]
        reach_w = min(cx - min(xs), max(xs) - cx)
        reach_h = min(cy - min(ys), max(ys) - cy)
        if len(polygon) == 4 and len(set(xs)) == 2 and len(set(ys)) == 2:
            half_w, half_h = reach_w, reach_h  # an upright rectangle: all of it
        else:
            half_w, half_h = max(
                (
                    _largest_box(centre, polygon, reach_w * min(1, m), reach_h * min(1, 1 / m))
                    for m in (0.5, 0.7, 1.0, 1.4, 2.0)
                ),
                key=lambda size: size[0] * size[1],
            )
    half_w, half_h = max(half_w, 24.0), max(half_h, 24.0)  # a centre outside its own polygon
    pad = max(4.0, min(half_w, half_h) * 0.08)
    return (cx - half_w + pad, cy - half_h + pad, cx + half_w - pad, cy + half_h - pad)


def _shapes(campaign_map: CampaignMap, frame: _Frame) -> dict[SectorId, Shape]:
    radii = _marker_radii(campaign_map)
    shapes: dict[SectorId, Shape] = {}
    for sector in campaign_map.sectors:
        radius = radii.get(sector.id, 0.0) * frame.scale
        centre = frame.point((sector.x, sector.y))
        polygon = (
            tuple(frame.point(p) for p in sector.polygon) if sector.polygon is not None else None
        )
        if polygon is None:
            bounds = (
                centre[0] - radius,
                centre[1] - radius,
                centre[0] + radius,
                centre[1] + radius,
            )
        else:
            xs, ys = [x for x, _ in polygon], [y for _, y in polygon]
            bounds = (min(xs), min(ys), max(xs), max(ys))
        box = _content_box(centre, polygon, radius)
        shapes[sector.id] = Shape(sector, centre, polygon, radius, box, bounds)
    return shapes


def _blocked(a: Shape, b: Shape, shapes: dict[SectorId, Shape]) -> bool:
    """True when the straight line between two sectors' centres crosses a third sector."""
    (ax, ay), (bx, by) = a.centre, b.centre
    low_x, high_x, low_y, high_y = min(ax, bx), max(ax, bx), min(ay, by), max(ay, by)
    others = [
        shape
        for shape in shapes.values()
        if shape.sector.id not in (a.sector.id, b.sector.id)
        and shape.bounds[0] <= high_x
        and shape.bounds[2] >= low_x
        and shape.bounds[1] <= high_y
        and shape.bounds[3] >= low_y
    ]
    samples = (step / 40 for step in range(1, 40))
    return any(
        shape.contains((ax + (bx - ax) * t, ay + (by - ay) * t))
        for t in samples
        for shape in others
    )


def _curve(a: Point, b: Point, bend: float) -> Callable[[float], Point]:
    """A quadratic Bezier from ``a`` to ``b`` bowed sideways by ``bend`` times their distance."""
    mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
    dx, dy = b[0] - a[0], b[1] - a[1]
    control = (mx - dy * bend, my + dx * bend)

    def at(t: float) -> Point:
        u = 1 - t
        return (
            u * u * a[0] + 2 * u * t * control[0] + t * t * b[0],
            u * u * a[1] + 2 * u * t * control[1] + t * t * b[1],
        )

    return at


# ---- the picture -------------------------------------------------------------------------


def render_map(view: MapView) -> bytes:
    """The map as PNG bytes; the same view always gives the same bytes."""
    return png_bytes(render_image(view))


def png_bytes(image: Image.Image) -> bytes:
    """A palette or RGB image as a PNG file with only the chunks it needs (no time, no text).

    Written here rather than by Pillow because Pillow picks a filter per row, which for a
    picture of flat colours costs as much time as the compression and makes the file no
    smaller: every row here is unfiltered, compressed by ``zlib`` at a fixed level with the
    run-length strategy (flat colours are long runs).
    """
    width, height = image.size
    strategy = zlib.Z_DEFAULT_STRATEGY
    if image.mode == "P":
        image.load()
        palette = bytes(image.getpalette() or [])
        depth = 4 if len(palette) <= 16 * 3 else 8
        header = struct.pack(">IIBBBBB", width, height, depth, 3, 0, 0, 0)  # palette
        extra = _chunk(b"PLTE", palette)
        # One byte more on the left of each row, of index 0: the row's filter byte, 0.
        margin = 8 // depth
        framed = Image.new("P", (width + margin, height), 0)
        framed.paste(image, (margin, 0))
        rows = framed.tobytes("raw", "P;4" if depth == 4 else "P")
        if depth == 8:
            strategy = zlib.Z_RLE  # as small and half the time on 8-bit flat colours
    else:
        header = struct.pack(">IIBBBBB", width, height, 8, 2, 0, 0, 0)  # 8-bit RGB
        extra = b""
        stride = width * 3
        pixels = (image if image.mode == "RGB" else image.convert("RGB")).tobytes()
        rows = b"".join(b"\x00" + pixels[y * stride : (y + 1) * stride] for y in range(height))
    compressor = zlib.compressobj(PNG_COMPRESS_LEVEL, zlib.DEFLATED, 15, 9, strategy)
    data = compressor.compress(rows) + compressor.flush()
    return (
        b"\x89PNG\r\n\x1a\n"
        + _chunk(b"IHDR", header)
        + extra
        + _chunk(b"IDAT", data)
        + _chunk(b"IEND", b"")
    )


def _chunk(kind: bytes, data: bytes) -> bytes:
    return struct.pack(">I", len(data)) + kind + data + struct.pack(">I", zlib.crc32(kind + data))


@dataclass(frozen=True)
class Arrow:
    """A move arrow's path between two sectors, in pixels, and where its count label goes."""

    shaft: tuple[Point, ...]
    base: Point
    tip: Point
    wings: tuple[Point, Point]
    width: int
    at: Callable[[float], Point]
    between: float
    start: float
    chord: float
    stamp: _Stamp | None = None

    @property
    def bounds(self) -> tuple[float, float, float, float]:
        xs = [x for x, _ in (*self.shaft, self.tip)]
        ys = [y for _, y in (*self.shaft, self.tip)]
        return min(xs), min(ys), max(xs), max(ys)


def _overlaps(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] <= b[2] and b[0] <= a[2] and a[1] <= b[3] and b[1] <= a[3]


@dataclass
class Layout:
    """What a map's pictures share: geometry, and the picture of the parts that never change
    (background, lines between sectors, outlines and names), ``base``."""

    scale: float
    shapes: dict[SectorId, Shape]
    links: dict[SectorId, list[SectorId]]
    map_height: int
    base: Image.Image
    language: str = "en"
    arrows: dict[tuple[SectorId, SectorId, tuple[Box, ...]], Arrow] = field(default_factory=dict)

    def arrow(self, source: SectorId, destination: SectorId, avoid: tuple[Box, ...] = ()) -> Arrow:
        """The arrow of a move from ``source`` to ``destination``, worked out once: bent to
        miss the sectors' titles and the boxes ``avoid`` (a picture's badge rows) as best it
        can."""
        key = (source, destination, avoid)
        if key not in self.arrows:
            if len(self.arrows) > 256:  # a long-lived layout keeps a few pictures' worth
                self.arrows.clear()
            a, b = self.shapes[source], self.shapes[destination]
            titles = [title_box(shape, self.language) for shape in self.shapes.values()]
            others = [s for s in self.shapes.values() if s is not a and s is not b]
            self.arrows[key] = _arrow_path(
                a, b, _blocked(a, b, self.shapes), self.scale, [*titles, *avoid], others
            )
        return self.arrows[key]


def _legend_height(side_rows: int, key_rows: int) -> int:
    return side_rows * LEGEND_SIDE_ROW + 28 + key_rows * LEGEND_KEY_ROW + (8 if key_rows else 0)


KEY_ROWS_RESERVED = 4
"""Rows of the legend's key the map leaves room for; more make the picture taller."""


def compute_layout(view: MapView, side_rows: int) -> Layout:
    return _cached_layout(view.map.model_dump_json(), view.language, side_rows)


@lru_cache(maxsize=16)
def _cached_layout(map_json: str, language: str, side_rows: int) -> Layout:
    campaign_map = CampaignMap.model_validate_json(map_json)
    left, top, right, bottom = _map_bounds(campaign_map)
    reserve = _legend_height(side_rows, KEY_ROWS_RESERVED)
    budget = max(MAX_HEIGHT - HEADER_HEIGHT - reserve, 480)  # taller with many sides
    span_w, span_h = max(right - left, 1e-6), max(bottom - top, 1e-6)
    scale = min((WIDTH - 2 * MARGIN) / span_w, (budget - 2 * MARGIN) / span_h)
    map_height = math.ceil(span_h * scale) + 2 * MARGIN
    frame = _Frame(scale, (WIDTH - span_w * scale) / 2, HEADER_HEIGHT + MARGIN, (left, top))
    base = Image.new("P", (WIDTH, HEADER_HEIGHT + map_height), 0)
    base.putpalette(bytes(BACKGROUND))
    canvas = _Canvas(base)
    shapes = _shapes(campaign_map, frame)
    links = _draw_connectors(canvas, campaign_map, shapes, scale)
    for shape in shapes.values():
        if HUB_TAG in shape.sector.tags:
            _draw_hub_ring(canvas, shape)
    for shape in shapes.values():
        _draw_outline(canvas, shape, None)
        _draw_title(canvas, shape, language)
    return Layout(scale, shapes, links, map_height, base, language)


def render_image(view: MapView) -> Image.Image:
    """The map as a Pillow palette image, 1280 pixels wide, as high as the map's shape needs
    and at most 1280 unless so many sides or marks are listed that the legend needs more."""
    styles = side_styles(view.sides)
    columns = 1 if len(view.sides) <= 1 else 2 if len(view.sides) <= 4 else 3
    side_rows = max(1, math.ceil(len(view.sides) / columns))
    layout = compute_layout(view, side_rows)
    keys = _legend_keys(view, styles, layout)
    key_rows = math.ceil(len(keys) / 2)
    map_bottom = HEADER_HEIGHT + layout.map_height
    legend_bottom = map_bottom + _legend_height(side_rows, key_rows)
    dial_at = None if view.dial is None else _dial_corner(layout)
    band = DIAL_HEIGHT + MARGIN if view.dial is not None and dial_at is None else 0
    image = Image.new("P", (WIDTH, legend_bottom + band), 0)
    image.putpalette(layout.base.getpalette() or bytes(BACKGROUND))
    image.paste(layout.base, (0, 0))
    canvas = _Canvas(image)

    holder = {sector: side for side, sectors in (view.captured or {}).items() for sector in sectors}
    for sector, side in holder.items():
        _draw_outline(canvas, layout.shapes[sector], styles[side])
        _draw_title(canvas, layout.shapes[sector], view.language)
    rows = _rows(view, styles, layout, holder)
    moves, arrows, points = _plan_moves(view, styles, layout, rows)
    labels = [
        (_draw_move(canvas, arrow, style, text, size), point)
        for arrow, (style, _source, _to, text, size), point in zip(
            arrows, moves, points, strict=True
        )
    ]
    for shape in layout.shapes.values():  # a title an arrow could not miss goes over it
        box = title_box(shape, view.language)
        if any(_title_crossings(arrow, [box]) for arrow in arrows):
            held = holder.get(shape.sector.id)
            fill = tint(styles[held].colour, 0.22) if held is not None else SECTOR_FILL
            _draw_title(canvas, shape, view.language, fill)
    for sector, shape in layout.shapes.items():
        _draw_sector(canvas, view, styles, shape, rows[sector])
    for label, middle in labels:
        _draw_chip(canvas, label, middle[0] - _segment_width(label) / 2, middle[1])
    _draw_header(canvas, view, styles)
    _draw_legend(canvas, view, styles, map_bottom, columns, keys)
    if view.dial is not None:
        _draw_dial(canvas, view.dial, dial_at or (MARGIN, legend_bottom))
    return image


def _rows(
    view: MapView, styles: dict[SideId, Style], layout: Layout, holder: dict[SectorId, SideId]
) -> dict[SectorId, list[list[_Segment]]]:
    """Each sector's badge rows (flag and tag, battles, marks) as the map draws them."""
    new = {s for sectors in (view.week.new if view.week else {}).values() for s in sectors}
    return {
        sector: _sector_rows(
            view, styles, shape, holder.get(sector), sector in new, layout.links[sector]
        )
        for sector, shape in layout.shapes.items()
    }


_Move = tuple[Style, SectorId, SectorId, str, int]


def _plan_moves(
    view: MapView,
    styles: dict[SideId, Style],
    layout: Layout,
    rows: dict[SectorId, list[list[_Segment]]],
) -> tuple[list[_Move], list[Arrow], list[Point]]:
    """The map's moves (style, from, to, label, label size), their arrows and where their
    labels go."""
    avoid = tuple(
        box for sector, shape in layout.shapes.items() for box in _row_boxes(shape, rows[sector])
    )
    # Move arrows go under the sectors' contents, so that they never hide a count: their heads
    # end at the destination's edge, where no content is drawn; their count labels go on top.
    # Each is bent to miss the titles and badge rows where it can.
    count_size = max(16, min(44, round(layout.scale * 0.036)))
    moves: list[_Move] = []
    if view.week is not None:
        for arrival in view.week.moves:
            style = styles[arrival.side]
            count = f"{style.tag} {arrival.count}"
            moves.append((style, arrival.source, arrival.to, count, count_size))
    if view.private is not None:
        own = styles[view.private.side]
        moves += [
            (own, m.source, m.to, str(m.count), count_size) for m in view.private.orders.moves
        ]
    heroes = {hero.id: hero for hero in view.heroes}
    for move in view.hero_moves:
        hero = heroes[move.hero]
        name, size = hero_label(hero, layout.scale)
        moves.append((styles[hero.side], move.source, move.to, name, size))
    arrows = [layout.arrow(source, to, avoid) for _style, source, to, _text, _size in moves]
    texts = (*(title_box(shape, view.language) for shape in layout.shapes.values()), *avoid)
    points = place_labels(arrows, [(text, size) for *_move, text, size in moves], texts)
    return moves, arrows, points


def move_label_boxes(view: MapView) -> list[Box]:
    """Where the map puts each move's label, in the order of its moves (the checks' view)."""
    styles = side_styles(view.sides)
    columns = 1 if len(view.sides) <= 1 else 2 if len(view.sides) <= 4 else 3
    layout = compute_layout(view, max(1, math.ceil(len(view.sides) / columns)))
    holder = {sector: side for side, sectors in (view.captured or {}).items() for sector in sectors}
    moves, _arrows, points = _plan_moves(view, styles, layout, _rows(view, styles, layout, holder))
    return [
        label_box(point, text, size)
        for (*_move, text, size), point in zip(moves, points, strict=True)
    ]


DIAL_WIDTH = 460
DIAL_HEIGHT = 300
DIAL_RADIUS = 68
DIAL_LABEL = 20


def _dial_corner(layout: Layout) -> tuple[int, int] | None:
    """The top left of a free corner of the map for the dial (top right first, as a compass
    sits on a map; then top left, bottom right, bottom left), or ``None`` if every corner
    has a sector in it."""
    top, bottom = HEADER_HEIGHT, HEADER_HEIGHT + layout.map_height
    right = WIDTH - MARGIN - DIAL_WIDTH
    gap = 12
    for x, y in (
        (right, top),
        (MARGIN, top),
        (right, bottom - DIAL_HEIGHT),
        (MARGIN, bottom - DIAL_HEIGHT),
    ):
        box = (x - gap, y - gap, x + DIAL_WIDTH + gap, y + DIAL_HEIGHT + gap)
        if y >= top and not any(_overlaps(box, shape.bounds) for shape in layout.shapes.values()):
            return (x, y)
    return None


def _draw_dial(canvas: _Canvas, dial: DialView, at: tuple[int, int]) -> None:
    """The dial in a box at ``at``: its title, a spoke per state clockwise from the top (the
    current one dark, its name white on dark: told apart by more than colour), the names at
    the spokes' tips."""
    left, top = at
    _draw_box(canvas, (left, top, left + DIAL_WIDTH, top + DIAL_HEIGHT), 12, BACKGROUND, MUTED, 2)
    title = _fit(dial.title, _font(24, True), DIAL_WIDTH - 24)
    canvas.text((left + DIAL_WIDTH / 2, top + 24), title, 24, True, INK, "mm")
    cx, cy = left + DIAL_WIDTH / 2, top + 44 + (DIAL_HEIGHT - 44) / 2
    count = len(dial.states)
    half = math.pi / count
    canvas.draw.ellipse(
        (
            cx - DIAL_RADIUS * 0.55,
            cy - DIAL_RADIUS * 0.55,
            cx + DIAL_RADIUS * 0.55,
            cy + DIAL_RADIUS * 0.55,
        ),
        outline=canvas.ink(CONNECTOR),
        width=2,
    )
    for index in range(count):
        angle = 2 * math.pi * index / count
        current = index == dial.current
        reach = DIAL_RADIUS + (6 if current else 0)
        waist = DIAL_RADIUS * 0.22
        spoke = [
            (cx, cy),
            (cx + waist * math.sin(angle - half), cy - waist * math.cos(angle - half)),
            (cx + reach * math.sin(angle), cy - reach * math.cos(angle)),
            (cx + waist * math.sin(angle + half), cy - waist * math.cos(angle + half)),
        ]
        fill = INK if current else WHITE
        canvas.draw.polygon(
            spoke, fill=canvas.ink(fill), outline=canvas.ink(INK if current else MUTED)
        )
    for index, state in enumerate(dial.states):
        _draw_dial_label(canvas, state, index, count, (cx, cy), index == dial.current)


def _draw_dial_label(
    canvas: _Canvas, state: str, index: int, count: int, centre: Point, current: bool
) -> None:
    angle = 2 * math.pi * index / count
    sin, cos = math.sin(angle), -math.cos(angle)
    reach = DIAL_RADIUS + 16
    x, y = centre[0] + reach * sin, centre[1] + reach * cos
    room = DIAL_WIDTH / 2 - reach * abs(sin) - 12 if abs(sin) > 0.3 else DIAL_WIDTH - 40
    font = _font(DIAL_LABEL, current)
    pad = 10 if current else 0
    text = _fit(state, font, room - pad)
    width, height = _text_width(text, font) + pad, DIAL_LABEL + 8
    box_left = x if sin > 0.3 else x - width if sin < -0.3 else x - width / 2
    box_top = y - height if cos < -0.3 else y if cos > 0.3 else y - height / 2
    middle = (box_left + width / 2, box_top + height / 2)
    if current:
        _draw_box(canvas, (box_left, box_top, box_left + width, box_top + height), 8, INK, INK, 1)
        canvas.text(middle, text, DIAL_LABEL, True, WHITE, "mm")
    else:
        canvas.text(middle, text, DIAL_LABEL, False, INK, "mm")


def _draw_connectors(
    canvas: _Canvas,
    campaign_map: CampaignMap,
    shapes: dict[SectorId, Shape],
    scale: float,
) -> dict[SectorId, list[SectorId]]:
    """Draw a line for each adjacency; return, per sector, the neighbours a line cannot show."""
    width = max(4, round(scale * 0.009))
    links: dict[SectorId, list[SectorId]] = {sector.id: [] for sector in campaign_map.sectors}
    order = campaign_map.order
    for sector in campaign_map.sectors:
        for neighbour in sector.neighbours:
            if order[neighbour] < order[sector.id]:
                continue
            a, b = shapes[sector.id], shapes[neighbour]
            if _blocked(a, b, shapes):
                links[sector.id].append(neighbour)
                links[neighbour].append(sector.id)
            else:
                canvas.draw.line([a.centre, b.centre], fill=CONNECTOR, width=width)
    for listed in links.values():
        listed.sort(key=order.__getitem__)
    return links


HUB_TAG = "hub"
"""The map tag of a sector every way passes through (watch's metro): ringed twice outside."""
HUB_RINGS = (7.0, 15.0)


def hub_ring(shape: Shape, reach: float) -> tuple[Point, ...] | float:
    """A ring ``reach`` pixels outside a sector's outline: its polygon grown from the centre,
    or for a circle its radius."""
    if shape.polygon is None:
        return shape.radius + reach
    x, y = shape.centre
    ring = []
    for px, py in shape.polygon:
        grow = 1 + reach / (math.dist((px, py), (x, y)) or 1.0)
        ring.append((x + (px - x) * grow, y + (py - y) * grow))
    return tuple(ring)


def _draw_hub_ring(canvas: _Canvas, shape: Shape) -> None:
    """Two thin rings just outside a hub sector's outline (drawn under its neighbours)."""
    x, y = shape.centre
    for reach in HUB_RINGS:
        ring = hub_ring(shape, reach)
        if isinstance(ring, float):
            box = (x - ring, y - ring, x + ring, y + ring)
            canvas.draw.ellipse(box, outline=canvas.ink(INK), width=3)
        else:
            canvas.draw.polygon(list(ring), outline=canvas.ink(INK), width=3)


def _draw_outline(canvas: _Canvas, shape: Shape, held: Style | None) -> None:
    """A sector's area: white, or tinted and bordered in the colour of the side holding it."""
    if held is None:
        canvas.stamp(shape.stamp, (SECTOR_FILL, SECTOR_FILL, INK))
    else:
        canvas.stamp(shape.stamp, (tint(held.colour, 0.22), held.colour, INK))


def _sector_stamp(shape: Shape) -> _Stamp:
    """A sector's fill, its thick border and its thin outline."""
    left, top, right, bottom = shape.box
    border = max(5, round(min(right - left, bottom - top) * 0.035))
    polygon = shape.polygon
    x, y, r = shape.centre[0], shape.centre[1], shape.radius

    def paint(
        width: int | None,
    ) -> Callable[[ImageDraw.ImageDraw, Callable[[Point], Point]], None]:
        def draw(layer: ImageDraw.ImageDraw, shift: Callable[[Point], Point]) -> None:
            if polygon is not None:
                points = [shift(point) for point in polygon]
                if width is None:
                    layer.polygon(points, fill=1)
                else:
                    layer.polygon(points, outline=1, width=width)
            else:
                (x0, y0), (x1, y1) = shift((x - r, y - r)), shift((x + r, y + r))
                if width is None:
                    layer.ellipse((x0, y0, x1, y1), fill=1)
                else:
                    layer.ellipse((x0, y0, x1, y1), outline=1, width=width)

        return draw

    return _stamp(shape.bounds, paint(None), paint(border), paint(2))


def sector_sizes(shape: Shape) -> tuple[int, int]:
    """The sector's title size and badge size."""
    left, top, right, bottom = shape.box
    base = min(right - left, bottom - top)
    return min(max(round(base * 0.11), 14), 30), min(max(round(base * 0.1), 12), 28)


def _title_row(shape: Shape, language: str) -> tuple[list[_Segment], float, float, float]:
    """A sector's title (its id in bold, its name cut to fit), where it starts, its middle and
    the gap between its parts."""
    left, top, right, _ = shape.box
    title_size, _badge = sector_sizes(shape)
    sector_id = _Text(shape.sector.id, title_size, True)
    name_room = right - left - _segment_width(sector_id) - title_size * 0.35
    name = _fit(shape.sector.display_name(language), _font(title_size), name_room)
    return [sector_id, _Text(name, title_size)], left, top + title_size * 0.6, title_size * 0.35


def title_box(shape: Shape, language: str) -> Box:
    """The box a sector's title covers, with a little room around it."""
    row, left, middle, gap = _title_row(shape, language)
    size = sector_sizes(shape)[0]
    return (left - 4, middle - size * 0.65, left + _row_width(row, gap) + 4, middle + size * 0.65)


def _draw_title(canvas: _Canvas, shape: Shape, language: str, backing: Rgb | None = None) -> None:
    """A sector's title; on ``backing`` (the sector's fill) when an arrow may run under it, so
    the arrow stops at the title instead of running through its letters."""
    row, left, middle, gap = _title_row(shape, language)
    if backing is not None:
        x0, y0, x1, y1 = title_box(shape, language)
        canvas.draw.rectangle((x0 + 2, y0 + 2, x1 - 2, y1 - 2), fill=canvas.ink(backing))
    _draw_row(canvas, row, left, middle, gap)


def _draw_sector(
    canvas: _Canvas,
    view: MapView,
    styles: dict[SideId, Style],
    shape: Shape,
    rows: list[list[_Segment]],
) -> None:
    """A sector's contents (its outline and name are drawn already): armies and badges."""
    left, top, right, bottom = shape.box
    width = right - left
    title_size, badge_size = sector_sizes(shape)
    row_height = badge_size * 1.55
    for row, (row_left, middle, gap) in zip(rows, _row_places(shape, rows), strict=True):
        _draw_row(canvas, row, row_left, middle, gap)

    area_top = top + title_size * 1.35
    area_bottom = bottom - row_height * len(rows) - (4 if rows else 0)
    occupants = [
        (side.id, view.state.armies_of(side.id, shape.sector.id))
        for side in view.sides
        if view.state.armies_of(side.id, shape.sector.id) > 0
    ]
    area = (left + width * 0.03, area_top, right - width * 0.03, area_bottom)
    places, area_bottom = place_figures(view, styles, shape, area, bool(occupants))
    for place in places:
        _draw_row(canvas, [place.segment], place.left, place.middle, 0)
    inset = width * 0.08
    _draw_armies(canvas, styles, occupants, (left + inset, area_top, right - inset, area_bottom))


def _sector_rows(
    view: MapView,
    styles: dict[SideId, Style],
    shape: Shape,
    held: SideId | None,
    new: bool,
    links: list[SectorId],
) -> list[list[_Segment]]:
    """The badge rows at the bottom of a sector (:func:`_badge_rows`), top row first."""
    left, top, right, bottom = shape.box
    badge_size = sector_sizes(shape)[1]
    return _badge_rows(
        view, styles, shape.sector.id, held, new, links, badge_size, right - left, bottom - top
    )


def _row_places(shape: Shape, rows: list[list[_Segment]]) -> list[tuple[float, float, float]]:
    """Where each badge row goes: its left, its middle and the gap between its segments."""
    left, _top, _right, bottom = shape.box
    badge_size = sector_sizes(shape)[1]
    row_height = badge_size * 1.55
    return [
        (left, bottom - row_height * (len(rows) - index - 0.5), badge_size * 0.3)
        for index in range(len(rows))
    ]


def _row_boxes(shape: Shape, rows: list[list[_Segment]]) -> list[Box]:
    """The boxes a sector's badge rows cover."""
    half = sector_sizes(shape)[1] * 0.7
    return [
        (left - 2, middle - half, left + _row_width(row, gap) + 2, middle + half)
        for row, (left, middle, gap) in zip(rows, _row_places(shape, rows), strict=True)
    ]


def _figures_in(view: MapView, sector: SectorId) -> list[HeroMark | NpcMark]:
    """The named figures standing in ``sector``: the NPC first, then heroes by initiative."""
    heroes = sorted(
        (hero for hero in view.heroes if hero.sector == sector),
        key=lambda hero: (hero.initiative, hero.id),
    )
    npc = [view.npc] if view.npc is not None and view.npc.sector == sector else []
    return [*npc, *heroes]


def _figure_segment(
    figure: HeroMark | NpcMark, style: Style | None, size: int, room: float
) -> HeroChip | NpcChip:
    """The figure's marker, its name cut so that the whole marker is at most ``room`` wide."""
    if isinstance(figure, NpcMark) or style is None:
        fixed = _segment_width(NpcChip("", size))
        return NpcChip(_fit(figure.name, _font(size, True), room - fixed), size)
    hero = HeroChip(
        "",
        figure.initiative,
        min(figure.wounds, figure.wounds_to_kill),
        figure.wounds_to_kill,
        size,
        style,
        figure.killed,
    )
    name = _fit(figure.name, _font(size, True), room - _segment_width(hero))
    return replace(hero, name=name)


def _figure_rows(
    figures: Sequence[HeroMark | NpcMark],
    styles: dict[SideId, Style],
    size: int,
    width: float,
) -> list[list[tuple[HeroMark | NpcMark, HeroChip | NpcChip]]]:
    """The figures' markers flowed into rows no wider than ``width``."""
    rows: list[list[tuple[HeroMark | NpcMark, HeroChip | NpcChip]]] = [[]]
    gap = size * 0.4
    for figure in figures:
        style = styles.get(figure.side) if isinstance(figure, HeroMark) else None
        segment = _figure_segment(figure, style, size, width)
        if rows[-1] and _row_width([*(s for _f, s in rows[-1]), segment], gap) > width:
            rows.append([])
        rows[-1].append((figure, segment))
    return rows


FIGURE_ROW = 1.75
"""A row of figures' markers, in marker sizes."""


@dataclass(frozen=True)
class FigurePlace:
    """Where a figure's marker goes: the ``figure``, its ``segment`` (the marker with its name
    cut to fit), the marker's left edge and middle."""

    figure: HeroMark | NpcMark
    segment: HeroChip | NpcChip
    left: float
    middle: float
    width: float


def place_figures(
    view: MapView,
    styles: dict[SideId, Style],
    shape: Shape,
    area: tuple[float, float, float, float],
    armies: bool,
) -> tuple[list[FigurePlace], float]:
    """Where the figures standing in ``shape``'s sector go, as large as they fit: with
    ``armies`` at the bottom of ``area`` in at most 60% of it (the rest is the armies'), else
    in its middle. Returns the places and the top of what they take (the bottom of what is
    left for the armies; ``area``'s bottom without figures). The PNG and the SVG both use it."""
    figures = _figures_in(view, shape.sector.id)
    left, top, right, bottom = area
    if not figures:
        return [], bottom
    _title, badge = sector_sizes(shape)
    width, height = right - left, max(bottom - top, 1.0)
    share = 0.6 if armies else 1.0
    size = max(min(round(badge * 1.15), 32), 10)
    whole = max(10, round(size * 0.7))  # down to this size, shrink rather than cut a name
    rows = _figure_rows(figures, styles, size, width)
    while size > 10 and (
        len(rows) * size * FIGURE_ROW > height * share
        or any(_row_width([s for _f, s in row], size * 0.4) > width for row in rows)
        or (size > whole and any(s.name != f.name for row in rows for f, s in row))
    ):
        size -= 1
        rows = _figure_rows(figures, styles, size, width)
    row_height, gap = size * FIGURE_ROW, size * 0.4
    block_top = (
        bottom - row_height * len(rows) if armies else top + (height - row_height * len(rows)) / 2
    )
    places: list[FigurePlace] = []
    for index, row in enumerate(rows):
        x = left + (width - _row_width([s for _f, s in row], gap)) / 2
        middle = block_top + row_height * (index + 0.5)
        for figure, segment in row:
            wide = _segment_width(segment)
            places.append(FigurePlace(figure, segment, x, middle, wide))
            x += wide + gap
    return places, block_top - 4


def _result_segments(
    mark: BattleMark, styles: dict[SideId, Style], size: int, chip: int
) -> list[_Segment]:
    """How a battle ended: a star and the winner's chip, "=" for a draw, "?" for no result;
    then each side's losses in a chip of its own ("B −2"), so a loss never reads as the
    winner's."""
    if mark.outcome is None:
        return [_Text("?", size, True)]
    segments: list[_Segment] = []
    if mark.winner is not None:
        won = styles[mark.winner]
        segments += [_Icon("star", size, won.colour), _Chip(won.tag, chip, won)]
    else:
        segments.append(_Text("=", size, True))
    for side, lost in mark.losses.items():
        segments.append(_Chip(f"{styles[side].tag} −{lost}", chip, styles[side]))
    return segments


def _badge_rows(
    view: MapView,
    styles: dict[SideId, Style],
    sector: SectorId,
    held: SideId | None,
    new: bool,
    links: list[SectorId],
    size: int,
    width: float,
    height: float,
) -> list[list[_Segment]]:
    """Rows drawn at the bottom of a sector: who holds it (a flag and the holder's tag, and
    "new" when it was captured this turn: these are never left out), battles, orders, modules'
    marks, and the adjacencies no line can show. Each kind has a compact form, used when the
    full ones do not fit."""
    chip = round(size * 0.85)
    kinds: list[tuple[list[list[_Segment]], list[list[_Segment]]]] = []  # (full, compact)
    if held is not None:
        holder = styles[held]
        flag: list[_Segment] = [_Icon("flag", size, holder.colour), _Chip(holder.tag, chip, holder)]
        if new:
            flag.append(_Text(view.labels.new, size, True))
        kinds.append(([flag], [flag]))
    battles = [battle for battle in view.battles or () if battle.sector == sector]
    if battles:
        listed: list[list[_Segment]] = [
            [
                _Icon("swords", size),
                _Text(f"#{battle.id}", size, True),
                _Chip(styles[battle.attacker].tag, chip, styles[battle.attacker]),
                _Icon("arrow", size),
                # A chain battle's defender is the winner of an earlier one: named by its number.
                _Text(f"#{battle.defender_from}", size, True)
                if battle.defender_from is not None
                else _Chip(styles[battle.defender].tag, chip, styles[battle.defender]),
            ]
            for battle in battles
        ]
        ids = " ".join(f"#{battle.id}" for battle in battles)
        short = _Text(ids if len(battles) <= 3 else f"×{len(battles)}", size, True)
        kinds.append((listed, [[_Icon("swords", size), short]]))
    fought = [mark for mark in (view.week.battles if view.week else ()) if mark.sector == sector]
    if fought:
        full: list[list[_Segment]] = []
        compact: list[list[_Segment]] = []
        for mark in fought:
            attacker, defender = styles[mark.attacker], styles[mark.defender]
            result = _result_segments(mark, styles, size, chip)
            full.append(
                [
                    _Icon("swords", size),
                    _Text(f"#{mark.id}", size, True),
                    _Chip(attacker.tag, chip, attacker),
                    _Icon("arrow", size),
                    _Chip(defender.tag, chip, defender),
                ]
            )
            full.append(result)
            compact.append([_Icon("swords", size), _Text(f"#{mark.id}", size, True), *result])
        kinds.append((full, compact))
    if view.private is not None:
        own = styles[view.private.side]
        orders = view.private.orders
        targets: dict[SideId, int] = {}
        for attack in orders.attacks_in(sector):
            targets[attack.target] = targets.get(attack.target, 0) + 1
        if targets:
            row: list[_Segment] = [_Icon("swords", size, own.colour)]
            for target, count in targets.items():
                row.append(_Chip(styles[target].tag, chip, styles[target]))
                if count > 1:
                    row.append(_Text(f"×{count}", size, True))
            kinds.append(([row], [row]))
        if orders.reinforce == sector:
            plus = _Chip("+1", chip, own)
            kinds.append(([[plus, _Text(view.labels.reinforce, size)]], [[plus]]))
    marks: list[_Segment] = [
        _Chip(mark.text, chip, styles[mark.side] if mark.side is not None else NEUTRAL)
        for mark in view.marks
        if mark.sector == sector
    ]
    if marks:
        kinds.append(([marks], [marks]))
    if links:
        row = [_Icon("link", size, MUTED), _Text(" ".join(links), size, True, MUTED)]
        kinds.append(([row], [row]))
    gap = size * 0.3
    limit = max(1, int(height * 0.5 // (size * 1.55)))
    longest = max((len(full) for full, _ in kinds), default=0)
    candidates = [
        [row for full, compact in kinds for row in (full if len(full) < keep else compact)]
        for keep in (longest + 1, 2, 0)
    ]
    for rows in candidates:
        if len(rows) <= limit and all(_row_width(row, gap) <= width for row in rows):
            return rows
    return candidates[-1][:limit]


def _draw_armies(
    canvas: _Canvas,
    styles: dict[SideId, Style],
    occupants: list[tuple[SideId, int]],
    area: tuple[float, float, float, float],
) -> None:
    """Draw one chip per side present: its tag and its army count, as large as the area allows."""
    if not occupants:
        return
    left, top, right, bottom = area
    width, height = right - left, max(bottom - top, 1.0)
    unit = (
        max((_chip_width(styles[side].tag, count, 100) for side, count in occupants), default=1.0)
        / 100
    )
    gap = max(4.0, min(width, height) * 0.04)
    best_size, best_columns = 0.0, 1
    for columns in range(1, len(occupants) + 1):
        rows = math.ceil(len(occupants) / columns)
        cell_w = (width - gap * (columns - 1)) / columns
        cell_h = (height - gap * (rows - 1)) / rows
        size = min(cell_h / 1.3, cell_w / unit, 84.0)
        if size > best_size + 0.5:
            best_size, best_columns = size, columns
    size = max(int(best_size), 10)
    columns = best_columns
    rows = math.ceil(len(occupants) / columns)
    chip_w = max(_chip_width(styles[side].tag, count, size) for side, count in occupants)
    chip_h = size * 1.3
    block_w = chip_w * columns + gap * (columns - 1)
    block_h = chip_h * rows + gap * (rows - 1)
    x0 = left + (width - block_w) / 2
    y0 = top + (height - block_h) / 2
    for index, (side, count) in enumerate(occupants):
        row, column = divmod(index, columns)
        if row == rows - 1:
            in_row = len(occupants) - row * columns
            shift = (columns - in_row) * (chip_w + gap) / 2
        else:
            shift = 0.0
        x = x0 + shift + column * (chip_w + gap)
        y = y0 + row * (chip_h + gap)
        _draw_army_chip(canvas, styles[side], count, (x, y, x + chip_w, y + chip_h), size)


def _chip_width(tag: str, count: int, size: float) -> float:
    tag_w = _text_width(tag, _font(round(size * 0.62), True))
    count_w = _text_width(str(count), _font(round(size), True))
    return tag_w + count_w + size * 0.75


def _draw_army_chip(
    canvas: _Canvas,
    style: Style,
    count: int,
    box: tuple[float, float, float, float],
    size: int,
) -> None:
    left, top, right, bottom = box
    _draw_box(canvas, box, size * 0.28, style.fill, style.border, style.border_width)
    tag_size = round(size * 0.62)
    tag_w = _text_width(style.tag, _font(tag_size, True))
    count_w = _text_width(str(count), _font(size, True))
    x = (left + right) / 2 - (tag_w + size * 0.15 + count_w) / 2
    middle = (top + bottom) / 2
    canvas.text((x, middle), style.tag, tag_size, True, style.text)
    canvas.text((x + tag_w + size * 0.15, middle), str(count), size, True, style.text)


BENDS = {
    False: (0.14, -0.14, 0.24, -0.24, 0.06, -0.06, 0.34, -0.34),
    True: (0.32, -0.32, 0.42, -0.42, 0.24, -0.24, 0.55, -0.55, 0.7, -0.7),
}
"""The bends a move's arrow may take, first choice first: slight between neighbours whose line
is clear, wide around a sector in the way."""


def _arrow_path(
    source: Shape,
    destination: Shape,
    blocked: bool,
    scale: float,
    titles: Sequence[Box] = (),
    others: Sequence[Shape] = (),
) -> Arrow:
    """A move's curved arrow from inside ``source`` to the edge of ``destination``, bent the
    first way of :data:`BENDS` that runs through no text (``titles``: the sectors' titles and
    badge rows) and no other sector (``others``), else the way that does so least (text
    counts four times a sector's inside: an arrow under a sector's armies still reads)."""
    candidates = [_arrow_for(source, destination, bend, blocked, scale) for bend in BENDS[blocked]]
    crossings = [
        4 * _title_crossings(arrow, titles) + _sector_crossings(arrow, others)
        for arrow in candidates
    ]
    arrow = candidates[crossings.index(min(crossings))]
    line = [*arrow.shaft, arrow.base]
    reach = arrow.width + 4
    xs, ys = [x for x, _ in line], [y for _, y in line]
    stamp = _stamp(
        (min(xs) - reach, min(ys) - reach, max(xs) + reach, max(ys) + reach),
        lambda d, shift: d.line(
            [shift(p) for p in line], fill=1, width=arrow.width + 4, joint="curve"
        ),
        lambda d, shift: d.line([shift(p) for p in line], fill=1, width=arrow.width, joint="curve"),
    )
    return replace(arrow, stamp=stamp)


def _path_points(arrow: Arrow) -> list[Point]:
    """Points along the arrow, every few pixels."""
    path = [*arrow.shaft, arrow.base, arrow.tip]
    return [
        (a[0] + (b[0] - a[0]) * k / 6, a[1] + (b[1] - a[1]) * k / 6)
        for a, b in pairwise(path)
        for k in range(6)
    ]


def _sector_crossings(arrow: Arrow, others: Sequence[Shape]) -> int:
    """How many points along the arrow fall inside the sectors ``others``."""
    return sum(1 for point in _path_points(arrow) for shape in others if shape.contains(point))


def _title_crossings(arrow: Arrow, titles: Sequence[Box]) -> int:
    """How many points along the arrow (with its width) fall on a title."""
    reach = arrow.width / 2 + 2
    points = _path_points(arrow)
    return sum(
        1
        for x, y in points
        for x0, y0, x1, y1 in titles
        if x0 - reach <= x <= x1 + reach and y0 - reach <= y <= y1 + reach
    )


def _arrow_for(
    source: Shape, destination: Shape, bend: float, blocked: bool, scale: float
) -> Arrow:
    at = _curve(source.centre, destination.centre, bend)
    chord = math.dist(source.centre, destination.centre) or 1.0
    steps = [step / 200 for step in range(201)]
    leaves = next((t for t in steps if not source.contains(at(t))), 0.5)
    enters = next((t for t in steps if t > leaves and destination.contains(at(t))), 1.0)
    end = min(enters + 26 / chord, 1.0)
    start = max(min(leaves - 0.15, end - 0.3), 0.0)
    points = [at(start + (end - start) * step / 24) for step in range(25)]
    width = max(6, round(scale * 0.011))
    head = width * 2.6
    (x1, y1), (x2, y2) = points[-2], points[-1]
    length = math.dist((x1, y1), (x2, y2)) or 1.0
    ux, uy = (x2 - x1) / length, (y2 - y1) / length
    base = (x2 - ux * head, y2 - uy * head)
    shaft = tuple(p for p in points if math.dist(p, points[0]) < math.dist(base, points[0]))
    wings = (
        (base[0] - uy * head * 0.6, base[1] + ux * head * 0.6),
        (base[0] + uy * head * 0.6, base[1] - ux * head * 0.6),
    )
    # The count goes where the arrow leaves its sector; for an arrow around a sector, just
    # inside the source (its middle would cover the sector it goes around).
    size = max(16, min(44, round(scale * 0.036)))
    label_at = leaves - (size * 1.2 / chord if blocked else 0.0)
    return Arrow(shaft, base, (x2, y2), wings, width, at, label_at, start, chord)


def hero_label(hero: HeroMark, scale: float) -> tuple[str, int]:
    """A hero's move arrow's label and its size: the first word of its name, cut to fit."""
    size = max(16, min(28, round(scale * 0.024)))
    return _fit(hero.name.split()[0], _font(size, True), size * 5), size


def label_point(arrow: Arrow, text: str, size: int, avoid: Sequence[Box] = ()) -> Point:
    """Where a move's label goes: where the arrow leaves its sector (between the two sectors,
    where no count is drawn), or the nearest place along the arrow where the label covers no
    title or badge row of ``avoid``."""
    first = max(arrow.between, arrow.start)
    for step in (0, 1, -1, 2, -2, 3, -3, 4, -4, 5, -5, 6, -6):
        t = first + step * 0.035
        if not arrow.start <= t <= 0.92:
            continue
        point = arrow.at(t)
        if not any(_overlaps(label_box(point, text, size), other) for other in avoid):
            return point
    return arrow.at(first)


def label_box(point: Point, text: str, size: int) -> Box:
    """The box a move's label ``text`` (``size`` high) covers when centred on ``point``."""
    half_w = (_text_width(text, _font(size, True)) + size * 0.6) / 2 + 2
    half_h = size * 0.65
    x, y = point
    return (x - half_w, y - half_h, x + half_w, y + half_h)


def place_labels(
    arrows: Sequence[Arrow], labels: Sequence[tuple[str, int]], avoid: Sequence[Box] = ()
) -> list[Point]:
    """Where each arrow's label (text, size) goes, in order (:func:`label_point`): clear of
    ``avoid`` and of the labels placed before it, where the arrow leaves room."""
    taken = list(avoid)
    points = []
    for arrow, (text, size) in zip(arrows, labels, strict=True):
        point = label_point(arrow, text, size, taken)
        points.append(point)
        taken.append(label_box(point, text, size))
    return points


def _draw_move(canvas: _Canvas, arrow: Arrow, style: Style, text: str, size: int) -> _Chip:
    """A move: its arrow in the side's colour, outlined. Returns its label (``size`` high), to
    be drawn over everything else where :func:`place_labels` puts it."""
    if arrow.stamp is not None:  # always, once chosen by _arrow_path
        canvas.stamp(arrow.stamp, (INK, style.colour))
    canvas.draw.polygon([arrow.tip, *arrow.wings], fill=style.colour, outline=INK)
    return _Chip(text, size, style)


def _draw_header(canvas: _Canvas, view: MapView, styles: dict[SideId, Style]) -> None:
    if view.private is not None:
        canvas.draw.rectangle((0, 0, WIDTH, 10), fill=styles[view.private.side].colour)
    turn = f"{view.labels.turn} {view.state.turn}"
    turn_width = _text_width(turn, _font(40, True))
    canvas.text((WIDTH - MARGIN, 42), turn, 40, True, INK, "rm")
    title_room = WIDTH - 3 * MARGIN - turn_width - 20
    canvas.text((MARGIN, 42), _fit(view.title, _font(40, True), title_room), 40, True, INK)
    if view.week is not None and view.week.game_over:
        _draw_banner(canvas, view, styles)
        return
    subtitle: list[_Segment] = [
        _Text(view.map.names.get(view.language, view.map.name), 26, False, MUTED)
    ]
    if view.battles is not None:
        subtitle += [
            _Text("·", 26, True, MUTED),
            _Icon("swords", 22),
            _Text(view.labels.battles, 26, True),
        ]
    if view.week is not None:
        subtitle += [
            _Text("·", 26, True, MUTED),
            _Text(view.labels.last_turn.format(turn=view.week.turn), 26, True),
        ]
    if view.private is not None:
        side = next(s for s in view.sides if s.id == view.private.side)
        subtitle += [
            _Text("·", 26, True, MUTED),
            _Text(f"{view.labels.orders}:", 26, True),
            _Chip(styles[side.id].tag, 22, styles[side.id]),
            _Text(side.name, 26, True),
        ]
    _draw_row(canvas, subtitle, MARGIN, 88, 10)


def _draw_banner(canvas: _Canvas, view: MapView, styles: dict[SideId, Style]) -> None:
    """The final map's banner: the winner, in its colour, with a star and its tag."""
    winner = view.week.winner if view.week is not None else None
    box = (MARGIN, 66, WIDTH - MARGIN, HEADER_HEIGHT - 4)
    middle = (box[1] + box[3]) / 2
    if winner is None:
        canvas.draw.rounded_rectangle(box, radius=10, fill=MUTED, outline=INK, width=2)
        canvas.text((MARGIN + 16, middle), view.labels.no_winner, 30, True, WHITE)
        return
    style = styles[winner]
    name = next(side.name for side in view.sides if side.id == winner)
    text = _text_on(style.colour)
    canvas.draw.rounded_rectangle(box, radius=10, fill=style.colour, outline=INK, width=2)
    words = view.labels.winner.format(side=name)
    held = len((view.captured or {}).get(winner, ()))
    if view.sectors_to_win is not None:
        words += " · " + view.labels.progress_of(held, view.sectors_to_win)
    row: list[_Segment] = [
        _Icon("star", 32, WHITE if text == WHITE else INK),
        _Chip(style.tag, 26, replace(style, fill=WHITE, text=INK, border=INK)),
        _Text(_fit(words, _font(30, True), WIDTH - 4 * MARGIN - 120), 30, True, text),
    ]
    _draw_row(canvas, row, MARGIN + 14, middle, 12)


def _legend_keys(
    view: MapView, styles: dict[SideId, Style], layout: Layout
) -> list[tuple[list[_Segment], str]]:
    """The legend's key: one entry for each kind of mark this picture shows."""
    labels, size = view.labels, 22
    chip = round(size * 0.85)
    keys: list[tuple[list[_Segment], str]] = []
    holders = [side for side, sectors in (view.captured or {}).items() if sectors]
    if holders:
        style = styles[holders[0]]
        held: list[_Segment] = [
            _Icon("swatch", 20, style.colour, tint(style.colour, 0.22)),
            _Icon("flag", size, style.colour),
            _Chip(style.tag, chip, style),
        ]
        keys.append((held, labels.held))
    week = view.week
    if week is not None and any(week.new.values()):
        style = styles[next(side for side, sectors in week.new.items() if sectors)]
        flag: list[_Segment] = [
            _Icon("flag", size, style.colour),
            _Chip(style.tag, chip, style),
            _Text(labels.new, size, True),
        ]
        keys.append((flag, labels.new_key))
    movers = [move.side for move in week.moves] if week is not None else []
    if view.private is not None and view.private.orders.moves:
        movers.append(view.private.side)
    if movers:
        style = styles[movers[0]]
        keys.append(([_Icon("arrow", size, style.colour), _Chip("3", chip, style)], labels.moved))
    marks = week.battles if week is not None else ()
    if view.battles or marks:
        keys.append(([_Icon("swords", size), _Text("#1", size, True)], labels.battle))
    if any(mark.winner is not None for mark in marks):
        keys.append(([_Icon("star", size, MUTED)], labels.won))
    if any(mark.outcome is not None and mark.winner is None for mark in marks):
        keys.append(([_Text("=", size, True)], labels.draw))
    if any(mark.outcome is None for mark in marks):
        keys.append(([_Text("?", size, True)], labels.no_result))
    losers = [side for mark in marks for side in mark.losses]
    if losers:
        keys.append(([_Chip(f"{styles[losers[0]].tag} −2", chip, styles[losers[0]])], labels.lost))
    if view.private is not None and view.private.orders.reinforce is not None:
        keys.append(([_Chip("+1", chip, styles[view.private.side])], labels.reinforce))
    keys += _figure_keys(view, styles, size)
    meanings: dict[tuple[str, SideId | None], str] = {}
    for mark in view.marks:
        meanings.setdefault((mark.text, mark.side), mark.meaning)
    for (text, side), meaning in meanings.items():
        keys.append(([_Chip(text, chip, styles[side] if side else NEUTRAL)], meaning))
    if any(layout.links.values()):
        keys.append(([_Icon("link", size, MUTED)], labels.linked))
    return keys


def _figure_keys(
    view: MapView, styles: dict[SideId, Style], size: int
) -> list[tuple[list[_Segment], str]]:
    """The legend's entries for a hub and a module's named figures, when the picture has them."""
    labels = view.labels
    keys: list[tuple[list[_Segment], str]] = []
    if any(HUB_TAG in sector.tags for sector in view.map.sectors):
        keys.append(([_Icon("hub", size)], labels.hub))
    shown = sorted(view.heroes, key=lambda hero: (hero.killed, hero.initiative, hero.id))
    if shown and not shown[0].killed:
        sample = _figure_segment(shown[0], styles[shown[0].side], size, size * 9)
        keys.append(([sample], labels.hero))
    if view.hero_moves:
        mover = next(hero for hero in view.heroes if hero.id == view.hero_moves[0].hero)
        style = styles[mover.side]
        keys.append(([_Icon("arrow", size, style.colour)], labels.hero_moved))
    if killed := [hero for hero in view.heroes if hero.killed]:
        sample = _figure_segment(killed[0], styles[killed[0].side], size, size * 9)
        keys.append(([sample], labels.killed))
    if view.npc is not None:
        keys.append(([_figure_segment(view.npc, None, size, size * 9)], labels.npc))
    return keys


def _draw_legend(
    canvas: _Canvas,
    view: MapView,
    styles: dict[SideId, Style],
    top: float,
    columns: int,
    keys: list[tuple[list[_Segment], str]],
) -> None:
    canvas.draw.line([(MARGIN, top), (WIDTH - MARGIN, top)], fill=CONNECTOR, width=2)
    column_width = (WIDTH - 2 * MARGIN) / columns
    chip_room = max(
        (_segment_width(_Chip(styles[s.id].tag, 26, styles[s.id])) for s in view.sides), default=0
    )
    winner = view.week.winner if view.week is not None else None
    for index, side in enumerate(view.sides):
        row, column = divmod(index, columns)
        x = MARGIN + column * column_width
        y = top + 16 + row * LEGEND_SIDE_ROW
        style = styles[side.id]
        total = view.state.total(side.id)
        _draw_chip(canvas, _Chip(style.tag, 26, style), x, y + 22)
        text_x = x + chip_room + 12
        room = column_width - (text_x - x) - 12
        star: list[_Segment] = [_Icon("star", 26, style.colour)] if side.id == winner else []
        fitted = _fit(side.name, _font(28, True), room - 36 * len(star))
        name = [*star, _Text(fitted, 28, True, INK if total > 0 else MUTED)]
        _draw_row(canvas, name, text_x, y + 18, 10)
        stats = view.labels.armies_of(total)
        if view.sectors_to_win is not None:
            held = len((view.captured or {}).get(side.id, ()))
            stats += " · " + view.labels.progress_of(held, view.sectors_to_win)
        if side.id in view.side_notes:
            stats += " · " + view.side_notes[side.id]
        canvas.text((text_x, y + 46), _fit(stats, _font(22), room), 22, False, MUTED)
    rows = math.ceil(len(view.sides) / columns)
    key_top = top + 20 + rows * LEGEND_SIDE_ROW
    key_width = (WIDTH - 2 * MARGIN) / 2
    for index, (segments, meaning) in enumerate(keys):
        row, column = divmod(index, 2)
        x = MARGIN + column * key_width
        middle = key_top + row * LEGEND_KEY_ROW + LEGEND_KEY_ROW / 2
        mark_width = _row_width(segments, 6)
        _draw_row(canvas, segments, x, middle, 6)
        room = key_width - mark_width - 30
        canvas.text((x + mark_width + 12, middle), _fit(meaning, _font(22), room), 22, False, INK)


# ---- the command -------------------------------------------------------------------------


class _UsageError(Exception):
    """Bad command-line arguments."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _parser() -> _Parser:
    parser = _Parser(
        prog="python -m rules render",
        description=(
            "Draw the map of a turn document (the one battles and resolve read) from standard "
            "input; write the PNG on standard output."
        ),
        add_help=False,
    )
    parser.add_argument(
        "--variant",
        choices=("public", "friday", "private", "resolved"),
        default="public",
        help=(
            "public: the state as it is; friday: with the battles its orders make; private: "
            "with --side's orders; resolved: the state after resolving the turn, with captures"
        ),
    )
    parser.add_argument("--side", help="the side whose orders the private variant shows")
    parser.add_argument("--title", default="Strategium", help="the campaign's name")
    parser.add_argument("--lang", choices=("en", "ru"), default="en", help="language of names")
    parser.add_argument("-h", "--help", action="store_true", help="show this help")
    return parser


def view_of_document(
    text: str, variant: str, side: str | None, title: str, language: str
) -> MapView:
    """The map view of a turn document; raises :class:`DocumentError` if it cannot be drawn.

    A document whose modules draw dice but that gives no seeds is drawn with the core's
    battles only (the modules' battles cannot be known without the dice).
    """
    turn = load_turn_document(text)
    game, state, orders = turn.game, turn.state, turn.orders
    side_ids = [*state.sides(), *(s for s in orders if s not in state.armies)]
    palette = default_palette(side_ids)
    sides = tuple(SideView(id=s, name=s[:1].upper() + s[1:], colour=palette[s]) for s in side_ids)
    labels = RUSSIAN_LABELS if language == "ru" else MapLabels()
    base: dict[str, Any] = {
        "map": game.map,
        "sides": sides,
        "title": title,
        "language": language,
        "labels": labels,
        "sectors_to_win": game.ruleset.sectors_to_win,
    }
    held = held_sectors(state, game.ruleset.capture_min_armies)
    if variant == "public":
        return MapView(state=state, captured=held, **base)
    seeded = turn.seeds is not None and turn.seeds.roll is not None
    planner = game if seeded or not game.uses_dice() else replace(game, modules=())
    try:
        plan = plan_battles(planner, state, orders, turn.seeds if seeded else None)
    except (ModuleStateError, StateOffMapError) as error:
        raise DocumentError(f"state: {error}") from error
    if variant == "friday":
        return MapView(state=state, battles=plan.battles, captured=held, **base)
    if variant == "private":
        if side is None or side not in plan.accepted:
            known = ", ".join(plan.accepted) or "none"
            raise DocumentError(f"side {side!r} has no armies in state (sides: {known})")
        private = PrivateOrders(side=side, orders=plan.accepted[side])
        return MapView(state=state, private=private, captured=held, **base)
    if variant == "resolved":
        if game.uses_dice() and not seeded:
            raise DocumentError("the resolved variant of this ruleset needs seeds.roll")
        try:
            resolution = resolve_turn(
                game, state, orders, _results(turn.results), turn.seeds, turn.late
            )
        except ResultsError as error:
            raise DocumentError(f"results: {error}") from error
        except (ModuleStateError, StateOffMapError) as error:
            raise DocumentError(f"state: {error}") from error
        report = resolution.report
        week = week_of(report, game.ruleset.losses, held)
        captured = dict(report.captured)
        return MapView(state=resolution.state, captured=captured, week=week, **base)
    raise DocumentError(f"unknown variant {variant!r}")


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


def render_main(argv: list[str], stdin: IO[str], stdout: IO[bytes], stderr: IO[str]) -> int:
    """``python -m rules render``: a turn document on ``stdin``, its map as PNG on ``stdout``.

    Exit status 0 with the PNG written, 2 with a message on ``stderr`` for bad arguments or a
    document that cannot be drawn.
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as error:
        print(f"{parser.prog}: {error}\n{parser.format_usage()}", file=stderr, end="")
        return 2
    if args.help:
        print(parser.format_help(), file=stderr, end="")
        return 0
    if args.variant == "private" and args.side is None:
        print(f"{parser.prog}: the private variant needs --side", file=stderr)
        return 2
    try:
        view = view_of_document(stdin.read(), args.variant, args.side, args.title, args.lang)
    except (DocumentError, UnknownModuleError) as error:
        print(f"{parser.prog}: malformed turn document: {error}", file=stderr)
        return 2
    except UnicodeDecodeError as error:
        print(f"{parser.prog}: input is not UTF-8 text: {error}", file=stderr)
        return 2
    except ValidationError as error:
        print(f"{parser.prog}: cannot draw this document: {error}", file=stderr)
        return 2
    stdout.write(render_map(view))
    stdout.flush()
    return 0
