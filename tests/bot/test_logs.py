"""Structured log lines: logfmt, with the campaign and turn of the work that wrote them."""

import io
import logging

import pytest
from aiogram import Router
from aiogram.filters import Command
from aiogram.types import Message

from bot.runtime.clock import ManualClock
from bot.runtime.logs import LogfmtFormatter, NoStatements, configure_logging, log_context
from storage import NewCampaign, Store
from tests.bot.telegram import FakeTelegram


def _capture() -> tuple[logging.Handler, io.StringIO]:
    stream = io.StringIO()
    handler = logging.StreamHandler(stream)
    handler.setFormatter(LogfmtFormatter())
    return handler, stream


def test_lines_carry_the_campaign_and_turn_of_their_context() -> None:
    handler, stream = _capture()
    log = logging.getLogger("strategium.test")
    log.addHandler(handler)
    log.setLevel(logging.INFO)
    try:
        with log_context(7, 3):
            log.info('resolved "turn" with %d battles', 2)
        log.info("outside")
    finally:
        log.removeHandler(handler)
    inside, outside = stream.getvalue().splitlines()
    assert " level=info logger=strategium.test campaign=7 turn=3 " in inside
    assert inside.endswith('msg="resolved \\"turn\\" with 2 battles"')
    assert "campaign=" not in outside
    assert outside.endswith("msg=outside")


async def test_an_update_in_a_campaign_group_logs_its_campaign(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    campaign = await store.create_campaign(
        NewCampaign(chat_id=-100, title="Siege", created_by=1, creator_name="GM"), clock.now()
    )
    broken = Router(name="broken")

    @broken.message(Command("boom"))
    async def boom(message: Message) -> None:
        raise RuntimeError("a bug")

    telegram.dispatcher.include_router(broken)
    handler, stream = _capture()
    errors = logging.getLogger("bot.handlers.errors")
    errors.addHandler(handler)
    try:
        gm = telegram.user(1, "GM")
        await telegram.feed(telegram.message(gm, telegram.group(-100, "Wargamers"), "/boom"))
    finally:
        errors.removeHandler(handler)
    line = stream.getvalue().splitlines()[0]
    assert f"level=error logger=bot.handlers.errors campaign={campaign.id} turn=0 " in line


def test_debug_logging_keeps_sql_statements_and_their_orders_out(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    root = logging.getLogger()
    monkeypatch.setattr(root, "handlers", [])
    monkeypatch.setattr(root, "level", root.level)
    configure_logging("DEBUG")
    [handler] = root.handlers
    assert any(isinstance(f, NoStatements) for f in handler.filters)
    stream = io.StringIO()
    monkeypatch.setattr(handler, "stream", stream)
    statement = 'INSERT INTO orders VALUES (\'{"kind":"attack","sector":"1"}\')'
    logging.getLogger("aiosqlite").debug("executing %s", statement)
    logging.getLogger("aiosqlite").warning("exception occurred while closing connection")
    logging.getLogger("bot.services.schedule").debug("campaign 7: next run at noon")
    lines = stream.getvalue().splitlines()
    assert len(lines) == 2
    assert "logger=aiosqlite" in lines[0]
    assert "closing connection" in lines[0]
    assert lines[1].endswith('msg="campaign 7: next run at noon"')
