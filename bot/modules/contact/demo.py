"""Contact's offline demo (``python -m bot.demo --module contact``, :mod:`bot.demo.modules`):
three sides, defences picked by owner in the wizard, 4 VP to win; in turn 1 Red's and Green's
groups move into Blue's East: zombie cards, a chain of two battles (the winner of battle 1
defends battle 2), Blue and Green retreat exhausted and East's defences are ruined (+1 VP); in
turn 2 Red's group catches Blue in the Equator and slays its warlord (+3 VP): Red wins on
victory points. Every group beats any zombie card."""

from __future__ import annotations

from collections.abc import Callable

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
from tests.e2e import scenario as s

TITLES = {"en": "Day of the Dead", "ru": "День мертвецов"}


def about() -> str:
    """What the story shows, for ``--help``."""
    return _("a chain of battles, a retreat, ruined defences")


def _owner(side: str) -> Callable[[str, str], bool]:
    """The owner screen's button of ``side`` (by its name)."""
    pick = setup_press("cdo")
    return lambda text, data: pick(text, data) and text.removeprefix("✔ ") == side


async def play(table: s.Table, people: People, words: Words, section: Section) -> int:
    gm, group = table.gm, table.group.id
    ru = words.language == "ru"

    async def contact_on() -> None:
        await table.press(gm, setup_press("go", "contact"), chat_id=group)
        await table.press(gm, setup_press("ct", "on"), chat_id=group)
        await table.press(gm, setup_press("cdl", "4"), chat_id=group)  # a barricade in North Pole
        await table.press(gm, setup_press("cdp", "4"), chat_id=group)
        await table.press(gm, _owner(words.red), chat_id=group)
        await table.press(gm, setup_press("cdl", "3"), chat_id=group)  # a barricade in East
        await table.press(gm, setup_press("cdp", "3"), chat_id=group)
        await table.press(gm, _owner(words.blue), chat_id=group)
        for _vp in range(4):
            await table.press(gm, setup_press("cvp", "+"), chat_id=group)
        await table.press(gm, setup_press("go", "summary"), chat_id=group)

    section(_("The GM sets up the campaign and contact in the group"))
    await create(
        table,
        TITLES[words.language],
        words,
        [words.red, words.blue, words.green],
        "start_sectors=1 start_armies=7",
        contact_on,
    )
    section(_("Players join and deploy"))
    people = await join_all(table, people, words, green=True)
    await s.deploy_typed(table, people.red, "4:7")
    await s.deploy_typed(table, people.blue, "3:7")
    await s.deploy_typed(table, people.green, "5:7")

    async def first_orders() -> None:
        red = "переместить 5 армий из 4 в 3" if ru else "move 5 from 4 to 3"
        green = "переместить 4 армии из 5 в 3" if ru else "move 4 from 5 to 3"
        await s.orders_typed(table, people.red, red)
        await s.orders_typed(table, people.blue, "отступление из 3 в 1", ready=False)
        await s.orders_typed(table, people.green, green)

    await week(table, 1, section, first_orders)
    section(_("Turn {turn}: the chain is played battle by battle").format(turn=1))
    await s.report_result(table, people.red, 1, "solid", words.red, warlords="0")
    await s.confirm_result(table, people.blue_tactician, 1)
    await s.report_result(table, people.red, 2, "solid", words.red, warlords="0")
    await s.confirm_result(table, people.green, 2)
    await monday(table, 1, section)

    async def second_orders() -> None:
        red = "переместить 4 армии из 3 в 1" if ru else "move 4 from 3 to 1"
        await s.orders_typed(table, people.red, red)

    await week(table, 2, section, second_orders)
    section(_("Turn {turn}: battles are played and reported").format(turn=2))
    await s.report_result(table, people.red, 1, "crushing", words.red, warlords="2")
    await s.confirm_result(table, people.blue_tactician, 1)
    await monday(table, 2, section)
    return 2


STORY = DemoStory(TITLES, about, play)
