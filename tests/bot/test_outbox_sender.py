"""The outbox sender against a Telegram that fails: flood control, 5xx, timeouts, blocked bots,
gone chats, gone messages. Messages arrive once, in order per chat; dead chats are given up."""

import asyncio
import logging
from collections.abc import Callable
from datetime import timedelta
from typing import Any, cast

import pytest
from aiogram import Bot
from aiogram.exceptions import (
    TelegramBadRequest,
    TelegramForbiddenError,
    TelegramMigrateToChat,
    TelegramNetworkError,
    TelegramRetryAfter,
    TelegramServerError,
)
from aiogram.methods import (
    EditMessageText,
    PinChatMessage,
    SendMessage,
    SendPhoto,
    TelegramMethod,
)
from aiogram.methods.base import TelegramType
from aiogram.utils.i18n import I18n

from bot import posts
from bot.posts import Post
from bot.runtime.clock import ManualClock
from bot.services.outbox_sender import Limits, OutboxSender, backoff
from bot.texts.limits import split_text
from storage import NewCampaign, NewOutboxMessage, OutboxMessage, OutboxState, Store
from tests.bot.telegram import FakeSession

GROUP = -100
ALICE, BOB = 11, 12
FAST = Limits(per_second=1000, group_per_minute=100000, private_per_second=1000)

Failure = Callable[[TelegramMethod[Any]], Exception]


class FlakySession(FakeSession):
    """A fake Telegram that fails the next requests to a chat as scripted."""

    def __init__(self) -> None:
        super().__init__({})
        self.failures: dict[int, list[Failure | None]] = {}
        self.delivered: list[tuple[int, str]] = []

    async def make_request(
        self, bot: Bot, method: TelegramMethod[TelegramType], timeout: int | None = None
    ) -> TelegramType:
        chat_id = getattr(method, "chat_id", None)
        script = self.failures.get(chat_id) if isinstance(chat_id, int) else None
        failure = script.pop(0) if script else None
        if failure is not None:
            raise failure(method)
        answer = await super().make_request(bot, method, timeout)
        if isinstance(method, SendMessage | SendPhoto | EditMessageText) and isinstance(
            chat_id, int
        ):
            text = getattr(method, "text", None) or getattr(method, "caption", None) or ""
            self.delivered.append((chat_id, str(text)))
        return answer


def retry_after(seconds: int) -> Failure:
    return lambda method: TelegramRetryAfter(method, "Too Many Requests", retry_after=seconds)


def server_error(method: TelegramMethod[Any]) -> Exception:
    return TelegramServerError(method, "Internal Server Error")


def timeout(method: TelegramMethod[Any]) -> Exception:
    return TelegramNetworkError(method, "Request timeout error")


def blocked(method: TelegramMethod[Any]) -> Exception:
    return TelegramForbiddenError(method, "Forbidden: bot was blocked by the user")


def chat_not_found(method: TelegramMethod[Any]) -> Exception:
    return TelegramBadRequest(method, "Bad Request: chat not found")


@pytest.fixture
def session() -> FlakySession:
    """The scripted Telegram."""
    return FlakySession()


@pytest.fixture
def sender(session: FlakySession, store: Store, clock: ManualClock, i18n: I18n) -> OutboxSender:
    """A sender on the scripted Telegram, without waiting on rate limits."""
    bot = Bot("42:TEST", session=session)
    return OutboxSender(bot, store, clock, i18n, limits=FAST)


async def _queue(store: Store, clock: ManualClock, chat_id: int, *texts: str) -> list[int]:
    ids = []
    for text in texts:
        message = await store.enqueue(
            NewOutboxMessage(
                campaign_id=None,
                chat_id=chat_id,
                kind="text",
                payload={"text": text},
                dedup_key=f"{chat_id}:{text}",
            ),
            clock.now(),
        )
        ids.append(message.id)
    return ids


async def test_every_message_arrives_once_in_order_through_failures(
    session: FlakySession, sender: OutboxSender, store: Store, clock: ManualClock
) -> None:
    await _queue(store, clock, GROUP, "g1", "g2", "g3")
    await _queue(store, clock, ALICE, "a1", "a2")
    await _queue(store, clock, BOB, "b1")
    session.failures = {
        GROUP: [retry_after(7), server_error],
        ALICE: [timeout],
    }
    for _ in range(8):  # passes a minute apart: every retry comes due
        await sender.send_due()
        clock.advance(timedelta(minutes=1))
    by_chat: dict[int, list[str]] = {}
    for chat, text in session.delivered:
        by_chat.setdefault(chat, []).append(text)
    assert by_chat == {GROUP: ["g1", "g2", "g3"], ALICE: ["a1", "a2"], BOB: ["b1"]}
    states = {m.state for m in [await store.outbox_message(i) for i in range(1, 7)] if m}
    assert states == {OutboxState.SENT}


async def test_flood_control_waits_retry_after(
    session: FlakySession, sender: OutboxSender, store: Store, clock: ManualClock
) -> None:
    (first,) = await _queue(store, clock, GROUP, "g1")
    session.failures = {GROUP: [retry_after(30)]}
    report = await sender.send_due()
    assert report.retried == [first]
    clock.advance(timedelta(seconds=29))
    assert (await sender.send_due()).sent == []
    clock.advance(timedelta(seconds=1))
    assert (await sender.send_due()).sent == [first]
    assert session.delivered == [(GROUP, "g1")]


async def test_server_errors_back_off_exponentially(
    session: FlakySession, sender: OutboxSender, store: Store, clock: ManualClock
) -> None:
    (first,) = await _queue(store, clock, ALICE, "a1")
    session.failures = {ALICE: [server_error, server_error]}
    start = clock.now()
    await sender.send_due()
    message = await store.outbox_message(first)
    assert message is not None
    assert message.not_before == start + timedelta(seconds=5)
    clock.advance(timedelta(seconds=5))
    await sender.send_due()
    message = await store.outbox_message(first)
    assert message is not None
    assert message.not_before == clock.now() + timedelta(seconds=10)
    assert backoff(30, timedelta(seconds=5), timedelta(minutes=10)) == timedelta(minutes=10)


async def test_permanent_errors_give_up_and_free_the_chat(
    session: FlakySession,
    sender: OutboxSender,
    store: Store,
    clock: ManualClock,
    caplog: pytest.LogCaptureFixture,
) -> None:
    dead_alice = await _queue(store, clock, ALICE, "a1", "a2")
    dead_group = await _queue(store, clock, GROUP, "g1")
    session.failures = {ALICE: [blocked], GROUP: [chat_not_found]}
    with caplog.at_level(logging.WARNING, logger="bot.services.outbox_sender"):
        report = await sender.send_due()
    assert sorted(report.dead) == sorted([dead_alice[0], *dead_group])
    assert report.sent == [dead_alice[1]]  # the next message of the chat is not held back
    assert sum("given up" in record.getMessage() for record in caplog.records) == 2
    message = await store.outbox_message(dead_alice[0])
    assert message is not None
    assert message.state is OutboxState.DEAD


async def test_edit_in_place_not_modified_gone_and_pin(
    session: FlakySession, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    campaign = await store.create_campaign(
        NewCampaign(chat_id=GROUP, title="Siege", created_by=1, creator_name="GM"), clock.now()
    )
    seen: list[int] = []

    async def remember(message_id: int) -> None:
        seen.append(message_id)

    async def board(_: posts.PostContext, message: Any) -> Post:
        edit = message.payload.get("edit")
        return Post(
            text=str(message.payload["text"]),
            edit_message_id=cast(int, edit) if edit else None,
            pin=bool(message.payload.get("pin")),
            on_sent=remember,
        )

    posts.REGISTRY["test_board"] = board
    try:
        for key, payload in (
            ("new", {"text": "board 1", "pin": True}),
            ("same", {"text": "board 1", "edit": 555}),
            ("gone", {"text": "board 2", "edit": 777}),
        ):
            await store.enqueue(
                NewOutboxMessage(
                    campaign_id=campaign.id,
                    chat_id=GROUP,
                    kind="test_board",
                    payload=payload,
                    dedup_key=key,
                ),
                clock.now(),
            )
        session.failures = {
            GROUP: [
                None,  # the first post goes out (and is pinned: no failure either)
                None,
                lambda m: TelegramBadRequest(m, "Bad Request: message is not modified"),
                lambda m: TelegramBadRequest(m, "Bad Request: message to edit not found"),
            ]
        }
        sender = OutboxSender(Bot("42:TEST", session=session), store, clock, i18n, limits=FAST)
        report = await sender.send_due()
    finally:
        del posts.REGISTRY["test_board"]
    assert len(report.sent) == 3
    pins = [s.method for s in session.sent if isinstance(s.method, PinChatMessage)]
    assert [p.message_id for p in pins] == [seen[0]]
    assert seen[1] == 555  # not modified: the old message still shows it
    assert seen[2] not in (555, 777)  # gone: sent anew
    assert session.delivered[-1] == (GROUP, "board 2")


def test_long_texts_split_at_line_ends() -> None:
    text = "\n".join(f"line {n:03}" for n in range(300))
    pieces = split_text(text, 1000)
    assert all(len(piece) <= 1000 for piece in pieces)
    assert "\n".join(pieces) == text


def migrated_to(new_chat_id: int) -> Failure:
    return lambda method: TelegramMigrateToChat(
        method, "Bad Request: group chat was upgraded to a supergroup chat", new_chat_id
    )


async def test_a_group_that_became_a_supergroup_takes_its_campaign_and_posts_along(
    session: FlakySession, sender: OutboxSender, store: Store, clock: ManualClock
) -> None:
    supergroup = -1009876
    campaign = await store.create_campaign(
        NewCampaign(chat_id=GROUP, title="Siege", created_by=1, creator_name="GM"), clock.now()
    )
    first, second = await _queue(store, clock, GROUP, "g1", "g2")
    await _queue(store, clock, ALICE, "a1")
    session.failures = {GROUP: [migrated_to(supergroup)]}

    report = await sender.send_due()

    assert sorted(report.sent) == sorted([first, second, first + 2])
    assert [text for chat, text in session.delivered if chat == supergroup] == ["g1", "g2"]
    assert [text for chat, text in session.delivered if chat == GROUP] == []
    moved = await store.campaign(campaign.id)
    assert moved is not None
    assert moved.chat_id == supergroup
    assert await store.active_campaign(supergroup) == moved
    assert await store.active_campaign(GROUP) is None
    assert [a.action for a in await store.audit_log(campaign.id)][-1] == "chat_migrated"
    for message_id in (first, second):
        message = await store.outbox_message(message_id)
        assert message is not None
        assert (message.chat_id, message.state) == (supergroup, OutboxState.SENT)


@pytest.mark.parametrize(
    ("failures", "photos_sent", "waited"),
    [
        pytest.param(
            [None, retry_after(3), None, server_error], 1, [3.0, 1.0], id="retried-in-place"
        ),
        pytest.param([None, *[retry_after(2)] * 5], 2, [2.0] * 4, id="given-up-the-post-again"),
    ],
)
async def test_a_long_caption_s_later_parts_are_retried_in_place(
    session: FlakySession,
    store: Store,
    clock: ManualClock,
    i18n: I18n,
    failures: list[Failure | None],
    photos_sent: int,
    waited: list[float],
) -> None:
    pauses: list[float] = []

    async def pause(seconds: float) -> None:
        pauses.append(seconds)

    summary = "\n".join(f"battle {n}: a long line of the turn's summary" for n in range(200))

    async def map_post(_: posts.PostContext, message: Any) -> Post:
        return Post(text=summary, photo=b"\x89PNG")

    posts.REGISTRY["test_map"] = map_post
    try:
        await store.enqueue(
            NewOutboxMessage(
                campaign_id=None, chat_id=GROUP, kind="test_map", payload={}, dedup_key="map"
            ),
            clock.now(),
        )
        session.failures = {GROUP: list(failures)}
        bot = Bot("42:TEST", session=session)
        sender = OutboxSender(bot, store, clock, i18n, limits=FAST, pause=pause)
        for _ in range(3):
            await sender.send_due()
            clock.advance(timedelta(minutes=1))
    finally:
        del posts.REGISTRY["test_map"]
    photos = [s for s in session.sent if isinstance(s.method, SendPhoto)]
    assert len(photos) == photos_sent
    assert pauses == waited
    texts = "\n".join(text for _, text in session.delivered[-3:])
    assert "battle 199" in texts, "the whole summary arrived in the end"


async def test_a_slow_post_holds_up_only_its_own_chat(
    session: FlakySession,
    store: Store,
    clock: ManualClock,
    i18n: I18n,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    drawn = asyncio.Event()

    async def slow_map(context: posts.PostContext, message: OutboxMessage) -> Post:
        await drawn.wait()
        return Post(text="the map")

    monkeypatch.setitem(posts.REGISTRY, "test_slow_map", slow_map)
    await store.enqueue(
        NewOutboxMessage(
            campaign_id=None, chat_id=GROUP, kind="test_slow_map", payload={}, dedup_key="map"
        ),
        clock.now(),
    )
    await _queue(store, clock, GROUP, "after the map")
    for chat in range(1, 6):
        await _queue(store, clock, chat, f"notice {chat}")
    bot = Bot("42:TEST", session=session)
    sender = OutboxSender(bot, store, clock, i18n, limits=FAST, batch=2)
    sending = asyncio.create_task(sender.send_due())
    for _ in range(500):  # at most 5 s: the notices do not wait for the map
        if len(session.delivered) == 5:
            break
        await asyncio.sleep(0.01)
    assert sorted(session.delivered) == [(chat, f"notice {chat}") for chat in range(1, 6)]
    drawn.set()
    report = await sending
    assert len(report.sent) == 7
    assert session.delivered[5:] == [(GROUP, "the map"), (GROUP, "after the map")]
