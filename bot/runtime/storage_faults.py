"""When the database cannot save (read-only file or volume, full disk, failing disk).

Storage rolls the failed transaction back and raises
:class:`~storage.db.StorageUnavailableError`; nothing stored before is touched. Here the bot says
so: :class:`StorageAlarm` tells a campaign's GMs by a direct message (the outbox lives in the
database that cannot be written, so it cannot carry this notice), at most once per campaign per
hour; :class:`StorageAwareScheduler` keeps the weekly scheduler running through such a fault
with one error line when it starts, and tells the GMs too. The reply to the person whose
action failed is in :mod:`bot.handlers.errors`.
"""

from __future__ import annotations

import logging
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from datetime import datetime, timedelta

from aiogram import Bot
from aiogram.exceptions import TelegramAPIError
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _

from bot.runtime.clock import Clock
from bot.runtime.logs import log_context
from bot.services.clockwork import AdvanceResult
from bot.services.schedule import CampaignScheduler
from bot.texts.i18n import language_of
from storage import Campaign, Store
from storage.db import StorageFault, StorageUnavailableError

log = logging.getLogger(__name__)

ALARM_EVERY = timedelta(hours=1)


@dataclass(frozen=True)
class Notice:
    """What :meth:`StorageAlarm.tell_gms` did: ``new`` when it tried to tell the GMs now (not
    within the last period), ``gms_know`` when they were told, now or earlier."""

    new: bool
    gms_know: bool


def fault_words(fault: StorageFault) -> str:
    """The cause in the current language, for people."""
    match fault:
        case StorageFault.READ_ONLY:
            return _("the database file is read-only")
        case StorageFault.DISK_FULL:
            return _("the server's disk is full")
        case StorageFault.DISK_ERROR:
            return _("the server's disk fails to read or write")
        case StorageFault.CANNOT_OPEN:
            return _("the database file cannot be opened")
        case StorageFault.CONNECTION_LOST:
            return _("the database server cannot be reached")


class StorageAlarm:
    """Tells a campaign's GMs that the bot cannot save, at most once per campaign per ``every``.

    The GMs who opened a private chat with the bot get it there, each in their language; when
    none did, the campaign's group gets it. When it was sent is kept in memory only: the notice
    is about a state of the running bot, and after a restart telling again is right.
    """

    def __init__(
        self, store: Store, clock: Clock, i18n: I18n, every: timedelta = ALARM_EVERY
    ) -> None:
        self.store = store
        self.clock = clock
        self.i18n = i18n
        self.every = every
        self._tried: dict[int, tuple[datetime, bool]] = {}

    async def tell_gms(
        self, bot: Bot, campaigns: Iterable[Campaign | int], error: StorageUnavailableError
    ) -> Notice:
        """Tell the GMs of each of ``campaigns`` (unless tried within ``every``); ``gms_know``
        is true when every one of those campaigns' GMs knows."""
        now = self.clock.now()
        new, know = False, True
        ids = {item if isinstance(item, int) else item.id for item in campaigns}
        if not ids:
            return Notice(new=False, gms_know=False)
        for campaign_id in sorted(ids):
            last = self._tried.get(campaign_id)
            if last is not None and now - last[0] < self.every:
                know = know and last[1]
                continue
            # Marked before sending, so updates failing at the same moment send it once.
            self._tried[campaign_id] = (now, False)
            told = await self._tell(bot, campaign_id, error)
            self._tried[campaign_id] = (now, told)
            new, know = True, know and told
        return Notice(new=new, gms_know=know)

    async def _tell(self, bot: Bot, campaign_id: int, error: StorageUnavailableError) -> bool:
        try:
            campaign = await self.store.campaign(campaign_id)
            gms = [m.user_id for m in await self.store.members(campaign_id) if m.is_gm]
            people = await self.store.people(gms)
        except StorageUnavailableError as unreadable:
            log.warning("cannot read whom to tell that the database cannot save: %s", unreadable)
            return False
        if campaign is None:
            return False
        targets: list[tuple[int, str, int | None]] = [
            (user, person.language or language_of(person.telegram_language), None)
            for user in gms
            if (person := people.get(user)) is not None and person.can_receive_private
        ] or [(campaign.chat_id, campaign.language, campaign.thread_id or None)]
        told = False
        for chat_id, language, thread in targets:
            with self.i18n.context(), self.i18n.use_locale(language):
                text = _(
                    "⚠️ «{title}»: I cannot save anything right now: {cause}. Orders, results "
                    "and GM actions are refused until it is fixed, and the schedule waits; "
                    "nothing saved before is lost. Please tell whoever runs the bot."
                ).format(title=campaign.title, cause=fault_words(error.fault))
            try:
                await bot.send_message(chat_id, text, message_thread_id=thread)
            except TelegramAPIError as refused:
                log.warning(
                    "could not tell chat %s that the database cannot save: %s", chat_id, refused
                )
                continue
            told = True
        if told:
            log.info("campaign %s: GMs told that the database cannot save", campaign_id)
        return told


class StorageAwareScheduler(CampaignScheduler):
    """The campaign scheduler, for a database that may stop taking writes.

    A run that cannot save changes nothing (each step is one transaction) and is tried again at
    the next sweep; the log gets one error line when the campaign's GMs are told (at most once
    an hour), a warning at each further try.
    """

    def __init__(
        self,
        store: Store,
        clock: Clock,
        *,
        bot: Bot,
        alarm: StorageAlarm,
        on_queued: Callable[[], None] | None = None,
    ) -> None:
        super().__init__(store, clock, on_queued=on_queued)
        self.bot = bot
        self.alarm = alarm

    async def run_campaign(
        self, campaign_id: int, now: datetime, *, catching_up: bool = False
    ) -> list[AdvanceResult]:
        """As :meth:`CampaignScheduler.run_campaign`; nothing ran when the database cannot
        save."""
        try:
            return await super().run_campaign(campaign_id, now, catching_up=catching_up)
        except StorageUnavailableError as error:
            with log_context(campaign_id):
                notice = await self.alarm.tell_gms(self.bot, [campaign_id], error)
                report = log.error if notice.new else log.warning
                report("scheduled run not saved, tried again at the next sweep: %s", error)
            return []
