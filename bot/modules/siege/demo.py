"""The Midnight Siege's offline demo (``python -m bot.demo --module siege``,
:mod:`bot.demo.modules`): the GM switches the Midnight Siege on in the wizard (two
fortifications, the weather steered from the Equator); the last side picks the starting
weather; Red assaults a fortification for a step of the weather (its roll on the battle list)
and steers the weather, Blue attacks; the wind rose turns on Monday; in turn 2 Red wins on
sectors. The assault's force beats any roll."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _

from bot.demo.modules import (
    DemoStory,
    People,
    Section,
    Words,
    create,
    join_all,
    monday,
    setup_press,
    week,
)
from bot.modules.siege.callbacks import WeatherPick
from tests.e2e import scenario as s

TITLES = {"en": "Midnight Siege", "ru": "Полуночная осада"}


def about() -> str:
    """What the story shows, for ``--help``."""
    return _("an assault with its roll, the wind rose")


async def play(table: s.Table, people: People, words: Words, section: Section) -> int:
    gm, group = table.gm, table.group.id
    ru = words.language == "ru"

    async def siege_on() -> None:
        await table.press(gm, setup_press("go", "siege"), chat_id=group)
        await table.press(gm, setup_press("sg", "on"), chat_id=group)
        await table.press(gm, setup_press("tok", "f.2"), chat_id=group)  # F1 in West
        await table.press(gm, setup_press("tok", "f.3"), chat_id=group)  # F2 in East
        await table.press(gm, setup_press("wc", "1"), chat_id=group)  # steered from the Equator
        await table.press(gm, setup_press("go", "summary"), chat_id=group)

    section(_("The GM sets up the campaign and the Midnight Siege in the group"))
    await create(
        table, TITLES[words.language], words, [words.red, words.blue], "sectors_to_win=2", siege_on
    )
    section(_("Players join; deployment: Red by a typed line, Blue in Russian"))
    people = await join_all(table, people, words)
    await s.deploy_typed(table, people.red, "1:3 2:5 4:2")
    await s.deploy_typed(table, people.blue, "экватор:4 восток:5 5:1")
    section(_("The last side picks the starting weather"))
    await table.press(
        people.blue,
        lambda _text, data: (
            data.startswith(f"{WeatherPick.__prefix__}:") and WeatherPick.unpack(data).w == 0
        ),
    )

    async def first_orders() -> None:
        red = (
            "поворот погоды из 1\nштурм F1 в 2 за погоду\nподкрепление в 4"
            if ru
            else "steer weather from 1\nassault F1 in 2 for weather\nreinforce 4"
        )
        await s.orders_typed(table, people.red, red)
        await s.orders_typed(table, people.blue, f"атака {words.red} 1\nподкрепление экватор")

    await week(table, 1, section, first_orders)
    section(_("Turn {turn}: battles are played and reported").format(turn=1))
    await s.report_result(table, people.blue_tactician, 1, "solid", words.blue)
    await s.confirm_result(table, people.red, 1)
    await monday(table, 1, section)

    async def second_orders() -> None:
        red = "атака на синих в 1" if ru else "attack blue in 1"
        await s.orders_typed(table, people.red, red)

    await week(table, 2, section, second_orders)
    section(_("Turn {turn}: battles are played and reported").format(turn=2))
    await s.report_result(table, people.red, 1, "crushing", words.red)
    await s.confirm_result(table, people.blue_tactician, 1)
    await monday(table, 2, section)
    return 2


STORY = DemoStory(TITLES, about, play)
