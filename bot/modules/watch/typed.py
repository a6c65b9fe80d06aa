"""The Night Watch's typed order (``bot.texts.orders``), a hero's move (heroes by name)::

герой Лариса в Метро                hero Larisa to Metro
Иной Лариса → метро                 hero larisa metro
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lark import Token, Tree

from bot.texts.orders import END, LineProblem, Reader, ReadingError, TypedGrammar, TypedNames
from rules import ModuleOrder
from rules.modules import watch

HERO = r"hero\w*|геро\w*|ин(ой|ого|ому|ым|ые|ых|ая|ую)"

GRAMMAR = TypedGrammar(
    rules=rf"""
hero: MOVE? HERO who (TO | ARROW)? place
who: name

HERO: /({HERO}){END}/i
""",
    orders=("hero",),
)

HEROES = "hero"
"""The kind of piece a hero is in the vocabulary."""


def hero_names(heroes: Mapping[str, Iterable[str]]) -> TypedNames:
    """Heroes' ids and names for a vocabulary (``heroes``: id -> names)."""
    return TypedNames(kind=HEROES, names=heroes)


def order(tree: Tree[Token], reader: Reader) -> ModuleOrder:
    """A hero's move to a location (a beginning of its name will do); a hero's move is no
    sector's order, so a sector's holding before it makes the line ambiguous."""
    if reader.held is not None:
        raise ReadingError(LineProblem.AMBIGUOUS)
    who = reader.piece(reader.subtrees(tree, "who")[0], HEROES)
    return watch.hero_move(who, reader.location(reader.subtrees(tree, "place")[0]))
