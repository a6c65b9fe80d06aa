"""Hostile requests to the bot's HTTP endpoints, served as in webhook mode (the Mini App under
``/miniapp/`` beside Telegram's webhook, on one port): random and hostile bodies (JSON of any
shape, nested past the recursion limit, bytes that are no UTF-8, half surrogate pairs, numbers
past 64 bits, charsets nobody knows), hostile ``initData`` (signed with the bot's token but
naming users, dates and fields no Telegram app sends, or forged), paths and query strings, to
every endpoint. Property: nothing answers 5xx, an API answer of 4xx says why in words, and
nothing is logged at ERROR. The webhook answers a body that is no update 400, a foreign token
401.

Two properties are checked with hypothesis on a fixed, derandomized profile, on each backend.
"""

from __future__ import annotations

import asyncio
import json
import logging
import warnings
from collections.abc import Iterator
from contextlib import AsyncExitStack, contextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest
from aiogram.types import Update
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from yarl import URL

from bot.miniapp.server import INIT_HEADER, build_miniapp
from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.runtime.runner import WebhookUpdates
from bot.texts.i18n import build_i18n
from storage import Store, open_store
from tests.bot.conftest import START
from tests.bot.miniapp_client import MAX_AGE, TOKEN
from tests.bot.private_campaign import PEOPLE, open_table
from tests.bot.telegram import FakeTelegram
from tests.bot.test_miniapp_api import deploy_and_open_orders
from tests.miniapp_init import signed_fields, signed_init_data
from tests.postgres_server import PostgresServer, new_schema_url

PROPERTY = settings(
    max_examples=120,
    derandomize=True,
    deadline=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large],
)
"""A fixed profile: the same examples on every run."""
WEBHOOK = "/telegram/webhook"
SECRET = "s3cret-token"
ANNA = 201


@dataclass
class Served:
    """The bot's HTTP endpoints on a test server, and the campaign behind them."""

    client: TestClient[Any, Any]
    store: Store
    campaign_id: int
    clock: ManualClock


async def _serve(stack: AsyncExitStack, location: str) -> Served:
    clock, i18n = ManualClock(START), build_i18n()
    store = await open_store(location)
    stack.push_async_callback(store.close)
    telegram = FakeTelegram(build_dispatcher(store, clock, i18n, updates_once=True))
    table = await open_table(telegram, store, clock)
    await deploy_and_open_orders(table)
    application = web.Application()
    application.add_subapp("/miniapp/", build_miniapp(store, clock, i18n, TOKEN, MAX_AGE))
    WebhookUpdates(telegram.dispatcher, telegram.bot, secret_token=SECRET).register(
        application, path=WEBHOOK
    )
    client: TestClient[Any, Any] = TestClient(TestServer(application))
    await stack.enter_async_context(client)
    return Served(client, store, table.campaign.id, clock)


@pytest.fixture(params=["sqlite", "postgresql"])
def location(request: pytest.FixtureRequest, tmp_path: Path) -> str:
    """Where the store lives: a SQLite file, or a schema of the session's PostgreSQL server."""
    if request.param == "sqlite":
        return str(tmp_path / "bot.sqlite3")
    server: PostgresServer = request.getfixturevalue("postgres_server")
    return asyncio.run(new_schema_url(server))


@contextmanager
def served_in_a_loop(location: str) -> Iterator[tuple[asyncio.Runner, Served]]:
    """The endpoints on an event loop of their own, for hypothesis to drive example by
    example."""
    with asyncio.Runner() as runner:
        stack = AsyncExitStack()
        served = runner.run(_serve(stack, location))
        try:
            yield runner, served
        finally:
            runner.run(stack.aclose())


# ---- what a hostile caller sends -------------------------------------------------------------

FIELDS: tuple[str, ...] = ("turn", "order", "kind", "sector", "to", "count", "target", "ready")
FIELDS += ("edits", "battle", "outcome", "winner", "update_id", "message", "id", "first_name")
WORDS = (
    "1", "2", "4", "99", "red", "blue", "Синие", "move", "attack", "fortify", "reinforce",
    "draw", "crushing", "", " ", "\u202e", "\u200b", "<b>", "{title}", "';--", "%s",
    "99999999999999999999", "../../etc/passwd", "\ud800", "x\udfff",
)  # fmt: skip
"""Words a request may carry, half surrogate pairs among them (sent escaped, as JSON allows)."""
SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(min_value=-3, max_value=5),
    st.integers(),
    st.integers(min_value=2**53 - 1, max_value=2**80),
    st.integers(max_value=-(2**53) + 1, min_value=-(2**80)),
    st.floats(),
    st.sampled_from(WORDS),
    st.text(max_size=12),
)
VALUES = st.recursive(
    SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3)
        | st.dictionaries(st.sampled_from(FIELDS) | st.text(max_size=6), inner, max_size=4)
    ),
    max_leaves=10,
)
NASTY = st.sampled_from(
    [
        "\ud800",
        "x\udfff",
        2**64 + 1,
        -(2**63) - 1,
        2**53 + 1,
        float("nan"),
        float("inf"),
        -0.0,
        True,
        None,
        "",
        "1" * 5000,
        "\u202e1",
        [],
        {},
        [[[[[[[[["1"]]]]]]]]],
        {"kind": "fortify", "sector": "1"},
    ]
)
"""Values that break code written for the right kind of value."""
ORDER = st.fixed_dictionaries(
    {},
    optional={
        "kind": st.sampled_from(("move", "attack", "fortify", "reinforce")) | VALUES,
        "sector": st.sampled_from(("1", "2", "3", "4", "5", "\udfff")) | VALUES,
        "to": st.sampled_from(("1", "2", "3")) | VALUES,
        "count": st.integers(min_value=-2, max_value=12) | VALUES,
        "target": st.sampled_from(("blue", "green", "red")) | VALUES,
    },
)
SHAPED = st.fixed_dictionaries(
    {},
    optional={
        "turn": st.sampled_from((0, 1, 2)) | VALUES,
        "order": ORDER | VALUES,
        "ready": st.booleans() | VALUES,
        "edits": st.integers(min_value=0, max_value=3) | VALUES,
        "battle": st.integers(min_value=0, max_value=3) | VALUES,
        "outcome": st.sampled_from(("draw", "solid", "slaughter")) | VALUES,
        "winner": st.sampled_from(("red", "blue")) | VALUES,
    },
)
"""Bodies shaped like the app's writes, so most get past the first checks."""


def _nested(depth: int, opener: str) -> str:
    closer = {"[": "]", '{"a":': "}"}[opener]
    return opener * depth + ("1" if opener != "[" else "") + closer * depth


RAW = st.one_of(
    st.builds(
        _nested, st.integers(min_value=900, max_value=40_000), st.sampled_from(["[", '{"a":'])
    ),
    st.binary(max_size=64),
    st.sampled_from(
        [
            '"\\ud800"',
            '{"turn": 1, "order": {"kind": "fortify", "sector": "\\udfff"}}',
            '{"turn": 1, "order": {"kind": "move", "sector": "1", "to": "\\ud800", "count": 1}}',
            '{"turn": 1, "battle": 1, "outcome": "draw", "winner": "\\udc00x"}',
            '{"turn": 1' + "0" * 5000 + "}",
            '{"turn": NaN, "edits": Infinity, "ready": true}',
            '{"turn": 1, "turn": 2}',
            "\ufeff{}",
            "",
            "null",
        ]
    ),
    st.text(max_size=40),
)
BODIES = st.one_of(
    SHAPED.map(json.dumps),
    VALUES.map(json.dumps),
    RAW,
)
CONTENT_TYPES = st.sampled_from(
    [
        "application/json",
        "application/json; charset=utf-8",
        "application/json; charset=no-such-charset",
        "application/json; charset=utf-16",
        "text/plain",
        "application/x-www-form-urlencoded",
        "multipart/form-data; boundary=x",
    ]
)
HEADER_TEXT = st.text(
    st.characters(min_codepoint=0x20, max_codepoint=0x7E) | st.sampled_from("éЖ€")
)


GOOD_USER = {"id": ANNA, "first_name": "Anna", "language_code": "en"}
GOOD_AUTH_DATE = str(int(START.timestamp()))


def _signed(user: Any, auth_date: str = GOOD_AUTH_DATE, **extra: str) -> str:
    written = user if isinstance(user, str) else json.dumps(user)
    return signed_fields(TOKEN, {"auth_date": auth_date, "user": written, **extra})


USER_IDS = st.one_of(
    st.sampled_from([2**64 + ANNA, 2**63, 0, -1, 2**53 + 1]),
    st.integers(min_value=2**62),
    st.integers(max_value=0),
    st.integers(),
)
"""User ids no Telegram app sends (and any): past 64 bits, zero, negative."""
HOSTILE_USERS = st.one_of(
    st.builds(
        lambda key, value: {**GOOD_USER, key: value},
        st.sampled_from(["id", "first_name", "language_code", "is_bot", "photo_url"]),
        NASTY | VALUES,
    ),
    VALUES,
    # Past the recursion limit (1000) but within aiohttp's 8190 bytes of a header line.
    st.integers(min_value=900, max_value=1300).map(lambda depth: "[" * depth + "]" * depth),
)
AUTH_DATES = st.one_of(
    st.integers().map(str),
    st.sampled_from(["1e300", "-1", "2026-03-02T09:00:00", "2026-03-02T09:00:00+00:00", "now"]),
    st.text(max_size=12),
)
EXTRA_FIELDS = st.dictionaries(
    st.sampled_from(["query_id", "receiver", "chat", "start_param", "can_send_after"]),
    (NASTY | VALUES).map(json.dumps) | st.text(max_size=12),
    min_size=1,
    max_size=2,
)
SIGNED_HOSTILE = st.one_of(
    st.builds(lambda user_id: _signed({**GOOD_USER, "id": user_id}), USER_IDS),
    st.builds(_signed, HOSTILE_USERS),
    st.builds(lambda when: _signed(GOOD_USER, when), AUTH_DATES),
    st.builds(lambda extra: _signed(GOOD_USER, **extra), EXTRA_FIELDS),
)
"""``initData`` signed with the bot's token, one of its fields as no Telegram app writes it."""
INIT_DATA = st.one_of(
    st.sampled_from([user for user, *_rest in PEOPLE]).map(
        lambda user: signed_init_data(TOKEN, user, "Player", START)
    ),
    SIGNED_HOSTILE,
    st.builds(
        lambda good, tail: good[: -len(tail) or None] + tail,
        st.just(signed_init_data(TOKEN, ANNA, "Anna", START)),
        HEADER_TEXT,
    ),
    HEADER_TEXT,
)
SEGMENT = st.one_of(
    st.sampled_from(["1", "2", "5", "99", "0", "-1", "abc", "%00", "%ED%A0%80", "%", "%zz", ".."]),
    st.integers().map(str),
    st.text(max_size=12).map(lambda text: quote(text, safe="")),
)
QUERY = st.one_of(
    st.just(""),
    st.text(max_size=30).map(lambda text: "?" + quote(text, safe="=&")),
    st.sampled_from(["?campaign=1", "?a=%zz&b", "?" + "x=1&" * 200, "?%ED%A0%80"]),
)
ROUTES = (
    ("GET", "/api/campaigns"),
    ("GET", "/api/campaigns/{c}"),
    ("GET", "/api/campaigns/{c}/map"),
    ("GET", "/api/campaigns/{c}/orders"),
    ("GET", "/api/campaigns/{c}/board"),
    ("GET", "/api/campaigns/{c}/battles"),
    ("GET", "/api/campaigns/{c}/sectors/{s}"),
    ("POST", "/api/campaigns/{c}/orders"),
    ("POST", "/api/campaigns/{c}/ready"),
    ("POST", "/api/campaigns/{c}/results"),
    ("PUT", "/api/campaigns/{c}/orders"),
    ("GET", "/"),
    ("GET", "/static/{s}"),
)


@dataclass(frozen=True)
class Call:
    """One request: method, path under ``/miniapp``, headers and body."""

    method: str
    path: str
    init_data: str
    content_type: str
    body: str | bytes | None


def _call(
    route: tuple[str, str],
    campaign: str | None,
    sector: str,
    query: str,
    init_data: str,
    content_type: str,
    body: str | bytes,
) -> Call:
    method, template = route
    path = template.replace("{s}", sector)
    if campaign is not None:
        path = path.replace("{c}", campaign)
    return Call(method, path + query, init_data, content_type, body if method != "GET" else None)


VALID_BODIES = {
    "/orders": {"turn": 1, "order": {"kind": "move", "sector": "1", "to": "2", "count": 1}},
    "/ready": {"turn": 1, "ready": True, "edits": 0},
    "/results": {"turn": 1, "battle": 1, "outcome": "solid", "winner": "red"},
}
"""A body each write takes as it is."""


def _spoiled(body: dict[str, Any], at: int, value: Any) -> str:
    """``body`` (as JSON) with its ``at``-th field, counting the order's too, set to
    ``value``."""
    spoiled = json.loads(json.dumps(body))
    places = [(spoiled, key) for key in spoiled]
    if isinstance(spoiled.get("order"), dict):
        places += [(spoiled["order"], key) for key in spoiled["order"]]
    holder, key = places[at % len(places)]
    holder[key] = value
    return json.dumps(spoiled)


def _write_bodies(route: tuple[str, str]) -> st.SearchStrategy[str | bytes]:
    valid = VALID_BODIES["/" + route[1].rsplit("/", 1)[1]]
    return st.one_of(
        st.builds(_spoiled, st.just(valid), st.integers(min_value=0, max_value=6), NASTY | VALUES),
        BODIES,
    )


GOOD = signed_init_data(TOKEN, ANNA, "Anna", START)
FOCUS = ("body", "init_data", "path", "anything")
"""What a property varies: one part of a request, the others as the app sends them (so that
the hostile part reaches the code that reads it: a body is read only after the signature and
the seat are checked), or every part at once."""


def _calls(campaign_id: int, focus: str) -> st.SearchStrategy[Call]:
    routes = st.sampled_from(ROUTES)
    campaign = st.just(str(campaign_id))
    sector = st.sampled_from(["1", "2", "4"])
    json_type = st.just("application/json")
    fair = SHAPED.map(json.dumps)
    match focus:
        case "body":
            writes = st.sampled_from([route for route in ROUTES if route[0] == "POST"])
            return writes.flatmap(
                lambda route: st.builds(
                    _call,
                    st.just(route),
                    campaign,
                    sector,
                    st.just(""),
                    st.just(GOOD),
                    CONTENT_TYPES | json_type,
                    _write_bodies(route),
                )
            )
        case "init_data":
            api = st.sampled_from([route for route in ROUTES if route[1].startswith("/api/")])
            init_data = SIGNED_HOSTILE | INIT_DATA
            return st.builds(_call, api, campaign, sector, st.just(""), init_data, json_type, fair)
        case "path":
            segments = SEGMENT | campaign
            return st.builds(
                _call, routes, segments, SEGMENT, QUERY, st.just(GOOD), json_type, fair
            )
        case _:
            return st.builds(
                _call, routes, SEGMENT | campaign, SEGMENT, QUERY, INIT_DATA, CONTENT_TYPES, BODIES
            )


async def _send(served: Served, call: Call) -> tuple[int, str, str]:
    headers = {INIT_HEADER: call.init_data, "Content-Type": call.content_type}
    response = await served.client.request(
        call.method, URL("/miniapp" + call.path, encoded=True), headers=headers, data=call.body
    )
    return response.status, response.content_type, await response.text()


def _errors(records: list[logging.LogRecord]) -> list[str]:
    return [record.getMessage() for record in records if record.levelno >= logging.ERROR]


@pytest.mark.parametrize("focus", FOCUS)
def test_no_request_to_the_mini_app_answers_5xx(
    location: str, focus: str, caplog: pytest.LogCaptureFixture
) -> None:
    with served_in_a_loop(location) as (runner, served):

        @PROPERTY
        @given(call=_calls(served.campaign_id, focus))
        def requested(call: Call) -> None:
            mark = len(caplog.records)
            status, kind, text = runner.run(_send(served, call))
            assert status < 500, (call, status, text[:300])
            assert not _errors(caplog.records[mark:]), _errors(caplog.records[mark:])
            if call.path.startswith("/api/") and 400 <= status < 500 and kind.endswith("json"):
                answer = json.loads(text)
                said = answer.get("message")
                assert isinstance(said, str), (call, status, text[:300])
                assert said.strip(), (call, status, text[:300])

        requested()


WEBHOOK_BODIES = st.one_of(
    st.sampled_from(
        [
            '{"update_id": 5}',  # an update of no kind aiogram knows (a newer Bot API's)
            '{"update_id": 6, "message": {}}',
            '{"update_id": -1}',
            json.dumps({"update_id": 2**70}),
        ]
    ),
    RAW,
    VALUES.map(json.dumps),
    st.fixed_dictionaries(
        {"update_id": st.integers() | VALUES}, optional={"message": VALUES, "poll": VALUES}
    ).map(json.dumps),
)
SECRETS = st.one_of(st.just(SECRET), HEADER_TEXT, st.just(SECRET + "é"), st.just("é" * 12))


async def _post_update(served: Served, secret: str, content_type: str, body: str | bytes) -> int:
    headers = {"X-Telegram-Bot-Api-Secret-Token": secret, "Content-Type": content_type}
    response = await served.client.post(WEBHOOK, headers=headers, data=body)
    await response.read()
    return response.status


def test_no_request_to_the_webhook_answers_5xx(
    location: str, caplog: pytest.LogCaptureFixture
) -> None:
    """Only Telegram holds the secret token, and it sends only updates: a wrong token (any
    letters) is 401, a body that is no update 400, never 500."""
    with served_in_a_loop(location) as (runner, served):

        @PROPERTY
        @given(secret=SECRETS, content_type=CONTENT_TYPES, body=WEBHOOK_BODIES)
        def posted(secret: str, content_type: str, body: str | bytes) -> None:
            mark = len(caplog.records)
            status = runner.run(_post_update(served, secret, content_type, body))
            assert status < 500, (secret, body[:80], status)
            assert status in (200, 400, 401), status
            if secret != SECRET:
                assert status == 401
            assert not _errors(caplog.records[mark:]), _errors(caplog.records[mark:])

        posted()


async def test_the_webhook_answers_what_is_no_update_400_and_a_foreign_token_401(
    telegram: FakeTelegram,
) -> None:
    """Each of these answered 500 (aiogram reads the body with ``json.loads`` and validates it
    as an update, and compares the token as text): a body nested past the recursion limit,
    text that is no JSON, bytes that are no UTF-8, JSON that is no update, an update id past
    64 bits, and a token header with a non-ASCII letter."""
    application = web.Application()
    WebhookUpdates(telegram.dispatcher, telegram.bot, secret_token=SECRET).register(
        application, path=WEBHOOK
    )
    token = {"X-Telegram-Bot-Api-Secret-Token": SECRET}
    async with TestClient(TestServer(application)) as client:
        for body in (
            "[" * 20_000 + "]" * 20_000,
            "hello",
            b"\xff\xfe{",
            "[]",
            '{"update_id": "x"}',
            json.dumps({"update_id": 2**70}),
        ):
            reply = await client.post(WEBHOOK, data=body, headers=token)
            assert reply.status == 400, body[:20]
        foreign = {"X-Telegram-Bot-Api-Secret-Token": "é".encode().decode("latin-1")}
        assert (await client.post(WEBHOOK, data="{}", headers=foreign)).status == 401
        assert (await client.post(WEBHOOK, data="{}", headers={})).status == 401
        anna = telegram.user(7, "Anna")
        help_asked = telegram.message(anna, anna.id, "/help")
        handled = await client.post(
            WEBHOOK, data=help_asked.model_dump_json(exclude_none=True), headers=token
        )
        assert handled.status == 200
    assert [sent.chat_id for sent in telegram.sent] == [anna.id]


async def test_the_last_resort_handler_copes_with_an_update_of_no_known_kind(
    telegram: FakeTelegram, caplog: pytest.LogCaptureFixture
) -> None:
    """aiogram warns about an update of a kind it does not know (a newer Bot API's); where
    warnings are errors (``python -W error``, and these tests) the warning reaches the error
    handler, which raised again looking for the update's chat."""
    with warnings.catch_warnings():
        warnings.simplefilter("error", RuntimeWarning)
        await telegram.feed(Update(update_id=5))
    assert "unhandled error in update 5 (chat None)" in caplog.text
    assert telegram.sent == []
