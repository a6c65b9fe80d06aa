"""Commands every chat has, the person record, languages, and the last-resort error handler."""

from aiogram import Router
from aiogram.filters import Command
from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage, SetMyCommands
from aiogram.types import Message
from aiogram.utils.i18n import I18n

from bot.runtime.commands import set_command_menus
from bot.screens.callbacks import LanguageChoice
from storage import Store
from tests.bot.telegram import FakeTelegram


async def test_help_in_private_and_in_a_group(telegram: FakeTelegram) -> None:
    anna = telegram.user(7, "Anna")
    group = telegram.group(-100, "Wargamers")
    private = await telegram.feed(telegram.message(anna, anna.id, "/help"))
    public = await telegram.feed(telegram.message(anna, group, "/help"))
    assert private is not None
    assert public is not None
    assert (private.chat_id, public.chat_id) == (7, -100)
    assert "/orders" in private.text
    assert "/newcampaign" in public.text


async def test_telegram_language_picks_russian(telegram: FakeTelegram) -> None:
    boris = telegram.user(8, "Борис", language="ru")
    sent = await telegram.feed(telegram.message(boris, boris.id, "/help"))
    assert sent is not None
    assert "приказ" in sent.text


async def test_language_choice_is_stored_and_used(telegram: FakeTelegram, store: Store) -> None:
    anna = telegram.user(7, "Anna", language="en")
    menu = await telegram.feed(telegram.message(anna, anna.id, "/lang"))
    assert menu is not None
    telegram.take()
    await telegram.feed(telegram.press(anna, menu, LanguageChoice(language="ru").pack()))
    sent = telegram.take()
    assert [type(s.method) for s in sent] == [AnswerCallbackQuery, EditMessageText]
    assert sent[1].text == "Язык: русский."
    person = await store.person(7)
    assert person is not None
    assert person.language == "ru"
    reply = await telegram.feed(telegram.message(anna, anna.id, "/help"))
    assert reply is not None
    assert "приказ" in reply.text
    await telegram.feed(telegram.press(anna, menu, LanguageChoice(language="auto").pack()))
    person = await store.person(7)
    assert person is not None
    assert person.language is None


async def test_a_forged_language_button_changes_nothing(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(7, "Anna")
    await telegram.feed(telegram.message(anna, anna.id, "/help"))
    telegram.take()
    await telegram.feed(telegram.forged_press(anna, anna.id, "lang:xx"))
    sent = telegram.take()
    assert len(sent) == 1
    assert isinstance(sent[0].method, AnswerCallbackQuery)
    assert sent[0].method.show_alert
    person = await store.person(7)
    assert person is not None
    assert person.language is None


async def test_the_person_is_recorded_with_private_chat_opened(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(7, "Anna")
    group = telegram.group(-100, "Wargamers")
    await telegram.feed(telegram.message(anna, group, "/help"))
    seen = await store.person(7)
    assert seen is not None
    assert not seen.can_receive_private
    await telegram.feed(telegram.message(anna, anna.id, "/start"))
    opened = await store.person(7)
    assert opened is not None
    assert opened.can_receive_private


async def test_an_unexpected_error_is_answered_not_raised(telegram: FakeTelegram) -> None:
    broken = Router(name="broken")

    @broken.message(Command("boom"))
    async def boom(message: Message) -> None:
        raise RuntimeError("a bug")

    telegram.dispatcher.include_router(broken)
    anna = telegram.user(7, "Anna")
    sent = await telegram.feed(telegram.message(anna, anna.id, "/boom"))
    assert sent is not None
    assert isinstance(sent.method, SendMessage)
    assert "nothing was changed" in sent.text


async def test_command_menus_for_each_chat_kind_and_language(
    telegram: FakeTelegram, i18n: I18n
) -> None:
    await set_command_menus(telegram.bot, i18n)
    menus = {
        (type(s.method.scope).__name__, s.method.language_code): {
            c.command: c.description for c in s.method.commands
        }
        for s in telegram.take()
        if isinstance(s.method, SetMyCommands)
    }
    assert len(menus) == 6
    assert menus[("BotCommandScopeAllPrivateChats", "ru")]["orders"] == (
        "приказы вашей стороны на этот ход"
    )
    assert menus[("BotCommandScopeAllGroupChats", None)]["newcampaign"] == (
        "create a campaign in this group (GM)"
    )
