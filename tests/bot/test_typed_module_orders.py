"""Typed orders reach the modules through hooks (issue 35): a module registered later adds its
own order to the grammar and its own pieces to the vocabulary, and reads its order's parse; the
parse's cache is keyed by the grammar, so a line read before the module came is read again."""

from __future__ import annotations

from collections.abc import Iterator, Sequence

import pytest
from lark import Token, Tree

from bot.modules import BOT_MODULES, BotModule
from bot.texts.orders import (
    END,
    LineProblem,
    Reader,
    TypedGrammar,
    TypedNames,
    Vocabulary,
    parse_line,
)
from rules import CampaignState, ModuleOrder, Ruleset, builtin_map, deployed_state
from rules import Game as RulesGame
from rules.modules import BUILTIN_MODULES, contact

PLANET = builtin_map("planet-5")
SIDES = {"red": ["Red", "Красные"], "blue": ["Blue", "Синие"]}
FORAGE = r"forage\w*|фураж\w*"
GRAMMAR = TypedGrammar(
    rules=rf"""
forage: FORAGE cart? (IN | ON)? place
cart: name
FORAGE: /({FORAGE}){END}/i
""",
    orders=("forage",),
    order_words=(FORAGE,),
)


class ForageModule(BotModule):
    """A test module with one typed order: forage in a sector, with a named cart or without."""

    name = "forage"

    def typed_grammar(self) -> TypedGrammar | None:
        return GRAMMAR

    def typed_order(self, tree: Tree[Token], reader: Reader) -> ModuleOrder | None:
        carts = reader.subtrees(tree, "cart")
        cart = reader.piece(carts[0], "cart") if carts else None
        sector = reader.sector(reader.subtrees(tree, "place")[0])
        return ModuleOrder(module="forage", data={"cart": cart}, sector=sector)

    def typed_vocabulary(self, state: CampaignState) -> Sequence[TypedNames]:
        return (TypedNames(kind="cart", names={"c1": ["Hay Wagon", "Телега"]}),)


def _forage(sector: str, cart: str | None = None) -> ModuleOrder:
    return ModuleOrder(module="forage", data={"cart": cart}, sector=sector)


@pytest.fixture
def forage() -> Iterator[None]:
    BOT_MODULES["forage"] = ForageModule()
    try:
        yield
    finally:
        del BOT_MODULES["forage"]


def _state() -> CampaignState:
    game = RulesGame.create(PLANET, Ruleset(), BUILTIN_MODULES)
    return deployed_state(game, {"red": {"1": 4, "2": 3, "4": 3}, "blue": {"1": 3, "3": 5, "5": 2}})


def test_a_module_registered_later_reads_its_own_typed_order(forage: None) -> None:
    words = Vocabulary.of_state(PLANET, SIDES, _state())
    for text, order in [
        ("forage 2", _forage("2")),
        ("Forage in 2 West", _forage("2")),
        ("фуражировка телега в 3", _forage("3", "c1")),
        ("forage hay wagon 3", _forage("3", "c1")),
        ("2 (3): forage 2", _forage("2")),
    ]:
        line = parse_line(text, words)
        assert (line.problem, line.orders) == (None, (order,)), text


def test_a_module_order_is_refused_with_the_word_at_fault(forage: None) -> None:
    words = Vocabulary.of_state(PLANET, SIDES, _state())
    line = parse_line("forage cart 9 3", words)
    assert (line.problem, line.word, line.piece) == (LineProblem.UNKNOWN_PIECE, "cart 9", "cart")
    line = parse_line("forage 9", words)
    assert (line.problem, line.word) == (LineProblem.UNKNOWN_SECTOR, "9")
    # given with another sector's holding: which sector's order is it?
    assert parse_line("1 (4): forage 2", words).problem is LineProblem.AMBIGUOUS
    # its order word later in a line that reads from there: the first word is not understood
    line = parse_line("hello forage 2", words)
    assert (line.problem, line.word) == (LineProblem.NOT_UNDERSTOOD, "hello")
    # its order word cut short: the order is incomplete after its last word
    line = parse_line("hello forage", words)
    assert (line.problem, line.word) == (LineProblem.INCOMPLETE, "forage")


def test_the_parse_cache_follows_the_registered_modules() -> None:
    words = Vocabulary.build(PLANET, SIDES)
    before = parse_line("forage 2", words)
    assert before.problem is LineProblem.NOT_UNDERSTOOD
    BOT_MODULES["forage"] = ForageModule()
    try:
        assert parse_line("forage 2", words).orders == (_forage("2"),)
    finally:
        del BOT_MODULES["forage"]
    assert parse_line("forage 2", words) == before
    # the built-in modules' orders are still read
    assert parse_line("yield 2", words).orders == (contact.yield_sector("2"),)
