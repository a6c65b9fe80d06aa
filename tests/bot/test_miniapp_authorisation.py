"""Security of the Mini App: every endpoint called as every seat, the GM, an outsider, and with
forged, expired and missing ``initData``, in every phase of a campaign.

Forged, expired or missing ``initData`` is refused (401) everywhere; an outsider sees no
campaign and is refused (403) every campaign endpoint; nobody's answer ever carries Red's secret
placement or orders (worded in either language, as code prints them, or drawn on the map) unless
they play Red; no write by anyone else changes Red's orders; nothing answers 500.
"""

from __future__ import annotations

import json
from datetime import timedelta
from typing import Any

from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from rules import Attack, Move, Reinforce
from storage import Phase, Store
from tests.bot.miniapp_client import MiniApp, Reply, miniapp
from tests.bot.private_campaign import GM, Table, open_table
from tests.bot.telegram import FakeTelegram
from tests.miniapp_init import signed_init_data
from tests.secrecy import printed_forms
from tests.storage.campaign_script import PLACEMENTS

ANNA, BORIS, CARL, VERA, GLEB, DORA, NINA = 201, 203, 202, 301, 302, 401, 999
RED = (ANNA, BORIS, CARL)
OTHERS = (VERA, GLEB, DORA, GM, NINA)
RED_ORDERS = (Move(source="1", to="2", count=2), Attack(sector="1", target="blue"))


def endpoints(campaign_id: int, turn: int) -> list[tuple[str, str, dict[str, Any] | None]]:
    """Every endpoint, with bodies that would touch Red's orders or a battle."""
    at = f"/api/campaigns/{campaign_id}"
    fortify = {"turn": turn, "order": {"kind": "fortify", "sector": "2"}}
    return [
        ("GET", "/api/campaigns", None),
        ("GET", at, None),
        ("GET", at + "/map", None),
        ("GET", at + "/orders", None),
        ("GET", at + "/board", None),
        ("GET", at + "/battles", None),
        ("GET", at + "/sectors/1", None),
        ("GET", at + "/sectors/2", None),
        ("POST", at + "/orders", fortify),
        ("POST", at + "/ready", {"turn": turn, "ready": False, "edits": 0}),
        (
            "POST",
            at + "/results",
            {"turn": turn, "battle": 1, "outcome": "crushing", "winner": "blue"},
        ),
    ]


def visible(reply: Reply) -> str:
    """Everything an answer shows: its body and every string in it, unescaped."""
    strings: list[str] = []

    def walk(value: Any) -> None:
        if isinstance(value, str):
            strings.append(value)
        elif isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for item in value:
                walk(item)

    walk(reply.json)
    return "\n".join([reply.text, json.dumps(reply.json, ensure_ascii=False), *strings])


async def red_secrets(app: MiniApp, table: Table) -> set[str]:
    """What Red's players see that nobody else may: their orders in words (English and
    Russian), their orders drawn, their placement before the turn begins, as code prints them."""
    campaign = await table.now_campaign()
    secrets = printed_forms([*RED_ORDERS, Reinforce(sector="4")], [PLACEMENTS["red"]])
    at = f"/api/campaigns/{campaign.id}"
    record = await table.store.orders(campaign.id, campaign.turn, "red")
    ordered = record is not None and record.orders.moves != ()
    for user in (ANNA, BORIS):
        screen = (await app.get(user, at)).json
        orders = screen.get("orders") or {}
        drawn = screen.get("map") or ""
        if ordered:
            secrets.update(orders.get("lines", []))
        if ordered and '<g class="orders"' in drawn:
            secrets.add(drawn[drawn.index('<g class="orders"') :].removesuffix("</svg>"))
        if campaign.phase is Phase.DEPLOYMENT:
            secrets.update(f">R {n}</text>" for n in PLACEMENTS["red"].values())
    if ordered:  # the scan looks for Red's arrows and its orders in both languages
        assert any("<polyline" in secret for secret in secrets)
        assert any("2 West" in secret for secret in secrets)
        assert any("Синие" in secret and "атак" in secret.lower() for secret in secrets)
    return secrets


async def check_everyone(app: MiniApp, table: Table) -> None:
    campaign = await table.now_campaign()
    secrets = await red_secrets(app, table)
    red_before = await table.store.orders(campaign.id, campaign.turn, "red")
    calls = endpoints(campaign.id, campaign.turn)
    bad_keys = {
        "forged": signed_init_data("9999:another-bot", VERA, "Вера", app.clock.now()),
        "expired": app.init_data(VERA, age=timedelta(hours=25)),
        "future": app.init_data(VERA, age=-timedelta(hours=1)),
        "missing": "",
        "tampered": app.init_data(VERA).replace("301", "201"),
    }
    for name, init_data in bad_keys.items():
        for method, path, body in calls:
            reply = await app.call(method, path, init_data, body)
            assert reply.status == 401, (name, method, path, campaign.phase)
            assert reply.json["error"] == "auth"
    for user in (*RED, *OTHERS):
        for method, path, body in calls:
            reply = await app.call(method, path, app.init_data(user), body)
            where = (user, method, path, campaign.phase, reply.status, reply.text[:300])
            assert reply.status < 500, where
            if user == NINA:
                if path == "/api/campaigns":
                    assert reply.json["campaigns"] == [], where
                else:
                    assert reply.status == 403, where
            if user in (CARL, GLEB, GM) and method == "POST" and not path.endswith("/results"):
                assert reply.status == 403, where  # no side, or a tactician: no orders
            if user not in RED:
                shown = visible(reply)
                leaked = sorted(secret for secret in secrets if secret in shown)
                assert not leaked, (where, leaked)
    after = await table.store.orders(campaign.id, campaign.turn, "red")
    assert (after.orders if after else None) == (red_before.orders if red_before else None)


async def test_every_endpoint_as_everyone_in_every_phase(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = await open_table(telegram, store, clock)
    await store.see_person(NINA, "Nina", None, "en", True, clock.now())
    async with miniapp(store, clock, i18n) as app:
        await store.save_placement(
            table.campaign.id, "red", PLACEMENTS["red"], True, ANNA, clock.now()
        )
        await check_everyone(app, table)  # deployment: Red's placement is secret

        for side, user in (("blue", VERA), ("green", DORA)):
            await store.save_placement(
                table.campaign.id, side, PLACEMENTS[side], True, user, clock.now()
            )
        await table.step()
        assert (await table.now_campaign()).phase is Phase.ORDERS
        at = f"/api/campaigns/{table.campaign.id}"
        for order in (
            {"kind": "move", "sector": "1", "to": "2", "count": 2},
            {"kind": "attack", "sector": "1", "target": "blue"},
            {"kind": "reinforce", "sector": "4"},
        ):
            given = await app.post(ANNA, at + "/orders", {"turn": 1, "order": order})
            assert given.json["ok"], given.json
        await check_everyone(app, table)  # orders: Red's orders are secret

        await table.step()
        assert (await table.now_campaign()).phase is Phase.BATTLES
        await check_everyone(app, table)  # battles before and after the list is public
        while (await table.now_campaign()).phase is Phase.BATTLES:
            await table.step()
            await check_everyone(app, table)
        assert (await table.now_campaign()).turn == 2
