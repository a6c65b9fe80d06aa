"""Callback data factories: prefixes are short and unique, and every button fits Telegram's
64-byte limit even with long values."""

from aiogram.filters.callback_data import CallbackData

import bot.runtime.app  # noqa: F401 - imports every handler module, so every factory is defined
from bot.handlers.group.setup import ZONES, SetupPress
from bot.screens.callbacks import GmPress


def _factories() -> list[type[CallbackData]]:
    found: list[type[CallbackData]] = []
    pending = list(CallbackData.__subclasses__())
    while pending:
        factory = pending.pop()
        found.append(factory)
        pending.extend(factory.__subclasses__())
    return found


def test_callback_prefixes_are_short_and_unique() -> None:
    prefixes = [factory.__prefix__ for factory in _factories()]
    assert len(prefixes) >= 5
    assert len(prefixes) == len(set(prefixes)), sorted(prefixes)
    assert all(len(prefix) <= 4 for prefix in prefixes), prefixes


def test_the_longest_group_buttons_fit_in_64_bytes() -> None:
    longest = [
        GmPress(c=10**9, t=999, p="resolution", a="set", v="999.99.bloody_draw.s8").pack(),
        GmPress(c=10**9, t=999, p="deployment", a="side", v=f"{10**12}.s8").pack(),
        *(SetupPress(c=10**9, a="tz", v=zone).pack() for zone in ZONES),
        SetupPress(c=10**9, a="col", v="s8.vermillion").pack(),
    ]
    assert max(len(data.encode()) for data in longest) <= 64
