"""Steps shared by the group tests: a GM sets up a campaign through the real wizard."""

from __future__ import annotations

from datetime import datetime

from aiogram.types import Chat, User

from bot.services.clockwork import advance
from rules import Attack, SideOrders
from storage import Campaign, Phase, Store
from tests.bot.telegram import FakeTelegram, Sent

RUSSIAN_WIZARD = {
    "zone": "Москва",
    "add": "Добавить сторону",
    "next": "Дальше",
    "weekly": "Еженедельно",
    "draw": "Ничья без потерь",
    "open": "Открыть расстановку",
}
"""The wizard's words :func:`set_up_campaign` taps, in Russian (its ``labels``)."""


def button(sent: Sent | None, label: str) -> str:
    """The callback data of the button whose text contains ``label``."""
    assert sent is not None, "no request was sent"
    found = [data for text, data in sent.buttons() if label in text]
    assert found, f"no button {label!r} in {sent.buttons()}"
    return found[0]


async def tap(telegram: FakeTelegram, user: User, sent: Sent | None, label: str) -> Sent | None:
    """``user`` presses the button labelled ``label`` under ``sent``."""
    assert sent is not None
    return await telegram.feed(telegram.press(user, sent, button(sent, label)))


async def say(telegram: FakeTelegram, user: User, chat: Chat | int, text: str) -> Sent | None:
    """``user`` writes ``text`` in ``chat``; the last request it caused."""
    return await telegram.feed(telegram.message(user, chat, text))


async def asked_in_private(
    telegram: FakeTelegram, gm: User, group: Chat, text: str, told: str | None = None
) -> Sent:
    """``gm`` types the command ``text`` in ``group``; the question the bot asked in the GM's
    private chat (the group hears only that it went there: ``told``, if given, is in it)."""
    telegram.take()
    await telegram.feed(telegram.message(gm, group, text))
    sent = telegram.take()
    private = [s for s in sent if s.chat_id == gm.id]
    in_group = [s.text for s in sent if s.chat_id == group.id]
    assert len(private) == 1, sent
    assert len(in_group) == 1, in_group
    assert told is None or told in in_group[0], in_group
    return private[0]


async def set_up_campaign(
    telegram: FakeTelegram,
    store: Store,
    gm: User,
    group: Chat,
    *,
    title: str = "Siege of Vraks",
    sides: tuple[str, ...] = ("Red", "Blue"),
    labels: dict[str, str] | None = None,
    open_deployment: bool = True,
    deployment: str | None = None,
) -> Campaign:
    """The whole wizard with the default choices, in English (``labels`` maps to other words;
    ``deployment``: the label of a deployment end to tap on the schedule step)."""
    words = {
        "zone": "Moscow",
        "add": "Add a side",
        "next": "Next",
        "weekly": "Weekly",
        "draw": "Draw without losses",
        "open": "Open deployment",
    } | (labels or {})
    await say(telegram, gm, group, "/newcampaign")
    screen = await say(telegram, gm, group, title)
    screen = await tap(telegram, gm, screen, words["zone"])
    screen = await tap(telegram, gm, screen, "🪐")
    for name in sides:
        await tap(telegram, gm, screen, words["add"])
        screen = await say(telegram, gm, group, name)
    screen = await tap(telegram, gm, screen, words["next"])
    if deployment is not None:
        screen = await tap(telegram, gm, screen, deployment)
    screen = await tap(telegram, gm, screen, words["weekly"])
    screen = await tap(telegram, gm, screen, words["draw"])
    if open_deployment:
        await tap(telegram, gm, screen, words["open"])
    campaign = await store.active_campaign(group.id)
    assert campaign is not None
    return campaign


async def join_post(telegram: FakeTelegram) -> Sent:
    """Deliver the outbox; the post it sent with the «Join» button (the campaign has begun)."""
    posts = [sent for sent in await telegram.deliver() if "jn:" in str(sent.buttons())]
    assert len(posts) == 1, posts
    return posts[0]


RED_PLACEMENT = {"1": 4, "2": 3, "4": 3}
BLUE_PLACEMENT = {"1": 3, "3": 5, "5": 2}


async def to_orders(store: Store, campaign: Campaign, now: datetime) -> Campaign:
    """Both sides deploy (as their players would) and turn 1's orders open."""
    red, blue = (side.id for side in await store.sides(campaign.id))
    await store.save_placement(campaign.id, red, RED_PLACEMENT, True, campaign.created_by, now)
    await store.save_placement(campaign.id, blue, BLUE_PLACEMENT, True, campaign.created_by, now)
    result = await advance(store, campaign.id, 0, Phase.DEPLOYMENT, campaign.created_by, now)
    assert result.advanced, result
    assert result.campaign is not None
    return result.campaign


async def to_battles(store: Store, campaign: Campaign, now: datetime) -> Campaign:
    """From deployment: turn 1 with Red attacking Blue twice in sector 1, battle list out."""
    campaign = await to_orders(store, campaign, now)
    red, blue = (side.id for side in await store.sides(campaign.id))
    orders = SideOrders(
        attacks=(Attack(sector="1", target=blue), Attack(sector="1", target=blue)), reinforce="4"
    )
    await store.save_orders(campaign.id, 1, red, orders, True, campaign.created_by, now)
    result = await advance(store, campaign.id, 1, Phase.ORDERS, campaign.created_by, now)
    assert result.advanced, result
    assert result.campaign is not None
    return result.campaign


async def notices(store: Store, campaign_id: int) -> list[str]:
    """The ready-worded announcements queued for the campaign's group, oldest first."""
    return [
        str(message.payload["text"])
        for message in await store.outbox_messages(campaign_id)
        if message.kind == "text" and message.chat_id < 0
    ]
