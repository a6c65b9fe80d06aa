"""One side, one colour: the colour the wizard gives a side (the safe colour its name names, else
the next free one) is the one the board's mark stands for, the maps draw, the end chart draws and
the Mini App draws; and the colours the wizard can give stay apart for every reader."""

from __future__ import annotations

import io
from itertools import combinations

from aiogram.utils.i18n import I18n
from PIL import Image

from bot.miniapp import views
from bot.posts.group import COLOUR_MARKS, board_text, colour_mark
from bot.posts.history import summary_chart
from bot.runtime.clock import ManualClock
from bot.screens.charts import PAPER, ChartSide, ChartWords, held_chart
from bot.screens.map_views import turn_map
from bot.services import campaigns
from bot.services.clockwork import advance
from bot.services.orders import seat_in
from bot.services.records import campaign_record
from rules.colours import DISTINCT, least_difference, nearest, parse_hex
from rules.render import render_image, side_styles
from storage import NewCampaign, Phase, Role, Store

GM, GROUP = 100, -1001
NAMES = ("Красные", "Синие", "Орки", "Зелёная орда")
PLACEMENTS = ({"1": 4, "2": 3, "4": 3}, {"3": 4, "5": 3, "1": 3}, {"2": 4}, {"5": 4})


def _drawn(png: bytes) -> set[tuple[int, int, int]]:
    image = Image.open(io.BytesIO(png)).convert("RGB")
    colours = image.getcolors(1 << 20) or []
    return {(c[0], c[1], c[2]) for _count, c in colours if isinstance(c, tuple)}


async def test_each_sides_colour_is_the_same_on_the_board_map_chart_and_mini_app(
    store: Store, clock: ManualClock, i18n: I18n
) -> None:
    now = clock.now()
    await store.see_person(GM, "Мастер", None, "ru", True, now)
    campaign = await store.create_campaign(
        NewCampaign(
            chat_id=GROUP,
            title="Colours",
            created_by=GM,
            creator_name="Мастер",
            ruleset_overrides={"start_sectors": 1, "start_armies": 4},
            map="planet-5",
            language="ru",
        ),
        now,
    )
    for name in NAMES:
        outcome, _side = await campaigns.add_side(store, campaign, name, GM, now)
        assert outcome is campaigns.AddSideOutcome.ADDED
    sides = await store.sides(campaign.id)
    stored = {side.name: side.colour for side in sides}
    # Chosen once, by name where the name says a colour: red is vermillion, green bluish green.
    assert stored["Красные"] == "#d55e00"
    assert stored["Синие"] == "#0072b2"
    assert stored["Зелёная орда"] == "#009e73"
    assert stored["Орки"] == "#e69f00"  # the first free one
    for index, side in enumerate(sides):
        await store.put_member(
            campaign.id, 201 + index, f"P{index}", frozenset({Role.STRATEGIST}), side.id, GM, now
        )
    assert (await advance(store, campaign.id, 0, Phase.SETUP, GM, now)).advanced
    campaign = await store.campaign(campaign.id) or campaign
    for side in sides:
        placement = {next(iter(PLACEMENTS[sides.index(side)])): 4}
        await campaigns.place_side(store, campaign, side.id, placement, GM, now)
    assert (await advance(store, campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    campaign = await store.campaign(campaign.id) or campaign
    state = await store.turn_start(campaign.id, 1)
    assert state is not None

    with i18n.context(), i18n.use_locale("ru"):
        # The board: each side's mark is the emoji nearest to its stored colour.
        text = board_text(await campaigns.board(store, campaign, now), None)
        for side in sides:
            mark = colour_mark(side.colour)
            assert mark == nearest(parse_hex(side.colour), COLOUR_MARKS)
            assert f"{mark} {side.name}" in text
        # The map: every side is drawn in its stored colour, whatever its name says.
        view = await turn_map(store, campaign, state, sides, "T")
        styles = side_styles(view.sides)
        picture = render_image(view).convert("RGB")
        drawn_map = {rgb for _n, rgb in picture.getcolors(1 << 16) or []}
        for side in sides:
            assert styles[side.id].colour == parse_hex(side.colour)
            assert parse_hex(side.colour) in drawn_map, side.name
        # The Mini App: its SVG map and its board carry the same colours.
        seat = await seat_in(store, 201, campaign.id)
        assert seat is not None
        shown = await views.view(store, seat, now)
        for side in sides:
            assert f'fill="{side.colour}"' in shown["map"], side.name
        assert {s["name"]: s["colour"] for s in shown["board"]["sides"]} == stored
        # The end chart: each line in the side's colour, with the map's tag at its end.
        record = await campaign_record(store, campaign)
        chart = await summary_chart(record, sides, 3)
    drawn_chart = _drawn(chart)
    for side in sides:
        assert parse_hex(side.colour) in drawn_chart, side.name


async def test_the_colours_the_wizard_gives_stay_apart_for_every_reader(
    store: Store, clock: ManualClock
) -> None:
    """However the GM names eight sides (after colours, twice the same colour, or not), the
    wizard gives eight different safe colours, each pair distinct under the simulations."""
    now = clock.now()
    for names in (
        ("Red", "Green", "Blue", "Yellow", "Orange", "Purple", "Black", "Sky"),
        ("Красные", "Алые", "Зелёные", "Изумрудные", "Белые", "Серые", "Бурые", "Орки"),
        ("A", "B", "C", "D", "E", "F", "G", "H"),
    ):
        campaign = await store.create_campaign(
            NewCampaign(chat_id=GROUP - len(names[0]), title="C", created_by=GM, creator_name="M"),
            now,
        )
        for name in names:
            outcome, _side = await campaigns.add_side(store, campaign, name, GM, now)
            assert outcome is campaigns.AddSideOutcome.ADDED, name
        colours = [parse_hex(side.colour) for side in await store.sides(campaign.id)]
        assert len(set(colours)) == 8
        given = {side.colour for side in await store.sides(campaign.id)}
        assert given == {colour.hex for colour in campaigns.PALETTE}
        for first, second in combinations(colours, 2):
            assert least_difference(first, second) >= DISTINCT


def test_a_chart_line_ends_with_the_maps_tag() -> None:
    words = ChartWords(title="Held", points=("Start", "1"), goal=None)
    plain = held_chart([ChartSide("Blood Angels", "#d55e00", (0, 1))], words, None)
    tagged = held_chart([ChartSide("Blood Angels", "#d55e00", (0, 1), "Bl")], words, None)
    assert plain != tagged


def test_a_long_tag_at_a_lines_end_is_not_cut_at_the_charts_edge() -> None:
    words = ChartWords(title="Held", points=("Start", "1", "2"), goal=None)
    png = held_chart([ChartSide("Adeptus Mechanicus", "#0072b2", (0, 1, 1), "AMX")], words, None)
    image = Image.open(io.BytesIO(png)).convert("RGB")
    edge = image.crop((image.width - 3, 0, image.width, image.height))
    assert {colour for _n, colour in edge.getcolors(1 << 16) or []} == {PAPER}
