"""One campaign week played by a bot that may be SIGKILLed at any point, then restarted.

:func:`run_incarnation` is one bot process's life (the test forks it from a fork server:
:mod:`tests.faults.sigkill_judge`; ``python -m tests.faults.sigkill_week DIR`` plays the week
undisturbed in ``DIR``). Everything but Telegram is the real bot: the store on a file, the
dispatcher with every handler and middleware, the weekly
:class:`~bot.services.schedule.CampaignScheduler` and the
:class:`~bot.services.outbox_sender.OutboxSender`, driven as ``TEST_CLOCK_CONTROL`` drives them
(:class:`~bot.testing.clock_control.ClockControl` on a :class:`~bot.runtime.clock.ManualClock`: at
start ``rebuild``, then after every step what is due, sending until nothing is left). Telegram
is :class:`~tests.faults.sigkill_world.JournaledTelegram`.

The world outside the bot is the script :data:`WEEK`: people's updates and the clock, each step
at a fixed moment, noted in ``DIR/progress.jsonl`` before it starts, when the bot has handled
its update, and when it is done. A restart (a new process on the same files) resumes there:

- an update the bot had not finished handling is sent again exactly as it was: what Telegram
  does with an update the bot has not confirmed, and what a person does who got no answer.
  (The bot confirms updates before handling them: aiogram's polling asks for the next ones at
  once, its webhook answers at once; so today a cut update is lost with what it had saved, and
  only the person repeating it brings it back.) A handled update is not sent again;
- the clock stands where the killed process had it (the restart takes no time), and a clock
  step runs its moment again; a clock step stops at every moment something is due on the way
  (deadlines, reminders, posts waiting for their time or for a dead process's lease), as a
  running bot's scheduler and sender would.

Sends go one at a time (``batch=1``) and every step waits for the bot to settle, so the points
come in the same order in every run, and a seed finds the same point again.
"""

from __future__ import annotations

import asyncio
import json
import sys
from collections.abc import Callable
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from functools import cache
from pathlib import Path
from typing import Any

from aiogram import Bot
from aiogram.types import (
    CallbackQuery,
    Chat,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
    Update,
    User,
)
from aiogram.utils.i18n import I18n

from bot.handlers.joining import JoinChoice
from bot.handlers.private.callbacks import OrdersButton, ResultButton
from bot.posts import PostContext
from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.services.outbox_sender import OutboxSender, SendReport
from bot.services.schedule import CampaignScheduler
from bot.testing.clock_control import NO_LIMITS, ClockControl
from bot.texts.i18n import build_i18n
from storage import OutboxMessage, OutboxState, SqliteCampaignStore, Store
from tests.faults.sigkill_world import (
    BOT_USER,
    ORIGIN,
    JournaledTelegram,
    KillPlan,
    KillSwitch,
    Shown,
    append_line,
    instrument_commits,
    read_lines,
)

MONDAY = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # the campaign's zone is UTC
GROUP = -1001234
JOURNAL, PROGRESS, KILLS, TRACE, RUNS = (
    "telegram.jsonl",
    "progress.jsonl",
    "kills.jsonl",
    "trace.json",
    "incarnations.jsonl",
)
DATABASE = "bot.sqlite3"
STUCK_FILE = "stuck.json"
STUCK = 3  # the exit status of a process whose week cannot go on


@dataclass(frozen=True)
class Person:
    """Someone at the table; their private chat has their user id."""

    user_id: int
    name: str
    language: str

    def user(self) -> User:
        """As Telegram describes them."""
        return User(
            id=self.user_id, is_bot=False, first_name=self.name, language_code=self.language
        )


GM = Person(100, "Gina", "en")
ANNA = Person(201, "Anna", "en")  # red strategist
CARL = Person(202, "Carl", "en")  # red tactician
VERA = Person(301, "Вера", "ru")  # blue strategist (and she confirms results)
PEOPLE = (GM, ANNA, CARL, VERA)

ButtonCheck = Callable[[str, str], bool]


@dataclass(frozen=True)
class PersonStep:
    """At ``at``, ``who`` writes ``text`` in ``chat``, or taps the button ``button`` finds under
    the newest bot message in ``chat`` that has one."""

    at: datetime
    who: Person
    chat: int
    what: str
    text: str | None = None
    button: ButtonCheck | None = None


@dataclass(frozen=True)
class ClockStep:
    """The clock moves to ``at``."""

    at: datetime
    what: str
    text: None = None


Step = PersonStep | ClockStep


def label(fragment: str) -> ButtonCheck:
    """A button whose label contains ``fragment``."""
    return lambda text, _data: fragment in text


def prefixed(prefix: str) -> ButtonCheck:
    """A button whose callback data has this prefix."""
    return lambda _text, data: data.startswith(f"{prefix}:")


def role(role_value: str) -> ButtonCheck:
    """The join screen's role button."""
    return lambda _text, data: data.startswith("jc:") and JoinChoice.unpack(data).r == role_value


def orders(action: str) -> ButtonCheck:
    """A button of the orders screen by what it does."""
    return lambda _text, data: data.startswith("po:") and OrdersButton.unpack(data).action == action


def result(action: str, **fields: object) -> ButtonCheck:
    """A button of the battles screen by what it does and for which battle."""

    def check(_text: str, data: str) -> bool:
        if not data.startswith("pr:"):
            return False
        pressed = ResultButton.unpack(data)
        return pressed.action == action and all(
            getattr(pressed, key) == value for key, value in fields.items()
        )

    return check


def _week() -> tuple[Step, ...]:
    """The week: setup, joining and deployment on Monday, orders on Tuesday, the list on
    Friday, results and the GM's time tools (pause, resume, extend) on Saturday, the
    resolution on Monday."""
    steps: list[Step] = []
    moment = MONDAY

    def say(who: Person, text: str, chat: int | None = None) -> None:
        nonlocal moment
        moment += timedelta(minutes=1)
        where = who.user_id if chat is None else chat
        steps.append(PersonStep(moment, who, where, f"{who.name}: {text}", text=text))

    def tap(who: Person, check: ButtonCheck, what: str, chat: int | None = None) -> None:
        nonlocal moment
        moment += timedelta(minutes=1)
        where = who.user_id if chat is None else chat
        steps.append(PersonStep(moment, who, where, f"{who.name} taps {what}", button=check))

    def clock(at: datetime) -> None:
        nonlocal moment
        moment = at
        steps.append(ClockStep(at, f"clock to {at:%a %H:%M}"))

    say(GM, "/newcampaign", GROUP)
    say(GM, "Kill Week", GROUP)
    tap(GM, label("UTC"), "[UTC]", GROUP)
    tap(GM, label("🪐"), "[🪐 Planet (5 sectors)]", GROUP)
    for side in ("Red", "Blue"):
        tap(GM, label("Add a side"), "[Add a side]", GROUP)
        say(GM, side, GROUP)
    tap(GM, label("Next"), "[Next]", GROUP)
    tap(GM, label("Weekly"), "[Weekly]", GROUP)
    tap(GM, label("Draw without losses"), "[Draw]", GROUP)
    tap(GM, label("Open deployment"), "[Open deployment]", GROUP)
    for person, side, role_value in (
        (ANNA, "Red", "strategist"),
        (VERA, "Blue", "strategist"),
        (CARL, "Red", "tactician"),
    ):
        tap(person, prefixed("jn"), "[Join]", GROUP)
        say(person, "/start join-1")
        tap(person, label(side), f"[{side}]")
        tap(person, role(role_value), f"[{role_value}]")
    say(ANNA, "/deploy")
    say(ANNA, "1:4 2:3 4:3")  # placed and confirmed in one step
    say(VERA, "/deploy")
    say(VERA, "экватор:3 восток=5, 5:2")  # the last side: deployment ends, the orders open
    clock(MONDAY + timedelta(days=1, hours=1))  # Tuesday 10:00: orders are open
    say(ANNA, "attack blue in 1\nattack blue in 1\nreinforce 4")
    say(ANNA, "/orders")
    tap(ANNA, orders("rev"), "[Review]")
    tap(ANNA, orders("ok"), "[Ready]")
    say(VERA, "3 -> 1 x2\nподкрепление восток")  # not marked ready: she gets the reminders
    clock(MONDAY + timedelta(days=3, hours=14, minutes=59))  # Thursday 23:59: orders close
    clock(MONDAY + timedelta(days=4, hours=3))  # Friday 12:00: the battle list
    moment = MONDAY + timedelta(days=5)  # Saturday 09:00
    say(CARL, "/battles")
    tap(CARL, result("pick", battle=1), "[battle 1]")
    tap(CARL, result("out", battle=1, outcome="s"), "[solid]")
    tap(CARL, result("win", battle=1, winner=0), "[Red wins]")
    say(VERA, "/battles")
    tap(VERA, result("yes", battle=1), "[confirm]")
    say(GM, "/status", GROUP)
    # The GM's time tools: a pause of a minute, then two more hours for the battles, each
    # confirmed after the bot showed the dates it moves.
    say(GM, "/start")  # the GM's private chat: the bot asks there what a GM confirms
    say(GM, "/pause", GROUP)
    tap(GM, label("Yes, pause"), "[Yes, pause]")
    say(GM, "/resume", GROUP)
    say(GM, "/extend 2", GROUP)
    tap(GM, label("Yes, extend by 2 h"), "[Yes, extend by 2 h]")
    clock(MONDAY + timedelta(days=7, hours=3))  # Monday 12:00: not yet, extended
    clock(MONDAY + timedelta(days=7, hours=5, minutes=5))  # 14:05: resolution, turn 2
    say(ANNA, "/orders")
    clock(MONDAY + timedelta(days=7, hours=6))  # an hour later: every held post is out
    return tuple(steps)


WEEK = _week()


class TracedSender(OutboxSender):
    """The real sender; each delivery runs with :data:`ORIGIN` naming its outbox message."""

    incarnation = 0

    async def _deliver(
        self, context: PostContext, message: OutboxMessage, now: datetime, report: SendReport
    ) -> None:
        token = ORIGIN.set(
            {
                "outbox": message.dedup_key,
                "id": message.id,
                "kind": message.kind,
                "attempt": message.attempts,
                "incarnation": self.incarnation,
            }
        )
        try:
            await super()._deliver(context, message, now, report)
        finally:
            ORIGIN.reset(token)


@cache
def catalogs() -> I18n:
    """The bot's catalogs, loaded once (the fork server loads them before it forks, so no two
    bot processes compile the same ``.mo`` at once: bot/texts/i18n.py uses one temporary name)."""
    return build_i18n()


def chats() -> dict[int, Chat]:
    """The group and every person's private chat."""
    found = {GROUP: Chat(id=GROUP, type="supergroup", title="Wargamers")}
    for person in PEOPLE:
        found[person.user_id] = Chat(id=person.user_id, type="private", first_name=person.name)
    return found


@dataclass(frozen=True)
class Resume:
    """Where a process starts: the step, the clock's moment, and the step's update if it was
    sent to the bot but not handled to the end (it is sent again, as it was)."""

    step: int
    at: datetime
    update: Update | None = None
    handled: bool = False


def where_to_resume(workdir: Path) -> Resume:
    """Where the world is, from the progress it noted."""
    progress = read_lines(workdir / PROGRESS)
    if not progress:
        return Resume(0, MONDAY)
    last = progress[-1]
    at = datetime.fromisoformat(last["at"])
    if last.get("done"):
        return Resume(last["step"] + 1, at)
    if last.get("handled"):
        return Resume(last["step"], at, handled=True)
    update = Update.model_validate_json(last["update"]) if "update" in last else None
    return Resume(last["step"], at, update)


def _update(step: PersonStep, index: int, telegram: JournaledTelegram, moment: datetime) -> Update:
    """The update of a person's step, made from what their chat shows now."""
    user = step.who.user()
    chat = telegram.chats[step.chat]
    update_id = index + 1
    if step.button is None:
        message = Message(
            message_id=900_000 + update_id, date=moment, chat=chat, from_user=user, text=step.text
        )
        return Update(update_id=update_id, message=message)
    shown, data = _find_button(telegram.messages(step.chat), step.button, step.what)
    rows = [
        [
            InlineKeyboardButton(text=text, url=target)
            if target.startswith("https://")
            else InlineKeyboardButton(text=text, callback_data=target)
        ]
        for text, target in shown.buttons
    ]
    pressed = Message(
        message_id=shown.message_id,
        date=moment,
        chat=chat,
        from_user=BOT_USER,
        text=shown.text,
        reply_markup=InlineKeyboardMarkup(inline_keyboard=rows),
    )
    query = CallbackQuery(
        id=f"q{update_id}",
        from_user=user,
        chat_instance=str(chat.id),
        message=pressed,
        data=data,
    )
    return Update(update_id=update_id, callback_query=query)


class StuckError(LookupError):
    """A person cannot do their step: what they need is not on their screen."""


def _find_button(messages: list[Shown], check: ButtonCheck, what: str) -> tuple[Shown, str]:
    for shown in reversed(messages):
        for text, data in shown.buttons:
            if data and check(text, data):
                return shown, data
    raise StuckError(f"no button for {what!r}; the chat shows {[m.text for m in messages]}")


async def _play(workdir: Path, plan: KillPlan | None, trace: bool) -> None:
    incarnation = len(read_lines(workdir / RUNS))
    append_line(workdir / RUNS, {"incarnation": incarnation, "plan": plan and plan.__dict__})
    switch = KillSwitch(plan, workdir / KILLS, incarnation, trace=trace)
    instrument_commits(switch)
    resume = where_to_resume(workdir)
    clock = ManualClock(resume.at)
    i18n = catalogs()
    store = await SqliteCampaignStore.open(workdir / DATABASE)
    await store.release_leases()  # as the bot's runner does at every start
    telegram = JournaledTelegram(workdir / JOURNAL, switch, chats())
    bot = Bot("42:TEST", session=telegram)
    dispatcher = build_dispatcher(store, clock, i18n)
    sender = TracedSender(bot, store, clock, i18n, limits=NO_LIMITS, batch=1)
    sender.incarnation = incarnation
    scheduler = CampaignScheduler(store, clock, on_queued=sender.wake)
    control = ClockControl(clock, store, scheduler, sender)
    progress = workdir / PROGRESS
    switch.step = resume.step
    try:
        await scheduler.rebuild()  # as at every start: catch up from the database
        await control.set_clock(clock.now())
        for index in range(resume.step, len(WEEK)):
            step = WEEK[index]
            switch.step = index
            if isinstance(step, ClockStep):
                await _move_clock(progress, index, step.at, scheduler, control)
            else:
                clock.set(max(clock.now(), step.at))
                again = resume if index == resume.step else None
                if again is None or not again.handled:
                    update = again.update if again is not None else None
                    update = update or _update(step, index, telegram, clock.now())
                    note = {"step": index, "at": clock.now().isoformat()}
                    append_line(progress, note | {"update": update.model_dump_json()})
                    token = ORIGIN.set({"update": index, "incarnation": incarnation})
                    try:
                        await dispatcher.feed_update(bot, update)
                    finally:
                        ORIGIN.reset(token)
                    append_line(progress, note | {"handled": True})
                await control.set_clock(clock.now())
            append_line(progress, {"step": index, "at": clock.now().isoformat(), "done": True})
    finally:
        scheduler.shutdown()
        await store.close()
    if switch.trace is not None:
        (workdir / TRACE).write_text(json.dumps(switch.trace), encoding="utf-8")


async def _move_clock(
    progress: Path,
    index: int,
    target: datetime,
    scheduler: CampaignScheduler,
    control: ClockControl,
) -> None:
    """The clock goes to ``target`` through every moment something is due on the way (a
    deadline or reminder, or a post waiting for its time or for a dead process's lease, which
    a running bot's sender would take within a second), each noted before it runs (a restart
    runs that moment again)."""
    while True:
        now = control.clock.now()
        due = [
            moment
            for moment in (await scheduler.next_due(now), await _next_send(control.store, now))
            if moment is not None and now < moment < target
        ]
        moment = min(due, default=target)
        append_line(progress, {"step": index, "at": moment.isoformat()})
        await control.set_clock(moment)
        if moment >= target:
            return


async def _next_send(store: Store, now: datetime) -> datetime | None:
    """The next moment after ``now`` an unsent post may be sent."""
    moments = []
    for campaign in await store.unfinished_campaigns():
        for message in await store.outbox_messages(campaign.id):
            if message.state is OutboxState.PENDING:
                moments.append(message.not_before)
            elif message.state is OutboxState.SENDING and message.lease_until is not None:
                moments.append(message.lease_until)
    return min((moment for moment in moments if moment > now), default=None)


def run_incarnation(workdir: str, plan: dict[str, Any] | None, trace: bool = False) -> None:
    """One bot process's life: from where the world is, to the end of the week or the kill.
    When the week cannot go on (:class:`StuckError`), says why in ``DIR/stuck.json`` and exits
    with status :data:`STUCK`."""
    try:
        asyncio.run(_play(Path(workdir), KillPlan(**plan) if plan else None, trace))
    except StuckError as stuck:
        (Path(workdir) / STUCK_FILE).write_text(json.dumps(str(stuck), ensure_ascii=False))
        raise SystemExit(STUCK) from stuck


if __name__ == "__main__":
    run_incarnation(sys.argv[1], None, trace=True)
