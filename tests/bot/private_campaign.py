"""A three-side campaign for the private-chat tests, set up through the storage API, and small
helpers to find buttons and drive the bot like a player on a phone."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import timedelta
from typing import Any

from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage, SendPhoto
from aiogram.types import User
from aiogram.utils.i18n import I18n

from bot.posts import PostContext, render
from bot.runtime.clock import ManualClock
from bot.services.clockwork import advance
from storage import (
    Campaign,
    NewCampaign,
    NewSide,
    OutboxMessage,
    Phase,
    Role,
    Store,
)
from tests.bot.telegram import FakeTelegram, Sent

GM = 100
GROUP = -1001
SIDES = (
    NewSide(id="red", name="Red Legion", colour="#cc0000"),
    NewSide(id="blue", name="Синие", colour="#0044cc"),
    NewSide(id="green", name="Green Horde", colour="#00aa33"),
)
# (user, name, language, side, roles)
PEOPLE = (
    (201, "Anna", "en", "red", {Role.STRATEGIST}),
    (203, "Борис", "ru", "red", {Role.STRATEGIST}),
    (202, "Carl", "en", "red", {Role.TACTICIAN}),
    (301, "Вера", "ru", "blue", {Role.STRATEGIST}),
    (302, "Глеб", "ru", "blue", {Role.TACTICIAN}),
    (401, "Dora", "en", "green", {Role.STRATEGIST, Role.TACTICIAN}),
)
SIDE_OF = {user: side for user, _, _, side, _ in PEOPLE}


@dataclass
class Table:
    """The campaign, the bot, and the people as Telegram users."""

    campaign: Campaign
    telegram: FakeTelegram
    store: Store
    clock: ManualClock
    users: dict[int, User]
    log: list[Sent] = field(default_factory=list)

    def take(self) -> list[Sent]:
        """The requests since the last take, kept in ``log`` (every request of the test)."""
        taken = self.telegram.take()
        self.log.extend(taken)
        return taken

    def user(self, user_id: int) -> User:
        """A player (or the GM) by id."""
        return self.users[user_id]

    async def say(self, user_id: int, text: str) -> list[Sent]:
        """``user_id`` writes ``text`` in their private chat; the requests it caused."""
        self.take()
        await self.telegram.feed(self.telegram.message(self.user(user_id), user_id, text))
        return self.take()

    async def tap(self, user_id: int, under: Sent, label: str) -> list[Sent]:
        """``user_id`` taps the button whose text contains ``label`` under ``under``."""
        data = button(under, label)
        self.take()
        await self.telegram.feed(self.telegram.press(self.user(user_id), under, data))
        return self._answered(user_id)

    async def forged(self, user_id: int, data: str) -> list[Sent]:
        """A callback with arbitrary data from ``user_id``."""
        self.take()
        await self.telegram.feed(self.telegram.forged_press(self.user(user_id), user_id, data))
        return self._answered(user_id)

    def _answered(self, user_id: int) -> list[Sent]:
        """The requests after a press; the callback's answer is shown to ``user_id``."""
        taken = self.take()
        for sent in taken:
            if isinstance(sent.method, AnswerCallbackQuery):
                sent.chat_id = user_id
        return taken

    async def now_campaign(self) -> Campaign:
        """The campaign as stored now."""
        found = await self.store.campaign(self.campaign.id)
        assert found is not None
        return found

    async def step(self) -> None:
        """Advance the campaign one phase, a day later (as the schedule would)."""
        campaign = await self.now_campaign()
        self.clock.advance(timedelta(days=1))
        result = await advance(
            self.store, campaign.id, campaign.turn, campaign.phase, None, self.clock.now()
        )
        assert result.advanced, result


def button(sent: Sent, label: str) -> str:
    """The callback data of the one button under ``sent`` whose text contains ``label``."""
    found = [data for text, data in sent.buttons() if label in text]
    assert len(found) == 1, f"{label!r} among {sent.buttons()}"
    return found[0]


def screen(sent: list[Sent]) -> Sent:
    """The screen message among requests (the last sent or edited text)."""
    texts = [s for s in sent if isinstance(s.method, SendMessage | EditMessageText)]
    assert texts, sent
    return texts[-1]


def alert(sent: list[Sent]) -> str:
    """The text of the callback answer among requests ('' if silent)."""
    answers = [s for s in sent if isinstance(s.method, AnswerCallbackQuery)]
    assert len(answers) == 1, sent
    answer = answers[0].method
    assert isinstance(answer, AnswerCallbackQuery)
    return answer.text or ""


def photos(sent: list[Sent]) -> list[Sent]:
    """The pictures among requests."""
    return [s for s in sent if isinstance(s.method, SendPhoto)]


async def open_table(
    telegram: FakeTelegram,
    store: Store,
    clock: ManualClock,
    ruleset: dict[str, Any] | None = None,
    campaign_map: str = "planet-5",
) -> Table:
    """The campaign in deployment: three sides, six players who opened the bot, and the GM
    (``ruleset``: its overrides, e.g. a siege; ``campaign_map``: a built-in map)."""
    now = clock.now()
    await store.see_person(GM, "Game Master", None, "en", True, now)
    campaign = await store.create_campaign(
        NewCampaign(
            chat_id=GROUP,
            title="Siege",
            created_by=GM,
            creator_name="Game Master",
            ruleset_overrides=ruleset or {},
            map=campaign_map,
        ),
        now,
    )
    users = {GM: telegram.user(GM, "Game Master")}
    telegram.group(GROUP, "Wargamers")
    for side in SIDES:
        await store.add_side(campaign.id, side, GM, now)
    for user_id, name, language, side_id, roles in PEOPLE:
        await store.see_person(user_id, name, None, language, True, now)
        await store.put_member(campaign.id, user_id, name, frozenset(roles), side_id, GM, now)
        users[user_id] = telegram.user(user_id, name, language)
    opened = await advance(store, campaign.id, 0, Phase.SETUP, GM, now)
    assert opened.advanced
    assert opened.campaign is not None
    return Table(opened.campaign, telegram, store, clock, users)


async def rendered_outbox(
    store: Store, i18n: I18n, campaign_id: int
) -> list[tuple[OutboxMessage, str]]:
    """Every queued message of the campaign, worded as it would be sent now."""
    context = PostContext(store=store, i18n=i18n, bot_username="strategium_bot")
    words = []
    for message in await store.outbox_messages(campaign_id):
        try:
            post = await render(context, message)
        except KeyError:
            continue
        words.append((message, "" if post is None else post.text))
    return words
