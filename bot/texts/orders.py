"""Typed orders, in Russian and English, one order per line, written as people write them.

Each kind of order is taken as a noun or a verb (imperative or infinitive), in any letter case,
``ё`` read as ``е``::

    перемещение 3 армий из 2 в 1        move 3 armies from 2 to 1
    переместить 3 армии из Запада в 1   move from West to Equator x3
    перемести 2 в 1 х3                  2 -> 1 x2
    3 армии из 2 в 1                    2 → 1 2
    атака на Красных в 2                attack Red in 2 West
    атакуй синих на экваторе ×2         2 attacks on Blue in 1
    2 атаки на Red в сектор 2           attack 1 blue
    укрепление в 2 / укрепить Запад     fortify 2 / hold West
    подкрепление с орбиты в 4           orbital reinforcement to 4
    подкрепить Северный полюс           reinforce North Pole

and the rule modules' orders: each registered module gives its part of the grammar (read in
every campaign: the rules refuse a module's order where the module is off), reads its orders'
parse trees and names the pieces a player may type (``BotModule.typed_grammar``,
``typed_order``, ``typed_vocabulary``; the built-in modules' are in
``bot/modules/<name>/typed.py``, with their examples).

Every line the bot prints as an order reads back as that order: the echo of a typed line
("attack Red in 2 West ×2"), the review screen's sector lines ("2 West (3 armies): fortify",
with ``;`` between the attacks of one sector) and its reinforcement line
("Reinforcement: 4 North Pole").

Why lark: the grammar below (and the modules' parts) is the whole syntax in readable pieces, and
its Earley parser returns *every* reading of an ambiguous line ("атака на Орки на байках в 2":
where does the side's name end?). The parser keeps the readings whose names resolve to one
sector and one side, so multi-word and hyphenated names (``Северо-восток``, ``Северный полюс``)
work without quotes. Names match sector ids, names in every language of the map and "id name"
labels (``2 Запад``), side ids and names, ignoring case, ``ё``/``е``, quotes and Russian endings
(``синих`` finds "Синие"); a line typed in the wrong keyboard layout (``fnfrf cbybt 1``) is read
again in the other one.

The parser only turns text into orders; the rules engine decides whether each is legal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import lru_cache
from itertools import islice, product

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters

from rules import Attack, CampaignMap, CampaignState, Fortify, ModuleOrder, Move, Reinforce, SideId
from rules.maps import SectorId

MAX_LINE_LENGTH = 120
"""A typed placement's length, and how much of a refused line a reply shows."""
MAX_ORDER_CHARS = 120
MAX_ORDER_WORDS = 24
"""One order's length, unless the campaign's names are longer: more is no order a person
writes, and the parser's work grows fast with the words."""
MAX_ORDERS_IN_LINE = 12
"""Orders joined by ``;`` in one line (the review screen joins a sector's attacks so)."""
MAX_LINES = 40
MAX_READINGS = 64
"""Readings of one order looked at; an ambiguous name rarely gives more than a dozen."""
MAX_ATTACKS_IN_LINE = 10
"""The most "×N" one attack may say."""

END = r"(?![\w'’-])"
"""The end of an order word: no letter, digit, apostrophe or hyphen follows."""
_MOVE = (
    r"move[sd]?|moving|movement|mv|go|march"
    r"|перемест\w*|перемещ\w*|перевод\w*|перевест\w*|перевед\w*|двин\w*|двига\w*|иди|идти"
)
_ATTACK = r"attack\w*|atk|атак\w*|напа[дс]\w*|напади"
_FORTIFY = r"fortif\w*|fort|hold|defend|укреп\w*|оборон\w*|держ\w*"
_REINFORCE = r"reinforc\w*|reinf|подкреп\w*"
_ORBITAL = r"orbital|орбитальн\w*"
_ORBIT = r"orbit|орбит[аыуе]?"
_FROM = r"from|из|изо|с|со"
_HEAD = r"""
start: holding? _order
holding: place LPAR amount RPAR
_order: {orders}
"""
_CORE_RULES = r"""
move: MOVE? amount? place ARROW place amount?
    | MOVE? amount? FROM place TO place amount?
    | MOVE amount? place TO place amount?
attack: times? ATTACK ON? target IN place times?
      | times? ATTACK IN place ON? target times?
      | times? ATTACK ON? target place times?
      | times? ATTACK place ON? target times?
fortify: FORTIFY (IN? place)?
reinforce: ORBITAL? REINFORCE (FROM ORBIT)? (TO | IN)? place
         | FROM? ORBIT (TO | IN)? place
"""
_CORE_ORDERS = ("move", "attack", "fortify", "reinforce")
_SHARED = r"""
place: SECTOR? name
target: SIDE? name
name: (WORD | NUMBER | MIXED)+
amount: NUMBER ARMY? | COUNT | TIMES NUMBER
times: NUMBER TIMES_WORD? | COUNT | TIMES NUMBER
"""
_TERMINALS = rf"""
MOVE: /({_MOVE}){END}/i
ATTACK: /({_ATTACK}){END}/i
FORTIFY: /({_FORTIFY}){END}/i
REINFORCE: /({_REINFORCE}){END}/i
ORBITAL: /({_ORBITAL}){END}/i
ORBIT: /({_ORBIT}){END}/i
FROM: /({_FROM}){END}/i
TO: /(to|into|в|во|на){END}/i
IN: /(in|at|в|во|на){END}/i
ON: /(on|на|против){END}/i
SECTOR: /(sector|сектор\w*){END}/i
SIDE: /(side|сторон\w*){END}/i
ARMY: /(arm(y|ies)|арми[яиюйе]\w*){END}/i
TIMES_WORD: /(times|раза?){END}/i
ARROW: /-+>|→|⟶|=>|>|—>?|–>/
COUNT: /[xх×*]\d+{END}/i
TIMES: /[xх×*]/i
NUMBER: /\d+{END}/
MIXED: /\d[\w'’]*[^\W\d_][\w'’]*(-[\w'’]+)*|\d+(-[\w'’]+)+/
WORD: /[^\W\d_][\w'’]*(-[\w'’]+)*/
LPAR: "("
RPAR: ")"

%import common.WS
%ignore WS
%ignore /[,.:!?«»"“”„]+/
"""


@dataclass(frozen=True)
class TypedGrammar:
    """A module's part of the typed orders' grammar (:meth:`BotModule.typed_grammar`)."""

    rules: str
    """Lark rules and terminals, joined to the shared grammar: they may use its rules
    (``place``, ``target``, ``name``, ``amount``) and terminals (``MOVE``, ``FROM``, ``TO``,
    ``IN``, ``ON``, ``ARROW``) and end each terminal's pattern with :data:`END`."""
    orders: tuple[str, ...]
    """The rules that are whole orders (the tree :meth:`BotModule.typed_order` reads)."""
    order_words: tuple[str, ...] = ()
    """Patterns of the words that begin its orders, so that a line with one of them later on
    («привет, штурм ...») is reported at its first word."""


@dataclass(frozen=True)
class _Grammar:
    text: str
    owners: Mapping[str, str]
    """Order rule -> the module that reads it."""
    order_word: re.Pattern[str]


@lru_cache(maxsize=8)
def _assembled(pieces: tuple[tuple[str, TypedGrammar], ...]) -> _Grammar:
    """The whole grammar: the core's orders and every module's, from the registered modules'
    pieces (the same pieces give the same object, so the parse's cache key stays cheap)."""
    orders = [*_CORE_ORDERS, *(order for _, piece in pieces for order in piece.orders)]
    text = "".join(
        [
            _HEAD.format(orders=" | ".join(orders)),
            _CORE_RULES,
            *(piece.rules for _, piece in pieces),
            _SHARED,
            _TERMINALS,
        ]
    )
    owners = {order: name for name, piece in pieces for order in piece.orders}
    words = [_MOVE, _ATTACK, _FORTIFY, _REINFORCE, _ORBITAL, _ORBIT, _FROM]
    words += [word for _, piece in pieces for word in piece.order_words]
    pattern = re.compile("|".join(f"^(?:{word})$" for word in words), re.IGNORECASE)
    return _Grammar(text=text, owners=owners, order_word=pattern)


def _grammar() -> _Grammar:
    """The grammar of the modules registered now (``bot.modules.BOT_MODULES``)."""
    from bot.modules import BOT_MODULES  # noqa: PLC0415 (the registry imports the modules)

    pieces = tuple(
        (name, piece)
        for name, module in BOT_MODULES.items()
        if (piece := module.typed_grammar()) is not None
    )
    return _assembled(pieces)


class LineProblem(StrEnum):
    """Why a line gave no order."""

    NOT_UNDERSTOOD = "not_understood"
    INCOMPLETE = "incomplete"
    MISSING_COUNT = "missing_count"
    UNKNOWN_SECTOR = "unknown_sector"
    UNKNOWN_SIDE = "unknown_side"
    UNKNOWN_PIECE = "unknown_piece"  # a module's piece (ParsedLine.piece: which kind)
    AMBIGUOUS = "ambiguous"
    AMBIGUOUS_LOCATION = "ambiguous_location"  # the word begins the names of several locations
    BAD_COUNT = "bad_count"
    TOO_LONG = "too_long"
    TOO_MANY_LINES = "too_many_lines"


TextOrder = Move | Attack | Fortify | Reinforce | ModuleOrder


@dataclass(frozen=True)
class ParsedLine:
    """One line of a text message: the orders it gives, or the problem and the word at fault
    (``NOT_UNDERSTOOD``: the word that could not be read; ``INCOMPLETE``: the last word, after
    which something is missing)."""

    number: int
    text: str
    orders: tuple[TextOrder, ...] = ()
    problem: LineProblem | None = None
    word: str | None = None
    piece: str | None = None
    """``UNKNOWN_PIECE``: the kind of the module's pieces (:attr:`TypedNames.kind`) none of
    which ``word`` names; the module owning that kind words the problem
    (:meth:`BotModule.typed_problem`)."""


@dataclass(frozen=True)
class TypedNames:
    """Names of a module's pieces a player may type (:meth:`BotModule.typed_vocabulary`)."""

    kind: str
    """What the pieces are, as the module's reading asks for them (:meth:`Reader.piece`)."""
    names: Mapping[str, Iterable[str]]
    """Piece id -> its names in every language."""
    labels: bool = False
    """"id name" labels too, as the bot writes the pieces in its lists."""
    sized: bool = False
    """An order names one where a side's name may stand: it counts in an order's length."""


@dataclass(frozen=True)
class Vocabulary:
    """Names a player may use: normalised name -> sector id, and -> side id; modules' pieces
    by kind, normalised name -> piece id."""

    sectors: Mapping[str, SectorId]
    sides: Mapping[str, SideId]
    order_chars: int = MAX_ORDER_CHARS
    order_words: int = MAX_ORDER_WORDS
    pieces: Mapping[str, Mapping[str, str]] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        campaign_map: CampaignMap,
        sides: Mapping[SideId, Iterable[str]],
        pieces: Iterable[TypedNames] = (),
    ) -> Vocabulary:
        """Sector ids, names in every language of the map and "id name" labels; side ids and
        the given names; the modules' pieces' ids and names (and "id name" labels where the
        module writes them so). An order may be as long as the bot's own wording of one with
        the longest names (a sector label twice and a side, or a piece said where a side may
        stand), and never shorter than the defaults."""
        sectors: dict[str, SectorId] = {}
        for sector in campaign_map.sectors:
            spelled = [sector.name, *sector.names.values()]
            labels = [f"{sector.id} {name}" for name in spelled]
            for name in (sector.id, *spelled, *labels):
                sectors.setdefault(normalise(name), sector.id)
        side_names: dict[str, SideId] = {}
        for side, given in sides.items():
            for name in (side, *given):
                side_names.setdefault(normalise(name), side)
        tables: dict[str, dict[str, str]] = {}
        sized: list[str] = []
        for typed in pieces:
            table = tables.setdefault(typed.kind, {})
            for piece, given in typed.names.items():
                spelled = list(given)
                named = (piece, *spelled)
                if typed.labels:
                    named = (*named, *(f"{piece} {name}" for name in spelled))
                for name in named:
                    table.setdefault(normalise(name), piece)
            if typed.sized:
                sized.extend(table)
        sector_chars, sector_words = _longest(sectors)
        side_chars, side_words = _longest([*side_names, *sized])
        return cls(
            sectors=sectors,
            sides=side_names,
            pieces=tables,
            order_chars=max(MAX_ORDER_CHARS, 2 * sector_chars + side_chars + 60),
            order_words=max(MAX_ORDER_WORDS, 2 * sector_words + side_words + 12),
        )

    @classmethod
    def of_state(
        cls, campaign_map: CampaignMap, sides: Mapping[SideId, Iterable[str]], state: CampaignState
    ) -> Vocabulary:
        """:meth:`build` with the pieces every registered module names in ``state``."""
        from bot.modules import BOT_MODULES  # noqa: PLC0415 (the registry imports the modules)

        pieces = [
            typed for module in BOT_MODULES.values() for typed in module.typed_vocabulary(state)
        ]
        return cls.build(campaign_map, sides, pieces)


def _longest(names: Iterable[str]) -> tuple[int, int]:
    """The most characters and the most words among ``names``."""
    names = list(names)
    return max(map(len, names), default=0), max((len(n.split()) for n in names), default=0)


_EN = "`qwertyuiop[]asdfghjkl;'zxcvbnm,."
_RU = "ёйцукенгшщзхъфывапролджэячсмитьбю"
_TO_RU = str.maketrans(_EN + _EN.upper(), _RU + _RU.upper())
_TO_EN = str.maketrans(_RU + _RU.upper(), _EN + _EN.upper())
_YO = str.maketrans("ёЁ", "еЕ")
_LOOKALIKES = str.maketrans("aceopxyACEHKMOPTXB", "асеорхуАСЕНКМОРТХВ")
_MIXED_WORD = re.compile(r"[\w'’-]*[А-Яа-яЁё][\w'’-]*")


def _fold(text: str) -> str:
    """``ё`` as ``е``, and Latin letters that look Cyrillic inside a Russian word as the
    Cyrillic ones («cеверный» typed with a Latin c). Keeps every character's position."""
    folded = _MIXED_WORD.sub(lambda word: word.group().translate(_LOOKALIKES), text)
    return folded.translate(_YO)


_BULLETS = "✓✔✗✘•·-–*"
"""Marks before a line copied from the bot's own lists (the echo's ✓), dropped."""


def normalise(name: str) -> str:
    """Lower case, ``ё`` as ``е``, single spaces, no punctuation around or between words."""
    words = re.findall(r"[\w'’]+", _fold(name).casefold())
    return " ".join(words)


@lru_cache(maxsize=8)
def _parser(grammar: str) -> Lark:
    return Lark(grammar, parser="earley", lexer="dynamic", ambiguity="explicit")


@lru_cache(maxsize=4096)
def _parse(grammar: str, folded: str) -> Tree[Token] | LarkError:
    """The parse of a folded line by ``grammar`` (the registered modules' grammar: one object
    while they stay, so the key hashes fast), or the parser's error. The Earley parse is most
    of the cost of a typed order (0.1-0.3 s a line on a busy machine) and a strategist resends
    the same lines as they edit their orders, so the last few thousand are kept; the tree is
    only read (:func:`_expand` builds new trees), never changed. Names are looked up after the
    parse, so the vocabulary is no part of the key."""
    try:
        return _parser(grammar).parse(folded)
    except LarkError as error:
        return error


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


def partial_matches(typed: str, table: Mapping[str, str]) -> list[str]:
    """The ids whose name ``typed`` (normalised, 3 characters or more) begins, or one of whose
    words it begins: «квартира», «егора», «Apart» -> ``apartment``. Each id once, in the
    table's order; one id: the name meant, several: ambiguous."""
    if len(typed) < 3:
        return []
    found = dict.fromkeys(
        target
        for known, target in table.items()
        if known.startswith(typed) or any(word.startswith(typed) for word in known.split())
    )
    return list(found)


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
    piece: str | None = None
    name_words: int = 0


class ReadingError(Exception):
    """Why one reading of a line gives no order (raised and caught inside this module)."""

    def __init__(
        self, problem: LineProblem, word: str | None = None, piece: str | None = None
    ) -> None:
        super().__init__(problem)
        self.problem = problem
        self.word = word
        self.piece = piece


def subtrees(tree: Tree[Token], kind: str) -> list[Tree[Token]]:
    return [child for child in tree.children if isinstance(child, Tree) and child.data == kind]


def tree_tokens(tree: Tree[Token]) -> list[Token]:
    return list(tree.scan_values(lambda value: isinstance(value, Token)))


def _amount(tree: Tree[Token]) -> int:
    return int(
        "".join(
            ch
            for token in tree_tokens(tree)
            if token.type != "ARMY"
            for ch in token
            if ch.isdigit()
        )
    )


class Reader:
    """Turns one parse tree of a line into orders, looking names up in the vocabulary; a
    module's :meth:`BotModule.typed_order` reads its own orders' trees with it."""

    def __init__(self, vocabulary: Vocabulary, line: str, grammar: _Grammar) -> None:
        self.vocabulary = vocabulary
        self.line = line
        self.grammar = grammar
        self.held: SectorId | None = None
        """The sector of the line's holding ("2 (3): ..."), which a module's order must be
        given for."""

    @staticmethod
    def subtrees(tree: Tree[Token], kind: str) -> list[Tree[Token]]:
        """The children of ``tree`` that are ``kind`` rules."""
        return subtrees(tree, kind)

    @staticmethod
    def tokens(tree: Tree[Token]) -> list[Token]:
        """Every token under ``tree``, in order."""
        return tree_tokens(tree)

    def text(self, tree: Tree[Token]) -> str:
        """The words of ``tree`` as typed."""
        tokens = tree_tokens(tree)
        start, end = tokens[0].start_pos, tokens[-1].end_pos
        if start is None or end is None:
            return " ".join(tokens)
        return self.line[start:end]

    def name(self, tree: Tree[Token]) -> str:
        return self.text(subtrees(tree, "name")[0])

    def sector(self, tree: Tree[Token]) -> SectorId:
        """The sector a ``place`` names."""
        words = self.name(tree)
        found, ambiguous = _lookup(normalise(words), self.vocabulary.sectors)
        if found is None:
            raise ReadingError(
                LineProblem.AMBIGUOUS if ambiguous else LineProblem.UNKNOWN_SECTOR, words
            )
        return found

    def side(self, tree: Tree[Token]) -> SideId:
        words = self.name(tree)
        found, ambiguous = _lookup(normalise(words), self.vocabulary.sides)
        if found is None:
            raise ReadingError(
                LineProblem.AMBIGUOUS if ambiguous else LineProblem.UNKNOWN_SIDE, words
            )
        return found

    def piece(self, tree: Tree[Token], kind: str) -> str:
        """The id of the module's piece of ``kind`` (:class:`TypedNames`) that ``tree``'s name
        names; ``UNKNOWN_PIECE`` of ``kind`` when none does."""
        words = self.name(tree)
        found, ambiguous = _lookup(normalise(words), self.vocabulary.pieces.get(kind, {}))
        if found is None:
            if ambiguous:
                raise ReadingError(LineProblem.AMBIGUOUS, words)
            raise ReadingError(LineProblem.UNKNOWN_PIECE, words, kind)
        return found

    def location(self, tree: Tree[Token]) -> SectorId:
        """A place by a sector's name, or an unambiguous beginning of a name or of one of its
        words (locations have long names: «Квартира» for «Квартира Егора»)."""
        try:
            return self.sector(tree)
        except ReadingError as unknown:
            if unknown.problem is not LineProblem.UNKNOWN_SECTOR:
                raise
            words = self.name(tree)
            found = partial_matches(normalise(words), self.vocabulary.sectors)
            if len(found) == 1:
                return found[0]
            if found:
                raise ReadingError(LineProblem.AMBIGUOUS_LOCATION, words) from unknown
            raise

    def count(self, trees: list[Tree[Token]]) -> int | None:
        """The one number the amounts (or times) of an order give; ``None`` if none."""
        values = {_amount(tree) for tree in trees}
        if len(values) > 1:
            raise ReadingError(LineProblem.AMBIGUOUS)
        return values.pop() if values else None

    def armies(self, order_tree: Tree[Token]) -> int:
        """How many armies an order's ``amount`` moves: one number, at least 1."""
        count = self.count(subtrees(order_tree, "amount"))
        if count is None:
            raise ReadingError(LineProblem.MISSING_COUNT)
        if count < 1:
            raise ReadingError(LineProblem.BAD_COUNT, str(count))
        return count

    def module_order(self, order_tree: Tree[Token]) -> ModuleOrder:
        """The order a module's rule gives, by the module that owns the rule."""
        from bot.modules import BOT_MODULES  # noqa: PLC0415 (the registry imports the modules)

        module = BOT_MODULES.get(self.grammar.owners.get(order_tree.data, ""))
        given = module.typed_order(order_tree, self) if module is not None else None
        if given is None:
            raise ReadingError(LineProblem.NOT_UNDERSTOOD)
        if self.held is not None and given.sector != self.held:
            raise ReadingError(LineProblem.AMBIGUOUS)
        return given

    def read(self, tree: Tree[Token]) -> tuple[TextOrder, ...]:
        holdings = subtrees(tree, "holding")
        held = self.sector(subtrees(holdings[0], "place")[0]) if holdings else None
        self.held = held
        order_tree = tree.children[-1]
        if not isinstance(order_tree, Tree):
            raise ReadingError(LineProblem.NOT_UNDERSTOOD)
        if order_tree.data not in _CORE_ORDERS:
            return (self.module_order(order_tree),)
        places = subtrees(order_tree, "place")
        orders: tuple[TextOrder, ...]
        match order_tree.data:
            case "fortify":
                where = self.sector(places[0]) if places else held
                if where is None:
                    raise ReadingError(LineProblem.INCOMPLETE, self.text(order_tree))
                orders = (Fortify(sector=where),)
            case "reinforce":
                return (Reinforce(sector=self.sector(places[0])),)
            case "move":
                source, to = self.sector(places[0]), self.sector(places[1])
                orders = (Move(source=source, to=to, count=self.armies(order_tree)),)
            case _:
                place = self.sector(places[0])
                target = self.side(subtrees(order_tree, "target")[0])
                times = self.count(subtrees(order_tree, "times"))
                if times is not None and not 1 <= times <= MAX_ATTACKS_IN_LINE:
                    raise ReadingError(LineProblem.BAD_COUNT, str(times))
                orders = (Attack(sector=place, target=target),) * (times or 1)
        if held is not None and orders[0].sector != held:
            raise ReadingError(LineProblem.AMBIGUOUS)
        if held is not None and isinstance(orders[0], Attack):
            return (Fortify(sector=held), *orders)  # the sector's whole order, as listed
        return orders


def _expand(node: Tree[Token] | Token, cache: dict[int, list[object]]) -> list[object]:
    """Up to :data:`MAX_READINGS` unambiguous trees for a node of an explicitly ambiguous tree
    (lark's ``CollapseAmbiguities`` builds them all, which a hostile line can make millions)."""
    if isinstance(node, Token):
        return [node]
    known = cache.get(id(node))
    if known is not None:
        return known
    if node.data == "_ambig":
        options: list[object] = []
        for child in node.children:
            options.extend(_expand(child, cache))
            if len(options) >= MAX_READINGS:
                break
        found = options[:MAX_READINGS]
    else:
        children = [_expand(child, cache) for child in node.children]
        found = [
            Tree(node.data, list(combination))
            for combination in islice(product(*children), MAX_READINGS)
        ]
    cache[id(node)] = found
    return found


def _readings(line: str, vocabulary: Vocabulary) -> list[_Reading] | LarkError:
    """Every reading of a line, or the parser's error when none parses."""
    grammar = _grammar()
    tree = _parse(grammar.text, _fold(line))
    if isinstance(tree, LarkError):
        return tree
    reader = Reader(vocabulary, line, grammar)
    readings: list[_Reading] = []
    for candidate in _expand(tree, {}):
        assert isinstance(candidate, Tree)
        words = sum(len(tree_tokens(name)) for name in candidate.find_data("name"))
        try:
            readings.append(_Reading(orders=reader.read(candidate), name_words=words))
        except ReadingError as failed:
            readings.append(
                _Reading(
                    problem=failed.problem, word=failed.word, piece=failed.piece, name_words=words
                )
            )
    return readings


def _best(readings: list[_Reading]) -> _Reading:
    """The one meaning of a line, or a problem if readings disagree or none gives an order."""
    good = [reading for reading in readings if reading.problem is None]
    meanings: list[tuple[TextOrder, ...]] = []
    for reading in good:
        if reading.orders not in meanings:  # by equality: a module order is not hashable
            meanings.append(reading.orders)
    if len(meanings) == 1:
        return good[0]
    if len(meanings) > 1:
        return _Reading(problem=LineProblem.AMBIGUOUS)
    return min(readings, key=lambda reading: reading.name_words)


_ARROW_IN_TEXT = re.compile(r"->|→|⟶|=>|>|—|–>")

_PUNCTUATION = ',.:;!?«»"“”„()'


def _unreadable(line: str, error: LarkError) -> tuple[LineProblem, str | None]:
    """Why no reading parses: the word the parser stopped at; else the first word, when the
    line has no order word or reads from a later order word on («привет, атака ...»); else the
    order is cut short after its last word."""
    if isinstance(error, UnexpectedCharacters):
        position = min(error.pos_in_stream or 0, len(line) - 1)
        start = line.rfind(" ", 0, position) + 1
        end = line.find(" ", position)
        return LineProblem.NOT_UNDERSTOOD, _word(line[start : end if end >= 0 else len(line)])
    words = _fold(line).split()
    if not words:
        return LineProblem.NOT_UNDERSTOOD, None
    first = _word(line.split(maxsplit=1)[0])
    grammar = _grammar()
    starts = [
        i for i, word in enumerate(words) if grammar.order_word.match(word.strip(_PUNCTUATION))
    ]
    if not starts and not _ARROW_IN_TEXT.search(line):
        return LineProblem.NOT_UNDERSTOOD, first
    if starts and starts[0] > 0 and _parses(grammar, " ".join(words[starts[0] :])):
        return LineProblem.NOT_UNDERSTOOD, first
    return LineProblem.INCOMPLETE, _word(line.rsplit(maxsplit=1)[-1])


def _word(chunk: str) -> str:
    """A word as a reply quotes it: without the punctuation around it (unless that is all)."""
    return chunk.strip(_PUNCTUATION) or chunk


def _parses(grammar: _Grammar, text: str) -> bool:
    return not isinstance(_parse(grammar.text, text), LarkError)


def _reading(text: str, vocabulary: Vocabulary) -> _Reading | LarkError:
    readings = _readings(text, vocabulary)
    return readings if isinstance(readings, LarkError) else _best(readings)


_LATIN = re.compile(r"[A-Za-z]")
_CYRILLIC = re.compile(r"[А-Яа-яЁё]")


def _other_layout(text: str) -> str | None:
    """The line as the other keyboard layout types it, for a line in one alphabet only (one
    typed in the wrong layout is)."""
    latin, cyrillic = bool(_LATIN.search(text)), bool(_CYRILLIC.search(text))
    if latin == cyrillic:
        return None
    return text.translate(_TO_RU if latin else _TO_EN)


def _split(text: str) -> list[str]:
    """The orders of one line: ``;`` between them (as the review screen joins a sector's
    attacks), the bot's own list marks dropped."""
    parts = [part.strip().lstrip(_BULLETS).strip() for part in text.split(";")]
    return [part for part in parts if part]


def _read_part(part: str, vocabulary: Vocabulary) -> _Reading:
    if len(part) > vocabulary.order_chars or len(part.split()) > vocabulary.order_words:
        return _Reading(problem=LineProblem.TOO_LONG)
    reading = _reading(part, vocabulary)
    retyped = _other_layout(part)
    if retyped is not None and (isinstance(reading, LarkError) or reading.problem is not None):
        other = _reading(retyped, vocabulary)
        if isinstance(other, _Reading) and other.problem is None:
            return other
    if isinstance(reading, LarkError):
        problem, word = _unreadable(part, reading)
        return _Reading(problem=problem, word=word)
    return reading


def _shown(text: str) -> str:
    """A refused line as a reply quotes it: cut to :data:`MAX_LINE_LENGTH` characters."""
    return text if len(text) <= MAX_LINE_LENGTH else text[: MAX_LINE_LENGTH - 1] + "…"


def parse_line(line: str, vocabulary: Vocabulary, number: int = 1) -> ParsedLine:
    """Read one line (one order, or several joined by ``;``, taken together); never raises."""
    text = line.strip()
    parts = _split(text)
    if len(parts) > MAX_ORDERS_IN_LINE or len(text) > MAX_ORDERS_IN_LINE * vocabulary.order_chars:
        return ParsedLine(number=number, text=_shown(text), problem=LineProblem.TOO_LONG)
    if not parts:
        return ParsedLine(number=number, text=text, problem=LineProblem.NOT_UNDERSTOOD)
    orders: list[TextOrder] = []
    for part in parts:
        reading = _read_part(part, vocabulary)
        if reading.problem is not None:
            return ParsedLine(
                number=number,
                text=_shown(text),
                problem=reading.problem,
                word=reading.word,
                piece=reading.piece,
            )
        orders.extend(reading.orders)
    return ParsedLine(number=number, text=text, orders=tuple(orders))


def parse_orders_text(message: str, vocabulary: Vocabulary) -> list[ParsedLine]:
    """Read every non-empty line of a message, each on its own; never raises."""
    lines = [(n, line) for n, line in enumerate(message.splitlines(), start=1) if line.strip()]
    parsed = [parse_line(line, vocabulary, n) for n, line in lines[:MAX_LINES]]
    parsed.extend(
        ParsedLine(number=n, text=_shown(line.strip()), problem=LineProblem.TOO_MANY_LINES)
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
