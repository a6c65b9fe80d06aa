"""The campaign the hostile-input and security tests attack, set up through the real dispatcher.

A GM runs «Siege» in a group: sides Red, Blue and Green, each with players who joined by
``/join`` and ``/start join-<id>`` like people do, in manual mode (the GM advances every phase,
so no test depends on when the weekly orders window opens). Red is the side under attack: its
placement and orders are the secrets. Fred played Red until the GM removed him; he kept the
buttons he had (in setup there is no panel to remove him: he still plays Red). Nina never
joined. Otto runs another campaign, «Raid», in another group.

:func:`snapshot` reads everything a press could change through the Store API, so a test can
prove that nothing changed; :func:`red_secrets` lists what no one outside Red (and the GM) may
ever receive.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from datetime import UTC, datetime
from enum import StrEnum
from functools import cache
from pathlib import Path
from typing import Any

from aiogram.filters.callback_data import CallbackData
from aiogram.methods import AnswerCallbackQuery, SendPhoto
from aiogram.types import BufferedInputFile, Chat, User
from aiogram.utils.i18n import I18n

from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.services.turns import game_for
from bot.texts.core import armies, describe_order
from bot.texts.i18n import build_i18n
from bot.texts.sectors import sector_label
from rules import Attack, Move, Reinforce
from storage import Campaign, Phase, SqliteCampaignStore, Store
from tests.bot.group_helpers import button, say, set_up_campaign, tap
from tests.bot.telegram import FakeTelegram, Sent
from tests.secrecy import printed_forms

START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday
GROUP = -1001001
OTHER_GROUP = -1002002
GM = 100
RITA = 201  # Red's strategist
TOM = 202  # Red's tactician
FRED = 203  # played Red as strategist until the GM removed him
BELLA = 301  # Blue's strategist
GUS = 401  # Green's strategist
NINA = 999  # opened a private chat with the bot, never joined anything
OTTO = 500  # the GM of another campaign in another group
PEOPLE = {
    GM: "Gwen",
    RITA: "Rita",
    TOM: "Tom",
    FRED: "Fred",
    BELLA: "Bella",
    GUS: "Gus",
    NINA: "Nina",
    OTTO: "Otto",
}
RED_TEAM = frozenset({RITA, TOM})
# (user, side, role button) in the order they join
PLAYERS = (
    (RITA, "Red", "Strategist"),
    (TOM, "Red", "Tactician"),
    (FRED, "Red", "Strategist"),
    (BELLA, "Blue", "Strategist"),
    (GUS, "Green", "Strategist"),
)
PLACEMENTS = {RITA: "1:5 2:3 4:2", BELLA: "1:3 3:5 5:2", GUS: "2:4 3:3 5:3"}
RED_ORDERS = "attack blue in 1 x2\n2 -> 1 x1\nfortify 4\nreinforce 2"
MANUAL = {"weekly": "Manual"}


class Stage(StrEnum):
    """How far «Siege» is when the attack starts."""

    SETUP = "setup"  # the GM's wizard, sides added, players joined
    DEPLOYMENT = "deployment"  # Red and Blue have confirmed placements, Green has none
    ORDERS = "orders"  # turn 1: Red has given its orders
    BATTLES = "battles"  # turn 1's battle list is out: Red attacks Blue in 1 Equator


@dataclass
class HostileTable:
    """The bot, its store and clock, the people as Telegram users, and every request so far."""

    telegram: FakeTelegram
    store: Store
    clock: ManualClock
    i18n: I18n
    campaign: Campaign
    other: Campaign
    users: dict[int, User]
    group: Chat
    other_group: Chat
    log: list[Sent] = field(default_factory=list)

    def take(self) -> list[Sent]:
        """The requests since the last take (all of them are also kept in ``log``)."""
        taken = self.telegram.take()
        self.log.extend(taken)
        return taken

    async def send(self, user_id: int, chat: Chat | int, text: str | None) -> list[Sent]:
        """``user_id`` writes ``text`` in ``chat``; the requests it caused."""
        self.take()
        await self.telegram.feed(self.telegram.message(self.users[user_id], chat, text))
        return self.take()

    async def press(self, user_id: int, chat: Chat | int, data: str) -> list[Sent]:
        """``user_id`` presses a button with callback ``data`` on a bot message in ``chat``."""
        self.take()
        await self.telegram.feed(self.telegram.forged_press(self.users[user_id], chat, data))
        return self.take()

    async def now(self) -> Campaign:
        """«Siege» as stored now."""
        found = await self.store.campaign(self.campaign.id)
        assert found is not None
        return found


def callback_factories() -> list[type[CallbackData]]:
    """Every callback data class the bot defines (``bot.runtime.app`` imports every handler
    module)."""
    found: list[type[CallbackData]] = []
    pending = list(CallbackData.__subclasses__())
    while pending:
        factory = pending.pop()
        found.append(factory)
        pending.extend(factory.__subclasses__())
    return sorted(found, key=lambda factory: factory.__prefix__)


@cache
def catalogs() -> I18n:
    """The real catalogs, loaded once."""
    return build_i18n()


@asynccontextmanager
async def hostile_table(tmp_path: Path, stage: Stage) -> AsyncIterator[HostileTable]:
    """«Siege» at ``stage`` (and «Raid» in setup), built through the dispatcher."""
    store = await SqliteCampaignStore.open(tmp_path / "hostile.sqlite3")
    try:
        clock = ManualClock(START)
        i18n = catalogs()
        telegram = FakeTelegram(build_dispatcher(store, clock, i18n))
        users = {user_id: telegram.user(user_id, name) for user_id, name in PEOPLE.items()}
        group = telegram.group(GROUP, "Wargamers")
        other_group = telegram.group(OTHER_GROUP, "Raiders")
        for user_id in PEOPLE:  # everyone opened a private chat with the bot
            await say(telegram, users[user_id], user_id, "/start")
        other = await set_up_campaign(
            telegram, store, users[OTTO], other_group, title="Raid", open_deployment=False
        )
        campaign = await set_up_campaign(
            telegram,
            store,
            users[GM],
            group,
            sides=("Red", "Blue", "Green"),
            labels=MANUAL,
            open_deployment=stage is not Stage.SETUP,
        )
        table = HostileTable(
            telegram, store, clock, i18n, campaign, other, users, group, other_group
        )
        await _join_everyone(table)
        if stage is not Stage.SETUP:
            await _play_to(table, stage)
            # A pause the GM asked for and has not confirmed: its «Yes» is a button too.
            await say(telegram, users[GM], group, "/pause")
        table.take()
        yield table
    finally:
        await store.close()


async def _join_everyone(table: HostileTable) -> None:
    telegram, campaign = table.telegram, table.campaign
    for user_id, side, role in PLAYERS:
        user = table.users[user_id]
        await say(telegram, user, table.group, "/join")
        sides = await say(telegram, user, user_id, f"/start join-{campaign.id}")
        roles = await tap(telegram, user, sides, side)
        await tap(telegram, user, roles, role)
        member = await table.store.member(campaign.id, user_id)
        assert member is not None, (user_id, sides)
    table.take()


async def _remove_fred(table: HostileTable) -> None:
    """The GM removes Fred through the panel (Fred keeps every button he was ever sent)."""
    gm = table.users[GM]
    telegram = table.telegram
    panel = await say(telegram, gm, gm.id, "/gm")
    members = await tap(telegram, gm, panel, "Members")
    fred = await tap(telegram, gm, members, "Fred")
    sure = await tap(telegram, gm, fred, "Remove")
    await tap(telegram, gm, sure, "Yes, remove")
    assert await table.store.member(table.campaign.id, FRED) is None
    assert await table.store.removed_member(table.campaign.id, FRED) is not None


async def _advance(table: HostileTable) -> None:
    """The GM: ``/advance`` in the group, then «Yes, …» under the question asked in private."""
    gm = table.users[GM]
    before = await table.now()
    table.take()
    await say(table.telegram, gm, table.group, "/advance")
    [asked] = [sent for sent in table.take() if sent.chat_id == GM]  # asked in private
    yes = "⚖ Yes, " if before.phase is Phase.BATTLES else "⏭ Yes, "
    await tap(table.telegram, gm, asked, yes)
    after = await table.now()
    assert (after.turn, after.phase) != (before.turn, before.phase), after


async def _play_to(table: HostileTable, stage: Stage) -> None:
    telegram = table.telegram
    for user_id, line in PLACEMENTS.items():
        if stage is Stage.DEPLOYMENT and user_id == GUS:
            continue  # Green has not deployed: the GM may place it
        typed = await say(telegram, table.users[user_id], user_id, line)
        assert typed is not None
        assert "✅ Confirmed" in typed.text  # a typed placement is placed in one step
    if stage is Stage.DEPLOYMENT:
        await say(telegram, table.users[FRED], FRED, "/deploy")
        await _remove_fred(table)
        return
    await _advance(table)
    await say(telegram, table.users[FRED], FRED, "/orders")
    reply = await say(telegram, table.users[RITA], RITA, RED_ORDERS)
    assert reply is not None
    assert "✗" not in reply.text, reply.text
    sent = await say(telegram, table.users[RITA], RITA, "/orders")
    review = await tap(telegram, table.users[RITA], sent, "Review")
    assert review is not None
    if stage is Stage.ORDERS:
        await _remove_fred(table)
        return
    await _advance(table)
    campaign = await table.now()
    assert campaign.phase is Phase.BATTLES, campaign
    listing = await say(telegram, table.users[TOM], TOM, "/battles")
    assert listing is not None
    assert button(listing, "Report battle 1")
    await say(telegram, table.users[FRED], FRED, "/battles")
    await _remove_fred(table)


# ---- what must not change, and what must not leak -------------------------------------------


async def snapshot(table: HostileTable) -> dict[str, Any]:
    """Everything about both campaigns a press or a message could change, read through the
    Store API (the people's own records and the screens they were shown are left out: a
    stranger's own language and screen are theirs to change)."""
    store = table.store
    found: dict[str, Any] = {}
    for campaign_id in (table.campaign.id, table.other.id):
        campaign = await store.campaign(campaign_id)
        assert campaign is not None
        turns = range(campaign.turn + 1)
        sides = await store.sides(campaign_id)
        found[f"campaign {campaign_id}"] = {
            "campaign": campaign,
            "sides": sides,
            "members": await store.members(campaign_id),
            "removed": await store.removed_members(campaign_id),
            "join requests": await store.join_requests(campaign_id),
            "phases": await store.phase_history(campaign_id),
            "placements": await store.placements(campaign_id),
            "edits": [
                await store.order_edits(campaign_id, turn, side.id)
                for turn in turns
                for side in sides
            ],
            "battle lists": [await store.battle_list(campaign_id, turn) for turn in turns],
            "reports": [await store.battle_reports(campaign_id, turn) for turn in turns],
            "resolutions": [await store.resolutions(campaign_id, turn) for turn in turns],
            "audit": await store.audit_log(campaign_id),
            # The calendar file holds only the public deadlines: anyone in the group, and any
            # member in private, may have it queued.
            "outbox": [m for m in await store.outbox_messages(campaign_id) if m.kind != "calendar"],
            "clock": await store.clock_state(campaign_id),
            "clock log": await store.clock_log(campaign_id),
            "clock proposals": await store.clock_proposals(campaign_id),
            "vacancies": await store.vacancies(campaign_id, open_only=False),
        }
    found["prompts"] = {
        (chat, user): await store.prompt(chat, user)
        for user in PEOPLE
        for chat in (user, GROUP, OTHER_GROUP)
    }
    found["people"] = {user: await store.person(user) for user in (GM, RITA, TOM)}
    return found


async def _red_history(
    table: HostileTable, attacks: bool
) -> tuple[list[Move | Attack | Reinforce], list[dict[str, int]]]:
    """Every order Red ever saved (its attacks only with ``attacks``) and every placement."""
    campaign = await table.now()
    names = {side.id: side.name for side in await table.store.sides(campaign.id)}
    red = next(side_id for side_id, name in names.items() if name == "Red")
    orders: list[Move | Attack | Reinforce] = []
    placements: list[dict[str, int]] = []
    for turn in range(campaign.turn + 1):
        for edit in await table.store.order_edits(campaign.id, turn, red):
            if edit.placement is not None:
                placements.append(edit.placement)
            if edit.orders is not None:
                orders.extend(edit.orders.moves)
                orders.extend(edit.orders.attacks if attacks else ())
                if edit.orders.reinforce is not None:
                    orders.append(Reinforce(sector=edit.orders.reinforce))
    return orders, placements


async def red_secrets(table: HostileTable, attacks: bool) -> set[str]:
    """Red's placement and every order Red ever saved, in the words (both languages) the bot
    uses for them. ``attacks``: with the attacks (secret until the battle list is out)."""
    campaign = await table.now()
    game_map = game_for(campaign).map
    names = {side.id: side.name for side in await table.store.sides(campaign.id)}
    words: set[str] = set()
    orders, placements = await _red_history(table, attacks)
    for language in ("en", "ru"):
        with table.i18n.context(), table.i18n.use_locale(language):
            words.update(describe_order(order, game_map, names, language) for order in orders)
            if campaign.phase is Phase.DEPLOYMENT:
                words.update(
                    f"{sector_label(game_map, sector, language)}: {armies(count)}"
                    for placement in placements
                    for sector, count in placement.items()
                )
    return words


async def red_log_secrets(table: HostileTable) -> set[str]:
    """What the bot's log may never hold, in any phase: Red's orders and placements in the
    bot's words and as code prints them (``tests/secrecy.py``)."""
    orders, placements = await _red_history(table, attacks=True)
    return await red_secrets(table, attacks=True) | printed_forms(orders, placements)


def red_pictures(table: HostileTable) -> set[bytes]:
    """Every picture Red's players were ever sent (their side's private maps among them)."""
    return {
        sent.method.photo.data
        for sent in table.log
        if isinstance(sent.method, SendPhoto)
        and sent.chat_id in RED_TEAM
        and isinstance(sent.method.photo, BufferedInputFile)
    }


def assert_nothing_leaked(
    table: HostileTable, requests: list[Sent], secrets: set[str], pictures: set[bytes]
) -> None:
    """No request outside Red and the GM carries a secret of Red's, in words or as a map."""
    assert requests, "nothing was sent: there is nothing to scan"
    for request in requests:
        if request.chat_id in RED_TEAM or request.chat_id == GM:
            continue
        dump = request.text + repr(request.method)
        leaked = [secret for secret in secrets if secret in dump]
        assert not leaked, (request.chat_id, leaked)
        if isinstance(request.method, SendPhoto) and isinstance(
            request.method.photo, BufferedInputFile
        ):
            assert request.method.photo.data not in pictures, request.chat_id


def answers(requests: list[Sent]) -> list[AnswerCallbackQuery]:
    """The answers to callback queries among ``requests``."""
    return [sent.method for sent in requests if isinstance(sent.method, AnswerCallbackQuery)]
