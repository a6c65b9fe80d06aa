"""The siege on the bot's maps: tokens where they stand, the wind rose with the weather in
force, each stormer's VP in the legend, in the reader's language."""

from aiogram.utils.i18n import I18n

from bot.screens.map_views import turn_map
from rules.render import SectorMark, render_map
from storage import Store
from tests.storage.siege_script import deploy, siege_campaign


async def test_a_siege_map_marks_its_tokens_and_names_the_weather(store: Store, i18n: I18n) -> None:
    campaign = await siege_campaign(store)
    await deploy(store, campaign.id)
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    sides = await store.sides(campaign.id)
    with i18n.context(), i18n.use_locale("en"):
        view = await turn_map(store, campaign, state, sides, campaign.title)
    assert view.marks == (
        SectorMark(sector="2", text="F1·10", side=None, meaning="fortification «F1», strength 10"),
        SectorMark(
            sector="5", text="O1", side=None, meaning="occult token «Market», held by nobody"
        ),
    )
    assert view.title == campaign.title
    assert view.dial is not None
    assert (view.dial.title, view.dial.current) == ("Weather: East", 2)
    assert view.dial.states[0] == "North"
    assert view.side_notes == {"red": "0 VP", "blue": "0 VP"}
    assert render_map(view).startswith(b"\x89PNG")
    with i18n.context(), i18n.use_locale("ru"):
        russian = await turn_map(store, campaign, state, sides, campaign.title)
    assert [mark.meaning for mark in russian.marks] == [
        "укрепление «F1», прочность 10",
        "оккультный жетон «Market», ничей",
    ]
    assert russian.dial is not None
    assert russian.dial.title == "Погода: Восток"
    assert russian.dial.states[7] == "Северо-запад"
    assert russian.side_notes == {"red": "0 ПО", "blue": "0 ПО"}


async def test_the_rose_waits_for_the_starting_weather(store: Store, i18n: I18n) -> None:
    campaign = await siege_campaign(store)
    await deploy(store, campaign.id, weather=None)
    state = await store.turn_start(campaign.id, 1)
    assert state is not None
    sides = await store.sides(campaign.id)
    with i18n.context(), i18n.use_locale("en"):
        view = await turn_map(store, campaign, state, sides, campaign.title)
    assert view.dial is not None
    assert (view.dial.title, view.dial.current) == ("Weather: not chosen yet", None)
    assert render_map(view).startswith(b"\x89PNG")
