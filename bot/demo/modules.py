"""The offline demo of each rule module: ``python -m bot.demo --module NAME``
(``./run -- --module NAME``), played like the core demo (:mod:`bot.demo`) by scripted people
against the real bot process on the test clock, with the module's own moments. Each module's
story is in its package (``bot/modules/<name>/demo.py``) and reaches the runner through
:meth:`bot.modules.BotModule.demo_story`; here are what the stories share: the people, their
words, the wizard's buttons and the week's steps.

Each story is short (one or two turns) and does not depend on the seeds."""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass

from aiogram.utils.i18n import gettext as _

from bot.handlers.group.setup import SetupPress
from bot.modules import BOT_MODULES
from tests.e2e import scenario as s


@dataclass(frozen=True)
class Words:
    """A module demo's words in one language: the sides' names."""

    language: str
    red: str
    blue: str
    green: str


WORDS = {
    "en": Words("en", "Red", "Blue", "Green"),
    "ru": Words("ru", "Красные", "Синие", "Зелёные"),
}


class Section:
    """What a story needs from the demo's transcript printer: headings and flushes."""

    def __init__(self, section: Callable[[str], None], flush: Callable[[], None]) -> None:
        self.section = section
        self.flush = flush

    def __call__(self, title: str) -> None:
        self.flush()
        self.section(title)


@dataclass
class People:
    """The GM and the players of a module demo."""

    gm: s.Player
    red: s.Player  # Red's strategist, who also plays Red's battles
    blue: s.Player  # Blue's strategist (a Russian app)
    blue_tactician: s.Player  # Blue's tactician (a Russian app)
    green: s.Player  # Green's strategist, in the stories of three sides only


def setup_press(action: str, value: str | None = None) -> Callable[[str, str], bool]:
    """A button of the setup wizard by what it does and its value (any language)."""

    def check(_text: str, data: str) -> bool:
        if not data.startswith(f"{SetupPress.__prefix__}:"):
            return False
        pressed = SetupPress.unpack(data)
        return pressed.a == action and (value is None or pressed.v == value)

    return check


@dataclass(frozen=True)
class DemoStory:
    """A module's demo story: the campaign's title by language, what it shows (``about``, for
    ``--help``, in the reader's language) and ``play``, which plays it and returns the number
    of turns played."""

    titles: Mapping[str, str]
    about: Callable[[], str]
    play: Callable[[s.Table, People, Words, Section], Awaitable[int]]


def stories() -> dict[str, DemoStory]:
    """The modules that have a demo story, by name, in the registry's order."""
    found = {name: module.demo_story() for name, module in BOT_MODULES.items()}
    return {name: story for name, story in found.items() if story is not None}


async def play(
    module: str,
    table: s.Table,
    people: People,
    words: Words,
    section: Section,
) -> int:
    """Play ``module``'s story; the number of turns played."""
    return await stories()[module].play(table, people, words, section)


async def create(
    table: s.Table,
    title: str,
    words: Words,
    sides: list[str],
    rules: str,
    settings: Callable[[], Awaitable[None]],
) -> None:
    await s.create_campaign(
        table,
        title,
        sides,
        zone="Moscow",
        rules=rules,
        language="Русский" if words.language == "ru" else None,
        before_open=settings,
    )


async def week(
    table: s.Table, turn: int, section: Section, orders: Callable[[], Awaitable[None]]
) -> None:
    """Turn ``turn`` up to its battle list: the window opens, ``orders`` are given, the window
    closes and the list goes out on Friday."""
    section(_("Turn {turn}: the orders window opens (Tuesday 00:00)").format(turn=turn))
    await s.move_to(table, s.ORDERS_OPEN)
    section(_("Turn {turn}: secret orders in private chats").format(turn=turn))
    await orders()
    section(_("Turn {turn}: the orders window closes (Thursday 23:59)").format(turn=turn))
    await s.move_to(table, s.ORDERS_CLOSE)
    section(_("Turn {turn}: the battle list (Friday 12:00)").format(turn=turn))
    await s.move_to(table, s.BATTLE_LIST)


async def monday(table: s.Table, turn: int, section: Section) -> None:
    section(_("Turn {turn}: resolution (Monday 12:00)").format(turn=turn))
    await s.move_to(table, s.RESOLUTION)


async def join_all(table: s.Table, people: People, words: Words, green: bool = False) -> People:
    await s.join(table, people.red, words.red, "strategist")
    await s.join(table, people.blue, words.blue, "strategist")
    await s.join(table, people.blue_tactician, words.blue, "tactician")
    if green:
        await s.join(table, people.green, words.green, "strategist")
    return People(
        people.gm,
        table.player(people.red.name),
        table.player(people.blue.name),
        table.player(people.blue_tactician.name),
        table.player(people.green.name) if green else people.green,
    )
