"""Commands every chat has: ``/help``, ``/start`` without a payload, ``/lang`` and ``/cancel``
in private; and the answer to an edited message in private."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command, CommandStart
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.editing import edit_in_place
from bot.handlers.filters import PRIVATE
from bot.handlers.group.clock import EXTENSIONS
from bot.modules import BOT_MODULES
from bot.runtime.clock import Clock
from bot.screens.callbacks import LanguageChoice
from bot.texts.core import language_name
from bot.texts.i18n import LANGUAGES, language_of
from storage import CampaignStatus, Language, Person, Store

LANGUAGE_NAMES = {"en": "English", "ru": "Русский"}


def help_text(in_group: bool) -> str:
    """What the bot does, for a group or a private chat."""
    if in_group:
        return _(
            "Strategium runs a map campaign in this group.\n\n"
            "GM: /newcampaign creates one here, step by step; /gm sends you the GM tools in "
            "a private chat.\n"
            "Players: /join, then give your orders in a private chat with me.\n"
            "Everyone: /rules (the rules of this campaign, with its numbers), /status (phase, "
            "deadline, who is ready), /map, /battles, /history (past turns), /stats (battles "
            "won and lost), /calendar (the deadlines), /roll 2d6 (dice at the table; /roll "
            "2d6 3 for battle 3)."
        )
    return _(
        "Here you give your side's secret orders; nobody else sees them before the turn "
        "resolves.\n\n"
        "/rules: the rules of your campaign, with its numbers.\n"
        "/deploy: place your starting armies.\n"
        "/orders: this turn's orders, with buttons; or type them, one per line, e.g.\n"
        "  2 -> 1 x2\n  attack blue in 1\n  fortify 4\n  reinforce 4\n"
        "/battles: your battles and their results; /roll 2d6 3: dice for battle 3, sent to "
        "both sides.\n"
        "/history: past turns, with your side's orders; /stats: your battles.\n"
        "/calendar: the deadlines for your phone's calendar.\n"
        "/campaigns: if you play in several, choose one.\n"
        "/vacation: the days you are away (reminders skip you; your teammates and the GM "
        "are told).\n"
        "/lang: your language."
    )


def gm_help_text(in_group: bool) -> str:
    """Every GM command and every tool of the GM panel, under the panel's own button labels
    (the same catalog entries), for the help of someone who runs a campaign."""
    where = (
        _(
            "/gm: the GM tools, sent to our private chat (the group sees only the "
            "announcements). There:"
        )
        if in_group
        else _(
            "/gm: the GM tools, here in our private chat (/gm in the group sends them here too):"
        )
    )
    clock = ", ".join(
        [
            _("⏭ Advance now"),
            _("⏸ Pause"),
            _("▶️ Resume"),
            *(_("+{n} h").format(n=hours) for hours in EXTENSIONS),
            _("⚖ Resolve now"),
        ]
    )
    tools = [
        (clock, _("the campaign's clock")),
        (_("⚔️ Battle results"), _("set or correct a battle's result")),
        (_("🔓 Reopen a side's orders"), _("one side gives its orders again, for a few hours")),
        (_("📍 Place a side that did not deploy"), _("during deployment")),
        (
            _("✏️ Correct the state"),
            ". ".join(
                [
                    _("armies in a sector, a side added or retired, with a reason; undoable"),
                    *(
                        words
                        for module in BOT_MODULES.values()
                        if (words := module.gm_state_help()) is not None
                    ),
                ]
            ),
        ),
        *(tool for module in BOT_MODULES.values() for tool in module.gm_help_tools()),
        (
            f"{_('👥 Members')}, {_('🙋 Join requests')}",
            _("move players, change roles, name co-GMs, remove someone; approve or refuse a join"),
        ),
        (
            _("🪑 Replace a player"),
            _("free a vanished player's seat, give it to a newcomer, or withdraw it"),
        ),
        (
            _("⚙️ Settings and sides"),
            _("battles without a result, joining, sides without orders, a side's name"),
        ),
        (_("🗓 Schedule, deadline, language"), _("of the running campaign")),
        (_("↩️ Undo the last step"), _("back to the start of the previous phase")),
        (_("🏁 End the campaign"), _("with a reason; it goes to the archive")),
    ]
    return "\n".join(
        [
            _("For you as a GM:"),
            where,
            *(f"• {label}: {what}" for label, what in tools),
            _(
                "In private: /orders shows every side's orders, also while they are secret; "
                "/battles, the disputed results to decide; /cancel stops a question of the GM "
                "tools."
            ),
            _(
                "/advance, /pause, /resume, /extend 36 (hours): here or in the group; what they "
                "ask you to confirm comes to our private chat. In the group: /lang (the language "
                "of the campaign's posts), /newcampaign (the setup wizard)."
            ),
        ]
    )


async def show_help(message: Message, store: Store, person: Person | None = None) -> None:
    """``/help`` (and ``/start`` in a group, which Telegram sends when the bot is added); a GM
    of a running campaign also gets the GM commands."""
    text = help_text(message.chat.type != "private")
    if person is not None and any(
        m.member.is_gm and m.campaign.status is not CampaignStatus.FINISHED
        for m in await store.memberships(person.user_id)
    ):
        text += "\n\n" + gm_help_text(message.chat.type != "private")
    await message.answer(text)


async def greet(message: Message) -> None:
    """``/start`` with no payload (a payload is a join or a screen link, handled elsewhere)."""
    await message.answer(
        _("Hello! I run map campaigns for tabletop wargames.") + "\n\n" + help_text(False)
    )


def _language_keyboard(current: str | None) -> InlineKeyboardMarkup:
    buttons = [
        InlineKeyboardButton(
            text=("• " if current == code else "") + LANGUAGE_NAMES[code],
            callback_data=LanguageChoice(language=code).pack(),
        )
        for code in LANGUAGES
    ]
    auto = InlineKeyboardButton(
        text=("• " if current is None else "") + _("As my Telegram app"),
        callback_data=LanguageChoice(language="auto").pack(),
    )
    return InlineKeyboardMarkup(inline_keyboard=[buttons, [auto]])


async def choose_language(message: Message, person: Person) -> None:
    """``/lang`` in private: the person's own language."""
    await message.answer(
        _("Choose your language:"), reply_markup=_language_keyboard(person.language)
    )


async def set_language(
    query: CallbackQuery, callback_data: LanguageChoice, store: Store, clock: Clock, i18n: I18n
) -> None:
    """A language button: store the choice and confirm in that language."""
    choices: dict[str, Language | None] = {"en": "en", "ru": "ru", "auto": None}
    if callback_data.language not in choices:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    person = await store.set_language(
        query.from_user.id, choices[callback_data.language], clock.now()
    )
    shown = person.language or language_of(person.telegram_language)
    await query.answer()
    if isinstance(query.message, Message):
        with i18n.use_locale(shown):
            text = _("Language: {name}.").format(name=language_name(shown))
            keyboard = _language_keyboard(person.language)
        await edit_in_place(query.message, text, keyboard)


async def nothing_to_cancel(message: Message) -> None:
    """``/cancel`` in private when no question waits for an answer."""
    await message.answer(_("Nothing is waiting for your answer, so there is nothing to cancel."))


async def edited(message: Message) -> None:
    """An edited message in private: what was read stays as it was read."""
    await message.answer(
        _(
            "I do not read edited messages: what you sent first was read as it was. Send the "
            "correction as a new message."
        )
    )


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(show_help, Command("help"))
    router.message.register(greet, CommandStart(), PRIVATE)
    router.message.register(show_help, CommandStart(), ~PRIVATE)
    router.message.register(choose_language, Command("lang"), PRIVATE)
    router.message.register(nothing_to_cancel, Command("cancel"), PRIVATE)
    router.edited_message.register(edited, PRIVATE)
    router.callback_query.register(set_language, LanguageChoice.filter(), PRIVATE)
    return router
