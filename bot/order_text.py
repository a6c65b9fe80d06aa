"""Text orders for fast typers, in Russian and English, one order per line.

Examples: ``2 -> 1 x2``, ``move 2 from 2 to 1``, ``attack blue in 1``, ``атака синие 1``,
``fortify 4``, ``reinforce 4``, ``подкрепление экватор``.

Why lark: the grammar below is the whole syntax in one readable place, and its Earley parser
returns *every* reading of an ambiguous line ("attack dark eldar north pole": where does the
side's name end?). The parser keeps the readings whose names resolve to one sector and one
side, so multi-word names work without quotes. Names match sector and side ids and names in any
language, ignoring case, ``ё``/``е`` and Russian endings (``синих`` finds "Синие"); a line typed
in the wrong keyboard layout (``fnfrf cbybt 1``) is read again in the other one.

The parser only turns text into orders; the rules engine decides whether each is legal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from enum import StrEnum
from functools import cache

from lark import Lark, Token, Tree
from lark.exceptions import LarkError
from lark.visitors import CollapseAmbiguities

from rules import Attack, CampaignMap, Fortify, Move, Reinforce, SideId
from rules.maps import SectorId

MAX_LINE_LENGTH = 120
MAX_LINES = 40
MAX_READINGS = 64

GRAMMAR = r"""
start: move | attack | fortify | reinforce

move: MOVE? ref ARROW ref count?
    | MOVE NUMBER FROM ref TO ref
    | MOVE FROM? ref TO ref count?
attack: ATTACK ref IN ref count?
      | ATTACK ref ref count?
fortify: FORTIFY IN? ref
reinforce: REINFORCE (TO | IN)? ref

ref: (WORD | NUMBER)+
count: TIMES NUMBER | COUNT | NUMBER

MOVE.3: /(move|mv|go|march|перемест\w*|перевод\w*|перевест\w*|перевед\w*|двин\w*|иди|идти)(?!\w)/i
ATTACK.3: /(attack\w*|atk|атак\w*|напасть|напад\w*)(?!\w)/i
FORTIFY.3: /(fortify|fort|hold|defend|укреп\w*|оборон\w*|держать)(?!\w)/i
REINFORCE.3: /(reinforce\w*|reinf|подкреп\w*|орбит\w*)(?!\w)/i
FROM.3: /(from|из|с|со)(?!\w)/i
TO.3: /(to|into|в|во|на)(?!\w)/i
IN.3: /(in|at|в|во|на)(?!\w)/i
ARROW: /-+>|→|=>|>|—>?/
COUNT.2: /[xх×*]\d+/i
TIMES.2: /[xх×*]/i
NUMBER: /\d+/
WORD: /[^\W\d_][\w'’]*/

%import common.WS
%ignore WS
%ignore /[,;.:!]+/
"""


class LineProblem(StrEnum):
    """Why a line gave no order."""

    NOT_UNDERSTOOD = "not_understood"
    MISSING_COUNT = "missing_count"
    UNKNOWN_SECTOR = "unknown_sector"
    UNKNOWN_SIDE = "unknown_side"
    AMBIGUOUS = "ambiguous"
    BAD_COUNT = "bad_count"
    TOO_LONG = "too_long"
    TOO_MANY_LINES = "too_many_lines"


TextOrder = Move | Attack | Fortify | Reinforce


@dataclass(frozen=True)
class ParsedLine:
    """One line of a text message: the orders it gives, or the problem and the word at fault."""

    number: int
    text: str
    orders: tuple[TextOrder, ...] = ()
    problem: LineProblem | None = None
    word: str | None = None


@dataclass(frozen=True)
class Vocabulary:
    """Names a player may use: normalised name -> sector id, and -> side id."""

    sectors: Mapping[str, SectorId]
    sides: Mapping[str, SideId]

    @classmethod
    def build(cls, campaign_map: CampaignMap, sides: Mapping[SideId, Iterable[str]]) -> Vocabulary:
        """Sector ids and names in every language of the map; side ids and the given names."""
        sectors: dict[str, SectorId] = {}
        for sector in campaign_map.sectors:
            for name in (sector.id, sector.name, *sector.names.values()):
                sectors.setdefault(normalise(name), sector.id)
        side_names: dict[str, SideId] = {}
        for side, names in sides.items():
            for name in (side, *names):
                side_names.setdefault(normalise(name), side)
        return cls(sectors=sectors, sides=side_names)


_EN = "`qwertyuiop[]asdfghjkl;'zxcvbnm,."
_RU = "ёйцукенгшщзхъфывапролджэячсмитьбю"
_TO_RU = str.maketrans(_EN + _EN.upper(), _RU + _RU.upper())
_TO_EN = str.maketrans(_RU + _RU.upper(), _EN + _EN.upper())


def normalise(name: str) -> str:
    """Lower case, ``ё`` as ``е``, single spaces, no punctuation around words."""
    words = re.findall(r"[\w'’]+", name.casefold().replace("ё", "е"))
    return " ".join(words)


@cache
def _parser() -> Lark:
    return Lark(GRAMMAR, parser="earley", lexer="dynamic", ambiguity="explicit")


def _lookup(name: str, table: Mapping[str, str]) -> tuple[str | None, bool]:
    """The id a name means: exact, else one name sharing all but a Russian ending.

    Returns (id or None, ambiguous).
    """
    if name in table:
        return table[name], False
    if len(name) < 3:
        return None, False
    found = {
        target for known, target in table.items() if len(known) >= 3 and _same_stem(name, known)
    }
    if len(found) == 1:
        return found.pop(), False
    return None, len(found) > 1


def _same_stem(a: str, b: str) -> bool:
    """True when two names have as many words and each pair differs only in a Russian ending
    (синие, синих, синими; северный полюс, северном полюсе)."""
    words_a, words_b = a.split(), b.split()
    return len(words_a) == len(words_b) and all(
        x == y or _same_word_stem(x, y) for x, y in zip(words_a, words_b, strict=True)
    )


def _same_word_stem(a: str, b: str) -> bool:
    if a.isdigit() or b.isdigit():
        return False
    shared = 0
    for x, y in zip(a, b, strict=False):
        if x != y:
            break
        shared += 1
    return shared >= 3 and shared >= max(len(a), len(b)) - 3 and shared >= min(len(a), len(b)) - 2


@dataclass(frozen=True)
class _Reading:
    orders: tuple[TextOrder, ...] = ()
    problem: LineProblem | None = None
    word: str | None = None
    ref_words: int = 0


def _ref_text(tree: Tree[Token]) -> str:
    return " ".join(str(token) for token in tree.children)


def _count(tree: Tree[Token] | None) -> int | None:
    if tree is None:
        return None
    digits = "".join(ch for token in tree.children for ch in str(token) if ch.isdigit())
    return int(digits)


def _read(tree: Tree[Token], vocabulary: Vocabulary) -> _Reading:
    order_tree = tree.children[0]
    if not isinstance(order_tree, Tree):
        return _Reading(problem=LineProblem.NOT_UNDERSTOOD)
    kind = str(order_tree.data)
    refs = [
        child for child in order_tree.children if isinstance(child, Tree) and child.data == "ref"
    ]
    counts = [
        child for child in order_tree.children if isinstance(child, Tree) and child.data == "count"
    ]
    numbers = [
        child
        for child in order_tree.children
        if isinstance(child, Token) and child.type == "NUMBER"
    ]
    ref_words = sum(len(ref.children) for ref in refs)

    def sector(ref: Tree[Token]) -> tuple[SectorId | None, _Reading | None]:
        text = _ref_text(ref)
        found, ambiguous = _lookup(normalise(text), vocabulary.sectors)
        if found is None:
            problem = LineProblem.AMBIGUOUS if ambiguous else LineProblem.UNKNOWN_SECTOR
            return None, _Reading(problem=problem, word=text, ref_words=ref_words)
        return found, None

    if kind in ("fortify", "reinforce"):
        place, failed = sector(refs[0])
        if place is None:
            return failed or _Reading(problem=LineProblem.NOT_UNDERSTOOD)
        order: TextOrder = Fortify(sector=place) if kind == "fortify" else Reinforce(sector=place)
        return _Reading(orders=(order,), ref_words=ref_words)

    if kind == "move":
        source, failed = sector(refs[0])
        if source is None:
            return failed or _Reading(problem=LineProblem.NOT_UNDERSTOOD)
        to, failed = sector(refs[1])
        if to is None:
            return failed or _Reading(problem=LineProblem.NOT_UNDERSTOOD)
        count = int(numbers[0]) if numbers else _count(counts[0] if counts else None)
        if count is None:
            return _Reading(problem=LineProblem.MISSING_COUNT, ref_words=ref_words)
        if count < 1:
            return _Reading(problem=LineProblem.BAD_COUNT, word=str(count), ref_words=ref_words)
        return _Reading(orders=(Move(source=source, to=to, count=count),), ref_words=ref_words)

    times = _count(counts[0] if counts else None) or 1
    if times > 10:
        return _Reading(problem=LineProblem.BAD_COUNT, word=str(times), ref_words=ref_words)
    has_in = any(isinstance(c, Token) and c.type == "IN" for c in order_tree.children)
    layouts = [(refs[0], refs[1])] if has_in else [(refs[0], refs[1]), (refs[1], refs[0])]
    failures: list[_Reading] = []
    for target_ref, sector_ref in layouts:
        target_text = _ref_text(target_ref)
        target, ambiguous = _lookup(normalise(target_text), vocabulary.sides)
        if target is None:
            problem = LineProblem.AMBIGUOUS if ambiguous else LineProblem.UNKNOWN_SIDE
            failures.append(_Reading(problem=problem, word=target_text, ref_words=ref_words))
            continue
        place, failed = sector(sector_ref)
        if place is None:
            failures.append(failed or _Reading(problem=LineProblem.NOT_UNDERSTOOD))
            continue
        attack = Attack(sector=place, target=target)
        return _Reading(orders=(attack,) * times, ref_words=ref_words)
    return failures[0]


def _readings(line: str, vocabulary: Vocabulary) -> list[_Reading]:
    try:
        tree = _parser().parse(line)
    except LarkError:
        return []
    readings: list[_Reading] = []
    for index, candidate in enumerate(CollapseAmbiguities().transform(tree)):
        if index >= MAX_READINGS:
            break
        readings.append(_read(candidate, vocabulary))
    return readings


def _best(readings: list[_Reading]) -> _Reading | None:
    """The one meaning of a line, a problem if readings disagree, or None if none parsed."""
    if not readings:
        return None
    good = [reading for reading in readings if reading.problem is None]
    meanings = {reading.orders for reading in good}
    if len(meanings) == 1:
        return good[0]
    if len(meanings) > 1:
        return _Reading(problem=LineProblem.AMBIGUOUS)
    return min(readings, key=lambda reading: reading.ref_words)


def parse_line(line: str, vocabulary: Vocabulary, number: int = 1) -> ParsedLine:
    """Read one line; never raises."""
    text = line.strip()
    if len(text) > MAX_LINE_LENGTH:
        return ParsedLine(number=number, text=text[:MAX_LINE_LENGTH], problem=LineProblem.TOO_LONG)
    reading = _best(_readings(text, vocabulary))
    if reading is None or reading.problem is not None:
        for layout in (_TO_RU, _TO_EN):
            other = _best(_readings(text.translate(layout), vocabulary))
            if other is not None and other.problem is None:
                reading = other
                break
    if reading is None:
        return ParsedLine(number=number, text=text, problem=LineProblem.NOT_UNDERSTOOD)
    return ParsedLine(
        number=number, text=text, orders=reading.orders, problem=reading.problem, word=reading.word
    )


def parse_orders_text(message: str, vocabulary: Vocabulary) -> list[ParsedLine]:
    """Read every non-empty line of a message, each on its own; never raises."""
    lines = [(n, line) for n, line in enumerate(message.splitlines(), start=1) if line.strip()]
    parsed = [parse_line(line, vocabulary, n) for n, line in lines[:MAX_LINES]]
    parsed.extend(
        ParsedLine(
            number=n, text=line.strip()[:MAX_LINE_LENGTH], problem=LineProblem.TOO_MANY_LINES
        )
        for n, line in lines[MAX_LINES:]
    )
    return parsed


_PLACEMENT_PAIR = re.compile(r"\s*([^:=,;\n]+?)\s*[:=]\s*(\d{1,4})\s*[,;]?")


@dataclass(frozen=True)
class ParsedPlacement:
    """A typed deployment (``1:4 2:3 4:3``): armies by sector, or the problem and the word."""

    placement: dict[SectorId, int] | None
    problem: LineProblem | None = None
    word: str | None = None


def _placement_pairs(text: str) -> list[tuple[str, int]] | None:
    pairs: list[tuple[str, int]] = []
    position = 0
    while position < len(text):
        found = _PLACEMENT_PAIR.match(text, position)
        if found is None or found.end() == position:
            return None
        pairs.append((found.group(1), int(found.group(2))))
        position = found.end()
    return pairs or None


def parse_placement(text: str, vocabulary: Vocabulary) -> ParsedPlacement:
    """Read ``sector:count`` pairs (ids or names, ``:`` or ``=``); never raises. Whether the
    placement is legal is the rules core's question (``rules.check_deployment``)."""
    text = " ".join(text.split())
    if len(text) > MAX_LINE_LENGTH:
        return ParsedPlacement(None, LineProblem.TOO_LONG)
    pairs = _placement_pairs(text)
    if pairs is None:
        return ParsedPlacement(None, LineProblem.NOT_UNDERSTOOD)
    placement: dict[SectorId, int] = {}
    for name, count in pairs:
        sector = None
        for spelling in (name, name.translate(_TO_RU), name.translate(_TO_EN)):
            sector, _ = _lookup(normalise(spelling), vocabulary.sectors)
            if sector is not None:
                break
        if sector is None:
            return ParsedPlacement(None, LineProblem.UNKNOWN_SECTOR, name)
        if sector in placement:
            return ParsedPlacement(None, LineProblem.AMBIGUOUS, name)
        placement[sector] = count
    return ParsedPlacement(placement)
