"""Posts: what an outbox message looks like when it reaches Telegram.

Anything that must reach a chat reliably is queued in the outbox (``storage``) as a *kind* and a
small JSON payload of ids, in the same transaction as the change it announces. The sender
claims due messages and asks :func:`render` for each: the renderer of its kind reads what it
needs from the store and words it in the language of the chat (the campaign's for a group, the
person's for a private chat). Rendering at send time means a post never shows stale numbers, and
a map is drawn only when it is sent.

Renderers live with the feature that queues the kind (``bot/posts/<feature>.py``, or a rule
module's package, whose ``BotModule.renderers()`` gives them), each module
exposing ``RENDERERS: dict[str, Renderer]``; :data:`REGISTRY` joins them and a test checks that
kinds are unique and that every kind the code queues has a renderer. The ``text`` kind carries
its words ready-made (``payload["text"]``, worded when queued) for one-off notices.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass, field

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import I18n
from pydantic import JsonValue

from bot.screens.rendering import MapDrawer
from bot.texts.i18n import language_of
from storage import OutboxMessage, Store

OnSent = Callable[[int], Awaitable[None]]
"""Called with the Telegram id of the message that shows a post, once it is recorded sent."""


@dataclass(frozen=True)
class Post:
    """One message to send. With ``photo`` (PNG bytes) the text is its caption. ``pin`` pins it
    in the chat; ``edit_message_id`` edits that message in place instead of sending a new one
    (the sender sends a new one if that message is gone). ``on_sent`` is called with the id of
    the message that now shows the post (e.g. to remember a pinned status board), in the
    transaction that marks the post sent: store calls only."""

    text: str
    photo: bytes | None = None
    document: tuple[str, bytes] | None = None  # (file name, content); the text is its caption
    keyboard: InlineKeyboardMarkup | None = None
    pin: bool = False
    edit_message_id: int | None = None
    on_sent: OnSent | None = None


@dataclass(frozen=True)
class PostContext:
    """What a renderer may use: the store, the catalogs, the bot's username (for links) and
    where maps are drawn."""

    store: Store
    i18n: I18n
    bot_username: str
    maps: MapDrawer = field(default_factory=MapDrawer)


Renderer = Callable[[PostContext, OutboxMessage], Awaitable[Post | None]]
"""Words a queued message. ``None``: nothing to send any more (e.g. the campaign is gone)."""


async def language_for_chat(context: PostContext, message: OutboxMessage) -> str:
    """The language a post to ``message.chat_id`` is worded in."""
    if message.chat_id < 0 and message.campaign_id is not None:
        campaign = await context.store.campaign(message.campaign_id)
        if campaign is not None:
            return campaign.language
    person = await context.store.person(message.chat_id)
    if person is None:
        return "en"
    return person.language or language_of(person.telegram_language)


def keyboard_from_payload(rows: JsonValue) -> InlineKeyboardMarkup | None:
    """Buttons stored in a payload: rows of ``{"text", "callback_data"}`` or ``{"text", "url"}``."""
    if not isinstance(rows, list) or not rows:
        return None
    keyboard: list[list[InlineKeyboardButton]] = []
    for row in rows:
        if not isinstance(row, list):
            continue
        buttons = [
            InlineKeyboardButton(
                text=str(button["text"]),
                callback_data=str(button["callback_data"]) if "callback_data" in button else None,
                url=str(button["url"]) if "url" in button else None,
            )
            for button in row
            if isinstance(button, dict) and "text" in button
        ]
        if buttons:
            keyboard.append(buttons)
    return InlineKeyboardMarkup(inline_keyboard=keyboard) if keyboard else None


async def render_text(context: PostContext, message: OutboxMessage) -> Post | None:
    """The ``text`` kind: words fixed when queued, optional buttons and pin."""
    text = message.payload.get("text")
    if not isinstance(text, str) or not text:
        return None
    return Post(
        text=text,
        keyboard=keyboard_from_payload(message.payload.get("buttons")),
        pin=bool(message.payload.get("pin", False)),
    )


def build_registry(*modules: Mapping[str, Renderer]) -> dict[str, Renderer]:
    """Join renderer tables; a kind defined twice is a programming error."""
    registry: dict[str, Renderer] = {"text": render_text}
    for table in modules:
        for kind, renderer in table.items():
            if kind in registry:
                raise ValueError(f"two renderers for post kind {kind!r}")
            registry[kind] = renderer
    return registry


# Feature modules import Post and Renderer from here, so their tables are joined last.
from bot.modules import BOT_MODULES  # noqa: E402
from bot.posts import (  # noqa: E402
    calendar,
    changes,
    dice,
    edits,
    group,
    history,
    no_shows,
    private,
    turns,
)

REGISTRY: dict[str, Renderer] = build_registry(
    calendar.RENDERERS,
    changes.RENDERERS,
    dice.RENDERERS,
    edits.RENDERERS,
    group.RENDERERS,
    history.RENDERERS,
    no_shows.RENDERERS,
    private.RENDERERS,
    turns.RENDERERS,
    *(module.renderers() for module in BOT_MODULES.values()),
)


async def render(context: PostContext, message: OutboxMessage) -> Post | None:
    """Word a queued message with the renderer of its kind (``KeyError`` for an unknown kind)."""
    language = await language_for_chat(context, message)
    with context.i18n.context(), context.i18n.use_locale(language):
        return await REGISTRY[message.kind](context, message)
