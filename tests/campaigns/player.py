"""The people of a random campaign and what each may do at a step.

The GM sets the campaign up through the real wizard (:meth:`Player.set_up`), with the choices
of the script's :class:`~tests.campaigns.script.Setup`; people join through the group's «Join»
and the private chat, as people do. After that every step is one word of the script: the
word seeds the step's own choices (:meth:`Player.step`), made against what the chats show at
that moment:

- time passes (to the next moment the bot planned, or some hours), and the sweep runs at
  every moment the bot planned on the way; now and then the bot is down over some hours and
  catches up when it is back;
- someone opens a screen by a command and presses what it offers, a few times (the GM's
  panel, orders, deployment, battles, /hand, /map, /status, /campaigns, /history, /stats,
  /lang, /vacation, /calendar, /roll ...), typing an answer where a screen asks for one;
- a strategist types orders (or a placement) in either language, valid or nearly so;
- someone reports, confirms or disputes a result, a GM decides a dispute;
- a stale press (a button of an old message), a forged one (another chat's button, or
  callback data with changed fields), a command in the wrong chat, chatter;
- a late joiner or an outsider asks to join; the GM removes a player, who keeps old buttons.

A button is always one the screen shows (its label and data), drawn with weights that keep
the campaign moving (ending or cancelling it is rare until its last turn).
"""

from __future__ import annotations

import random
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from aiogram.types import User

from bot.services.campaigns import missing_placements
from bot.services.deadlines import orders_open_at
from bot.services.turns import game_for
from bot.texts.core import describe_order
from rules import (
    Attack,
    Battle,
    CampaignMap,
    CampaignState,
    Move,
    Reinforce,
    builtin_map,
    legal_orders,
)
from rules.legal import MoveOption
from storage import Campaign, CampaignStatus, ClockState, Phase
from tests.campaigns.maps import random_map_toml
from tests.campaigns.script import GM_ID, PersonPlan, Script, zone_of
from tests.campaigns.world import Screen, World

GROUP_ID = -1001234

GROUP_COMMANDS = (
    "/status",
    "/map",
    "/battles",
    "/history",
    "/stats",
    "/rules",
    "/roll 2d6",
    "/help",
    "/join",
)
PRIVATE_COMMANDS = (
    "/orders",
    "/deploy",
    "/battles",
    "/map",
    "/hand",
    "/history",
    "/stats",
    "/roll 2d6 1",
    "/campaigns",
    "/vacation",
    "/lang",
    "/help",
)
GM_COMMANDS = ("/gm", "/advance", "/pause", "/resume", "/extend 24", "/extend 3", "/lang")
WAITING = ("wx:", "wd:", "lt:", "rw:", "rc:", "pv:", "jv:", "pr:")
RARE = ("end", "end!", "cancel", "kick", "del", "retire", "withdraw", "vacate")
CHATTER = (
    "всем привет",
    "ok",
    "когда бои?",
    "attack",
    "атака 99",
    "2 -> 1 x99",
    "1:10",
    "🙂",
    "reinforce nowhere",
    "/unknown",
    "/orders@strategium_bot",
    "a" * 300,
)
REASONS = ("ушёл из клуба", "left the club", "опечатка в армиях", "rules dispute", "отпуск")
DATES = ("завтра 21:00", "tomorrow 21:00", "5.12 18:00", "23:00", "31.02 10:00", "+3", "Dec 5")
SCHEDULES = (
    "Tue 00:00; Thu 23:59; Fri 12:00; Mon 12:00",
    "вт 00:00; чт 23:59; пт 12:00; пн 12:00",
    "Wed 10:00; Fri 20:00; Sat 09:00; Mon 18:00",
    "пн 12:00; пн 11:00; вс 10:00; сб 09:00",
)


@dataclass
class Someone:
    """A person at the table, as the player knows them."""

    plan: PersonPlan
    user: User

    @property
    def user_id(self) -> int:
        return self.plan.user_id


def weighted(rng: random.Random, choices: Sequence[tuple[float, Callable[[], object]]]) -> object:
    """One of ``choices`` by weight; its function's value."""
    total = sum(weight for weight, _ in choices)
    pick = rng.random() * total
    for weight, choose in choices:
        pick -= weight
        if pick <= 0:
            return choose()
    return choices[-1][1]()


class Player:
    """Everyone at the table, moved by the script's words."""

    def __init__(self, world: World, script: Script) -> None:
        self.world = world
        self.script = script
        self.setup = script.setup
        self.rng = random.Random(script.seed)
        self.group = world.group(GROUP_ID, "Wargamers")
        self.people: dict[int, Someone] = {}
        gm_plan = PersonPlan(GM_ID, "Mira GM", self.setup.gm_language, "gm")
        self.gm = self._someone(gm_plan)
        for plan in self.setup.people:
            self._someone(plan)
        self.campaign_id: int | None = None
        self.side_ids: list[str] = []
        self.map: CampaignMap = builtin_map("planet-5")
        self.removed = False
        self.co_gm: int | None = None

    def _someone(self, plan: PersonPlan) -> Someone:
        user = self.world.person(plan.user_id, plan.name.split()[0], plan.language)
        found = Someone(plan, user)
        self.people[plan.user_id] = found
        return found

    # ---- set up -------------------------------------------------------------------------------

    async def _gm_says(self, text: str, chat: int = GROUP_ID) -> None:
        await self.world.write(self.gm.user, chat, text)
        await self.world.deliver()
        self.world.take_requests()

    def _setup_screen(self) -> Screen | None:
        found = [s for s in self.world.screens_in(GROUP_ID) if _has(s, "su:")]
        return found[-1] if found else None

    async def _setup_press(self, action: str, value: str | None = None) -> bool:
        screen = self._setup_screen()
        if screen is None:
            return False
        for label, data in screen.buttons():
            parts = data.split(":")
            if len(parts) >= 3 and parts[2] == action and (value is None or parts[3:4] == [value]):
                await self.world.press(self.gm.user, screen, data, label)
                await self.world.deliver()
                self.world.take_requests()
                return True
        return False

    async def _setup_go(self, step: str) -> None:
        """Back to the summary first (every module screen has «◀ Back»), then ``step``."""
        if not await self._setup_press("go", step):
            await self._setup_press("go", "summary")
            await self._setup_press("go", step)

    async def set_up(self) -> None:
        """The GM's wizard, then everyone joins; deployment is open at the end (or the
        campaign is still in setup, if the wizard refused to open it)."""
        s = self.setup
        world = self.world
        await world.write(self.gm.user, self.gm.user_id, "/start")
        for someone in self.people.values():
            if someone.plan.kind != "outsider" or self.rng.random() < 0.5:
                await world.write(someone.user, someone.user_id, "/start")
        await world.deliver()
        world.take_requests()
        await self._gm_says("/newcampaign")
        await self._gm_says(s.title)
        zone, typed = zone_of(s), s.zone.split("|", 1)[-1]
        if s.zone_typed:
            await self._setup_press("ask", "zone")
            await self._gm_says(typed)
        else:
            await self._setup_press("tz", zone)
            await self._setup_press("go", "map")
        if s.map_kind == "generated":
            await self._setup_press("ask", "map")
            toml = random_map_toml(s.map_sectors, s.map_seed)
            await world.upload(self.gm.user, GROUP_ID, "world.toml", toml.encode())
            await world.deliver()
            world.take_requests()
        else:
            await self._setup_press("map", "planet-5")
        for name in s.sides:
            await self._setup_press("ask", "side")
            await self._gm_says(name)
        await self._setup_press("go", "schedule")
        await self._setup_press("dep", str(s.deployment_days))
        await self._setup_press("sched", s.schedule)
        await self._setup_press("pol", "draw" if s.policy == "draw" else "wait_for_gm")
        await self._setup_go("summary")
        if s.language == "ru":
            await self._setup_press("lang", "ru")
        if s.joining:
            await self._setup_go("joining")
            await self._setup_press("joinset", s.joining)
        for module in s.modules:
            await self._module(module)
        for _ in range(self.rng.randrange(0, 4)):
            await self._wander_in_setup()
        await self._setup_go("summary")
        await self._setup_press("ok")
        campaign = await self._campaign()
        if campaign is not None and campaign.phase is Phase.SETUP:
            # The wizard refused (it says why): the GM switches the modules off and opens.
            for module, switch in (("siege", "sg"), ("contact", "ct"), ("watch", "wt")):
                await self._setup_go(module)
                await self._setup_press(switch, "off")
            await self._setup_go("summary")
            await self._setup_press("ok")
        campaign = await self._campaign()
        if campaign is None:
            return
        self.campaign_id = campaign.id
        self.side_ids = [side.id for side in await world.store.sides(campaign.id)]
        self.map = game_for(campaign).map
        await world.sweep()
        world.take_requests()
        for someone in list(self.people.values()):
            if someone.plan.kind in ("player", "removed"):
                await self.join(someone, someone.plan.side, someone.plan.role)
        if s.gm_plays is not None:
            await self.join(self.gm, s.gm_plays, "strategist")
        if s.co_gm:
            await self._name_co_gm()

    async def _module(self, module: str) -> None:
        s = self.setup
        switch = {"siege": "sg", "contact": "ct", "watch": "wt"}[module]
        await self._setup_go(module)
        await self._setup_press(switch, "on")
        if module == "watch":
            if s.map_kind == "night-demo":
                await self._setup_press("wmap")
                self.map = builtin_map("night-demo")
            places = [sector.name for sector in self.map.sectors]
            lines = []
            for index, side in enumerate(s.sides):
                for hero in range(self.rng.choice((1, 1, 2))):
                    name = self.rng.choice(
                        ("Лариса", "Андрей", "Anton", "Zavulon", "Ольга", "Egor")
                    )
                    lines.append(
                        f"{name}{index}{hero}, {side}, {self.rng.randrange(1, 10)},"
                        f" {self.rng.choice(places)}"
                    )
            await self._setup_press("ask", "heroes")
            await self._gm_says("\n".join(lines))
        if module == "siege":
            for _ in range(self.rng.randrange(1, 4)):
                screen = self._setup_screen()
                if screen is None:
                    break
                tokens = [(label, d) for label, d in screen.buttons() if ":tok:" in d]
                if tokens:
                    label, data = self.rng.choice(tokens)
                    await self.world.press(self.gm.user, screen, data, label)
                    await self.world.deliver()
                    self.world.take_requests()
        for _ in range(self.rng.randrange(0, 3)):
            await self._wander_in_setup()

    async def _wander_in_setup(self) -> None:
        """A press of the wizard's screen, not one that opens or cancels the campaign."""
        screen = self._setup_screen()
        if screen is None:
            return
        choices = [
            (label, data)
            for label, data in screen.buttons()
            if data.split(":")[2:3] not in (["ok"], ["cancel"], ["sg"], ["ct"], ["wt"])
        ]
        if not choices:
            return
        label, data = self.rng.choice(choices)
        await self.world.press(self.gm.user, screen, data, label)
        await self.world.deliver()
        requests = self.world.take_requests()
        if any(r.sent.markup is None and "ForceReply" in repr(r.sent.method) for r in requests):
            await self._gm_says(self.answer_for(requests[-1].text, self.rng))

    async def _name_co_gm(self) -> None:
        """The GM names the first player of the last side a co-GM (Members, the player, the
        co-GM switch)."""
        crew = [p for p in self.people.values() if p.plan.kind == "player"]
        if not crew:
            return
        chosen = crew[-1]
        await self._gm_says("/gm", self.gm.user_id)
        for action, value in (("members", None), ("member", str(chosen.user_id))):
            if not await self._panel_press(action, value):
                return
        if await self._panel_press("role", f"{chosen.user_id}.co_gm"):
            self.co_gm = chosen.user_id

    async def _panel_press(self, action: str, value: str | None) -> bool:
        screens = [s for s in self.world.screens_in(self.gm.user_id) if _has(s, "gm:")]
        if not screens:
            return False
        screen = screens[-1]
        for label, data in screen.buttons():
            parts = data.split(":")
            if (
                parts[0] == "gm"
                and parts[4:5] == [action]
                and (value is None or ":".join(parts[5:]) == value)
            ):
                await self.world.press(self.gm.user, screen, data, label)
                await self.world.deliver()
                self.world.take_requests()
                return True
        return False

    async def join(self, someone: Someone, side: int | None, role: str) -> None:
        """«Join» in the group, the link's /start, the side and the role in private."""
        world = self.world
        joins = [s for s in world.screens_in(GROUP_ID) if _has(s, "jn:")]
        if joins:
            screen = joins[-1]
            label, data = next((label, d) for label, d in screen.buttons() if d.startswith("jn:"))
            await world.press(someone.user, screen, data, label)
        else:
            await world.write(someone.user, GROUP_ID, "/join")
        await world.write(someone.user, someone.user_id, f"/start join-{self.campaign_id or 0}")
        await world.deliver()
        world.take_requests()
        wanted = self.setup.sides[side] if side is not None and side < len(self.setup.sides) else ""
        for step in ("side", "role"):
            screens = [s for s in world.screens_in(someone.user_id) if _has(s, "jc:")]
            if not screens:
                return
            screen = screens[-1]
            options = [(label, d) for label, d in screen.buttons() if d.startswith("jc:")]
            if step == "side":
                chosen = [
                    (label, d) for label, d in options if wanted and wanted in label
                ] or options
            else:
                chosen = [(label, d) for label, d in options if d.endswith(f":{role}")] or options
            label, data = chosen[0] if step == "role" or wanted else self.rng.choice(chosen)
            await world.press(someone.user, screen, data, label)
            await world.deliver()
            world.take_requests()

    # ---- a step -------------------------------------------------------------------------------

    async def _campaign(self) -> Campaign | None:
        return await self.world.store.active_campaign(GROUP_ID) or (
            await self.world.store.campaign(self.campaign_id) if self.campaign_id else None
        )

    async def step(self, word: int) -> str:
        """One step of the campaign, its choices seeded by ``word``; what kind it was."""
        rng = random.Random(word)
        campaign = await self._campaign()
        if campaign is None:  # gone (ended and archived): only time passes
            await self.world.move_clock(self.world.clock.now() + timedelta(hours=1))
            return "tick"
        phase = campaign.phase
        strategists = await self._strategists(campaign)
        players = [p for p in self.people.values() if p.plan.kind in ("player", "removed")]
        gms = [self.gm] + ([self.people[self.co_gm]] if self.co_gm in self.people else [])
        anyone = [*list(self.people.values()), self.gm]
        kind = "tick"

        def chose(name: str, act: Callable[[], object]) -> Callable[[], object]:
            def run() -> object:
                nonlocal kind
                kind = name
                return act()

            return run

        manual = campaign.schedule.mode == "manual"
        orders_phase = phase is Phase.ORDERS
        gm_ends_it = (
            manual
            or phase is Phase.SETUP
            or campaign.status is CampaignStatus.PAUSED
            or (phase is Phase.DEPLOYMENT and campaign.schedule.deployment_deadline is None)
            # The deployment's deadline passed with a side not placed: the GMs were told to
            # place it, and a GM does.
            or (phase is Phase.DEPLOYMENT and await self._deadline_passed(campaign))
        )
        waiting = self._waiting_buttons(anyone)
        due = await self._unreported(campaign) if phase is Phase.BATTLES else []
        contact_orders = orders_phase and "contact" in self.setup.modules
        missing = await self._without_orders(strategists) if contact_orders else []
        action = weighted(
            rng,
            [
                (
                    (0.6 if manual else 2.0 if phase is Phase.BATTLES else 2.5),
                    chose("tick", lambda: self.tick(rng, campaign, due, bool(missing))),
                ),
                (
                    # A GM of a contact campaign mostly waits for every side's orders: a chain
                    # needs two sides' moves in the same turn.
                    (0.4 if missing else 2.0) if gm_ends_it else 0.15,
                    chose("advance", lambda: self.advance(rng, gms)),
                ),
                (
                    2.5 if orders_phase else 0.3,
                    chose("orders", lambda: self.typed_orders(rng, strategists)),
                ),
                (
                    2.5 if phase is Phase.DEPLOYMENT else 0.2,
                    chose("deploy", lambda: self.typed_placement(rng, strategists)),
                ),
                (
                    1.2 if orders_phase else 0.1,
                    chose("ready", lambda: self.ready(rng, strategists)),
                ),
                (
                    4.0 if phase in (Phase.BATTLES, Phase.RESOLUTION) else 0.2,
                    chose("battles", lambda: self.battles(rng, players)),
                ),
                (5.0 if due else 0.0, chose("report", lambda: self.report(rng, due, players))),
                (
                    3.0 if waiting else 0.3,
                    chose("inbox", lambda: self.inbox(rng, waiting or anyone)),
                ),
                (1.0, chose("gm", lambda: self.gm_walk(rng, gms))),
                (1.2, chose("walk", lambda: self.walk_command(rng, anyone))),
                (0.5, chose("stale", lambda: self.stale(rng, anyone))),
                (0.4, chose("forged", lambda: self.forged(rng, anyone))),
                (0.4, chose("wrong chat", lambda: self.wrong_chat(rng, anyone))),
                (0.2, chose("chatter", lambda: self.chatter(rng, anyone))),
                (0.3, chose("join", lambda: self.late_join(rng))),
                (0.15 if not self.removed else 0.0, chose("remove", lambda: self.remove(rng))),
            ],
        )
        if kind != "tick" and rng.random() < 0.3:
            minutes = timedelta(minutes=rng.randrange(1, 40))
            await self.world.move_clock(self.world.clock.now() + minutes)
        await action  # type: ignore[misc]
        await self.world.sweep_if_due()
        return kind

    async def _deadline_passed(self, campaign: Campaign) -> bool:
        """Whether the phase's deadline is behind the clock (the step waits at it)."""
        clock = await self.world.store.clock_state(campaign.id)
        return (
            clock is not None
            and clock.deadline is not None
            and clock.deadline < self.world.clock.now()
        )

    async def _strategists(self, campaign: Campaign) -> list[Someone]:
        members = await self.world.store.members(campaign.id)
        found = []
        for member in members:
            someone = self.people.get(member.user_id)
            if someone is None and member.user_id == GM_ID:
                someone = self.gm
            if (
                someone is not None
                and member.side_id is not None
                and any(role.value == "strategist" for role in member.roles)
            ):
                found.append(someone)
        return found or [self.gm]

    # ---- actions ------------------------------------------------------------------------------

    async def tick(
        self, rng: random.Random, campaign: Campaign, due: list[Battle], missing: bool
    ) -> None:
        """Time passes: to the next moment the bot planned (a reminder, a deadline), to the
        phase's deadline, or some hours; while battles wait for results, some hours at most."""
        now = self.world.clock.now()
        roll = rng.random()
        clock = await self.world.store.clock_state(campaign.id)
        if campaign.phase is Phase.ORDERS and clock is not None:
            opening = _orders_opening(campaign, clock, now)
            if opening is not None:
                # To the orders' opening (Tuesday): typed before it, nothing is saved.
                await self.world.move_clock(opening)
                return
            if "contact" in self.setup.modules and missing and roll < 0.75:
                # Not over the window while a side's orders are missing: a contact chain
                # needs two sides' moves in the same turn.
                later = now + timedelta(hours=rng.choice((1, 3, 6, 10)))
                if clock.deadline is None or later < clock.deadline:
                    await self.world.move_clock(later)
                    return
        if (
            roll < 0.4
            and campaign.phase is not Phase.BATTLES
            and clock is not None
            and clock.deadline is not None
            and clock.deadline > now
        ):
            # Not over the battles' weekend in one jump: results come in over it, between the
            # list and the Monday, and a chain's battle 1 is reported before its battle 2.
            await self.world.move_clock(clock.deadline)
            return
        planned = await self.world.scheduler.next_due(now)
        if due:
            # The battles' weekend in steps of hours while results are missing, so they come
            # in before the Monday (a chain's battle 2 after its battle 1), as a club plays.
            later = now + timedelta(hours=rng.choice((3, 6, 10, 16, 24)))
            await self.world.move_clock(later if planned is None else min(planned, later))
        elif planned is not None and roll < 0.85:
            await self.world.move_clock(planned)
        else:
            # Some hours; now and then the bot is down over them and catches up when it is back.
            hours = rng.choice((1, 3, 7, 20, 30))
            await self.world.move_clock(now + timedelta(hours=hours), bot_down=rng.random() < 0.1)

    async def advance(self, rng: random.Random, gms: list[Someone]) -> None:
        """A GM ends the phase now: /advance (or the panel's button), then «Yes», sometimes
        «No»; a stale question is pressed later by :meth:`stale`."""
        gm = rng.choice(gms)
        campaign = await self._campaign()
        if campaign is not None and campaign.status is CampaignStatus.PAUSED:
            await self._do(gm, rng.choice((GROUP_ID, gm.user_id)), "/resume")
            return
        if campaign is not None and campaign.phase is Phase.SETUP:
            # Undone back to the setup: the wizard's summary, then «Open deployment». A fixed end
            # of deployment has passed by now and the wizard refuses to open with it, so the GM
            # mostly chooses the deployment's length again first, as that refusal asks.
            await self._do(self.gm, GROUP_ID, "/newcampaign")
            if rng.random() < 0.8:
                await self._setup_go("schedule")
                await self._setup_press("dep", str(rng.choice((0, 3, 7))))
                await self._setup_press("go", "policy")  # the schedule's «Next ▶»
                await self._setup_go("summary")
            await self._setup_press("ok")
            return
        if (
            campaign is not None
            and campaign.phase is Phase.DEPLOYMENT
            and rng.random() < 0.7
            and await missing_placements(self.world.store, campaign)
        ):
            # Deployment ends only once every side is placed: a side nobody placed is placed
            # by the GM (its default placement), as the advance question tells.
            await self._do(gm, gm.user_id, "/gm")
            for ending in (":place", ":placeside", ":placedef"):
                if not await self._press_in(gm, gm.user_id, ending):
                    break
            return
        if rng.random() < 0.6:
            await self._do(gm, rng.choice((GROUP_ID, gm.user_id)), "/advance")
        else:
            await self._do(gm, gm.user_id, "/gm")
            if not await self._press_in(gm, gm.user_id, ":ask"):
                return
        if rng.random() < 0.85:
            await self._press_in(gm, gm.user_id, ":advance", ":force", ":ok")
        else:
            await self._press_in(gm, gm.user_id, ":no")

    async def _press_in(self, someone: Someone, chat: int, *endings: str) -> bool:
        """Press the first button whose data ends with one of ``endings`` (or holds it) on
        the newest screen of ``chat`` (or the group) that has one."""
        for where in (chat, GROUP_ID):
            for screen in reversed(self.world.screens_in(where)):
                for label, data in screen.buttons():
                    if any(data.endswith(e) or f"{e}:" in data for e in endings):
                        await self.world.press(someone.user, screen, data, label)
                        self.world.take_requests()
                        return True
        return False

    def _waiting_buttons(self, anyone: list[Someone]) -> list[Someone]:
        """Who has a post with buttons that waits for them (a weather choice, a duel step,
        a late card, a dispute, a join request, a reward)."""
        waiting = []
        for someone in anyone:
            for screen in self.world.screens_in(someone.user_id)[-4:]:
                if any(d.startswith(WAITING) for _, d in screen.buttons()):
                    waiting.append(someone)
                    break
        return waiting

    async def inbox(self, rng: random.Random, who: list[Someone]) -> None:
        """Someone answers a post with buttons in their private chat."""
        someone = rng.choice(who)
        screens = [s for s in self.world.screens_in(someone.user_id)[-5:] if s.buttons()]
        if not screens:
            return
        screen = screens[-1] if rng.random() < 0.7 else rng.choice(screens)
        label, data = rng.choice(screen.buttons())
        await self.world.press(someone.user, screen, data, label)
        self.world.take_requests()
        await self.walk(rng, someone, (someone.user_id,), rng.randrange(0, 4))

    async def _do(self, someone: Someone, chat: int, text: str) -> None:
        await self.world.write(someone.user, chat, text)
        self.world.take_requests()

    async def walk(
        self,
        rng: random.Random,
        someone: Someone,
        chats: Sequence[int],
        presses: int,
        bias: Callable[[str, str], float] | None = None,
    ) -> None:
        """``presses`` presses on the newest screens of ``chats``, typing an answer where the
        newest message asks for one."""
        start = self.world.step
        for _ in range(presses):
            screens = [s for chat in chats for s in self.world.screens_in(chat) if s.step >= start]
            if not screens:
                return
            newest = max(screens, key=lambda s: s.message_id)
            if (newest.force_reply or _asks_to_type(newest.text)) and rng.random() < 0.8:
                await self._do(someone, newest.chat_id, self.answer_for(newest.text, rng))
                continue
            with_buttons = [s for s in screens if s.buttons()]
            if not with_buttons:
                return
            screen = max(with_buttons, key=lambda s: s.message_id)
            if rng.random() < 0.15 and len(with_buttons) > 1:
                screen = rng.choice(with_buttons)
            options = screen.buttons()
            weights = [_weight(label, data, bias) for label, data in options]
            label, data = rng.choices(options, weights=weights)[0]
            await self.world.press(someone.user, screen, data, label)
            self.world.take_requests()

    async def gm_walk(self, rng: random.Random, gms: list[Someone]) -> None:
        """A GM's tools: the panel (mostly in private), or a time command."""
        gm = rng.choice(gms)
        if rng.random() < 0.75:
            chat = gm.user_id if rng.random() < 0.7 else GROUP_ID
            await self._do(gm, chat, "/gm")
        else:
            await self._do(gm, rng.choice((GROUP_ID, gm.user_id)), rng.choice(GM_COMMANDS))
        await self.walk(rng, gm, (gm.user_id, GROUP_ID), rng.randrange(1, 5), _gm_bias)
        await self._gm_answers(rng, gm)

    async def _gm_answers(self, rng: random.Random, gm: Someone) -> None:
        """Posts to a GM with buttons (a dispute, a join request, a blocked step) get a tap."""
        screens = [
            s
            for s in self.world.screens_in(gm.user_id)
            if any(d.startswith(("pv:", "jv:", "rc:")) for _, d in s.buttons())
        ]
        if screens and rng.random() < 0.6:
            screen = rng.choice(screens[-3:])
            label, data = rng.choice(screen.buttons())
            await self.world.press(gm.user, screen, data, label)
            self.world.take_requests()
            await self.walk(rng, gm, (gm.user_id,), rng.randrange(0, 3), _gm_bias)

    async def walk_command(self, rng: random.Random, anyone: list[Someone]) -> None:
        """Someone opens a screen by a command and presses around."""
        someone = rng.choice(anyone)
        if rng.random() < 0.7:
            chat, command = someone.user_id, rng.choice(PRIVATE_COMMANDS)
        else:
            chat, command = GROUP_ID, rng.choice(GROUP_COMMANDS)
        if chat != GROUP_ID and "watch" in self.setup.modules and rng.random() < 0.35:
            command = "/hand"  # a hand is the secret most easily leaked: shown often
        elif rng.random() < 0.04:
            command = "/calendar"  # an .ics file: rare, as drawing one is slow
        await self._do(someone, chat, command)
        await self.walk(rng, someone, (chat,), rng.randrange(0, 4))

    async def typed_orders(self, rng: random.Random, strategists: list[Someone]) -> None:
        """A strategist types orders, one a line, in their language; some are nearly valid.
        In a contact campaign, mostly one of a side that has given none yet this turn: its
        chains need two sides' moves into a third's sector in the same turn."""
        someone = rng.choice(strategists)
        if "contact" in self.setup.modules and rng.random() < 0.8:
            someone = rng.choice(await self._without_orders(strategists) or [someone])
            await self._until_orders_open()
        lines = await self.order_lines(rng, someone)
        if not lines:
            await self._do(someone, someone.user_id, "/orders")
            await self.walk(rng, someone, (someone.user_id,), rng.randrange(1, 6), _orders_bias)
            return
        await self._do(someone, someone.user_id, "\n".join(lines))
        if rng.random() < 0.3:
            await self.walk(rng, someone, (someone.user_id,), rng.randrange(1, 4), _orders_bias)

    async def _until_orders_open(self) -> None:
        """The clock to the orders' opening when they are not open yet (typed before it,
        nothing is saved)."""
        campaign = await self._campaign()
        if campaign is None or campaign.phase is not Phase.ORDERS:
            return
        clock = await self.world.store.clock_state(campaign.id)
        opening = _orders_opening(campaign, clock, self.world.clock.now())
        if opening is not None:
            await self.world.move_clock(opening)

    async def _without_orders(self, strategists: list[Someone]) -> list[Someone]:
        """The ``strategists`` whose side has saved no orders this turn."""
        campaign = await self._campaign()
        if campaign is None:
            return []
        given = await self.world.store.orders_for_turn(campaign.id, campaign.turn)
        members = {m.user_id: m.side_id for m in await self.world.store.members(campaign.id)}
        return [p for p in strategists if members.get(p.user_id) not in given]

    async def order_lines(self, rng: random.Random, someone: Someone) -> list[str]:
        campaign = await self._campaign()
        if campaign is None or self.campaign_id is None:
            return []
        member = await self.world.store.member(campaign.id, someone.user_id)
        if member is None or member.side_id is None:
            return []
        state = await self.world.store.turn_start(campaign.id, campaign.turn)
        if state is None:
            return []
        game = game_for(campaign)
        options = legal_orders(game, state, member.side_id)
        names = {side.id: side.name for side in await self.world.store.sides(campaign.id)}
        focus = sorted(game.map.order)[(campaign.turn * 7 + self.script.seed) % len(game.map.order)]
        contact = "contact" in self.setup.modules
        chain_at = _chain_focus(game.map, state) if contact else None
        focus = chain_at or focus
        gather = None if chain_at is not None or not contact else _chain_target(game.map, state)
        orders: list[Move | Attack | Reinforce] = []
        for sector in options.sectors:
            roll = rng.random()
            closer = (
                None
                if gather is None or sector.move is None
                else _closer(game.map, state, member.side_id, sector.sector, gather, sector.move)
            )
            if (
                chain_at is not None
                and sector.move is not None
                and chain_at in sector.move.destinations
                and roll < 0.8
            ):
                # Into contact, with all it can: two sides arriving where a third stands make a
                # chain (MODULES.md C6), the seam random orders seldom reach.
                orders.append(Move(source=sector.sector, to=chain_at, count=sector.move.max_count))
            elif gather is not None and closer is not None and roll < 0.8:
                # No two sides can reach a third's sector yet: they close on one over the turns
                # (a group next to it waits there for the second), so that they arrive together.
                if closer != gather and sector.move is not None:
                    orders.append(
                        Move(source=sector.sector, to=closer, count=sector.move.max_count)
                    )
            elif (
                contact
                and sector.move is not None
                and (enemy := _enemy_next_door(state, member.side_id, sector.move.destinations))
                and roll < 0.7
            ):
                # A group that borders an enemy moves into contact with it.
                to = rng.choice(enemy)
                orders.append(Move(source=sector.sector, to=to, count=sector.move.max_count))
            elif sector.attack is not None and sector.attack.targets and roll < 0.5:
                for _ in range(rng.randint(1, sector.attack.limit)):
                    orders.append(
                        Attack(sector=sector.sector, target=rng.choice(sector.attack.targets))
                    )
            elif sector.move is not None and sector.move.destinations and roll < 0.85:
                to = (
                    focus
                    if focus in sector.move.destinations
                    else rng.choice(sector.move.destinations)
                )
                count = rng.randint(sector.move.min_count, sector.move.max_count)
                orders.append(Move(source=sector.sector, to=to, count=count))
        if options.reinforce:
            orders.append(Reinforce(sector=rng.choice(options.reinforce)))
        rng.shuffle(orders)
        orders.sort(
            key=lambda order: (
                not (isinstance(order, Move) and (order.to == chain_at or gather is not None))
            )
        )
        orders = orders[: rng.randint(1, max(1, len(orders)))]
        language = someone.plan.language
        lines = []
        with self.world.i18n.context(), self.world.i18n.use_locale(language):
            for order in orders:
                line = describe_order(order, game.map, names, language)
                if rng.random() < 0.15:
                    line = _nearly(line, rng)
                lines.append(line)
        if rng.random() < 0.2:
            lines.append(rng.choice(CHATTER))
        return lines

    async def typed_placement(self, rng: random.Random, strategists: list[Someone]) -> None:
        """A strategist places the side's armies in one typed line, or by buttons."""
        someone = rng.choice(strategists)
        if rng.random() < 0.3:
            await self._do(someone, someone.user_id, "/deploy")
            await self.walk(rng, someone, (someone.user_id,), rng.randrange(1, 12), _deploy_bias)
            return
        campaign = await self._campaign()
        if campaign is None:
            return
        ruleset = game_for(campaign).ruleset
        wanted = min(ruleset.start_sectors, len(self.map.order))
        sectors = rng.sample(sorted(self.map.order), wanted)
        if "contact" in self.setup.modules and rng.random() < 0.8:
            sectors = await self._own_ground(someone, wanted, rng) or sectors
        armies = [1] * len(sectors)
        for _ in range(ruleset.start_armies - len(sectors)):
            armies[rng.randrange(len(armies))] += 1
        style = rng.random()
        parts = []
        for sector, count in zip(sectors, armies, strict=True):
            name = sector
            if style < 0.4:
                name = self.map.by_id[sector].display_name(someone.plan.language)
            parts.append(f"{name}{rng.choice((':', '=', ': '))}{count}")
        line = (", " if style < 0.4 else " ").join(parts)
        if rng.random() < 0.15:
            line = _nearly(line, rng)
        await self._do(someone, someone.user_id, line)

    async def _own_ground(self, someone: Someone, wanted: int, rng: random.Random) -> list[str]:
        """``wanted`` sectors for ``someone``'s side apart from the other sides' (the map's
        sectors dealt round the sides in map order), as a contact campaign's sides start: a
        side that shares a sector is bound by combat there and cannot move into contact."""
        member = (
            None
            if self.campaign_id is None
            else await self.world.store.member(self.campaign_id, someone.user_id)
        )
        if member is None or member.side_id not in self.side_ids:
            return []
        index, count = self.side_ids.index(member.side_id), len(self.side_ids)
        ground = [s for i, s in enumerate(self.map.order) if i % count == index]
        if len(ground) < wanted:
            return []
        return rng.sample(ground, wanted)

    async def ready(self, rng: random.Random, strategists: list[Someone]) -> None:
        """A strategist reviews the orders and marks them ready."""
        someone = rng.choice(strategists)
        await self._do(someone, someone.user_id, "/orders")
        for action in (":rev:", ":ok:"):
            screens = [s for s in self.world.screens_in(someone.user_id) if _has(s, "po:")]
            if not screens:
                return
            screen = screens[-1]
            found = [(label, d) for label, d in screen.buttons() if action in d + ":"]
            if not found:
                return
            label, data = found[0]
            await self.world.press(someone.user, screen, data, label)
            self.world.take_requests()

    async def battles(self, rng: random.Random, players: list[Someone]) -> None:
        """A player opens /battles and reports, confirms or disputes; or a GM decides."""
        if not players or rng.random() < 0.15:
            gm = self.gm if self.co_gm is None or rng.random() < 0.5 else self.people[self.co_gm]
            await self._gm_answers(random.Random(rng.random()), gm)
            await self._do(gm, gm.user_id, "/battles")
            await self.walk(rng, gm, (gm.user_id,), rng.randrange(1, 5), _battles_bias)
            return
        someone = rng.choice(players)
        await self._do(someone, someone.user_id, "/battles")
        # A report takes four presses (the battle, the outcome, the winner, a slain warlord?).
        await self.walk(rng, someone, (someone.user_id,), rng.randrange(2, 8), _battles_bias)

    async def _unreported(self, campaign: Campaign) -> list[Battle]:
        """The listed battles of the turn with no result that counts yet, in battle order (a
        chain's battle 1 before its battle 2)."""
        listed = await self.world.store.battle_list(campaign.id, campaign.turn)
        if listed is None:
            return []
        reports = {
            r.battle: r for r in await self.world.store.battle_reports(campaign.id, campaign.turn)
        }
        sources = {b.defender_from for b in listed.battles}
        return [
            battle
            for battle in listed.battles
            if (battle.id not in reports or reports[battle.id].effective() is None)
            # A quarter of the battles that no chain depends on are left to silence (a draw
            # without a result, which the end summary counts), as in a club.
            and (battle.id in sources or (self.script.seed + 7 * campaign.turn + battle.id) % 4)
        ]

    async def report(self, rng: random.Random, due: list[Battle], players: list[Someone]) -> None:
        """A player of a battle still without a result reports it: /battles, the battle's
        «Report» (only as the screen offers it: the bot decides who may), an outcome (the
        attacker's win as likely as the rest, as it hands a chain's next battle to another
        defender, MODULES.md C6), the winner, the warlords. The earliest such battle mostly,
        as a club plays a chain in order."""
        battle = due[0] if rng.random() < 0.75 else rng.choice(due)
        campaign = await self._campaign()
        if campaign is None:
            return
        members = await self.world.store.members(campaign.id)
        side_of = {m.user_id: m.side_id for m in members}
        concerned = [p for p in [*players, self.gm] if side_of.get(p.user_id) in battle.armies]
        if not concerned:
            return
        someone = rng.choice(concerned)
        await self._do(someone, someone.user_id, "/battles")
        # In a contact campaign more often: the attacker's win is what hands a chain's next
        # battle to another defender, the seam a chain has.
        attacker_wins = rng.random() < (0.65 if "contact" in self.setup.modules else 0.5)
        for press in range(5):
            screens = [s for s in self.world.screens_in(someone.user_id) if _has(s, "pr:")]
            if not screens:
                return
            screen = screens[-1]
            options = [
                (label, data)
                for label, data in screen.buttons()
                if data.startswith("pr:") and data.split(":")[4:5] == [str(battle.id)]
            ]
            if press and not any(data.split(":")[5] in ("out", "win", "wl") for _, data in options):
                return  # reported: the list again
            chosen = _report_choice(options, attacker_wins, rng)
            if chosen is None:
                return
            label, data = chosen
            await self.world.press(someone.user, screen, data, label)
            self.world.take_requests()

    def _all_buttons(self, but: int) -> list[tuple[Screen, str, str]]:
        return [
            (screen, label, data)
            for (chat, _), screen in self.world.screens.items()
            if chat != but
            for label, data in screen.buttons()
        ]

    async def stale(self, rng: random.Random, anyone: list[Someone]) -> None:
        """A press of an old message in one's own chat (or the group)."""
        someone = rng.choice(anyone)
        screens = [
            s
            for chat in (someone.user_id, GROUP_ID)
            for s in self.world.screens_in(chat)
            if s.buttons()
        ]
        if not screens:
            return
        screen = rng.choice(screens)
        label, data = rng.choice(screen.buttons())
        await self.world.press(someone.user, screen, data, label)
        self.world.take_requests()

    async def forged(self, rng: random.Random, anyone: list[Someone]) -> None:
        """A press with another chat's button data, or with a field changed."""
        someone = rng.choice(anyone)
        found = self._all_buttons(someone.user_id)
        if not found:
            return
        _screen, _label, data = rng.choice(found)
        if rng.random() < 0.5:
            parts = data.split(":")
            index = rng.randrange(len(parts))
            parts[index] = rng.choice(("0", "1", "-1", "999999999999", "x", "", parts[index] + "1"))
            data = ":".join(parts)[:64]
        chat = someone.user_id if rng.random() < 0.8 else GROUP_ID
        await self.world.forge(someone.user, chat, data)
        self.world.take_requests()

    async def wrong_chat(self, rng: random.Random, anyone: list[Someone]) -> None:
        """A private command in the group, a group command in private, orders in the group."""
        someone = rng.choice(anyone)
        roll = rng.random()
        if roll < 0.4:
            await self._do(someone, GROUP_ID, rng.choice(PRIVATE_COMMANDS))
        elif roll < 0.7:
            await self._do(someone, someone.user_id, rng.choice((*GROUP_COMMANDS, "/newcampaign")))
        else:
            lines = await self.order_lines(rng, someone)
            await self._do(someone, GROUP_ID, "\n".join(lines) or "attack red in 1")

    async def chatter(self, rng: random.Random, anyone: list[Someone]) -> None:
        """Text nobody asked for."""
        someone = rng.choice(anyone)
        chat = rng.choice((GROUP_ID, someone.user_id))
        await self._do(someone, chat, rng.choice(CHATTER))

    async def late_join(self, rng: random.Random) -> None:
        """The late joiner, the outsider or the removed player asks to join."""
        outsiders = [p for p in self.people.values() if p.plan.kind == "outsider"]
        if outsiders and rng.random() < 0.3:
            await self._do(outsiders[0], GROUP_ID, "/join")
            await self._do(outsiders[0], outsiders[0].user_id, f"/start join-{self.campaign_id}")
            return
        hopefuls = [p for p in self.people.values() if p.plan.kind == "late"]
        if self.removed:
            hopefuls += [p for p in self.people.values() if p.plan.kind == "removed"]
        if not hopefuls:
            return
        someone = rng.choice(hopefuls)
        side = (
            someone.plan.side
            if someone.plan.side is not None
            else rng.randrange(len(self.setup.sides))
        )
        await self.join(someone, side, rng.choice(("strategist", "tactician")))

    async def remove(self, rng: random.Random) -> None:
        """The GM removes the player who will keep their buttons."""
        removed = [p for p in self.people.values() if p.plan.kind == "removed"]
        if not removed or self.campaign_id is None:
            return
        await self._gm_says("/gm", self.gm.user_id)
        target = str(removed[0].user_id)
        if (
            await self._panel_press("members", None)
            and await self._panel_press("member", target)
            and await self._panel_press("kick", target)
        ):
            self.removed = True
        await self.walk(rng, self.gm, (self.gm.user_id,), 2, _gm_bias)

    async def end(self, rng: random.Random) -> None:
        """The GM ends the campaign: the panel's «End», «Yes», the reason typed."""
        campaign = await self._campaign()
        if campaign is None or campaign.status is CampaignStatus.FINISHED:
            return
        if campaign.phase is Phase.SETUP:
            return
        await self._gm_says("/gm", self.gm.user_id)
        if await self._panel_press("end", None) and await self._panel_press("end!", None):
            await self._gm_says(rng.choice(REASONS), self.gm.user_id)

    # ---- words --------------------------------------------------------------------------------

    def answer_for(self, asked: str, rng: random.Random) -> str:
        """What someone types when a message asks for words: by what it asks."""
        text = asked.lower()
        sides = self.setup.sides
        table: list[tuple[tuple[str, ...], Sequence[str]]] = [
            (("reason", "причин"), REASONS),
            (("hour", "час"), ("24", "3", "100", "0")),
            (("schedule", "расписан", "four moments", "четыре"), SCHEDULES),
            (("deadline", "срок", "date", "дату", "день", "day"), DATES),
            (("placement", "расстанов", "sector:armies", "сектор:арми"), ("1:4 2:3 3:3", "1:10")),
            (("hero", "геро", "ин"), (f"Vera, {sides[0]}, 3, {self.map.sectors[0].name}",)),
            (("deck", "колод"), ("A1 A2 A3 D1 D2", "X2", "default")),
            (("strength", "сил"), ("12", "0", "1000")),
            (("card", "карт", "change", "измен"), (f"{sides[-1]} 1 +1", "VP 1 +1", "weather +1")),
            (("side", "сторон", "name", "назван", "имя"), ("Новые", "Late Side", sides[0])),
            (("zone", "пояс"), ("Omsk", "Asia/Kolkata", "Нигде")),
            (("margin", "очк", "points"), ("1 5 10", "3")),
        ]
        for words, answers in table:
            if any(word in text for word in words):
                return rng.choice(answers)
        return rng.choice((*REASONS, *DATES, "1:4 2:3 3:3", "/cancel"))


def _orders_opening(campaign: Campaign, clock: ClockState | None, now: datetime) -> datetime | None:
    """When the orders of the campaign's orders phase open, if they are not open yet at
    ``now``."""
    if clock is None:
        return None
    opening = orders_open_at(
        clock.anchor, clock.deadline, campaign.schedule, ZoneInfo(campaign.time_zone)
    )
    return opening if opening is not None and opening > now else None


def _chain_focus(campaign_map: CampaignMap, state: CampaignState) -> str | None:
    """Where a contact campaign's sides converge this turn: the held sector that most other
    sides can reach (two of them arriving make a chain, MODULES.md C6), ties by map order. The
    same for every side (it reads only the turn's start), so their moves meet; ``None`` where
    no two sides can reach a sector a third holds."""
    best: tuple[int, int] | None = None
    chosen = None
    for index, sector in enumerate(campaign_map.ids):
        held = set(state.occupants(sector))
        if not held:
            continue
        reaching = {
            side
            for side in state.sides()
            if side not in held
            and any(
                count > 1 and campaign_map.adjacent(source, sector)
                for source, count in state.armies.get(side, {}).items()
            )
        }
        if len(reaching) < 2:
            continue
        score = (len(reaching), -index)
        if best is None or score > best:
            best, chosen = score, sector
    return chosen


def _chain_target(campaign_map: CampaignMap, state: CampaignState) -> str | None:
    """Where a contact campaign's sides close in over the next turns when :func:`_chain_focus`
    finds no sector two can reach now: the held sector whose second-nearest other side (by its
    groups that can move) is nearest, then the nearer first, ties by map order; ``None`` where
    fewer than two other sides have a group that can move."""
    best: tuple[int, int, int] | None = None
    chosen = None
    for index, sector in enumerate(campaign_map.ids):
        held = set(state.occupants(sector))
        if not held:
            continue
        near = sorted(
            min(
                _steps(campaign_map, source, sector)
                for source, count in state.armies.get(side, {}).items()
                if count > 1
            )
            for side in state.sides()
            if side not in held and any(count > 1 for count in state.armies.get(side, {}).values())
        )
        if len(near) < 2:
            continue
        score = (near[1], near[0], index)
        if best is None or score < best:
            best, chosen = score, sector
    return chosen


def _closer(
    campaign_map: CampaignMap,
    state: CampaignState,
    side: str,
    source: str,
    target: str,
    move: MoveOption,
) -> str | None:
    """Where the group in ``source`` steps to close on ``target``: a destination nearer to it
    that no other side holds (a battle on the way would stop it); ``target`` itself for a
    group already next to it, which waits there; ``None`` when it cannot close in."""
    here = _steps(campaign_map, source, target)
    if here <= 1 or not move.destinations:
        return target
    steps = [
        to
        for to in move.destinations
        if _steps(campaign_map, to, target) < here
        and all(other == side for other in state.occupants(to))
    ]
    return min(steps, key=lambda to: campaign_map.order[to]) if steps else None


def _steps(campaign_map: CampaignMap, a: str, b: str) -> int:
    """Neighbour steps from ``a`` to ``b``; many when ``b`` cannot be reached."""
    try:
        return campaign_map.distance(a, b)
    except KeyError:
        return 99


def _enemy_next_door(state: CampaignState, side: str, destinations: Sequence[str]) -> list[str]:
    """The ``destinations`` another side holds armies in."""
    return [to for to in destinations if any(o != side for o in state.occupants(to))]


def _has(screen: Screen, prefix: str) -> bool:
    return any(data.startswith(prefix) for _, data in screen.buttons())


def _asks_to_type(text: str) -> bool:
    lowered = text.lower()
    return any(
        hint in lowered
        for hint in ("reply to this message", "ответьте на это сообщение", "type the", "напишите")
    )


def _weight(label: str, data: str, bias: Callable[[str, str], float] | None) -> float:
    parts = data.split(":")
    weight = 0.15 if any(part in RARE for part in parts) else 1.0
    if bias is not None:
        weight *= bias(label, data)
    return weight


def _gm_bias(_label: str, data: str) -> float:
    return 3.0 if data.startswith(("clk:", "clkc:", "gm:", "pv:")) else 1.0


def _orders_bias(_label: str, data: str) -> float:
    return 3.0 if data.startswith("po:") else 1.0


def _deploy_bias(_label: str, data: str) -> float:
    if not data.startswith("pd:"):
        return 0.5
    return 3.0 if ":+" in data or ":ok" in data else 1.0


def _battles_bias(_label: str, data: str) -> float:
    if not data.startswith(("pr:", "pv:")):
        return 0.5
    parts = data.split(":")
    if data.startswith("pr:") and len(parts) > 7:
        action, winner = parts[5], parts[7]
        if action == "list":
            return 1.0
        if action == "pick" and parts[4].isdigit():
            # Earlier battles first, as a club plays a chain: battle k's result decides who
            # defends battle k+1.
            return 4.0 + 8.0 / max(1, int(parts[4]))
        if action == "win" and winner == "0":
            # The attacker's win is the result that hands a chain's next battle to another
            # defender (MODULES.md C6): as likely as the other results together.
            return 8.0
    return 4.0


def _report_choice(
    options: list[tuple[str, str]], attacker_wins: bool, rng: random.Random
) -> tuple[str, str] | None:
    """The next press of a report of one battle: «Report» (``pick``), an outcome (a victory
    when ``attacker_wins``), the winner (the attacker, index 0, when ``attacker_wins``), no
    slain warlord mostly; ``None`` when the screen offers none of them."""

    def action(data: str) -> str:
        return data.split(":")[5]

    for wanted in ("wl", "win", "out", "pick"):
        found = [(label, data) for label, data in options if action(data) == wanted]
        if not found:
            continue
        if wanted == "wl":
            plain = [o for o in found if o[1].split(":")[6].endswith(".0")]
            return plain[0] if plain and rng.random() < 0.7 else rng.choice(found)
        if wanted == "win":
            if attacker_wins:
                first = [o for o in found if o[1].split(":")[7] == "0"]
                if first:
                    return first[0]
            return rng.choice(found)
        if wanted == "out" and attacker_wins:
            # A victory outcome leads to the winner's buttons; a suggested result
            # («✅ Report: ...», an ``out`` or ``win``) counts too.
            victories = [o for o in found if o[1].split(":")[6] not in ("d", "b", "")]
            return rng.choice(victories or found)
        return rng.choice(found)
    return None


def _nearly(line: str, rng: random.Random) -> str:
    """``line`` nearly right: a number off, a letter lost, a word doubled."""
    roll = rng.random()
    if roll < 0.3:
        digits = [i for i, ch in enumerate(line) if ch.isdigit()]
        if digits:
            i = rng.choice(digits)
            return line[:i] + str((int(line[i]) + rng.randint(1, 8)) % 10) + line[i + 1 :]
    if roll < 0.6 and len(line) > 4:
        i = rng.randrange(len(line))
        return line[:i] + line[i + 1 :]
    if roll < 0.8:
        words = line.split()
        return " ".join([*words, words[-1]]) if words else line
    return line.upper()
