"""The end-to-end harness itself: a real aiogram bot, defined here, against the Bot API emulator.

The product bot is not built yet; these tests prove what its end-to-end tests will rely on:
long polling, private and group chats, buttons and edits, photo uploads, webhooks.
"""

import asyncio
import hashlib
import io
import socket
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from aiogram import Bot, Dispatcher, F, Router
from aiogram.client.session.middlewares.base import NextRequestMiddlewareType
from aiogram.exceptions import TelegramConflictError, TelegramNotFound
from aiogram.filters import Command, CommandStart
from aiogram.methods import GetUpdates, Response, SendMessage, TelegramMethod
from aiogram.types import BotCommand, BufferedInputFile, CallbackQuery, Message
from aiogram.utils.keyboard import InlineKeyboardBuilder
from aiogram.webhook.aiohttp_server import SimpleRequestHandler
from aiohttp import web
from PIL import Image

from tests.e2e.harness import (
    Chat,
    EmulatorError,
    JsonObject,
    ScriptedTelegram,
    User,
    polling,
    run_emulator,
)

PLAYER = User(id=501, first_name="Ada", username="ada")
RIVAL = User(id=502, first_name="Bo")
CAMPAIGN_CHAT = Chat(id=-1001234567890, type="supergroup", title="Campaign")
MAP_SIZE = (40, 30)
WEBHOOK_SECRET = "e2e-secret-token"


def map_png() -> bytes:
    image = Image.new("RGB", MAP_SIZE, (30, 90, 160))
    buffer = io.BytesIO()
    image.save(buffer, format="PNG")
    return buffer.getvalue()


def build_dispatcher(sent: list[Message]) -> Dispatcher:
    """A small bot: greets with a button, confirms the button, sends a map, echoes in groups.

    `sent` collects the Messages aiogram parsed from the emulator's answers.
    """
    router = Router(name="e2e-demo")

    @router.message(CommandStart(), F.chat.type == "private")
    async def greet(message: Message) -> None:
        keyboard = InlineKeyboardBuilder()
        keyboard.button(text="Hold", callback_data="order:hold")
        name = message.from_user.first_name if message.from_user else "stranger"
        greeting = f"Welcome, {name}"
        sent.append(await message.answer(greeting, reply_markup=keyboard.as_markup()))

    @router.callback_query(F.data == "order:hold")
    async def confirm_hold(query: CallbackQuery) -> None:
        await query.answer("Order saved")
        if isinstance(query.message, Message):
            edited = await query.message.edit_text("Hold: confirmed")
            if isinstance(edited, Message):
                sent.append(edited)

    @router.message(Command("map"))
    async def send_map(message: Message) -> None:
        photo = BufferedInputFile(map_png(), filename="map.png")
        sent.append(await message.answer_photo(photo, caption="Turn 1"))

    @router.message(F.text == "boom")
    async def fail(message: Message) -> None:
        raise RuntimeError("a handler failing on purpose")

    @router.message(F.chat.type.in_({"group", "supergroup"}), F.text)
    async def echo_in_group(message: Message) -> None:
        sent.append(await message.answer(f"Seen in {message.chat.type}: {message.text}"))

    dispatcher = Dispatcher()
    dispatcher.include_router(router)
    return dispatcher


async def test_private_start_gets_a_reply(telegram: ScriptedTelegram, bot: Bot) -> None:
    sent: list[Message] = []
    async with polling(build_dispatcher(sent), bot):
        await telegram.send_command(PLAYER, "/start")
        [reply] = await telegram.wait_for_bot_messages(PLAYER.id)

    assert reply["text"] == "Welcome, Ada"
    assert reply["chat"]["type"] == "private"
    assert reply["from"] == {
        "id": bot.id,
        "is_bot": True,
        "first_name": "Test Bot",
        "username": f"test_{bot.id}_bot",
    }
    assert reply["date"] < 10**11, "date must be in seconds"
    assert sent[0].chat.type == "private"
    assert sent[0].message_id == reply["message_id"]


async def test_group_message_is_answered_in_that_group(
    telegram: ScriptedTelegram, bot: Bot
) -> None:
    sent: list[Message] = []
    async with polling(build_dispatcher(sent), bot):
        await telegram.send_message(PLAYER, "attack sector 3", CAMPAIGN_CHAT)
        [reply] = await telegram.wait_for_bot_messages(CAMPAIGN_CHAT.id)

    assert reply["text"] == "Seen in supergroup: attack sector 3"
    assert reply["chat"] == {"id": CAMPAIGN_CHAT.id, "type": "supergroup", "title": "Campaign"}
    assert sent[0].chat.type == "supergroup"
    assert await telegram.bot_messages(PLAYER.id) == []


async def test_button_press_is_answered_and_the_message_edited(
    telegram: ScriptedTelegram, bot: Bot
) -> None:
    sent: list[Message] = []
    async with polling(build_dispatcher(sent), bot):
        await telegram.send_command(PLAYER, "/start")
        [offer] = await telegram.wait_for_bot_messages(PLAYER.id)
        assert offer["reply_markup"]["inline_keyboard"][0][0]["callback_data"] == "order:hold"

        with pytest.raises(EmulatorError, match="no button"):
            await telegram.press_button(PLAYER, offer, "order:attack")
        query_id = await telegram.press_button(PLAYER, offer, "order:hold")
        [edited] = await telegram.wait_for(
            lambda: telegram.bot_messages(PLAYER.id),
            lambda messages: messages[0]["text"] == "Hold: confirmed",
            what="the offer edited",
        )
        answer = await telegram.callback_answer(query_id)

    assert answer == {"text": "Order saved", "show_alert": False}
    assert edited["message_id"] == offer["message_id"]
    assert "edit_date" in edited
    assert "reply_markup" not in edited, "an edit without a keyboard drops the old one"
    assert [message.text for message in sent] == ["Welcome, Ada", "Hold: confirmed"]


async def test_uploaded_photo_arrives_intact(telegram: ScriptedTelegram, bot: Bot) -> None:
    sent: list[Message] = []
    async with polling(build_dispatcher(sent), bot):
        await telegram.send_command(PLAYER, "/map", CAMPAIGN_CHAT)
        [photo_message] = await telegram.wait_for_bot_messages(CAMPAIGN_CHAT.id)

    [size] = photo_message["photo"]
    assert (size["width"], size["height"]) == MAP_SIZE
    assert photo_message["caption"] == "Turn 1"
    [entry] = [item for item in await telegram.history() if "files" in item]
    assert entry["files"][0]["sha256"] == hashlib.sha256(map_png()).hexdigest()
    assert entry["files"][0]["mime_type"] == "image/png"
    assert sent[0].photo is not None
    assert sent[0].photo[-1].file_id == size["file_id"]
    downloaded = await bot.download(size["file_id"])
    assert downloaded is not None
    assert downloaded.read() == map_png()


async def test_a_failing_handler_does_not_stop_the_bot(
    telegram: ScriptedTelegram, bot: Bot
) -> None:
    sent: list[Message] = []
    async with polling(build_dispatcher(sent), bot):
        await telegram.send_message(PLAYER, "boom")
        await telegram.send_command(PLAYER, "/start")
        [reply] = await telegram.wait_for_bot_messages(PLAYER.id)
        info = await telegram.wait_for(
            lambda: telegram.bot_api("getWebhookInfo"),
            lambda info: info["pending_update_count"] == 0,
            what="both updates confirmed by the next offset",
        )

    assert reply["text"] == "Welcome, Ada"
    assert info["url"] == ""


async def test_idle_long_polling_waits_on_the_server(telegram: ScriptedTelegram, bot: Bot) -> None:
    """Every getUpdates the bot makes asks the server to hold it (``timeout``), so an idle bot
    makes one request per timeout instead of hundreds a second; the emulator holds such a
    request until an update comes (test_long_poll_returns_when_an_update_arrives). Checked on
    the requests themselves, not by counting them after a sleep."""
    timeouts: list[int | None] = []

    async def record(
        make_request: NextRequestMiddlewareType[Any], bot: Bot, method: TelegramMethod[Any]
    ) -> Response[Any]:
        if isinstance(method, GetUpdates):
            timeouts.append(method.timeout)
        return await make_request(bot, method)

    bot.session.middleware(record)
    sent: list[Message] = []
    async with polling(build_dispatcher(sent), bot, polling_timeout=7):
        await telegram.send_command(PLAYER, "/start")
        await telegram.wait_for_bot_messages(PLAYER.id, count=1)
        await telegram.wait_for(
            telegram.request_counts,
            lambda counts: counts.get("getUpdates", 0) >= 2,
            what="the long poll after the update",
        )
    assert len(timeouts) >= 2
    assert set(timeouts) == {7}


async def test_get_updates_keeps_updates_until_confirmed(telegram: ScriptedTelegram) -> None:
    first = await telegram.send_message(PLAYER, "one")
    second = await telegram.send_message(RIVAL, "two")

    delivered = await telegram.bot_api("getUpdates")
    again = await telegram.bot_api("getUpdates", limit=1)
    after_first = await telegram.bot_api("getUpdates", offset=first + 1)
    after_both = await telegram.bot_api("getUpdates", offset=second + 1)

    assert [update["update_id"] for update in delivered] == [first, second]
    assert [update["update_id"] for update in again] == [first]
    assert [update["update_id"] for update in after_first] == [second]
    assert after_both == []
    assert delivered[1]["message"]["text"] == "two"


async def test_long_poll_returns_when_an_update_arrives(telegram: ScriptedTelegram) -> None:
    counts_before = await telegram.request_counts()
    long_poll = asyncio.create_task(telegram.bot_api("getUpdates", timeout=30))
    await telegram.wait_for(
        telegram.request_counts,
        lambda counts: counts.get("getUpdates", 0) > counts_before.get("getUpdates", 0),
        what="the long poll to reach the emulator",
    )
    update_id = await telegram.send_message(PLAYER, "wake up")
    # Far below the poll's 30 s: only an early return can finish in time.
    updates = await asyncio.wait_for(long_poll, 10)

    assert [update["update_id"] for update in updates] == [update_id]


async def test_common_bot_methods(telegram: ScriptedTelegram, bot: Bot) -> None:
    me = await bot.get_me()
    assert me.is_bot
    assert await bot.set_my_commands([BotCommand(command="start", description="Join")])
    assert await bot.delete_webhook(drop_pending_updates=True)
    posted = await bot.send_message(CAMPAIGN_CHAT.id, "Turn 1 begins")
    assert posted.chat.type == "supergroup", "a -100… id is a supergroup even before users write"
    assert await bot.pin_chat_message(CAMPAIGN_CHAT.id, posted.message_id)
    [entry] = [item for item in await telegram.history() if item.get("pinned")]
    assert entry["message"]["text"] == "Turn 1 begins"
    with pytest.raises(TelegramNotFound, match="not emulated"):
        await bot.get_chat(CAMPAIGN_CHAT.id)


def build_webhook_dispatcher() -> Dispatcher:
    router = Router(name="e2e-webhook")

    @router.message(CommandStart())
    async def greet(message: Message) -> None:
        await message.answer("Welcome by webhook")

    @router.message(Command("echo"))
    async def echo_in_answer(message: Message) -> SendMessage:
        # Returned, not awaited: aiogram puts the call in the webhook's answer.
        return message.answer(f"echo: {message.text}")

    dispatcher = Dispatcher()
    dispatcher.include_router(router)
    return dispatcher


@pytest.fixture
async def webhook_url(bot: Bot, request: pytest.FixtureRequest) -> AsyncIterator[str]:
    """The bot served by aiogram's aiohttp webhook handler on a loopback port."""
    app = web.Application()
    handler = SimpleRequestHandler(
        dispatcher=build_webhook_dispatcher(),
        bot=bot,
        secret_token=WEBHOOK_SECRET,
        handle_in_background=request.param,
    )
    handler.register(app, path="/webhook")
    runner = web.AppRunner(app)
    await runner.setup()
    site = web.TCPSite(runner, "127.0.0.1", 0)
    await site.start()
    host, port = runner.addresses[0][:2]
    try:
        yield f"http://{host}:{port}/webhook"
    finally:
        await runner.cleanup()


def closed_loopback_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port: int = probe.getsockname()[1]
    return port


@pytest.mark.parametrize("webhook_url", [True, False], ids=["background", "answer"], indirect=True)
async def test_webhook_delivery_with_secret_token(
    telegram: ScriptedTelegram, bot: Bot, webhook_url: str
) -> None:
    async def replies() -> list[JsonObject]:
        return await telegram.bot_messages(PLAYER.id)

    assert await bot.set_webhook(webhook_url, secret_token=WEBHOOK_SECRET)
    await telegram.send_command(PLAYER, "/start")
    await telegram.send_command(PLAYER, "/echo hi")
    texts = [
        message["text"]
        for message in await telegram.wait_for(replies, lambda found: len(found) == 2)
    ]
    assert sorted(texts) == ["Welcome by webhook", "echo: /echo hi"]
    with pytest.raises(TelegramConflictError):
        await bot.get_updates()

    # A refused or unreachable webhook is reported to the scripted user; the emulator lives on
    # and keeps the update pending, as Telegram does.
    assert await bot.set_webhook(webhook_url, secret_token="not-the-bot-secret")
    with pytest.raises(EmulatorError, match="answered 401"):
        await telegram.send_message(PLAYER, "refused")
    assert await bot.set_webhook(f"http://127.0.0.1:{closed_loopback_port()}/webhook")
    with pytest.raises(EmulatorError, match="unreachable"):
        await telegram.send_message(PLAYER, "lost")
    info = await bot.get_webhook_info()
    assert info.pending_update_count == 2

    assert await bot.delete_webhook()
    pending = await bot.get_updates()
    assert [update.message.text for update in pending if update.message] == ["refused", "lost"]


async def test_updates_aiogram_could_not_parse_are_refused(telegram: ScriptedTelegram) -> None:
    # aiogram retries a batch it cannot parse for ever, so such a scripted update would stall
    # the bot under test instead of failing the test.
    nameless = {"id": 7, "is_bot": False}
    message = {"botToken": telegram.token, "from": nameless, "chat": {"id": 7, "type": "private"}}

    with pytest.raises(EmulatorError, match="first_name"):
        await telegram.client_route("/sendMessage", {**message, "text": "hello"})
    with pytest.raises(EmulatorError, match="chat"):
        await telegram.client_route(
            "/sendMessage", {**message, "from": PLAYER.as_api(), "chat": {}}
        )

    assert await telegram.bot_api("getUpdates") == []


async def test_a_failed_webhook_delivery_is_sent_again_when_asked(tmp_path: Path) -> None:
    """With ``webhook_retry_seconds`` the emulator keeps an update its webhook refused and sends
    it again, as Telegram does, until the webhook answers 2xx; the user's action is accepted at
    once, and every attempt is kept (``webhook_deliveries``)."""
    answers = [503, 503, 200]
    received: list[int] = []

    async def webhook(request: web.Request) -> web.Response:
        received.append(int((await request.json())["update_id"]))
        return web.Response(status=answers[len(received) - 1])

    app = web.Application()
    app.router.add_post("/webhook", webhook)
    runner = web.AppRunner(app)
    await runner.setup()
    port = closed_loopback_port()
    await web.TCPSite(runner, "127.0.0.1", port).start()
    try:
        with run_emulator(tmp_path / "emulator.log", webhook_retry_seconds=0.1) as emulator:
            async with aiohttp.ClientSession() as session:
                telegram = emulator.scripted(session)
                await telegram.bot_api("setWebhook", url=f"http://127.0.0.1:{port}/webhook")
                update_id = await telegram.send_message(PLAYER, "kept until answered")
                deliveries = await telegram.wait_for(
                    telegram.webhook_deliveries, lambda found: len(found) == 3
                )
    finally:
        await runner.cleanup()
    assert received == [update_id] * 3
    assert [(d["update_id"], d["attempt"], d["status"]) for d in deliveries] == [
        (update_id, 1, 503),
        (update_id, 2, 503),
        (update_id, 3, 200),
    ]
