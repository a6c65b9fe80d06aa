"""The bot side of the rule modules (issue 35): each built-in module is one package here,
``bot/modules/<name>/``, holding its whole slice of the bot (texts, screens, wizard steps,
settings, order screens, GM tools, routers, services), as ``rules/modules/<name>/`` holds its
rules. The shared bot reaches a module only through the registry and protocol defined here:
:data:`BOT_MODULES`, keyed by the rules module's name, and :class:`BotModule`'s hooks."""

from bot.modules.contact import ContactBotModule
from bot.modules.protocol import BotModule
from bot.modules.siege import SiegeBotModule
from bot.modules.watch import WatchBotModule

BOT_MODULES: dict[str, BotModule] = {
    module.name: module
    for module in (
        SiegeBotModule(),
        ContactBotModule(),
        WatchBotModule(),
    )
}
"""The built-in modules' bot sides, in :data:`rules.modules.BUILTIN_MODULES`' order."""

__all__ = ["BOT_MODULES", "BotModule"]
