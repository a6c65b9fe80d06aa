"""Every line the bot prints as an order reads back as that order, in both languages: the echo
of a typed line (and the button's "Saved: ..."), and the orders screen's lines (the review, and
the teammates' "orders changed" notice, which shows the same screen). Orders come from
``rules.legal_orders`` on planet-5 and on a map with multi-word and hyphenated sector names,
against sides with multi-word names."""

from __future__ import annotations

import pytest
from aiogram.utils.i18n import I18n
from hypothesis import given, settings
from hypothesis import strategies as st

from bot.modules.contact import orders as contact_orders
from bot.services.orders import apply_lines, repeat_lines
from bot.texts.core import describe_order, describe_order_line, describe_orders
from bot.texts.orders import Vocabulary, parse_line
from rules import (
    Attack,
    CampaignMap,
    CampaignState,
    Fortify,
    Game,
    Move,
    Order,
    Reinforce,
    Ruleset,
    SideOrders,
    builtin_map,
    deployed_state,
    enter_order,
    legal_orders,
    parse_map,
)
from rules.modules import BUILTIN_MODULES
from rules.modules.contact import retreat_to, transport, yield_sector
from tests.rules.strategies import valid_side_orders


def _sector(
    sector_id: str, en: str, ru: str, neighbours: list[str], x: float, y: float
) -> dict[str, object]:
    return {
        "id": sector_id,
        "name": en,
        "names": {"ru": ru},
        "neighbours": neighbours,
        "x": x,
        "y": y,
    }


HIVE = parse_map(
    {
        "id": "hive",
        "name": "Hive World",
        "names": {"ru": "Мир-улей"},
        "sectors": [
            _sector("c", "Central Plain", "Центральная равнина", ["ne", "np", "sw", "7"], 0.5, 0.5),
            _sector("ne", "North-East", "Северо-восток", ["c", "np", "x-1"], 0.8, 0.2),
            _sector("np", "North Pole", "Северный полюс", ["c", "ne"], 0.5, 0.1),
            _sector("sw", "South-West", "Юго-запад", ["c", "7"], 0.2, 0.8),
            _sector("7", "Hive Tertius", "Улей Терциус", ["c", "sw", "x-1"], 0.5, 0.9),
            _sector("x-1", "Old Forge", "Старая кузня", ["ne", "7"], 0.9, 0.6),
        ],
    }
)
HIVE_SIDES = {
    "s1": "Империум",
    "s2": "Орда Хаоса",
    "s3": "Красные",
    "s4": "Тёмные эльдары",
    "s5": "Орки на байках",
    "s6": "Adeptus Mechanicus",
}
PLANET = builtin_map("planet-5")
PLANET_SIDES = {"red": "Red Legion", "blue": "Синие", "de": "Dark Eldar", "s4": "Эльдар"}


@st.composite
def positions(draw: st.DrawFn) -> tuple[Game, CampaignState, dict[str, str]]:
    """A map, its sides' names and a position: each side in play holds 1-3 sectors (1-9 armies
    each), drawn from few sectors so that sides meet and may attack."""
    campaign_map: CampaignMap
    campaign_map, names = draw(st.sampled_from([(PLANET, PLANET_SIDES), (HIVE, HIVE_SIDES)]))
    sectors = campaign_map.sector_ids()
    playing = draw(st.lists(st.sampled_from(sorted(names)), min_size=2, max_size=4, unique=True))
    armies = {
        side: draw(
            st.dictionaries(
                st.sampled_from(sectors),
                st.integers(min_value=1, max_value=9),
                min_size=1,
                max_size=3,
            )
        )
        for side in playing
    }
    return Game.create(campaign_map), CampaignState(turn=2, armies=armies), names


def _vocabulary(game: Game, state: CampaignState, names: dict[str, str]) -> Vocabulary:
    """As the orders handler builds it: the sides in play, by their names."""
    return Vocabulary.build(game.map, {side: [names[side]] for side in state.armies})


@st.composite
def typed_lines(draw: st.DrawFn, game: Game, state: CampaignState, side: str) -> list[Order]:
    """Orders one typed line may give, in the order given: 1-3 of the listing's orders, an
    attack possibly several times."""
    current = SideOrders()
    given: list[Order] = []
    for _ in range(draw(st.integers(min_value=1, max_value=3))):
        listing = legal_orders(game, state, side, current)
        options = draw(st.sampled_from(listing.sectors))
        choices: list[list[Order]] = [
            [Fortify(sector=options.sector)],
            [Reinforce(sector=draw(st.sampled_from(listing.reinforce)))],
        ]
        if options.move is not None:
            move = options.move
            count = draw(st.integers(min_value=move.min_count, max_value=move.max_count))
            to = draw(st.sampled_from(move.destinations))
            choices.append([Move(source=options.sector, to=to, count=count)])
        if options.attack is not None:
            target = draw(st.sampled_from(options.attack.targets))
            times = draw(st.integers(min_value=1, max_value=options.attack.remaining))
            choices.append([Attack(sector=options.sector, target=target)] * times)
        for order in draw(st.sampled_from(choices)):
            current, rejection = enter_order(game, state, side, current, order)
            assert rejection is None, rejection
            given.append(order)
    return given


@settings(max_examples=80, deadline=None)
@given(data=st.data(), language=st.sampled_from(["en", "ru"]))
def test_the_echo_of_any_legal_line_reads_back_as_its_orders(
    i18n: I18n, data: st.DataObject, language: str
) -> None:
    game, state, names = data.draw(positions())
    side = data.draw(st.sampled_from(sorted(state.armies)))
    orders = data.draw(typed_lines(game, state, side))
    with i18n.context(), i18n.use_locale(language):
        line = describe_order_line(orders, game.map, names, language)
    vocabulary = _vocabulary(game, state, names)
    for printed in (line, f"✓ {line}"):
        parsed = parse_line(printed, vocabulary)
        assert (parsed.problem, parsed.word) == (None, None), printed
        assert list(parsed.orders) == orders, printed


@settings(max_examples=80, deadline=None)
@given(data=st.data(), language=st.sampled_from(["en", "ru"]))
def test_the_orders_screen_read_back_gives_the_same_orders(
    i18n: I18n, data: st.DataObject, language: str
) -> None:
    game, state, names = data.draw(positions())
    side = data.draw(st.sampled_from(sorted(state.armies)))
    orders = data.draw(valid_side_orders(game, state, side))
    with i18n.context(), i18n.use_locale(language):
        lines = describe_orders(orders, state.armies[side], game.map, names, language)
    parsed = [parse_line(line, _vocabulary(game, state, names)) for line in lines]
    unchosen = orders.reinforce is None
    for line, reading in zip(lines[: -1 if unchosen else None], parsed, strict=False):
        assert reading.problem is None, (line, reading)
    if unchosen:
        assert parsed[-1].problem is not None, lines[-1]  # "not chosen" is no order
    readable = [reading.orders for reading in parsed if reading.problem is None]
    for start in (SideOrders(), orders):
        again, outcomes = apply_lines(game, state, side, start, readable)
        assert all(outcome.accepted for outcome in outcomes), (lines, outcomes)
        for sector in game.map.sector_ids():
            assert again.move_from(sector) == orders.move_from(sector), lines
            assert again.attacks_in(sector) == orders.attacks_in(sector), lines
        assert again.reinforce == orders.reinforce, lines


CONTACT_NAMES = {"red": "Red Legion", "blue": "Синие"}


def _contact_position() -> tuple[Game, CampaignState]:
    ruleset = Ruleset.with_overrides(
        {"modules": ["contact"], "module_settings": {"contact": {"transports_per_turn": 2}}}
    )
    game = Game.create(builtin_map("planet-5"), ruleset, BUILTIN_MODULES)
    state = deployed_state(
        game, {"red": {"4": 6, "1": 2, "2": 2}, "blue": {"3": 5, "5": 3, "2": 2}}
    )
    return game, state


@pytest.mark.parametrize("language", ["en", "ru"])
def test_every_contact_order_the_buttons_offer_reads_back(i18n: I18n, language: str) -> None:
    game, state = _contact_position()
    offered = legal_orders(game, state, "red").modules["contact"]
    assert {order.data["order"] for order in offered} == {"transport", "yield", "retreat_to"}
    vocabulary = Vocabulary.build(game.map, {side: [CONTACT_NAMES[side]] for side in state.armies})
    for order in offered:
        with i18n.context(), i18n.use_locale(language):
            line = describe_order(order, game.map, CONTACT_NAMES, language)
        parsed = parse_line(line, vocabulary)
        assert (parsed.problem, parsed.word) == (None, None), line
        assert list(parsed.orders) == [order], line


@pytest.mark.parametrize("language", ["en", "ru"])
def test_the_review_of_a_contact_list_reads_back_as_the_same_list(
    i18n: I18n, language: str
) -> None:
    game, state = _contact_position()
    given: list[Order] = [
        Move(source="4", to="1", count=1),
        transport("4", ["2", "5"], 2),
        Move(source="4", to="3", count=1),
        transport("1", ["5"], 1),
        yield_sector("2"),
        retreat_to("4", ["1", "2"]),
        retreat_to("1", []),
        Reinforce(sector="4"),
    ]
    orders, outcomes = apply_lines(game, state, "red", SideOrders(), [[o] for o in given])
    assert all(outcome.accepted for outcome in outcomes), outcomes
    listed = contact_orders.groups(game, state, "red", orders)
    assert [g.sector for g in listed] == ["4", "4", "4", "1"]
    assert contact_orders.listed(orders) == listed
    repeated, outcomes = apply_lines(game, state, "red", SideOrders(), repeat_lines(orders))
    assert all(outcome.accepted for outcome in outcomes), outcomes
    assert contact_orders.groups(game, state, "red", repeated) == listed
    with i18n.context(), i18n.use_locale(language):
        lines = describe_orders(
            orders, state.armies["red"], game.map, CONTACT_NAMES, language, groups=listed
        )
    vocabulary = Vocabulary.build(game.map, {side: [CONTACT_NAMES[side]] for side in state.armies})
    parsed = [parse_line(line, vocabulary) for line in lines]
    assert all(reading.problem is None for reading in parsed), (lines, parsed)
    again, outcomes = apply_lines(
        game, state, "red", SideOrders(), [reading.orders for reading in parsed]
    )
    assert all(outcome.accepted for outcome in outcomes), (lines, outcomes)
    assert contact_orders.groups(game, state, "red", again) == listed, lines
    assert sorted(map(str, again.extra)) == sorted(map(str, orders.extra)), lines
    assert again.reinforce == "4"


@pytest.mark.parametrize(
    "line",
    [
        "retreat from 2: none",
        "retreat from 2 West: no preference",
        "отступление из 2: нет",
        "отступить из Запада: никуда",
        "отступление из 2 Запад: без предпочтения",
    ],
)
def test_an_empty_retreat_preference_is_typed_in_both_languages(line: str) -> None:
    game, state = _contact_position()
    vocabulary = Vocabulary.build(game.map, {side: [CONTACT_NAMES[side]] for side in state.armies})
    parsed = parse_line(line, vocabulary)
    assert (parsed.problem, parsed.word) == (None, None), line
    assert list(parsed.orders) == [retreat_to("2", [])]
