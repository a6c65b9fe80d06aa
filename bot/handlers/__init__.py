"""All routers, combined in one place. Chat-kind filters are set once, on the parent routers:
``group`` routers see only group chats, ``private`` ones only private chats.

Each handler module defines its handlers as functions and a ``build()`` that registers them on a
new ``Router(name=__name__)``: a router can belong to one dispatcher only, and tests build many.
"""

from __future__ import annotations

from aiogram import F, Router

from bot.handlers import common, errors


def build_router() -> Router:
    """The bot's root router: private screens, group screens, then the common commands."""
    root = Router(name="strategium")
    private = Router(name="private")
    private.message.filter(F.chat.type == "private")
    private.callback_query.filter(F.message.chat.type == "private")
    group = Router(name="group")
    group.message.filter(F.chat.type.in_({"group", "supergroup"}))
    group.callback_query.filter(F.message.chat.type.in_({"group", "supergroup"}))
    root.include_routers(private, group, common.build(), errors.build())
    return root
