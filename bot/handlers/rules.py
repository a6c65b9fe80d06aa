"""``/rules``: the campaign's rules with its own numbers, in the group (the group's campaign)
or in private (the person's current campaign), one section at a time with a button for each
(``bot/texts/rules.py`` words them). The rules are public: anyone in the group may turn the
group's pages; in private, the campaign's members."""

from __future__ import annotations

from aiogram import Router
from aiogram.filters import Command
from aiogram.filters.callback_data import CallbackData
from aiogram.types import CallbackQuery, InlineKeyboardButton, InlineKeyboardMarkup, Message
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.calendar import campaign_or_answer
from bot.handlers.editing import edit_in_place
from bot.posts.turns import passed_deadline_line, plan_lines
from bot.runtime.clock import Clock
from bot.screens.callbacks import ButtonInt
from bot.services.calendars import calendar_plan
from bot.services.turns import game_for
from bot.services.window import current_deadline
from bot.texts.limits import shorten
from bot.texts.moments import format_moment
from bot.texts.rules import RulesView, section_button, section_text, sections_of
from storage import Campaign, Person, Phase, Store

PLAN_SHOWN = 5
"""The coming moments the first section lists."""


class RulesPress(CallbackData, prefix="ru"):
    """A section button of ``/rules``: campaign, section."""

    c: ButtonInt
    s: str


async def rules_view(store: Store, campaign: Campaign, clock: Clock) -> RulesView:
    """Everything the rules screens read, as stored now, worded in the reader's language (in
    the group, the campaign's)."""
    now = clock.now()
    language = "ru" if get_i18n().current_locale == "ru" else "en"
    deadline_words = passed = None
    plan: list[str] = []
    if campaign.phase not in (Phase.SETUP, Phase.FINISHED):
        deadline = await current_deadline(store, campaign)
        if deadline is not None:
            deadline_words = format_moment(deadline, campaign.time_zone, language)
            passed = await passed_deadline_line(store, campaign, deadline, now, language)
        coming = await calendar_plan(store, campaign, now)
        plan = plan_lines(coming[:PLAN_SHOWN], campaign.time_zone, language)
    return RulesView(
        campaign=campaign,
        sides=await store.sides(campaign.id),
        game=game_for(campaign),
        deadline=deadline_words,
        plan=plan,
        language=language,
        passed=passed,
    )


def rules_screen(view: RulesView, section: str) -> tuple[str, InlineKeyboardMarkup]:
    """One section's text, with a button for every section (the shown one marked)."""
    sections = sections_of(view.game)
    shown = section if section in sections else sections[0]
    buttons = [
        InlineKeyboardButton(
            text=("• " if name == shown else "") + section_button(name),
            callback_data=RulesPress(c=view.campaign.id, s=name).pack(),
        )
        for name in sections
    ]
    rows = [buttons[i : i + 2] for i in range(0, len(buttons), 2)]
    return shorten(section_text(view, shown)), InlineKeyboardMarkup(inline_keyboard=rows)


async def show_rules(message: Message, store: Store, clock: Clock, person: Person) -> None:
    """``/rules``: the first section, with buttons to the others."""
    campaign = await campaign_or_answer(message, store, person)
    if campaign is None:
        return
    text, keyboard = rules_screen(await rules_view(store, campaign, clock), "campaign")
    await message.answer(text, reply_markup=keyboard)


async def turn_page(
    query: CallbackQuery, callback_data: RulesPress, store: Store, clock: Clock
) -> None:
    """A section button: the campaign's rules as stored now, that section shown in place."""
    campaign = await store.campaign(callback_data.c)
    message = query.message
    if (
        campaign is None
        or not isinstance(message, Message)
        or not await _may_read(store, campaign, message, query.from_user.id)
    ):
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    view = await rules_view(store, campaign, clock)
    if callback_data.s not in sections_of(view.game):
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    await query.answer()
    text, keyboard = rules_screen(view, callback_data.s)
    await edit_in_place(message, text, keyboard)


async def _may_read(store: Store, campaign: Campaign, message: Message, user_id: int) -> bool:
    """Whether the button's message may show this campaign's rules: it is in the campaign's
    group, or in the private chat of one of its members."""
    if message.chat.type != "private":
        return message.chat.id == campaign.chat_id
    return message.chat.id == user_id and await store.member(campaign.id, user_id) is not None


def build() -> Router:
    """This module's router: it serves the group and the private chat."""
    router = Router(name=__name__)
    router.message.register(show_rules, Command("rules"))
    router.callback_query.register(turn_page, RulesPress.filter())
    return router
