"""The Mini App's aiohttp application: the page and its JSON API.

``GET /`` is the page, ``/static/...`` its CSS and JS (in this package: nothing downloaded at
run time). Every ``/api/...`` request carries Telegram's ``initData`` in the
``X-Telegram-Init-Data`` header; it is checked (:mod:`bot.miniapp.auth`), the person answered
in their language (their ``/lang`` choice, else their Telegram app's), and every campaign
request re-seats them from the database before the services check role and phase.

- ``GET /api/campaigns``: the person's campaigns and the page's words
- ``GET /api/campaigns/{id}``: the screen: campaign, map (SVG), own orders, board, battles
- ``GET /api/campaigns/{id}/map``, ``/orders``, ``/board``, ``/battles``: one part of it
- ``GET /api/campaigns/{id}/sectors/{sector}``: what a tap on a sector offers
- ``POST /api/campaigns/{id}/orders``: give an order (``{"turn", "order"}``; a fortify
  withdraws the sector's order)
- ``POST /api/campaigns/{id}/ready``: ``{"turn", "ready", "edits"}``
- ``POST /api/campaigns/{id}/results``: ``{"turn", "battle", "outcome", "winner"}``

A write answers ``{"ok", "message", "view"}`` with the screen as it now is.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Awaitable, Callable
from datetime import timedelta
from importlib import resources
from typing import Any

from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _
from aiohttp import web
from aiohttp.abc import AbstractAccessLogger

from bot.handlers.group.guards import whole_number
from bot.handlers.private.orders import seat_map_view
from bot.miniapp import views
from bot.miniapp.auth import verified_user
from bot.miniapp.words import page_words
from bot.runtime.clock import Clock
from bot.runtime.web_input import BadJsonError, read_json
from bot.services.orders import Seat, one_update, seat_in
from bot.texts.i18n import language_of
from rules.svg import map_svg
from storage import Store

log = logging.getLogger(__name__)

INIT_HEADER = "X-Telegram-Init-Data"
STATIC = resources.files("bot.miniapp") / "static"
STATIC_TYPES = {".js": "text/javascript", ".css": "text/css", ".html": "text/html"}

STORE = web.AppKey("store", Store)
CLOCK = web.AppKey("clock", Clock)
I18N = web.AppKey("i18n", I18n)
TOKEN = web.AppKey("token", str)
MAX_AGE = web.AppKey("max_age", timedelta)
USER_ID = web.RequestKey("user_id", int)
LANGUAGE = web.RequestKey("language", str)

Handler = Callable[[web.Request], Awaitable[web.StreamResponse]]


def build_miniapp(
    store: Store, clock: Clock, i18n: I18n, token: str, max_age: timedelta
) -> web.Application:
    """The Mini App on ``store``, checking ``initData`` against the bot ``token``."""
    app = web.Application(middlewares=[_authorised])
    app[STORE], app[CLOCK], app[I18N], app[TOKEN], app[MAX_AGE] = (
        store,
        clock,
        i18n,
        token,
        max_age,
    )
    app.router.add_get("/", _page)
    app.router.add_get("/static/{name}", _static)
    app.router.add_get("/api/campaigns", _campaigns, name="api:campaigns")
    app.router.add_get("/api/campaigns/{campaign}", _screen, name="api:screen")
    app.router.add_get("/api/campaigns/{campaign}/map", _map, name="api:map")
    app.router.add_get("/api/campaigns/{campaign}/orders", _orders, name="api:orders")
    app.router.add_get("/api/campaigns/{campaign}/board", _board, name="api:board")
    app.router.add_get("/api/campaigns/{campaign}/battles", _battles, name="api:battles")
    app.router.add_get("/api/campaigns/{campaign}/sectors/{sector}", _sector, name="api:sector")
    app.router.add_post("/api/campaigns/{campaign}/orders", _give, name="api:give")
    app.router.add_post("/api/campaigns/{campaign}/ready", _ready, name="api:ready")
    app.router.add_post("/api/campaigns/{campaign}/results", _report, name="api:report")
    return app


class RouteAccessLogger(AbstractAccessLogger):
    """Access lines that name the route, not the path: a path can say which sector a player
    tapped, and nothing a side plans is written to the log."""

    def log(self, request: web.BaseRequest, response: web.StreamResponse, time: float) -> None:
        resource = None
        if isinstance(request, web.Request) and request.match_info.route.resource is not None:
            resource = request.match_info.route.resource.canonical
        self.logger.info(
            "%s %s %s %.1fms",
            request.method,
            resource or "(no route)",
            response.status,
            time * 1000,
        )


def _json(payload: Any, status: int = 200) -> web.Response:
    return web.json_response(
        payload,
        status=status,
        dumps=lambda data: json.dumps(data, ensure_ascii=False),
        headers={"Cache-Control": "no-store"},
    )


@web.middleware
async def _authorised(request: web.Request, handler: Handler) -> web.StreamResponse:
    """API requests: the verified user, in their language; anything else passes."""
    route = request.match_info.route.name or ""
    if not route.startswith("api:"):  # the page and its files (also under a parent's prefix)
        return await handler(request)
    app = request.app
    now = app[CLOCK].now()
    user = verified_user(app[TOKEN], request.headers.get(INIT_HEADER, ""), now, app[MAX_AGE])
    i18n = app[I18N]
    if user is None:
        with i18n.context(), i18n.use_locale(language_of(request.headers.get("Accept-Language"))):
            words = _(
                "This link has expired or is not from Telegram: close the app and open it "
                "again from the bot."
            )
        return _json({"error": "auth", "message": words}, 401)
    person = await app[STORE].person(user.id)
    language = (
        person.language
        if person is not None and person.language
        else language_of(user.language_code)
    )
    request[USER_ID] = user.id
    # One request is one unit of reading, as one update is (bot.runtime.middlewares.UpdateReads).
    with i18n.context(), i18n.use_locale(language), one_update():
        request[LANGUAGE] = language
        try:
            return await handler(request)
        except views.MalformedRequestError as error:
            log.info("miniapp bad request from %s: %s", user.id, error)
            return _json(
                {
                    "error": "bad_request",
                    "message": _(
                        "The app sent something this version does not understand: reload it."
                    ),
                },
                400,
            )


async def _page(request: web.Request) -> web.Response:
    return web.Response(
        text=(STATIC / "index.html").read_text("utf-8"),
        content_type="text/html",
        headers={"Cache-Control": "no-cache"},
    )


async def _static(request: web.Request) -> web.Response:
    name = request.match_info["name"]
    suffix = name[name.rfind(".") :] if "." in name else ""
    if "/" in name or name.startswith(".") or suffix not in STATIC_TYPES:
        raise web.HTTPNotFound()
    item = STATIC / name
    if not item.is_file():
        raise web.HTTPNotFound()
    return web.Response(
        body=item.read_bytes(),
        content_type=STATIC_TYPES[suffix],
        headers={"Cache-Control": "no-cache"},
    )


async def _campaigns(request: web.Request) -> web.Response:
    listed = await views.campaigns(request.app[STORE], request[USER_ID])
    return _json({"campaigns": listed, "words": page_words(), "language": request[LANGUAGE]})


async def _seat(request: web.Request) -> Seat:
    """The person's seat in the campaign the path names; 403 when they have none."""
    campaign_id = whole_number(request.match_info["campaign"])
    if campaign_id is None:
        raise views.MalformedRequestError("campaign is not a number")
    seat = await seat_in(request.app[STORE], request[USER_ID], campaign_id)
    if seat is None:
        message = _("You are not in this campaign. Join it from its group chat with /join.")
        raise web.HTTPForbidden(
            text=json.dumps({"error": "not_member", "message": message}, ensure_ascii=False),
            content_type="application/json",
        )
    return seat


async def _screen(request: web.Request) -> web.Response:
    seat = await _seat(request)
    return _json(await views.view(request.app[STORE], seat, request.app[CLOCK].now()))


async def _map(request: web.Request) -> web.Response:
    seat = await _seat(request)
    seen = await seat_map_view(request.app[STORE], seat, request.app[CLOCK].now())
    return _json({"map": map_svg(seen[0]) if seen is not None else None})


async def _orders(request: web.Request) -> web.Response:
    seat = await _seat(request)
    return _json({"orders": await views.orders(request.app[STORE], seat, request.app[CLOCK].now())})


async def _board(request: web.Request) -> web.Response:
    seat = await _seat(request)
    board = await views.board_view(request.app[STORE], seat, request.app[CLOCK].now())
    return _json({"board": board})


async def _battles(request: web.Request) -> web.Response:
    seat = await _seat(request)
    listed = await views.battles(request.app[STORE], seat, request.app[CLOCK].now())
    return _json({"battles": listed})


async def _sector(request: web.Request) -> web.Response:
    seat = await _seat(request)
    found = await views.sector(request.app[STORE], seat, request.match_info["sector"])
    if isinstance(found, views.Answer):
        return _json({"error": "refused", "message": found.message}, found.status)
    return _json({"sector": found})


async def _body(request: web.Request) -> dict[str, Any]:
    try:
        body = await read_json(request)
    except BadJsonError:
        raise views.MalformedRequestError("body is not JSON") from None
    if not isinstance(body, dict):
        raise views.MalformedRequestError("body is not an object")
    return body


WriteAction = Callable[[Store, Seat, dict[str, Any], Any], Awaitable[views.Answer]]


async def _write(request: web.Request, action: WriteAction) -> web.Response:
    seat = await _seat(request)
    body = await _body(request)
    store, clock = request.app[STORE], request.app[CLOCK]
    answer = await action(store, seat, body, clock.now())
    screen = await views.view(store, seat, clock.now())
    return _json({"ok": answer.ok, "message": answer.message, "view": screen}, answer.status)


async def _give(request: web.Request) -> web.Response:
    return await _write(request, views.give)


async def _ready(request: web.Request) -> web.Response:
    return await _write(request, views.ready)


async def _report(request: web.Request) -> web.Response:
    return await _write(request, views.report)
