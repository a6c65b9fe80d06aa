"""Checks every group screen makes: which campaign a chat (topic) runs, whether the sender is one
of its GMs, whether a button is still current, and which typed answer the bot is waiting for."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from aiogram.exceptions import TelegramBadRequest, TelegramForbiddenError
from aiogram.filters import Filter
from aiogram.types import (
    CallbackQuery,
    ForceReply,
    InlineKeyboardMarkup,
    Message,
    MessageEntity,
    User,
)
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.runtime.middlewares import display_name
from bot.texts.i18n import language_of
from storage import Campaign, CampaignStatus, Member, Person, Phase, Store


def thread_of(message: Message) -> int:
    """The forum topic a message belongs to (0 outside topics)."""
    if message.is_topic_message and message.message_thread_id is not None:
        return message.message_thread_id
    return 0


async def campaign_here(store: Store, message: Message) -> Campaign | None:
    """The unfinished campaign of the chat (topic) ``message`` is in."""
    return await store.active_campaign(message.chat.id, thread_of(message))


async def gm_member(store: Store, campaign: Campaign, user_id: int) -> Member | None:
    """The sender as a GM or co-GM of *this* campaign, else ``None``."""
    member = await store.member(campaign.id, user_id)
    return member if member is not None and member.is_gm else None


def whole_number(text: str, max_digits: int = 15) -> int | None:
    """``text`` as a whole number written in ASCII digits (at most ``max_digits`` of them),
    else ``None``. ``str.isdigit`` alone also passes ``²`` and 5000-digit numbers, which
    ``int`` refuses and storage cannot hold."""
    if not 0 < len(text) <= max_digits or not (text.isascii() and text.isdigit()):
        return None
    return int(text)


def no_campaign_text() -> str:
    """What to say when a group has no campaign."""
    return _("There is no campaign in this chat yet. A GM starts one with /newcampaign.")


async def no_campaign_words(store: Store, message: Message) -> str:
    """What to say when the chat (topic) of ``message`` runs no campaign: that it has none
    yet, or that its last one is over, where to browse it, and how to start the next."""
    thread = thread_of(message)
    finished = [
        c
        for c in await store.campaigns_in_chat(message.chat.id)
        if c.thread_id == thread and c.status is CampaignStatus.FINISHED
    ]
    if not finished:
        return no_campaign_text()
    return _(
        "No campaign is running here: «{title}» is over and archived (/history shows it and "
        "the campaigns before it). A GM starts the next one with /newcampaign."
    ).format(title=finished[-1].title)


def not_gm_text() -> str:
    """What to say to someone who is not a GM of this campaign."""
    return _("Only this campaign's GM can do that. Ask the GM, or see /status.")


def not_running_gm_text() -> str:
    """What to say in private to someone who runs no campaign."""
    return _(
        "You are not the GM of a running campaign. A GM starts one in the group with "
        "/newcampaign; its GM tools then open here with /gm."
    )


async def campaigns_run_by(store: Store, user_id: int) -> list[Campaign]:
    """The unfinished campaigns ``user_id`` is a GM of."""
    return [
        m.campaign
        for m in await store.memberships(user_id)
        if m.member.is_gm and m.campaign.status is not CampaignStatus.FINISHED
    ]


async def ask_in_private(
    message: Message,
    person: Person,
    i18n: I18n,
    render: Callable[[], tuple[str, InlineKeyboardMarkup | None]],
) -> None:
    """Ask the GM ``person`` something to confirm where the players do not see it: under
    ``message`` when that is in their private chat, else in a new message there, worded in the
    GM's language, the group told where it went (or how to open that chat)."""
    if message.chat.type == "private":
        text, keyboard = render()
        await message.answer(text, reply_markup=keyboard)
        return
    sent = False
    if person.can_receive_private and message.bot is not None:
        with i18n.use_locale(person.language or language_of(person.telegram_language)):
            text, keyboard = render()
        try:
            await message.bot.send_message(person.user_id, text, reply_markup=keyboard)
            sent = True
        except (TelegramForbiddenError, TelegramBadRequest):
            sent = False
    if sent:
        await message.answer(
            _("{name}, I asked you in our private chat: answer there.").format(
                name=person.display_name
            )
        )
        return
    await message.answer(
        _(
            "{name}, a GM confirms this in our private chat, where the players do not see it. "
            "Open it (tap my name, then «Start») and send the command there."
        ).format(name=person.display_name)
    )


def stale_text() -> str:
    """What a stale button says."""
    return _("This button is out of date: the campaign has moved on. Open /gm for fresh buttons.")


async def button_belongs(store: Store, query: CallbackQuery, campaign: Campaign) -> bool:
    """A campaign's button is pressed where it lives: in the campaign's group, or in the private
    chat of one of its GMs (the GM tools live there)."""
    if query.message is None:
        return False
    chat = query.message.chat
    if chat.type == "private":
        member = await store.member(campaign.id, query.from_user.id)
        return chat.id == query.from_user.id and member is not None and member.is_gm
    return campaign.chat_id == chat.id


async def pressed_campaign(
    store: Store, query: CallbackQuery, campaign_id: int, turn: int | None, phase: str | None
) -> Campaign | None:
    """The campaign a button names, if it belongs to this chat (its group, or the private chat
    of one of its GMs) and (when given) is still at
    ``turn`` and ``phase``; otherwise the press is answered as stale and ``None`` returned."""
    campaign = await store.campaign(campaign_id)
    if campaign is None or not await button_belongs(store, query, campaign):
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return None
    moved = (turn is not None and campaign.turn != turn) or (
        phase is not None and campaign.phase.value != phase
    )
    if moved or campaign.phase is Phase.FINISHED or campaign.status.value == "finished":
        await query.answer(stale_text(), show_alert=True)
        return None
    return campaign


class AwaitedAnswer(Filter):
    """Passes a text (or file) when the bot waits for this person to type a ``prefix`` step in
    this chat; gives the handler the stored ``prompt``. The message that answered the last wait,
    delivered again, passes too, with that wait (``prompt.answered_by`` set): the handler shows
    where the answer led instead of taking it twice."""

    def __init__(self, prefix: str) -> None:
        self.prefix = prefix

    async def __call__(self, message: Message, store: Store) -> bool | dict[str, Any]:
        if message.from_user is None or (message.text or "").startswith("/"):
            return False
        chat_id, user_id = message.chat.id, message.from_user.id
        prompt = await store.prompt(chat_id, user_id)
        if prompt is None:
            prompt = await store.answered_prompt(chat_id, user_id, message.message_id)
        if prompt is None or not prompt.field.startswith(self.prefix):
            return False
        return {"prompt": prompt}


def _utf16(text: str) -> int:
    return len(text.encode("utf-16-le")) // 2


async def ask(chat: Message, user: User, text: str) -> None:
    """Ask ``user`` to type an answer in the chat of ``chat``. Bots in groups see only commands
    and replies to them (privacy mode), so the question forces a reply, addressed to ``user``
    alone by a mention of their (cleaned) name, its first occurrence in ``text``."""
    name = display_name(user)
    at = text.find(name)
    entities = None
    if name and at >= 0:
        entities = [
            MessageEntity(
                type="text_mention", offset=_utf16(text[:at]), length=_utf16(name), user=user
            )
        ]
    await chat.answer(text, entities=entities, reply_markup=ForceReply(selective=True))


async def ask_again(answer: Message, text: str) -> None:
    """Refuse a typed answer and ask its author to reply once more."""
    await answer.reply(text, reply_markup=ForceReply(selective=True))
