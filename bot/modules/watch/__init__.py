"""The Night Watch's bot side (MODULES.md part W): the wizard's heroes, NPC and deck
(``setup``, ``handlers/wizard``), typed watch orders (``orders``), the duel steps (``duels``,
``duel_screens``, ``posts``, ``handlers/duels``, ``handlers/duels_gm``), the GM's "-1" tokens
(``gm``, ``handlers/gm``) and their words (``texts``, ``duel_texts``, ``gm_texts``).
The shared bot reaches it through :class:`WatchBotModule`."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from aiogram import Router

from bot.modules.protocol import BotModule

if TYPE_CHECKING:
    from bot.posts import Renderer

# The hooks import the package's handlers and posts when called (bot/modules/protocol.py).
# ruff: noqa: PLC0415


class WatchBotModule(BotModule):
    """The Night Watch behind the bot's extension point."""

    name = "watch"

    def group_routers(self) -> Sequence[Router]:
        from bot.modules.watch.handlers import duels_gm, gm

        return (duels_gm.build(), gm.build())

    def gm_routers(self) -> Sequence[Router]:
        from bot.modules.watch.handlers import duels_gm, gm

        return (duels_gm.build(), gm.build())

    def private_routers(self) -> Sequence[Router]:
        from bot.modules.watch.handlers import duels

        return (duels.build(),)

    def renderers(self) -> Mapping[str, Renderer]:
        from bot.modules.watch import posts

        return posts.RENDERERS


__all__ = ["WatchBotModule"]
