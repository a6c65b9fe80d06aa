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

and, in a campaign with the Midnight Siege, its orders (tokens by id or name)::

    штурм F1 в 2 за ПО / за погоду      assault F1 in 2 for VP / for weather
    охрана F1 из 1                      guard F1 from 1
    поворот погоды из 1                 steer weather from 1
    сыграть карту O1 до боёв / после    play card O1 before battles / after battles

and, in a campaign with contact, its orders (a move is the core's, several from one sector)::

    перевезти 3 из 1 через 2 в 4        transport 3 from 1 via 2 to 4
    уступить 2                          yield 2
    отступление из 2 в 3, затем 1       retreat from 2 to 3, then 1
    отступление из 2: нет               retreat from 2: none  (the standing one forgotten)

and, in a campaign with the Night Watch, a hero's move (heroes by name)::

    герой Лариса в Метро                hero Larisa to Metro
    Иной Лариса → метро                 hero larisa metro

Every line the bot prints as an order reads back as that order: the echo of a typed line
("attack Red in 2 West ×2"), the review screen's sector lines ("2 West (3 armies): fortify",
with ``;`` between the attacks of one sector) and its reinforcement line
("Reinforcement: 4 North Pole").

Why lark: the grammar below is the whole syntax in one readable place, and its Earley parser
returns *every* reading of an ambiguous line ("атака на Орки на байках в 2": where does the
side's name end?). The parser keeps the readings whose names resolve to one sector and one
side, so multi-word and hyphenated names (``Северо-восток``, ``Северный полюс``) work without
quotes. Names match sector ids, names in every language of the map and "id name" labels
(``2 Запад``), side ids and names, ignoring case, ``ё``/``е``, quotes and Russian endings
(``синих`` finds "Синие"); a line typed in the wrong keyboard layout (``fnfrf cbybt 1``) is
read again in the other one.

The parser only turns text into orders; the rules engine decides whether each is legal.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from enum import StrEnum
from functools import cache, lru_cache
from itertools import islice, product

from lark import Lark, Token, Tree
from lark.exceptions import LarkError, UnexpectedCharacters

from rules import Attack, CampaignMap, Fortify, ModuleOrder, Move, Reinforce, SideId
from rules.maps import SectorId
from rules.modules import contact, siege, watch

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

_END = r"(?![\w'’-])"
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
_ASSAULT = r"assault\w*|storm\w*|штурм\w*"
_GUARD = r"guard\w*|охран\w*|сторож\w*"
_STEER = r"steer\w*|поворот\w*|поверн\w*|поворач\w*"
_WEATHER = r"weather|погод\w*"
_CARD = r"cards?|карт[аыуео]\w*"
_PLAY = r"play\w*|сыгра\w*|разыгра\w*|игра\w*"
_TRANSPORT = r"transport\w*|carry|перевез\w*|перевоз\w*|перевози"
_YIELD = r"yield\w*|cede|уступ\w*|сда[тюе]\w*|сдай"
_RETREAT = r"retreat\w*|отступ\w*"
_HERO = r"hero\w*|геро\w*|ин(ой|ого|ому|ым|ые|ых|ая|ую)"
GRAMMAR = rf"""
start: holding? _order
holding: place LPAR amount RPAR
_order: move | attack | fortify | reinforce | assault | guard | steer | card | transport
      | cede | retreat | hero

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

assault: ASSAULT token (IN | ON)? place reward?
       | ASSAULT (IN | ON)? place token reward?
guard: GUARD token FROM place
steer: STEER WEATHER? (FROM | IN)? place
     | WEATHER (FROM | IN) place
card: PLAY? CARD token WINDOW BATTLES?
reward: FOR (VP | WEATHER)

transport: TRANSPORT amount? FROM place via* TO place amount?
via: VIA place
cede: YIELD place
retreat: RETREAT FROM place TO place then*
       | RETREAT FROM place NONE NOTE?
then: THEN place
hero: MOVE? HERO who (TO | ARROW)? place

who: name

token: name
place: SECTOR? name
target: SIDE? name
name: (WORD | NUMBER | MIXED)+
amount: NUMBER ARMY? | COUNT | TIMES NUMBER
times: NUMBER TIMES_WORD? | COUNT | TIMES NUMBER

ASSAULT: /({_ASSAULT}){_END}/i
GUARD: /({_GUARD}){_END}/i
STEER: /({_STEER}){_END}/i
WEATHER: /({_WEATHER}){_END}/i
CARD: /({_CARD}){_END}/i
PLAY: /({_PLAY}){_END}/i
WINDOW: /(before|after|до|после){_END}/i
BATTLES: /(battles?|бо[её]в|боя|битв\w*){_END}/i
FOR: /(for|за){_END}/i
TRANSPORT: /({_TRANSPORT}){_END}/i
YIELD: /({_YIELD}){_END}/i
RETREAT: /({_RETREAT}){_END}/i
HERO: /({_HERO}){_END}/i
VIA: /(via|through|через){_END}/i
THEN: /(then|затем|потом){_END}/i
NONE: /(none|nowhere|no\s+preference|нет|никуда|без\s+предпочтени\w*){_END}/i
NOTE: /\([^()]*\)/
VP: /(vp|points?|victory\s+points|по|очк\w*|победн\w*\s+очк\w*){_END}/i
MOVE: /({_MOVE}){_END}/i
ATTACK: /({_ATTACK}){_END}/i
FORTIFY: /({_FORTIFY}){_END}/i
REINFORCE: /({_REINFORCE}){_END}/i
ORBITAL: /({_ORBITAL}){_END}/i
ORBIT: /({_ORBIT}){_END}/i
FROM: /({_FROM}){_END}/i
TO: /(to|into|в|во|на){_END}/i
IN: /(in|at|в|во|на){_END}/i
ON: /(on|на|против){_END}/i
SECTOR: /(sector|сектор\w*){_END}/i
SIDE: /(side|сторон\w*){_END}/i
ARMY: /(arm(y|ies)|арми[яиюйе]\w*){_END}/i
TIMES_WORD: /(times|раза?){_END}/i
ARROW: /-+>|→|⟶|=>|>|—>?|–>/
COUNT: /[xх×*]\d+{_END}/i
TIMES: /[xх×*]/i
NUMBER: /\d+{_END}/
MIXED: /\d[\w'’]*[^\W\d_][\w'’]*(-[\w'’]+)*|\d+(-[\w'’]+)+/
WORD: /[^\W\d_][\w'’]*(-[\w'’]+)*/
LPAR: "("
RPAR: ")"

%import common.WS
%ignore WS
%ignore /[,.:!?«»"“”„]+/
"""


class LineProblem(StrEnum):
    """Why a line gave no order."""

    NOT_UNDERSTOOD = "not_understood"
    INCOMPLETE = "incomplete"
    MISSING_COUNT = "missing_count"
    UNKNOWN_SECTOR = "unknown_sector"
    UNKNOWN_SIDE = "unknown_side"
    UNKNOWN_TOKEN = "unknown_token"
    UNKNOWN_HERO = "unknown_hero"
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


@dataclass(frozen=True)
class Vocabulary:
    """Names a player may use: normalised name -> sector id, and -> side id."""

    sectors: Mapping[str, SectorId]
    sides: Mapping[str, SideId]
    order_chars: int = MAX_ORDER_CHARS
    order_words: int = MAX_ORDER_WORDS
    tokens: Mapping[str, str] = field(default_factory=dict)
    heroes: Mapping[str, str] = field(default_factory=dict)

    @classmethod
    def build(
        cls,
        campaign_map: CampaignMap,
        sides: Mapping[SideId, Iterable[str]],
        tokens: Mapping[str, Iterable[str]] | None = None,
        heroes: Mapping[str, Iterable[str]] | None = None,
    ) -> Vocabulary:
        """Sector ids, names in every language of the map and "id name" labels; side ids and
        the given names; siege tokens' ids, names and "id name" labels (``tokens``: id ->
        names); the Night
        Watch's heroes' ids and names (``heroes``: id -> names). An order may be
        as long as the bot's own wording of one with the longest names (a sector label twice
        and a side), and never shorter than the defaults."""
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
        token_names: dict[str, str] = {}
        for token, given in (tokens or {}).items():
            spelled = list(given)
            for name in (token, *spelled, *(f"{token} {name}" for name in spelled)):
                token_names.setdefault(normalise(name), token)
        hero_names: dict[str, str] = {}
        for hero, given in (heroes or {}).items():
            for name in (hero, *given):
                hero_names.setdefault(normalise(name), hero)
        sector_chars, sector_words = _longest(sectors)
        side_chars, side_words = _longest([*side_names, *token_names])
        return cls(
            sectors=sectors,
            sides=side_names,
            tokens=token_names,
            heroes=hero_names,
            order_chars=max(MAX_ORDER_CHARS, 2 * sector_chars + side_chars + 60),
            order_words=max(MAX_ORDER_WORDS, 2 * sector_words + side_words + 12),
        )


def siege_tokens(state_modules: Mapping[str, object]) -> dict[str, list[str]]:
    """The siege tokens of a turn-start state's modules (``CampaignState.modules``) with their
    names in every language, for :meth:`Vocabulary.build`; none without a siege."""
    raw = state_modules.get(siege.NAME)
    if raw is None:
        return {}
    found = siege.load(raw)  # type: ignore[arg-type]
    return {
        token.id: [name for name in (token.name, *token.names.values()) if name]
        for token in found.tokens
    }


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


@cache
def _parser() -> Lark:
    return Lark(GRAMMAR, parser="earley", lexer="dynamic", ambiguity="explicit")


@lru_cache(maxsize=4096)
def _parse(folded: str) -> Tree[Token] | LarkError:
    """The parse of a folded line, or the parser's error. The Earley parse is most of the cost
    of a typed order (0.1-0.3 s a line on a busy machine) and a strategist resends the same
    lines as they edit their orders, so the last few thousand are kept; the tree is only read
    (:func:`_expand` builds new trees), never changed."""
    try:
        return _parser().parse(folded)
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
    name_words: int = 0


class _ReadingError(Exception):
    """Why one reading of a line gives no order (raised and caught inside this module)."""

    def __init__(self, problem: LineProblem, word: str | None = None) -> None:
        super().__init__(problem)
        self.problem = problem
        self.word = word


def _subtrees(tree: Tree[Token], kind: str) -> list[Tree[Token]]:
    return [child for child in tree.children if isinstance(child, Tree) and child.data == kind]


def _tokens(tree: Tree[Token]) -> list[Token]:
    return list(tree.scan_values(lambda value: isinstance(value, Token)))


def _amount(tree: Tree[Token]) -> int:
    return int(
        "".join(
            ch for token in _tokens(tree) if token.type != "ARMY" for ch in token if ch.isdigit()
        )
    )


class _Reader:
    """Turns one parse tree of a line into orders, looking names up in the vocabulary."""

    def __init__(self, vocabulary: Vocabulary, line: str) -> None:
        self.vocabulary = vocabulary
        self.line = line

    def text(self, tree: Tree[Token]) -> str:
        """The words of ``tree`` as typed."""
        tokens = _tokens(tree)
        start, end = tokens[0].start_pos, tokens[-1].end_pos
        if start is None or end is None:
            return " ".join(tokens)
        return self.line[start:end]

    def name(self, tree: Tree[Token]) -> str:
        return self.text(_subtrees(tree, "name")[0])

    def sector(self, tree: Tree[Token]) -> SectorId:
        words = self.name(tree)
        found, ambiguous = _lookup(normalise(words), self.vocabulary.sectors)
        if found is None:
            raise _ReadingError(
                LineProblem.AMBIGUOUS if ambiguous else LineProblem.UNKNOWN_SECTOR, words
            )
        return found

    def side(self, tree: Tree[Token]) -> SideId:
        words = self.name(tree)
        found, ambiguous = _lookup(normalise(words), self.vocabulary.sides)
        if found is None:
            raise _ReadingError(
                LineProblem.AMBIGUOUS if ambiguous else LineProblem.UNKNOWN_SIDE, words
            )
        return found

    def token(self, tree: Tree[Token]) -> str:
        words = self.name(tree)
        found, ambiguous = _lookup(normalise(words), self.vocabulary.tokens)
        if found is None:
            raise _ReadingError(
                LineProblem.AMBIGUOUS if ambiguous else LineProblem.UNKNOWN_TOKEN, words
            )
        return found

    def location(self, tree: Tree[Token]) -> SectorId:
        """A hero's destination: a sector's name, or an unambiguous beginning of a name or of
        one of its words (locations have long names: «Квартира» for «Квартира Егора»)."""
        try:
            return self.sector(tree)
        except _ReadingError as unknown:
            if unknown.problem is not LineProblem.UNKNOWN_SECTOR:
                raise
            words = self.name(tree)
            found = partial_matches(normalise(words), self.vocabulary.sectors)
            if len(found) == 1:
                return found[0]
            if found:
                raise _ReadingError(LineProblem.AMBIGUOUS_LOCATION, words) from unknown
            raise

    def hero(self, tree: Tree[Token]) -> str:
        words = self.name(tree)
        found, ambiguous = _lookup(normalise(words), self.vocabulary.heroes)
        if found is None:
            raise _ReadingError(
                LineProblem.AMBIGUOUS if ambiguous else LineProblem.UNKNOWN_HERO, words
            )
        return found

    def siege_order(self, order_tree: Tree[Token]) -> ModuleOrder:
        """An assault, guard, steer or card order of the Midnight Siege."""
        places = _subtrees(order_tree, "place")
        tokens = _subtrees(order_tree, "token")
        match order_tree.data:
            case "assault":
                rewards = _subtrees(order_tree, "reward")
                weather = bool(rewards) and any(
                    token.type == "WEATHER" for token in _tokens(rewards[0])
                )
                return siege.assault(
                    self.sector(places[0]), self.token(tokens[0]), "weather" if weather else "vp"
                )
            case "guard":
                return siege.guard(self.token(tokens[0]), self.sector(places[0]))
            case "steer":
                return siege.steer(self.sector(places[0]))
            case _:
                window = next(t for t in _tokens(order_tree) if t.type == "WINDOW")
                after = normalise(str(window)) in ("after", "после")
                return siege.play_card(self.token(tokens[0]), "after" if after else "before")

    def contact_order(self, order_tree: Tree[Token]) -> ModuleOrder:
        """A transport, a yield or a retreat preference of contact."""
        places = [self.sector(place) for place in _subtrees(order_tree, "place")]
        match order_tree.data:
            case "transport":
                passed = [
                    self.sector(_subtrees(via, "place")[0]) for via in _subtrees(order_tree, "via")
                ]
                count = self.count(_subtrees(order_tree, "amount"))
                if count is None:
                    raise _ReadingError(LineProblem.MISSING_COUNT)
                if count < 1:
                    raise _ReadingError(LineProblem.BAD_COUNT, str(count))
                return contact.transport(places[0], [*passed, places[1]], count)
            case "cede":
                return contact.yield_sector(places[0])
            case _:
                later = [
                    self.sector(_subtrees(then, "place")[0])
                    for then in _subtrees(order_tree, "then")
                ]
                return contact.retreat_to(places[0], [*places[1:2], *later])

    def count(self, trees: list[Tree[Token]]) -> int | None:
        """The one number the amounts (or times) of an order give; ``None`` if none."""
        values = {_amount(tree) for tree in trees}
        if len(values) > 1:
            raise _ReadingError(LineProblem.AMBIGUOUS)
        return values.pop() if values else None

    def read(self, tree: Tree[Token]) -> tuple[TextOrder, ...]:
        holdings = _subtrees(tree, "holding")
        held = self.sector(_subtrees(holdings[0], "place")[0]) if holdings else None
        order_tree = tree.children[-1]
        if not isinstance(order_tree, Tree):
            raise _ReadingError(LineProblem.NOT_UNDERSTOOD)
        places = _subtrees(order_tree, "place")
        orders: tuple[TextOrder, ...]
        if order_tree.data == "hero":
            if held is not None:
                raise _ReadingError(LineProblem.AMBIGUOUS)
            who = self.hero(_subtrees(order_tree, "who")[0])
            return (watch.hero_move(who, self.location(places[0])),)
        if order_tree.data in ("assault", "guard", "steer", "card", "transport", "cede", "retreat"):
            given = (
                self.siege_order(order_tree)
                if order_tree.data in ("assault", "guard", "steer", "card")
                else self.contact_order(order_tree)
            )
            if held is not None and given.sector != held:
                raise _ReadingError(LineProblem.AMBIGUOUS)
            return (given,)
        match order_tree.data:
            case "fortify":
                where = self.sector(places[0]) if places else held
                if where is None:
                    raise _ReadingError(LineProblem.INCOMPLETE, self.text(order_tree))
                orders = (Fortify(sector=where),)
            case "reinforce":
                return (Reinforce(sector=self.sector(places[0])),)
            case "move":
                source, to = self.sector(places[0]), self.sector(places[1])
                count = self.count(_subtrees(order_tree, "amount"))
                if count is None:
                    raise _ReadingError(LineProblem.MISSING_COUNT)
                if count < 1:
                    raise _ReadingError(LineProblem.BAD_COUNT, str(count))
                orders = (Move(source=source, to=to, count=count),)
            case _:
                place = self.sector(places[0])
                target = self.side(_subtrees(order_tree, "target")[0])
                times = self.count(_subtrees(order_tree, "times"))
                if times is not None and not 1 <= times <= MAX_ATTACKS_IN_LINE:
                    raise _ReadingError(LineProblem.BAD_COUNT, str(times))
                orders = (Attack(sector=place, target=target),) * (times or 1)
        if held is not None and orders[0].sector != held:
            raise _ReadingError(LineProblem.AMBIGUOUS)
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
    tree = _parse(_fold(line))
    if isinstance(tree, LarkError):
        return tree
    reader = _Reader(vocabulary, line)
    readings: list[_Reading] = []
    for candidate in _expand(tree, {}):
        assert isinstance(candidate, Tree)
        words = sum(len(_tokens(name)) for name in candidate.find_data("name"))
        try:
            readings.append(_Reading(orders=reader.read(candidate), name_words=words))
        except _ReadingError as failed:
            readings.append(_Reading(problem=failed.problem, word=failed.word, name_words=words))
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


_ORDER_WORD = re.compile(
    "|".join(
        f"^(?:{pattern})$"
        for pattern in (
            _MOVE,
            _ATTACK,
            _FORTIFY,
            _REINFORCE,
            _ORBITAL,
            _ORBIT,
            _FROM,
            _ASSAULT,
            _GUARD,
            _STEER,
            _WEATHER,
            _CARD,
            _PLAY,
            _TRANSPORT,
            _YIELD,
            _RETREAT,
        )
    ),
    re.IGNORECASE,
)
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
    starts = [i for i, word in enumerate(words) if _ORDER_WORD.match(word.strip(_PUNCTUATION))]
    if not starts and not _ARROW_IN_TEXT.search(line):
        return LineProblem.NOT_UNDERSTOOD, first
    if starts and starts[0] > 0 and _parses(" ".join(words[starts[0] :])):
        return LineProblem.NOT_UNDERSTOOD, first
    return LineProblem.INCOMPLETE, _word(line.rsplit(maxsplit=1)[-1])


def _word(chunk: str) -> str:
    """A word as a reply quotes it: without the punctuation around it (unless that is all)."""
    return chunk.strip(_PUNCTUATION) or chunk


def _parses(text: str) -> bool:
    return not isinstance(_parse(text), LarkError)


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
                number=number, text=_shown(text), problem=reading.problem, word=reading.word
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
