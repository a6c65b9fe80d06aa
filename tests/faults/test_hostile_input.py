"""Bad input through the real dispatcher: huge and odd texts, hostile files, forged buttons,
commands in the wrong chat or for another bot, updates with nobody behind them, and a campaign
that is over. For each: no error reaches the error handler (nothing logged at ERROR), the
person gets a clear answer where one makes sense, and the store is as it was.

Two properties are checked with hypothesis on a fixed, derandomized profile: any typed orders
get a reply line by line (each line recorded or refused with its reason), and any callback data
from someone entitled to nothing is answered and changes nothing.
"""

from __future__ import annotations

import asyncio
import logging
import unicodedata
from collections.abc import Iterator, Sequence
from contextlib import AsyncExitStack, contextmanager
from pathlib import Path

import pytest
from aiogram.client.default import Default
from aiogram.methods import AnswerCallbackQuery, SendMessage, SendPhoto, TelegramMethod
from aiogram.types import CallbackQuery, Chat, Message, Update, User
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import SecretStr

from bot.handlers.group.clock import ClockPress
from bot.handlers.group.gm import GroupLanguage
from bot.handlers.group.setup import SetupPress
from bot.handlers.joining import JoinChoice
from bot.handlers.private.callbacks import CampaignButton, DeployButton, OrdersButton, ResultButton
from bot.runtime.config import Settings
from bot.runtime.runner import make_bot
from bot.screens.callbacks import GmPress, JoinPress
from storage import CampaignStatus
from storage.names import clean_name
from tests.bot.group_helpers import button
from tests.bot.telegram import BOT_USER, EPOCH, Sent
from tests.faults.hostile_corpus import COMMAND_ARGUMENTS, MAP_FILES, TEXTS
from tests.faults.hostile_table import (
    BELLA,
    GM,
    GUS,
    NINA,
    RITA,
    TOM,
    HostileTable,
    Stage,
    answers,
    assert_nothing_leaked,
    callback_factories,
    hostile_table,
    red_log_secrets,
    red_pictures,
    red_secrets,
    snapshot,
)
from tests.secrecy import assert_log_keeps, logfmt, read_the_log

ANY_CHARACTER = st.characters(exclude_categories=["Cs"])
"""Any character Telegram can carry (JSON has no lone surrogates)."""
PROPERTY = settings(
    max_examples=50,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow],
)
"""A fixed profile for the properties: the same 50 examples on every run."""


def _errors(records: Sequence[logging.LogRecord]) -> list[str]:
    return [record.getMessage() for record in records if record.levelno >= logging.ERROR]


def _replies(sent: list[Sent], chat_id: int) -> list[Sent]:
    return [
        s for s in sent if isinstance(s.method, SendMessage | SendPhoto) and s.chat_id == chat_id
    ]


def assert_plain_text(requests: list[Sent]) -> None:
    """No request asks Telegram to read markup: people's words are shown as typed, so HTML or
    Markdown in a name or an order cannot format, link or mention anything."""
    assert requests, "nothing was sent: there is nothing to check"
    for request in requests:
        method: TelegramMethod[object] = request.method
        mode = getattr(method, "parse_mode", None)
        assert mode is None or isinstance(mode, Default), (mode, request.text[:80])
        for entity in getattr(method, "entities", None) or ():
            assert entity.type == "text_mention", entity  # the wizard names whom it asks


def test_the_bot_sends_plain_text() -> None:
    bot = make_bot(Settings(bot_token=SecretStr("123:TEST")))
    assert bot.default.parse_mode is None


@pytest.mark.parametrize(
    ("stage", "speakers", "paused"),
    [
        (Stage.DEPLOYMENT, (RITA, TOM), False),
        (Stage.ORDERS, (RITA, TOM, NINA), False),
        (Stage.ORDERS, (RITA, TOM, NINA), True),
        (Stage.BATTLES, (RITA,), False),
        (Stage.BATTLES, (RITA, TOM), True),
    ],
)
async def test_hostile_texts_in_private_are_refused_and_change_nothing(
    tmp_path: Path,
    stage: Stage,
    speakers: tuple[int, ...],
    paused: bool,
    caplog: pytest.LogCaptureFixture,
) -> None:
    async with hostile_table(tmp_path, stage) as table:
        if paused:
            said = await table.send(GM, table.group, "/pause")
            asked = _replies(said, GM)[-1]  # asked in the GM's private chat
            confirmed = await table.press(GM, GM, button(asked, "Yes, pause"))
            assert answers(confirmed)[0].text == "Paused. The group is told."
            assert (await table.now()).status is CampaignStatus.PAUSED
        for speaker in speakers:
            before = await snapshot(table)
            for name, text in TEXTS:
                caplog.clear()
                sent = await table.send(speaker, speaker, text)
                assert not _errors(caplog.records), (speaker, name, _errors(caplog.records))
                assert _replies(sent, speaker), (speaker, name)
            assert await snapshot(table) == before, speaker
        assert_plain_text(table.log)


async def test_hostile_answers_to_the_setup_wizard(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with hostile_table(tmp_path, Stage.SETUP) as table:
        campaign, group = table.campaign.id, table.group
        for field in ("zone", "rules", "title", "side"):
            ask = SetupPress(c=campaign, a="ask", v=field).pack()
            await table.press(GM, group, ask)
            before = await snapshot(table)
            for name, text in TEXTS:
                caplog.clear()
                sent = await table.send(GM, group, text)
                assert not _errors(caplog.records), (field, name, _errors(caplog.records))
                if text.startswith("/"):
                    assert sent == [], (field, name)  # a command for another bot
                elif await table.store.prompt(group.id, GM) is None:  # accepted
                    assert field in ("title", "side"), (field, name)
                    await table.press(GM, group, ask)
                else:
                    assert _replies(sent, group.id), (field, name)  # refused: asked again
            if field in ("zone", "rules"):
                assert await snapshot(table) == before, field
        # What was accepted is stored cleaned: no line breaks, controls or direction marks.
        names = [(await table.now()).title] + [s.name for s in await table.store.sides(campaign)]
        assert len(names) > 4
        for stored in names:
            assert stored == clean_name(stored), stored
            assert not {unicodedata.category(char) for char in stored} & {"Cc", "Zl", "Zp"}
            assert not {"\u202e", "\u2067", "\u200b", "\ufeff"} & set(stored), stored
        assert_plain_text(table.log)


async def test_hostile_map_files_are_refused(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with hostile_table(tmp_path, Stage.SETUP) as table:
        ask = SetupPress(c=table.campaign.id, a="ask", v="map").pack()
        for name, file_name, content in MAP_FILES:
            await table.press(GM, table.group, ask)
            before = await snapshot(table)
            caplog.clear()
            table.take()
            await table.telegram.feed(
                table.telegram.document(table.users[GM], table.group, file_name, content)
            )
            sent = table.take()
            assert not _errors(caplog.records), (name, _errors(caplog.records))
            reply = _replies(sent, table.group.id)
            assert reply, name
            assert reply[-1].text.startswith(("I cannot use that map", "That file is too large")), (
                name,
                reply[-1].text,
            )
            assert await snapshot(table) == before, name
        # A file nobody asked for: ignored in the group, answered in private.
        await table.send(GM, table.group, "/cancel")
        before = await snapshot(table)
        for chat in (table.group.id, GM):
            table.take()
            await table.telegram.feed(
                table.telegram.document(table.users[GM], chat, "map.toml", b"x = 1")
            )
            sent = table.take()
            if chat == GM:
                assert "I read only text here" in _replies(sent, GM)[0].text
            else:
                assert sent == []
        assert await snapshot(table) == before
        assert not _errors(caplog.records)


async def test_hostile_placements_typed_by_the_gm(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with hostile_table(tmp_path, Stage.DEPLOYMENT) as table:
        panel = await table.send(GM, GM, "/gm")
        places = await table.press(GM, GM, button(panel[-1], "Place a side"))
        green = await table.press(GM, GM, button(places[-1], "Green"))
        asked = await table.press(GM, GM, button(green[-1], "Type a placement"))
        assert "type Green's placement there" in (answers(asked)[0].text or "")
        for name, text in TEXTS:
            before = await snapshot(table)
            caplog.clear()
            sent = await table.send(GM, GM, text)
            assert not _errors(caplog.records), (name, _errors(caplog.records))
            assert _replies(sent, GM), name
            assert await snapshot(table) == before, name


ARGUMENT_COMMANDS = (
    ("/status ", NINA, "group"),
    ("/extend ", GM, "group"),
    ("/gm ", RITA, "group"),
    ("/newcampaign ", BELLA, "group"),
    ("/start ", NINA, "private"),
    ("/start join-", NINA, "private"),
    ("/orders ", RITA, "private"),
    ("/cancel ", GM, "private"),
    ("/lang ", NINA, "private"),
)


async def test_hostile_command_arguments(tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    async with hostile_table(tmp_path, Stage.ORDERS) as table:
        for command, speaker, where in ARGUMENT_COMMANDS:
            chat = table.group if where == "group" else table.telegram.chats[speaker]
            before = await snapshot(table)
            for name, argument in COMMAND_ARGUMENTS:
                caplog.clear()
                sent = await table.send(speaker, chat, f"{command}{argument}")
                assert not _errors(caplog.records), (command, name, _errors(caplog.records))
                assert _replies(sent, chat.id), (command, name)
            assert await snapshot(table) == before, command


async def test_commands_for_another_bot_or_the_wrong_chat(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with hostile_table(tmp_path, Stage.ORDERS) as table:
        before = await snapshot(table)
        group = table.group
        for text in ("/status@otherbot", "/gm@otherbot", "/orders@other_bot", "/newcampaign@x"):
            assert await table.send(GM, group, text) == [], text  # another bot's business
        board = await table.send(NINA, group, "/status@strategium_bot")
        assert board[-1].text.startswith("Siege of Vraks\nTurn 1: orders")
        expected = {
            ("/orders@otherbot", RITA): "I do not know that command.",
            ("/frobnicate", RITA): "I do not know that command.",
            ("/cancel", RITA): "Nothing is waiting for your answer",
            ("/orders", group.id): "Orders are secret: give them to me in a private chat",
            ("/deploy", group.id): "Orders are secret: give them to me in a private chat",
            ("/campaigns", group.id): "That command works in a private chat with me",
            ("/cancel", group.id): "Nothing is waiting for your answer",
            ("/start", group.id): "Strategium runs a map campaign in this group.",
        }
        for command in ("newcampaign", "join", "status"):
            expected[(f"/{command}", RITA)] = "That command works in the campaign's group chat."
        expected[("/rules", RITA)] = "📖 Rules of «Siege of Vraks» (1 of 4)"  # a member's own
        expected[("/gm", RITA)] = "You are not the GM of a running campaign."
        # The GM's time tools work in private too (their questions are asked there; a /pause
        # would store its question, which is not nothing).
        expected[("/advance", GM)] = "End turn 1's orders now?"
        expected[("/pause", RITA)] = "You are not the GM of a running campaign."
        expected[("/resume", GM)] = "Nothing done: not paused."
        expected[("/extend", GM)] = "Say by how many hours, e.g. /extend 24."
        expected[("/advance", RITA)] = "You are not the GM of a running campaign."
        for (text, chat_id), reply in expected.items():
            speaker = RITA if chat_id == group.id else chat_id
            chat = group if chat_id == group.id else table.telegram.chats[chat_id]
            sent = await table.send(speaker, chat, text)
            assert reply in _replies(sent, chat_id)[-1].text, (text, chat_id)
        assert await snapshot(table) == before
        assert not _errors(caplog.records)


WORDS = (
    "", "o", "d", "b", "orders", "battles", "deployment", "home", "ok", "no", "+", "-",
    "sec", "fo", "rs", "rev", "map", "pick", "out", "win", "yes", "dis", "list", "c", "d",
    "end!", "kick!", "set", "undo!", "members", "advance", "pause", "extend", "tz", "del",
    "s1", "s2", "s3", "red", "strategist", "tactician", "en", "ru", "auto", "draw",
)  # fmt: skip
"""Words the callback data classes carry, for forged data to hit real branches."""


FIELDS = {
    OrdersButton.__prefix__: 8,
    DeployButton.__prefix__: 6,
    ResultButton.__prefix__: 7,
    CampaignButton.__prefix__: 1,
    JoinPress.__prefix__: 1,
    JoinChoice.__prefix__: 3,
    SetupPress.__prefix__: 3,
    GmPress.__prefix__: 5,
    GroupLanguage.__prefix__: 2,
    ClockPress.__prefix__: 5,
    "lang": 1,
}
"""How many fields each callback data class packs after its prefix."""


def _forged_data(table: HostileTable) -> Iterator[tuple[str, str]]:
    """(what, callback data): malformed and misdirected presses of every kind."""
    siege, raid = table.campaign.id, table.other.id
    huge = str(10**30)
    yield "empty", ""
    yield "a separator", ":"
    yield "only separators", "::::::::"
    yield "unknown prefix", "zz:1:2"
    yield "a prefix alone", "po"
    yield "far too long", "po:" + ":".join(["1"] * 100)
    yield "over 64 bytes", f"po:{siege}:1:o:home:-1:-1:-1:" + "s" * 80
    yield "NUL", f"pc:{siege}\x00"
    yield "unicode digits", f"pc:{'٢'}"
    yield "a superscript", f"jn:{'²'}"
    for prefix, fields in FIELDS.items():
        yield f"{prefix} with too few fields", ":".join([prefix] + [str(siege)] * (fields - 1))
        yield f"{prefix} with too many fields", ":".join([prefix, str(siege)] * (fields + 1))
        yield f"{prefix} with words for numbers", ":".join([prefix] + ["abc"] * fields)
        yield f"{prefix} past SQLite's integers", ":".join([prefix] + [huge] * fields)
        yield f"{prefix} with negative numbers", ":".join([prefix] + ["-5"] * fields)
        never = [prefix, "424242"] + ["0"] * (fields - 1)
        yield f"{prefix} for a campaign that never was", ":".join(never)
    # Well-formed, aimed where they do not belong.
    yield "orders of another campaign", OrdersButton(campaign=raid, turn=0, action="home").pack()
    yield "orders of a later turn", OrdersButton(campaign=siege, turn=9, action="ok").pack()
    yield (
        "orders of an unknown side",
        OrdersButton(campaign=siege, turn=1, action="fo", sector=0, side="s9").pack(),
    )
    yield (
        "a sector that is not there",
        OrdersButton(campaign=siege, turn=1, action="fo", sector=99, side="s1").pack(),
    )
    yield "deployment when it is over", DeployButton(campaign=siege, action="+", sector=0).pack()
    yield (
        "a battle that is not there",
        ResultButton(campaign=siege, turn=1, battle=99, action="out", outcome="c", winner=7).pack(),
    )
    yield (
        "an outcome that is not there",
        ResultButton(campaign=siege, turn=1, battle=1, action="yes", outcome="zz").pack(),
    )
    yield "the other campaign's wizard", SetupPress(c=raid, a="ok").pack()
    yield (
        "GM tools of a campaign that never was",
        GmPress(c=424242, t=1, p="orders", a="end!").pack(),
    )
    yield "time tools in the wrong phase", ClockPress(c=siege, t=1, p="battles", a="pause").pack()
    yield "the group's language for another campaign", GroupLanguage(c=raid, language="ru").pack()
    yield "a join for another campaign", JoinChoice(c=raid, s="s1", r="strategist").pack()
    yield "a join without a campaign", JoinPress(c=424242).pack()
    yield "a campaign that never was", CampaignButton(campaign=424242).pack()


async def test_forged_callback_data_is_answered_and_changes_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    read_the_log(caplog)
    async with hostile_table(tmp_path, Stage.ORDERS) as table:
        secrets = await red_secrets(table, attacks=True)
        pictures = red_pictures(table)
        forged = list(_forged_data(table))
        for presser in (NINA, BELLA, RITA, GM):
            before = await snapshot(table)
            for chat in (table.group, table.telegram.chats[presser]):
                for name, data in forged:
                    mark = len(caplog.records)
                    sent = await table.press(presser, chat, data)
                    where = (presser, chat.type, name)
                    errors = _errors(caplog.records[mark:])
                    assert not errors, (where, errors)
                    answered = answers(sent)
                    assert len(answered) == 1, where
                    assert answered[0].show_alert, (where, answered[0].text)
                    if presser != RITA:
                        assert_nothing_leaked(table, sent, secrets, pictures)
            assert await snapshot(table) == before, presser
        assert_log_keeps(logfmt(caplog.records), await red_log_secrets(table))


def _update_id() -> Iterator[int]:
    number = 10_000
    while True:
        number += 1
        yield number


async def test_updates_with_nobody_behind_them_or_from_elsewhere(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with hostile_table(tmp_path, Stage.ORDERS) as table:
        ids = _update_id()
        robot = User(id=777, is_bot=True, first_name="Robo")
        rita = table.users[RITA]
        private = table.telegram.chats[RITA]
        channel = Chat(id=-100777, type="channel", title="News")
        orders = OrdersButton(campaign=table.campaign.id, turn=1, action="home", side="s1").pack()

        def message(chat: Chat, text: str, sender: User | None) -> Message:
            return Message(message_id=next(ids), date=EPOCH, chat=chat, from_user=sender, text=text)

        def press(chat: Chat | None, sender: User) -> CallbackQuery:
            if chat is None:  # a button under an inline message: no message, no chat
                return CallbackQuery(
                    id=str(next(ids)),
                    from_user=sender,
                    chat_instance="1",
                    data=orders,
                    inline_message_id="inline",
                )
            shown = Message(message_id=1, date=EPOCH, chat=chat, from_user=BOT_USER, text="…")
            return CallbackQuery(
                id=str(next(ids)), from_user=sender, chat_instance="1", data=orders, message=shown
            )

        anonymous = "Please send this as yourself"
        stale = "That button is not valid any more."
        edit = "I do not read edited messages"
        group = table.group
        cases: list[tuple[str, str, Message | CallbackQuery, str | None]] = [
            ("no sender in private", "message", message(private, "/orders", None), None),
            ("a bot in private", "message", message(private, "1:4", robot), None),
            ("a bot presses in private", "callback_query", press(private, robot), None),
            ("a channel post", "channel_post", message(channel, "/status", None), None),
            ("a channel post edited", "edited_channel_post", message(channel, "/gm", None), None),
            ("an edit in the group", "edited_message", message(group, "/status", rita), None),
            ("no sender in the group", "message", message(group, "hi", None), None),
            ("an inline message's button", "callback_query", press(None, rita), stale),
            ("a bot presses in the group", "callback_query", press(group, robot), anonymous),
            ("a command with no sender", "message", message(group, "/status", None), anonymous),
            ("a bot's command", "message", message(group, "/gm", robot), anonymous),
            ("an edit in private", "edited_message", message(private, "1:4", rita), edit),
        ]
        before = await snapshot(table)
        for what, kind, event, reply in cases:
            caplog.clear()
            table.take()
            await table.telegram.feed(Update.model_validate({"update_id": next(ids), kind: event}))
            sent = table.take()
            assert not _errors(caplog.records), (what, _errors(caplog.records))
            if reply is None:
                assert sent == [], what
            else:
                assert len(sent) == 1, what
                assert reply in sent[0].text, (what, sent[0].text)
        assert await snapshot(table) == before


async def test_a_finished_campaign_answers_every_old_button_and_command(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    async with hostile_table(tmp_path, Stage.BATTLES) as table:
        panel = await table.send(GM, GM, "/gm")
        sure = await table.press(GM, GM, button(panel[-1], "End the campaign"))
        await table.press(GM, GM, button(sure[-1], "Yes, end it: type the reason"))
        await table.send(GM, GM, "the club stops meeting")
        assert (await table.now()).status is CampaignStatus.FINISHED
        before = await snapshot(table)
        owned = [
            (sent.chat_id, data)
            for sent in table.log
            if sent.chat_id in (table.group.id, RITA, TOM, GM)
            for _text, data in sent.buttons()
            if not data.startswith("https://")
        ]
        assert len(owned) > 100
        for chat_id, data in dict.fromkeys(owned):
            presser = GM if chat_id == table.group.id else chat_id
            assert chat_id is not None
            caplog.clear()
            sent = await table.press(presser, table.telegram.chats[chat_id], data)
            assert not _errors(caplog.records), (data, _errors(caplog.records))
            assert len(answers(sent)) == 1, data
            assert answers(sent)[0].show_alert, (data, answers(sent)[0].text)
        for text, speaker, where, reply in (
            ("/orders", RITA, RITA, "You are in no running campaign now; your finished ones"),
            ("attack blue in 1", RITA, RITA, "You are in no running campaign now;"),
            ("/battles", TOM, TOM, "You are in no running campaign now;"),
            (f"/start join-{table.campaign.id}", NINA, NINA, "That campaign is over"),
            ("/status", NINA, table.group.id, "is over and archived (/history shows it"),
            ("/gm", GM, table.group.id, "is over and archived"),
            ("/advance", GM, table.group.id, "is over and archived"),
            ("/join", NINA, table.group.id, "A GM starts the next one with /newcampaign."),
        ):
            sent = await table.send(speaker, table.telegram.chats[where], text)
            assert reply in _replies(sent, where)[-1].text, (text, sent)
        assert await snapshot(table) == before
        assert not _errors(caplog.records)


# ---- properties ---------------------------------------------------------------------------


@contextmanager
def table_in_a_loop(tmp_path: Path, stage: Stage) -> Iterator[tuple[asyncio.Runner, HostileTable]]:
    """A table on an event loop of its own, for hypothesis to drive example by example."""
    with asyncio.Runner() as runner:
        stack = AsyncExitStack()
        table = runner.run(stack.enter_async_context(hostile_table(tmp_path, stage)))
        try:
            yield runner, table
        finally:
            runner.run(stack.aclose())


ORDER_WORDS = (
    "attack", "атака", "move", "fortify", "reinforce", "подкрепление", "from", "to", "in", "в",
    "->", "→", "x2", "x10", "x0", "1", "2", "3", "4", "5", "9", "0", "-1", "blue", "Blue",
    "синие", "green", "red", "equator", "west", "North Pole", "экватор", "Ё", "２", "\u200b",
    "\u202e", "<b>", "{title}", "';--", "99999999999999999999",
)  # fmt: skip
TYPED_LINES = (
    st.lists(
        st.one_of(
            st.lists(st.sampled_from(ORDER_WORDS), min_size=1, max_size=7).map(" ".join),
            st.text(ANY_CHARACTER, max_size=40),
        ),
        min_size=1,
        max_size=8,
    )
    .map("\n".join)
    .filter(bool)
)  # Telegram sends no empty text


def test_any_typed_orders_get_an_answer_line_by_line(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    with table_in_a_loop(tmp_path, Stage.ORDERS) as (runner, table):

        @PROPERTY
        @given(text=TYPED_LINES)
        def typed(text: str) -> None:
            before = runner.run(table.store.orders(table.campaign.id, 1, "s1"))
            caplog.clear()
            sent = runner.run(table.send(RITA, RITA, text))
            assert not _errors(caplog.records), _errors(caplog.records)
            reply = "\n".join(s.text for s in _replies(sent, RITA))
            assert reply, text
            lines = [line for line in text.splitlines() if line.strip()]
            if not lines or text.startswith("/"):
                return  # nothing to read, or a command
            verdicts = [line for line in reply.splitlines() if line.startswith(("✓", "✗"))]
            assert len(verdicts) == len(lines), (text, reply)
            after = runner.run(table.store.orders(table.campaign.id, 1, "s1"))
            if not any(line.startswith("✓") for line in verdicts):
                assert after == before, text

        typed()


def test_any_callback_data_from_the_unentitled_changes_nothing(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    read_the_log(caplog)
    with table_in_a_loop(tmp_path, Stage.BATTLES) as (runner, table):
        siege, raid = table.campaign.id, table.other.id
        numbers = st.one_of(
            st.sampled_from([siege, raid, 0, 1, -1, 424242]),
            st.integers(min_value=-1000, max_value=1000),
            st.integers(min_value=2**62, max_value=2**80),  # past SQLite's integers
        ).map(str)
        words = st.one_of(
            st.sampled_from(WORDS),
            st.text(ANY_CHARACTER, max_size=12),
        )
        # Data shaped like each class's (the right number of fields, numbers where it takes
        # numbers), so most presses get past the filters to the handlers' own checks.
        structured = st.sampled_from(callback_factories()).flatmap(
            lambda factory: st.tuples(
                *(
                    numbers if info.annotation is int else words
                    for info in factory.model_fields.values()
                )
            ).map(lambda fields: ":".join([factory.__prefix__, *fields]))
        )
        secrets = runner.run(red_secrets(table, attacks=False))
        pictures = red_pictures(table)

        # Nina in private (in the group, «Join» is hers to press); Gus, whose Green fights
        # none of Red's battles, anywhere.
        where = [(NINA, False), (GUS, False), (GUS, True)]

        @PROPERTY
        @given(data=st.one_of(structured, st.text(max_size=80)), at=st.sampled_from(where))
        def pressed(data: str, at: tuple[int, bool]) -> None:
            presser, in_group = at
            chat = table.group if in_group else table.telegram.chats[presser]
            before = runner.run(snapshot(table))
            mark = len(caplog.records)
            sent = runner.run(table.press(presser, chat, data))
            assert not _errors(caplog.records[mark:]), _errors(caplog.records[mark:])
            answered = [s for s in sent if isinstance(s.method, AnswerCallbackQuery)]
            assert len(answered) == 1, sent
            assert_nothing_leaked(table, sent, secrets, pictures)
            assert runner.run(snapshot(table)) == before

        pressed()
        assert_log_keeps(logfmt(caplog.records), runner.run(red_log_secrets(table)))
