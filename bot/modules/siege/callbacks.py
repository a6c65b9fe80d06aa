"""The Midnight Siege's callback data: the starting weather's pick, a strategist's reward
claim and a GM's choice for a claimed reward. Every prefix is short and unique among the
bot's (a test checks), and no callback is trusted: the handlers re-check who pressed."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData

from bot.screens.callbacks import ButtonInt


class WeatherPick(CallbackData, prefix="wx"):
    """The choosing side's strategist (or a GM) picks siege's starting weather ``w``."""

    c: ButtonInt
    w: ButtonInt


class RewardPress(CallbackData, prefix="rw"):
    """A strategist's reward claim (siege, MODULES.md S8): ``a`` is ``+`` / ``-`` (one more or
    one less of item ``k``) or ``ok`` (send the claim); ``n`` holds the counts picked so far,
    one base-36 digit per item of the price list, so the screen needs no memory."""

    c: ButtonInt
    a: str
    k: ButtonInt = -1
    n: str = ""


class RewardPick(CallbackData, prefix="rc"):
    """A GM's choice for a claimed reward: side ``s`` (index in side order), place ``p`` of its
    claim, variant ``v`` (-1: the curator's choice made, for an item that lists no variants)."""

    c: ButtonInt
    s: ButtonInt
    p: ButtonInt
    v: ButtonInt
