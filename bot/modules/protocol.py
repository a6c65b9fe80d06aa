"""The bot side's extension point (issue 35): :class:`BotModule`, which the shared bot calls at
named points, as the rules core calls :class:`rules.game.RulesModule`.

A module's bot side is one object; each hook returns data or routers that the shared code
places and renders, and every default adds nothing, so a module overrides only what it has.
A hook imports the module's code when it is called: the registry stays importable from
anywhere in the bot (the posts' table, the texts), with no import cycle through the module's
own handlers and services, which import the shared bot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import TYPE_CHECKING

from aiogram import Router

if TYPE_CHECKING:
    from bot.posts import Renderer


class BotModule:
    """Base of a rule module's bot side. Subclasses set ``name`` (the rules module's) and
    override the hooks they use; each call builds new routers (a router belongs to one
    dispatcher, and tests build many)."""

    name: str = ""

    def __init__(self, name: str | None = None) -> None:
        if name is not None:
            self.name = name

    def group_routers(self) -> Sequence[Router]:
        """Routers of the module's screens in the group chat, after the shared ones."""
        return ()

    def gm_routers(self) -> Sequence[Router]:
        """Routers of the module's GM tools in the GM's private chat (the group's ``/gm`` sends
        them there), before the players' private screens."""
        return ()

    def private_routers(self) -> Sequence[Router]:
        """Routers of the module's private screens for the players, before plain text is read
        as the phase's input."""
        return ()

    def renderers(self) -> Mapping[str, Renderer]:
        """The module's post kinds and their renderers, joined into :data:`bot.posts.REGISTRY`."""
        return {}

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
