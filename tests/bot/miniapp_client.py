"""The Mini App's API on a test server, called as the people of ``tests.bot.private_campaign``
with ``initData`` signed as Telegram signs it."""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass
from datetime import timedelta
from typing import Any

from aiogram.utils.i18n import I18n
from aiohttp.test_utils import TestClient, TestServer

from bot.miniapp.server import INIT_HEADER, build_miniapp
from bot.runtime.clock import ManualClock
from storage import Store
from tests.bot.private_campaign import PEOPLE
from tests.miniapp_init import signed_init_data

TOKEN = "4242:test-token-for-the-mini-app"
MAX_AGE = timedelta(hours=24)
LANGUAGES = {user_id: language for user_id, _name, language, _side, _roles in PEOPLE}


@dataclass
class Reply:
    """An API answer: its status, its JSON and its body as sent."""

    status: int
    json: dict[str, Any]
    text: str


@dataclass
class MiniApp:
    """The API as a person calls it from the page."""

    client: TestClient[Any, Any]
    clock: ManualClock

    def init_data(self, user_id: int, name: str = "Player", *, age: timedelta = timedelta()) -> str:
        """``initData`` for ``user_id`` signed ``age`` ago, with their Telegram app's language."""
        language = LANGUAGES.get(user_id, "en")
        return signed_init_data(TOKEN, user_id, name, self.clock.now() - age, language)

    async def call(
        self, method: str, path: str, init_data: str, body: dict[str, Any] | None = None
    ) -> Reply:
        """One request with ``init_data`` in its header."""
        response = await self.client.request(
            method, path, headers={INIT_HEADER: init_data}, json=body
        )
        text = await response.text()
        return Reply(response.status, await response.json(), text)

    async def get(self, user_id: int, path: str) -> Reply:
        """A GET as ``user_id``."""
        return await self.call("GET", path, self.init_data(user_id))

    async def post(self, user_id: int, path: str, body: dict[str, Any]) -> Reply:
        """A POST as ``user_id``."""
        return await self.call("POST", path, self.init_data(user_id), body)


@asynccontextmanager
async def miniapp(store: Store, clock: ManualClock, i18n: I18n) -> AsyncIterator[MiniApp]:
    """The Mini App on a local test server."""
    app = build_miniapp(store, clock, i18n, TOKEN, MAX_AGE)
    async with TestClient(TestServer(app)) as client:
        yield MiniApp(client, clock)
