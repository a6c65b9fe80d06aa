"""Siege orders typed and read back, in both languages: every order the buttons offer
(``legal_orders(...).modules["siege"]``), worded by the bot, reads back as that order; the
review screen of a set with siege orders gives the same set; bad tokens are named."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from aiogram.utils.i18n import I18n

from bot.services.orders import apply_lines
from bot.texts.core import describe_order, describe_orders
from bot.texts.orders import LineProblem, Vocabulary, parse_line
from rules import (
    CampaignState,
    Game,
    ModuleOrder,
    Ruleset,
    SideOrders,
    builtin_map,
    deployed_state,
    enter_order,
    legal_orders,
)
from rules.maps import Feature
from rules.modules import BUILTIN_MODULES

RULESET = {
    "modules": ["siege"],
    "module_settings": {
        "siege": {
            "weather_control": ["1", "4"],
            "tokens": [
                {
                    "id": "F1",
                    "kind": "fortification",
                    "sector": "2",
                    "name": "Fort Grim",
                    "names": {"ru": "Мрачный форт"},
                },
                {"id": "F2", "kind": "fortification", "sector": "3"},
                {
                    "id": "O1",
                    "kind": "occult",
                    "sector": "5",
                    "name": "Dark Market",
                    "names": {"ru": "Тёмный рынок"},
                    "owner": "red",
                },
            ],
        }
    },
}
NAMES = {"red": "Red Legion", "blue": "Синие"}


def _position() -> tuple[Game, CampaignState]:
    game = Game.create(builtin_map("planet-5"), Ruleset.with_overrides(RULESET), BUILTIN_MODULES)
    state = deployed_state(
        game,
        {"red": {"1": 4, "2": 3, "4": 3}, "blue": {"1": 3, "3": 5, "5": 2}},
        {"siege": {"weather": 1}},
    )
    return game, state


def _vocabulary(game: Game, state: CampaignState) -> Vocabulary:
    return Vocabulary.of_state(game.map, {side: [NAMES[side]] for side in state.armies}, state)


@pytest.mark.parametrize("language", ["en", "ru"])
@pytest.mark.parametrize("side", ["red", "blue"])
def test_every_siege_order_the_buttons_offer_reads_back(
    i18n: I18n, language: str, side: str
) -> None:
    game, state = _position()
    offered = legal_orders(game, state, side).modules["siege"]
    kinds = {order.data["order"] for order in offered}
    assert {"assault", "guard"} <= kinds
    if side == "red":
        assert {"steer", "play_card"} <= kinds
    vocabulary = _vocabulary(game, state)
    for order in offered:
        with i18n.context(), i18n.use_locale(language):
            line = describe_order(order, game.map, NAMES, language)
        parsed = parse_line(line, vocabulary)
        assert (parsed.problem, parsed.word) == (None, None), line
        assert list(parsed.orders) == [order], line


def _key(order: ModuleOrder) -> list[tuple[str, object]]:
    return sorted(order.data.items())


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_review_of_a_siege_set_reads_back_as_the_same_set(i18n: I18n, language: str) -> None:
    game, state = _position()
    orders = SideOrders(reinforce="4")
    wanted: list[Callable[[ModuleOrder], bool]] = [
        lambda o: o.data == {"order": "assault", "sector": "2", "token": "F1", "reward": "weather"},
        lambda o: o.data == {"order": "steer", "sector": "1"},
        lambda o: o.data == {"order": "guard", "token": "O1", "from": "4"},
        lambda o: o.data.get("order") == "play_card" and o.data.get("window") == "before",
    ]
    for pick in wanted:
        offered = legal_orders(game, state, "red", orders).modules["siege"]
        order = next(o for o in offered if pick(o))
        orders, rejection = enter_order(game, state, "red", orders, order)
        assert rejection is None, rejection
    assert len(orders.extra) == 4
    with i18n.context(), i18n.use_locale(language):
        lines = describe_orders(orders, state.armies["red"], game.map, NAMES, language)
    parsed = [parse_line(line, _vocabulary(game, state)) for line in lines]
    assert all(reading.problem is None for reading in parsed), (lines, parsed)
    again, outcomes = apply_lines(
        game, state, "red", SideOrders(), [reading.orders for reading in parsed]
    )
    assert all(outcome.accepted for outcome in outcomes), (lines, outcomes)
    assert sorted(map(_key, again.extra)) == sorted(map(_key, orders.extra)), lines
    assert again.reinforce == "4"


@pytest.mark.parametrize(
    ("text", "problem", "word", "piece"),
    [
        ("assault F9 in 2", LineProblem.UNKNOWN_PIECE, "F9", "token"),
        ("штурм Ф1 в 2", LineProblem.UNKNOWN_PIECE, "Ф1", "token"),
        ("guard F1 from Mars", LineProblem.UNKNOWN_SECTOR, "Mars", None),
    ],
)
def test_a_wrong_token_or_sector_is_named(
    text: str, problem: LineProblem, word: str, piece: str | None
) -> None:
    game, state = _position()
    parsed = parse_line(text, _vocabulary(game, state))
    assert (parsed.problem, parsed.word, parsed.piece) == (problem, word, piece)


def test_token_names_are_read_in_both_languages() -> None:
    game, state = _position()
    vocabulary = _vocabulary(game, state)
    for text in ("storm Fort Grim in West for weather", "штурм Мрачный форт в Западе за погоду"):
        parsed = parse_line(text, vocabulary)
        assert [o.data for o in parsed.orders if isinstance(o, ModuleOrder)] == [
            {"order": "assault", "sector": "2", "token": "F1", "reward": "weather"}
        ], text


def _named_position() -> tuple[Game, CampaignState]:
    """The tokens as a map names them, in English and in Russian (``[[features]]``)."""
    named = builtin_map("planet-5").model_copy(
        update={
            "features": (
                Feature(
                    id="F1",
                    kind="fortification",
                    sector="2",
                    name="Fort Grim",
                    names={"ru": "Мрачный форт"},
                ),
                Feature(
                    id="O1",
                    kind="occult",
                    sector="5",
                    name="Dark Market",
                    names={"ru": "Тёмный рынок"},
                    owner="red",
                ),
            )
        }
    )
    ruleset = {"modules": ["siege"], "module_settings": {"siege": {"weather_control": ["1"]}}}
    game = Game.create(named, Ruleset.with_overrides(ruleset), BUILTIN_MODULES)
    state = deployed_state(
        game,
        {"red": {"1": 4, "2": 3, "4": 3}, "blue": {"1": 3, "3": 5, "5": 2}},
        {"siege": {"weather": 1}},
    )
    return game, state


@pytest.mark.parametrize(
    ("language", "assault", "card"),
    [
        ("en", "assault F1 «Fort Grim» in 2 West for VP", "play card O1 «Dark Market» before"),
        (
            "ru",
            "штурм F1 «Мрачный форт» в секторе 2 «Запад» за ПО",
            "сыграть карту O1 «Тёмный рынок» до боёв",
        ),
    ],
)
def test_orders_name_tokens_in_the_campaigns_language_and_read_back(
    i18n: I18n, language: str, assault: str, card: str
) -> None:
    game, state = _named_position()
    vocabulary = _vocabulary(game, state)
    for side in ("red", "blue"):
        for order in legal_orders(game, state, side).modules["siege"]:
            with i18n.context(), i18n.use_locale(language):
                line = describe_order(order, game.map, NAMES, language)
            parsed = parse_line(line, vocabulary)
            assert list(parsed.orders) == [order], line
    with i18n.context(), i18n.use_locale(language):
        said = [
            describe_order(order, game.map, NAMES, language)
            for order in legal_orders(game, state, "red").modules["siege"]
        ]
    assert assault in said
    assert any(line.startswith(card) for line in said), said
