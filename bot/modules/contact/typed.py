"""Contact's typed orders (``bot.texts.orders``; a move is the core's, several from one
sector)::

    перевезти 3 из 1 через 2 в 4        transport 3 from 1 via 2 to 4
    уступить 2                          yield 2
    отступление из 2 в 3, затем 1       retreat from 2 to 3, then 1
    отступление из 2: нет               retreat from 2: none  (the standing one forgotten)
"""

from __future__ import annotations

from lark import Token, Tree

from bot.texts.orders import END, Reader, TypedGrammar
from rules import ModuleOrder
from rules.modules import contact

TRANSPORT = r"transport\w*|carry|перевез\w*|перевоз\w*|перевози"
YIELD = r"yield\w*|cede|уступ\w*|сда[тюе]\w*|сдай"
RETREAT = r"retreat\w*|отступ\w*"

GRAMMAR = TypedGrammar(
    rules=rf"""
transport: TRANSPORT amount? FROM place via* TO place amount?
via: VIA place
cede: YIELD place
retreat: RETREAT FROM place TO place then*
       | RETREAT FROM place NONE NOTE?
then: THEN place

TRANSPORT: /({TRANSPORT}){END}/i
YIELD: /({YIELD}){END}/i
RETREAT: /({RETREAT}){END}/i
VIA: /(via|through|через){END}/i
THEN: /(then|затем|потом){END}/i
NONE: /(none|nowhere|no\s+preference|нет|никуда|без\s+предпочтени\w*){END}/i
NOTE: /\([^()]*\)/
""",
    orders=("transport", "cede", "retreat"),
    order_words=(TRANSPORT, YIELD, RETREAT),
)


def order(tree: Tree[Token], reader: Reader) -> ModuleOrder:
    """A transport, a yield or a retreat preference."""
    places = [reader.sector(place) for place in reader.subtrees(tree, "place")]
    match tree.data:
        case "transport":
            passed = [
                reader.sector(reader.subtrees(via, "place")[0])
                for via in reader.subtrees(tree, "via")
            ]
            return contact.transport(places[0], [*passed, places[1]], reader.armies(tree))
        case "cede":
            return contact.yield_sector(places[0])
        case _:
            later = [
                reader.sector(reader.subtrees(then, "place")[0])
                for then in reader.subtrees(tree, "then")
            ]
            return contact.retreat_to(places[0], [*places[1:2], *later])
