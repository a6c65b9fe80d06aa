"""The Mini App's API plays a week beside the chat: a tap on a sector lists what the rules
allow, an order given in the app shows in /orders and one typed in chat shows in the app (one
set, one compare-and-set), Ready confirms only the version seen, a tap after the deadline is
refused as stale, a tactician reports a battle; the /orders screen opens the app when
MINIAPP_URL is set."""

from __future__ import annotations

import json

import pytest
from aiogram.methods import SendMessage
from aiogram.utils.i18n import I18n
from aiohttp import web
from aiohttp.test_utils import TestClient, TestServer

from bot.miniapp.server import INIT_HEADER, RouteAccessLogger, build_miniapp
from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from rules import Attack, Move
from storage import Store
from tests.bot.miniapp_client import MAX_AGE, TOKEN, miniapp
from tests.bot.private_campaign import Table, open_table, screen
from tests.bot.telegram import FakeTelegram
from tests.miniapp_init import signed_fields, signed_init_data
from tests.secrecy import assert_log_keeps, logfmt, printed_forms, read_the_log
from tests.storage.campaign_script import PLACEMENTS

ANNA, BORIS, CARL, VERA, GLEB, DORA = 201, 203, 202, 301, 302, 401


async def deploy_and_open_orders(table: Table) -> None:
    """Every side places its armies as stored; the turn begins and its orders open."""
    strategists = {"red": ANNA, "blue": VERA, "green": DORA}
    for side, placement in PLACEMENTS.items():
        await table.store.save_placement(
            table.campaign.id, side, placement, True, strategists[side], table.clock.now()
        )
    await table.step()
    table.take()


def base(table: Table) -> str:
    return f"/api/campaigns/{table.campaign.id}"


async def test_a_week_in_the_app_and_in_chat_is_one_set_of_orders(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    await deploy_and_open_orders(table)
    async with miniapp(store, clock, i18n) as app:
        listed = await app.get(ANNA, "/api/campaigns")
        assert listed.status == 200
        assert [c["id"] for c in listed.json["campaigns"]] == [table.campaign.id]
        assert listed.json["words"]["orders"] == "Orders"
        russian = await app.get(VERA, "/api/campaigns")
        assert russian.json["words"]["orders"] == "Приказы"

        screen_now = await app.get(ANNA, base(table))
        assert screen_now.status == 200
        view = screen_now.json
        assert view["campaign"]["turn"] == 1
        assert view["orders"]["editable"] is True
        assert view["orders"]["side"] == "Red Legion"
        assert 'data-sector="1"' in view["map"]
        assert view["campaign"]["deadline"] is not None

        tapped = await app.get(ANNA, base(table) + "/sectors/1")
        options = tapped.json["sector"]
        assert options["armies"] == 4
        assert {m["to"] for m in options["moves"]} >= {"2"}
        assert [a["name"] for a in options["attacks"]] == ["Синие"]
        empty = await app.get(ANNA, base(table) + "/sectors/3")
        assert empty.json["sector"]["moves"] == []
        assert empty.json["sector"]["armies"] == 0

        move = {"kind": "move", "sector": "1", "to": "2", "count": 2}
        given = await app.post(ANNA, base(table) + "/orders", {"turn": 1, "order": move})
        assert given.status == 200, given.json
        assert given.json["ok"], given.json
        record = await store.orders(table.campaign.id, 1, "red")
        assert record is not None
        assert record.orders.moves == (Move(source="1", to="2", count=2),)
        assert 'class="orders"' in given.json["view"]["map"]  # the arrow is drawn

        chat = screen(await table.say(ANNA, "/orders"))
        assert "2 West" in chat.text
        assert "1 Equator" in chat.text
        assert chat.markup is not None  # without MINIAPP_URL, no button opens the app
        assert not [b for row in chat.markup.inline_keyboard for b in row if b.web_app]

        typed = screen(await table.say(BORIS, "атаковать Синие в 1"))
        assert "черновик" in typed.text.lower()
        seen_by_app = await app.get(ANNA, base(table) + "/orders")
        lines = " ".join(seen_by_app.json["orders"]["lines"])
        assert "Синие" in lines
        edits = seen_by_app.json["orders"]["edits"]

        stale = await app.post(
            ANNA, base(table) + "/ready", {"turn": 1, "ready": True, "edits": edits - 1}
        )
        assert stale.status == 409
        assert not stale.json["ok"]
        record = await store.orders(table.campaign.id, 1, "red")
        assert record is not None
        assert not record.ready

        ready = await app.post(
            ANNA, base(table) + "/ready", {"turn": 1, "ready": True, "edits": edits}
        )
        assert ready.json["ok"], ready.json
        assert ready.json["message"] == "Ready: your orders are confirmed."
        record = await store.orders(table.campaign.id, 1, "red")
        assert record is not None
        assert record.ready
        assert record.orders.attacks == (Attack(sector="1", target="blue"),)

        tactician = await app.post(ANNA + 1, base(table) + "/orders", {"turn": 1, "order": move})
        assert tactician.status == 403

        await table.step()  # the deadline: orders close, the battle list is out
        late = await app.post(
            ANNA, base(table) + "/orders", {"turn": 1, "order": {"kind": "fortify", "sector": "1"}}
        )
        assert late.status == 409
        assert not late.json["ok"]
        record = await store.orders(table.campaign.id, 1, "red")
        assert record is not None
        assert record.orders.attacks

        while not (await app.get(CARL, base(table) + "/battles")).json["battles"]["listed"]:
            await table.step()
        battles = (await app.get(CARL, base(table) + "/battles")).json["battles"]
        first = battles["battles"][0]
        choice = next(c for c in first["choices"] if c["winner"] == "red")
        reported = await app.post(
            CARL,
            base(table) + "/results",
            {
                "turn": battles["turn"],
                "battle": first["id"],
                "outcome": choice["outcome"],
                "winner": "red",
            },
        )
        assert reported.json["ok"], reported.json
        stored = await store.battle_reports(table.campaign.id, battles["turn"])
        assert [r.reported.winner for r in stored if r.reported is not None] == ["red"]


async def test_bad_requests_are_answered_not_crashed(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    await deploy_and_open_orders(table)
    async with miniapp(store, clock, i18n) as app:
        for body in (
            {},
            {"turn": 1},
            {"turn": "1", "order": {"kind": "fortify", "sector": "1"}},
            {"turn": 1, "order": {"kind": "teleport", "sector": "1"}},
            {"turn": 1, "order": {"kind": "move", "sector": "1", "to": "2", "count": "all"}},
        ):
            reply = await app.post(ANNA, base(table) + "/orders", body)
            assert reply.status == 400, body
            assert "reload" in reply.json["message"]
        nowhere = await app.get(ANNA, base(table) + "/sectors/99")
        assert nowhere.status == 400
        beyond = await app.post(
            ANNA,
            base(table) + "/orders",
            {"turn": 1, "order": {"kind": "move", "sector": "1", "to": "5", "count": 9}},
        )
        assert beyond.status == 409
        assert beyond.json["message"]
        assert (await store.orders(table.campaign.id, 1, "red")) is None
        assert (await app.get(ANNA, "/api/campaigns/abc")).status == 400
        # Numbers beyond what the database holds are malformed, not a crash.
        huge = 10**30
        assert (await app.get(ANNA, f"/api/campaigns/{huge}")).status == 400
        for path, body in (
            ("/ready", {"turn": huge, "ready": True, "edits": 0}),
            ("/ready", {"turn": 1, "ready": True, "edits": huge}),
            ("/results", {"turn": 1, "battle": huge, "outcome": "draw"}),
            ("/orders", {"turn": -huge, "order": {"kind": "fortify", "sector": "1"}}),
        ):
            assert (await app.post(ANNA, base(table) + path, body)).status == 400, body


async def test_a_body_nested_too_deep_or_a_user_past_64_bits_is_a_4xx_not_a_500(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    """Found by a club's campaign over HTTP: a validly signed player whose POST body is an
    array or object nested past Python's recursion limit (``RecursionError``, not the
    ``ValueError`` the body's reader caught), and validly signed ``initData`` naming a user id
    past 64 bits (SQLite's ``OverflowError``), both answered 500. So did a body in a charset
    nobody knows and a string with half a surrogate pair."""
    table = await open_table(telegram, store, clock)
    await deploy_and_open_orders(table)
    async with miniapp(store, clock, i18n) as app:
        signed = {INIT_HEADER: app.init_data(ANNA), "Content-Type": "application/json"}
        deep = 20_000
        for path, body, content_type in (
            ("/orders", "[" * deep + "]" * deep, "application/json"),
            ("/ready", '{"turn":' * deep + "1" + "}" * deep, "application/json"),
            ("/results", '{"turn": 1}', "application/json; charset=no-such-charset"),
            ("/orders", '{"turn": 1, "order": {"kind": "fortify", "sector": "\\ud800"}}', None),
        ):
            headers = {**signed, "Content-Type": content_type or "application/json"}
            reply = await app.client.post(base(table) + path, data=body, headers=headers)
            assert reply.status == 400, (path, body[:40], content_type)
            assert "reload" in (await reply.json())["message"]
        # Found by the property test (tests/bot/test_hostile_http.py): a list is no outcome.
        no_outcomes: list[object] = [[], {"solid": 1}]
        for no_outcome in no_outcomes:
            report = {"turn": 1, "battle": 1, "outcome": no_outcome, "winner": "red"}
            refused = await app.post(ANNA, base(table) + "/results", report)
            assert refused.status == 400, no_outcome
        assert (await store.orders(table.campaign.id, 1, "red")) is None
        beyond = signed_fields(
            TOKEN,
            {
                "auth_date": str(int(clock.now().timestamp())),
                "user": json.dumps({"id": 2**64 + 201, "first_name": "Anna"}),
            },
        )
        for path in ("/api/campaigns", base(table), base(table) + "/sectors/1"):
            reply = await app.client.get(path, headers={INIT_HEADER: beyond})
            assert reply.status == 401, path
            assert (await reply.json())["error"] == "auth"


async def test_the_orders_screen_opens_the_app_when_its_address_is_set(
    store: Store, clock: ManualClock, i18n: I18n
) -> None:
    url = "https://strategium.example/miniapp/"
    telegram = FakeTelegram(build_dispatcher(store, clock, i18n, miniapp_url=url))
    table = await open_table(telegram, store, clock)
    await deploy_and_open_orders(table)
    sent = screen(await table.say(ANNA, "/orders"))
    assert isinstance(sent.method, SendMessage)
    markup = sent.markup
    assert markup is not None
    openers = [b for row in markup.inline_keyboard for b in row if b.web_app is not None]
    assert [(b.text, b.web_app.url if b.web_app else "") for b in openers] == [
        ("🗺 Open the map", f"https://strategium.example/miniapp/?campaign={table.campaign.id}")
    ]


async def test_the_page_and_its_files_are_served_without_initdata(
    store: Store, clock: ManualClock, i18n: I18n
) -> None:
    async with miniapp(store, clock, i18n) as app:
        page = await app.client.get("/")
        html = await page.text()
        assert page.status == 200
        assert '<script src="https://telegram.org/js/telegram-web-app.js"></script>' in html
        assert 'src="static/app.js"' in html
        for name, kind in (("app.js", "text/javascript"), ("app.css", "text/css")):
            served = await app.client.get(f"/static/{name}")
            assert served.status == 200
            assert served.content_type == kind
        for missing in ("/static/nothing.js", "/static/..%2Fserver.py", "/static/server.py"):
            assert (await app.client.get(missing)).status == 404, missing
        refused = await app.client.get("/api/campaigns")
        assert refused.status == 401


async def test_under_a_prefix_as_in_webhook_mode_every_api_request_is_checked(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    parent = web.Application()
    parent.add_subapp("/miniapp/", build_miniapp(store, clock, i18n, TOKEN, MAX_AGE))
    async with TestClient(TestServer(parent)) as client:
        assert (await client.get("/miniapp/")).status == 200
        assert (await client.get("/miniapp/api/campaigns")).status == 401
        headers = {INIT_HEADER: signed_init_data(TOKEN, ANNA, "Anna", clock.now())}
        listed = await client.get("/miniapp/api/campaigns", headers=headers)
        assert listed.status == 200
        assert [c["id"] for c in (await listed.json())["campaigns"]] == [table.campaign.id]


async def test_the_log_names_routes_never_a_tapped_sector_or_an_order(
    telegram: FakeTelegram,
    store: Store,
    clock: ManualClock,
    i18n: I18n,
    caplog: pytest.LogCaptureFixture,
) -> None:
    table = await open_table(telegram, store, clock)
    await deploy_and_open_orders(table)
    read_the_log(caplog)
    app = build_miniapp(store, clock, i18n, TOKEN, MAX_AGE)
    server = TestServer(app)
    await server.start_server(
        access_log_class=RouteAccessLogger
    )  # as bot/runtime/runner.py serves it
    async with TestClient(server) as client:
        headers = {INIT_HEADER: signed_init_data(TOKEN, ANNA, "Anna", clock.now())}
        tapped = await client.get(base(table) + "/sectors/2", headers=headers)
        assert tapped.status == 200
        order = {"kind": "move", "sector": "2", "to": "1", "count": "two"}
        refused = await client.post(
            base(table) + "/orders", json={"turn": 1, "order": order}, headers=headers
        )
        assert refused.status == 400
        move = Move(source="2", to="1", count=2)
        given = await client.post(
            base(table) + "/orders",
            json={"turn": 1, "order": {"kind": "move", "sector": "2", "to": "1", "count": 2}},
            headers=headers,
        )
        assert given.status == 200
    log = logfmt(caplog.records)
    assert "GET /api/campaigns/{campaign}/sectors/{sector} 200" in log
    assert "POST /api/campaigns/{campaign}/orders 400" in log
    assert "sectors/2" not in log
    assert "two" not in log
    assert_log_keeps(log, printed_forms([move]))
