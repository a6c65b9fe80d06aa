"""The test clock: end-to-end tests move a real bot process through its week over HTTP.

With ``TEST_CLOCK_CONTROL=true`` the process runs on a :class:`~bot.runtime.clock.ManualClock` that
starts at ``TEST_CLOCK_START`` (ISO 8601; default: the real now) and serves, on 127.0.0.1 only
(``TEST_CLOCK_PORT``), two requests:

- ``GET /clock`` answers ``{"now": "<ISO 8601>", "next": "<ISO 8601>" or null}``: the time
  and the next moment a campaign's deadline or reminder is due (battle lists held for their
  Friday moment are not counted: they go out when the clock passes it);
- ``POST /clock`` with ``{"now": "<ISO 8601>"}`` sets the clock (never backwards; the same
  moment again is allowed and just runs what is due), then, before answering, runs the
  scheduler's due work and sends the due outbox posts until neither has anything left, and
  answers what ran: ``{"now", "phases": [{"campaign", "turn", "phase"}...], "sent": n}``.

Nothing moves by itself under the test clock: the scheduler's APScheduler jobs are not started
(only the catch-up at start runs), so every step happens inside a ``POST /clock``. The outbox
sender still sends the posts handlers queue (in a loop that shares a lock with ``POST /clock``,
so an answered POST has nothing half-sent), without Telegram's rate limits, which the emulator
does not have either. Never in production: the setting is off by default and the server
refuses to listen anywhere but loopback.
"""

from __future__ import annotations

import asyncio
import contextlib
import ipaddress
import logging
import socket
from dataclasses import dataclass, field
from datetime import UTC, datetime

from aiohttp import web

from bot.runtime.clock import ManualClock
from bot.runtime.web_input import BadJsonError, read_json
from bot.services.clockwork import AdvanceResult
from bot.services.outbox_sender import Limits, OutboxSender
from bot.services.schedule import CampaignScheduler
from storage import Store

log = logging.getLogger(__name__)

LOOPBACK = "127.0.0.1"
NO_LIMITS = Limits.unlimited()
MAX_ROUNDS = 64  # a guard: each round is a step or a send; a campaign has few steps a week
SENDER_POLL_SECONDS = 0.1


class ClockControlError(ValueError):
    """The test clock was asked for something it refuses (not loopback, backwards, bad time)."""


def parse_moment(text: str) -> datetime:
    """An ISO 8601 moment; one without a time zone is read as UTC."""
    try:
        moment = datetime.fromisoformat(text)
        if moment.tzinfo is None:
            moment = moment.replace(tzinfo=UTC)
        return moment.astimezone(UTC)
    except (TypeError, ValueError, OverflowError) as error:  # 0001-01-01T00:00+05:00 overflows
        raise ClockControlError(f"not an ISO 8601 moment: {text!r}") from error


def require_loopback(host: str) -> str:
    """``host`` if it is 127.0.0.1; anything else (a name, 0.0.0.0, another address) refused."""
    refused = ClockControlError(f"the test clock listens on {LOOPBACK} only, not {host!r}")
    try:
        address = ipaddress.ip_address(host)
    except ValueError as error:
        raise refused from error
    if str(address) != LOOPBACK:
        raise refused
    return LOOPBACK


def starting_clock(start: datetime | None, now: datetime) -> ManualClock:
    """The test clock at ``start`` (``TEST_CLOCK_START``; one without a zone is UTC), or at
    ``now`` when none is given."""
    moment = start or now
    return ManualClock(moment if moment.tzinfo else moment.replace(tzinfo=UTC))


@dataclass
class ClockRun:
    """What one ``POST /clock`` ran: the phase steps taken and how many posts went out."""

    now: datetime
    phases: list[AdvanceResult] = field(default_factory=list)
    sent: int = 0

    def as_json(self) -> dict[str, object]:
        """The answer's body."""
        return {
            "now": self.now.isoformat(),
            "phases": [
                {
                    "campaign": result.campaign.id,
                    "turn": result.campaign.turn,
                    "phase": result.campaign.phase.value,
                }
                for result in self.phases
                if result.campaign is not None
            ],
            "sent": self.sent,
        }


class ClockControl:
    """The manual clock, the scheduler and the sender, driven by ``POST /clock``."""

    def __init__(
        self,
        clock: ManualClock,
        store: Store,
        scheduler: CampaignScheduler,
        sender: OutboxSender,
    ) -> None:
        self.clock = clock
        self.store = store
        self.scheduler = scheduler
        self.sender = sender
        self._lock = asyncio.Lock()
        self._runner: web.AppRunner | None = None

    async def set_clock(self, moment: datetime) -> ClockRun:
        """Move the clock to ``moment`` (never back), then run every due step and send every
        due post, round after round, until a round does nothing."""
        if moment < self.clock.now():
            raise ClockControlError(
                f"the clock cannot go back from {self.clock.now().isoformat()} "
                f"to {moment.isoformat()}"
            )
        async with self._lock:
            self.clock.set(moment)
            run = ClockRun(now=self.clock.now())
            for _ in range(MAX_ROUNDS):
                steps: list[AdvanceResult] = []
                for campaign in await self.store.unfinished_campaigns():
                    steps += await self.scheduler.run_campaign(campaign.id, run.now)
                report = await self.sender.send_due(run.now)
                run.phases += steps
                run.sent += len(report.sent)
                if not steps and not report.sent:
                    break
            else:
                log.warning("test clock: still busy after %s rounds at %s", MAX_ROUNDS, run.now)
        log.info(
            "test clock set to %s: %s step(s), %s post(s) sent",
            run.now.isoformat(),
            len(run.phases),
            run.sent,
        )
        return run

    async def run_sender(self, stop: asyncio.Event) -> None:
        """The outbox loop under the test clock: sends what handlers queue, never while a
        ``POST /clock`` runs, so an answered POST has left nothing half-sent."""
        while not stop.is_set():
            try:
                async with self._lock:
                    await self.sender.send_due(self.clock.now())
            except Exception:
                log.exception("outbox pass failed; trying again at the next poll")
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(stop.wait(), SENDER_POLL_SECONDS)

    # ---- HTTP ---------------------------------------------------------------------------------

    def application(self) -> web.Application:
        """``GET /clock`` and ``POST /clock``."""
        application = web.Application()
        application.router.add_get("/clock", self._get)
        application.router.add_post("/clock", self._post)
        return application

    async def start(self, host: str, port: int) -> int:
        """Listen on ``host`` (127.0.0.1 only) and ``port`` (0: any free one); the port."""
        host = require_loopback(host)
        # Every POST re-plans APScheduler's (never started) jobs: not worth a log line each.
        logging.getLogger("apscheduler").setLevel(logging.WARNING)
        listening = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
        listening.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        listening.bind((host, port))
        bound = int(listening.getsockname()[1])
        self._runner = web.AppRunner(self.application(), access_log=None)
        await self._runner.setup()
        await web.SockSite(self._runner, listening).start()
        log.warning(
            "TEST CLOCK ON: time is %s and moves only by POST http://%s:%s/clock "
            "(test use only; never in production)",
            self.clock.now().isoformat(),
            host,
            bound,
        )
        return bound

    async def stop(self) -> None:
        """Stop listening."""
        if self._runner is not None:
            await self._runner.cleanup()
            self._runner = None

    async def _get(self, request: web.Request) -> web.Response:
        if not _from_loopback(request):
            return _error(403, "loopback only")
        async with self._lock:
            now = self.clock.now()
            upcoming = await self.scheduler.next_due(now)
        return web.json_response(
            {"now": now.isoformat(), "next": upcoming.isoformat() if upcoming else None}
        )

    async def _post(self, request: web.Request) -> web.Response:
        if not _from_loopback(request):
            return _error(403, "loopback only")
        try:
            body = await read_json(request)
        except BadJsonError:
            return _error(400, 'the body must be JSON: {"now": "<ISO 8601>"}')
        if not isinstance(body, dict) or not isinstance(body.get("now"), str):
            return _error(400, 'the body must be JSON: {"now": "<ISO 8601>"}')
        try:
            run = await self.set_clock(parse_moment(body["now"]))
        except ClockControlError as error:
            return _error(409, str(error))
        except Exception as error:
            log.exception("test clock: the due work failed")
            return _error(500, f"the due work failed: {error!r}")
        return web.json_response(run.as_json())


def _from_loopback(request: web.Request) -> bool:
    try:
        return request.remote is not None and ipaddress.ip_address(request.remote).is_loopback
    except ValueError:
        return False


def _error(status: int, description: str) -> web.Response:
    return web.json_response({"error": description}, status=status)
