"""The bot's command menus (``setMyCommands``): per chat kind and per language."""

from __future__ import annotations

from aiogram import Bot
from aiogram.types import (
    BotCommand,
    BotCommandScopeAllGroupChats,
    BotCommandScopeAllPrivateChats,
)
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import lazy_gettext as __

from bot.texts.i18n import LANGUAGES

GROUP_COMMANDS = (
    ("newcampaign", __("create a campaign in this group (GM)")),
    ("join", __("join this group's campaign")),
    ("status", __("phase, deadline and who is ready")),
    ("map", __("the current map")),
    ("battles", __("this turn's battle list")),
    ("calendar", __("the deadlines as a file for your calendar")),
    ("history", __("the maps and summaries of past turns")),
    ("stats", __("your battles won, drawn and lost here (reply: someone else's)")),
    ("gm", __("GM tools")),
    ("rules", __("the rules of this campaign, with its numbers")),
    ("roll", __("roll dice at the table, e.g. /roll 2d6")),
    ("lang", __("language of the bot's posts here (GM)")),
    ("help", __("what the bot does and how")),
)
PRIVATE_COMMANDS = (
    ("orders", __("your side's orders for this turn")),
    ("deploy", __("place your starting armies")),
    ("battles", __("your battles and their results")),
    ("map", __("the map with your side's orders")),
    ("hand", __("your side's heroes and their spells (Watches)")),
    ("rules", __("the rules of your campaign, with its numbers")),
    ("calendar", __("the deadlines as a file for your calendar")),
    ("history", __("past turns: maps, summaries, your orders")),
    ("stats", __("your battles won, drawn and lost")),
    ("roll", __("dice for one of your battles, e.g. /roll 2d6 3")),
    ("campaigns", __("your campaigns; choose the current one")),
    ("vacation", __("your absences: reminders skip you, your side is told")),
    ("lang", __("your language")),
    ("help", __("what the bot does and how")),
)


async def set_command_menus(bot: Bot, i18n: I18n) -> None:
    """Publish the menus for private and group chats, in every language (default English)."""
    for scope, commands in (
        (BotCommandScopeAllPrivateChats(), PRIVATE_COMMANDS),
        (BotCommandScopeAllGroupChats(), GROUP_COMMANDS),
    ):
        for language in (None, *LANGUAGES):
            with i18n.context(), i18n.use_locale(language or "en"):
                menu = [BotCommand(command=name, description=str(text)) for name, text in commands]
            await bot.set_my_commands(menu, scope=scope, language_code=language)
