"""What storage keeps, as typed records: the repository takes these in and gives these out.

Records are frozen pydantic models. Rules data (state, orders, battles, results, reports) are
the rules core's own models, stored as their JSON. Times are timezone-aware; storage keeps them
in UTC and never reads a clock: every write takes ``now`` from its caller.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from datetime import datetime, time
from enum import IntEnum, StrEnum
from typing import Any, Literal
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from pydantic import AwareDatetime, BaseModel, ConfigDict, Field, JsonValue, field_validator

from rules import (
    Battle,
    BattleResult,
    BattleSides,
    BattleStatus,
    CampaignMap,
    CampaignState,
    ModuleOrder,
    Rejection,
    Roll,
    SideOrders,
    TurnReport,
    TurnSeeds,
    as_fought,
    battle_sides,
    counted_results,
)
from rules.table import ScoreMargins
from storage.names import DisplayName

CampaignId = int
UserId = int
ChatId = int
SectorId = str
SideId = str

_RECORD = ConfigDict(frozen=True, extra="forbid")

Language = Literal["en", "ru"]


class CampaignStatus(StrEnum):
    """Where a campaign is in its life, as the GM sees it (separate from the turn's phase)."""

    SETUP = "setup"
    DEPLOYMENT = "deployment"
    RUNNING = "running"
    PAUSED = "paused"
    FINISHED = "finished"


class Phase(StrEnum):
    """The phase of the campaign's clock (RULES.md 3): one (turn, phase) pair at a time."""

    SETUP = "setup"
    DEPLOYMENT = "deployment"
    ORDERS = "orders"
    BATTLES = "battles"
    RESOLUTION = "resolution"
    FINISHED = "finished"


class Role(StrEnum):
    """What a person may do in a campaign (RULES.md 2). A person may hold several roles."""

    GM = "gm"
    CO_GM = "co_gm"
    STRATEGIST = "strategist"
    TACTICIAN = "tactician"

    @property
    def needs_side(self) -> bool:
        """Strategists and tacticians belong to a side; GMs do not."""
        return self in (Role.STRATEGIST, Role.TACTICIAN)


GM_ROLES = frozenset({Role.GM, Role.CO_GM})

BOT_ACTOR: UserId = 0
"""The actor of what the bot writes on its own, such as the orders it enters for a side that
gave none (no Telegram account has id 0)."""


class UnreportedPolicy(StrEnum):
    """What resolution does with a battle that has no result (RULES.md 3.4)."""

    DRAW = "draw"
    WAIT_FOR_GM = "wait_for_gm"


class NoShowPolicy(StrEnum):
    """What the orders' close does with a side in play that gave no orders (issue 23)."""

    HOLD = "hold"  # every sector fortified, the reinforcement by the default rule
    REPEAT = "repeat"  # last turn's orders again, each checked against the new state
    WAIT_FOR_GM = "wait_for_gm"  # the orders stay open until a GM reopens or closes them


class JoiningPolicy(StrEnum):
    """Who may join a campaign by themselves, and when a GM approves each new player instead.

    Joining gives a person their side's secrets, so after deployment it is the GM's call."""

    OPEN_THEN_APPROVAL = "open_then_approval"  # open in setup and deployment, then approved
    APPROVAL = "approval"  # a GM approves every new player
    OPEN_THEN_CLOSED = "open_then_closed"  # open in setup and deployment, then nobody joins


class Weekday(IntEnum):
    """Day of the week, Monday = 0 as in :meth:`datetime.weekday`."""

    MONDAY = 0
    TUESDAY = 1
    WEDNESDAY = 2
    THURSDAY = 3
    FRIDAY = 4
    SATURDAY = 5
    SUNDAY = 6


class WeeklyTime(BaseModel):
    """A moment of the week in the campaign's time zone."""

    model_config = _RECORD

    weekday: Weekday
    at: time


class Schedule(BaseModel):
    """The weekly rhythm of RULES.md 3.2-3.4, in the campaign's time zone."""

    model_config = _RECORD

    orders_open: WeeklyTime = WeeklyTime(weekday=Weekday.TUESDAY, at=time(0, 0))
    orders_close: WeeklyTime = WeeklyTime(weekday=Weekday.THURSDAY, at=time(23, 59))
    battle_list: WeeklyTime = WeeklyTime(weekday=Weekday.FRIDAY, at=time(12, 0))
    resolution: WeeklyTime = WeeklyTime(weekday=Weekday.MONDAY, at=time(12, 0))
    deployment_deadline: AwareDatetime | None = None
    # Deployment ends as soon as every side has confirmed its placement (RULES.md 3.1); False
    # (the wizard's «Until I end it»): only its deadline, if any, or the GM end it.
    deployment_ends_when_placed: bool = True
    mode: Literal["weekly", "manual"] = "weekly"  # manual: the GM advances every phase
    close_orders_early: bool = False  # close the orders window once every side is ready
    max_extension_hours: int = Field(default=72, ge=0, le=24 * 14)  # per phase, in all
    # The battles phase lasts at least this long from the battle list's post, on the wall clock
    # (None: the schedule's own battle list to resolution, 72 h by default): an orders window
    # extended past the battle list's time moves the resolution instead of shortening it.
    min_battles_hours: int | None = Field(default=None, ge=1, le=24 * 14)
    # An orders window stays open at least this long from its opening, on the wall clock (None:
    # the schedule's own opening to close, Tue 00:00 to Thu 23:59 by default): a turn that
    # begins late in the week (a long battles phase, a late deployment) closes later instead.
    min_orders_hours: int | None = Field(default=None, ge=1, le=24 * 14)


def _check_time_zone(value: str) -> str:
    try:
        ZoneInfo(value)
    except (ZoneInfoNotFoundError, ValueError) as error:
        raise ValueError(f"unknown time zone {value!r}") from error
    return value


class CampaignSettings(BaseModel):
    """What a GM may change after creation; ``None`` leaves a field as it is."""

    model_config = _RECORD

    title: str | None = Field(default=None, min_length=1, max_length=128)
    time_zone: str | None = None
    schedule: Schedule | None = None
    ruleset_overrides: dict[str, JsonValue] | None = None
    map: str | CampaignMap | None = None
    unreported_policy: UnreportedPolicy | None = None
    language: Language | None = None
    joining: JoiningPolicy | None = None
    score_margins: ScoreMargins | None = None
    no_show_policy: NoShowPolicy | None = None

    @field_validator("time_zone")
    @classmethod
    def _zone(cls, value: str | None) -> str | None:
        return None if value is None else _check_time_zone(value)


class NewCampaign(BaseModel):
    """A campaign to create. ``thread_id`` is the forum topic (0 for a group without topics)."""

    model_config = _RECORD

    chat_id: ChatId
    thread_id: int = 0
    title: str = Field(min_length=1, max_length=128)
    time_zone: str = "UTC"
    schedule: Schedule = Schedule()
    ruleset_overrides: dict[str, JsonValue] = Field(default_factory=dict)
    map: str | CampaignMap = "planet-5"
    unreported_policy: UnreportedPolicy = UnreportedPolicy.DRAW
    language: Language = "en"
    created_by: UserId
    creator_name: str = Field(min_length=1, max_length=128)

    @field_validator("time_zone")
    @classmethod
    def _zone(cls, value: str) -> str:
        return _check_time_zone(value)


class Campaign(BaseModel):
    """A campaign as stored: settings plus where its clock stands (turn, phase, status)."""

    model_config = _RECORD

    id: CampaignId
    chat_id: ChatId
    thread_id: int
    title: str
    time_zone: str
    schedule: Schedule
    ruleset_overrides: dict[str, JsonValue]
    map: str | CampaignMap
    unreported_policy: UnreportedPolicy
    status: CampaignStatus
    phase: Phase
    turn: int
    created_by: UserId
    created_at: AwareDatetime
    updated_at: AwareDatetime
    language: Language = "en"
    status_message_id: int | None = None
    joining: JoiningPolicy = JoiningPolicy.OPEN_THEN_APPROVAL
    score_margins: ScoreMargins = ScoreMargins()
    no_show_policy: NoShowPolicy = NoShowPolicy.HOLD


class NewSide(BaseModel):
    """A side to add. ``id`` is the side id the rules use (``CampaignState.armies`` keys)."""

    model_config = _RECORD

    id: SideId = Field(min_length=1, max_length=32, pattern=r"^[A-Za-z0-9_-]+$")
    name: str = Field(min_length=1, max_length=64)
    colour: str = Field(pattern=r"^#[0-9a-fA-F]{6}$")


class Side(BaseModel):
    """A side of a campaign; ``position`` is the order sides were added in."""

    model_config = _RECORD

    campaign_id: CampaignId
    id: SideId
    name: str
    colour: str
    position: int
    retired_at: AwareDatetime | None = None

    @property
    def retired(self) -> bool:
        """True once a GM retired the side mid-campaign (its armies left the map)."""
        return self.retired_at is not None


class Member(BaseModel):
    """A person in a campaign, with every role they hold and the side they play, if any."""

    model_config = _RECORD

    campaign_id: CampaignId
    user_id: UserId
    display_name: DisplayName
    side_id: SideId | None
    roles: frozenset[Role]
    joined_at: AwareDatetime

    @property
    def is_gm(self) -> bool:
        """True for the GM and co-GMs."""
        return bool(self.roles & GM_ROLES)


class Membership(BaseModel):
    """One campaign a person is in, with their membership there."""

    model_config = _RECORD

    campaign: Campaign
    member: Member


class TransitionOutcome(StrEnum):
    """What a compare-and-set on the campaign's clock did."""

    APPLIED = "applied"
    ALREADY_DONE = "already_done"  # the same step ran before: nothing changed
    CONFLICT = "conflict"  # the campaign is elsewhere (moved on differently, or undone)
    NOTHING_TO_UNDO = "nothing_to_undo"
    NOT_FOUND = "not_found"


class TransitionResult(BaseModel):
    """The outcome of a phase change, and where the campaign stands afterwards."""

    model_config = _RECORD

    outcome: TransitionOutcome
    campaign: Campaign | None
    message: str

    @property
    def applied(self) -> bool:
        """True when this call changed the campaign."""
        return self.outcome is TransitionOutcome.APPLIED


class PhaseEntry(BaseModel):
    """One entry into a (turn, phase); ``undone_at`` is set when an undo stepped back over it."""

    model_config = _RECORD

    campaign_id: CampaignId
    seq: int
    turn: int
    phase: Phase
    status: CampaignStatus
    entered_at: AwareDatetime
    actor: UserId | None
    reason: str
    undone_at: AwareDatetime | None
    undone_by: UserId | None


class RetiredReason(StrEnum):
    """Why a stored revision is no longer current (it is kept, never deleted)."""

    UNDONE = "undone"
    SUPERSEDED = "superseded"


class OrdersRecord(BaseModel):
    """A side's current orders for a turn (turn 1 on). ``edits`` counts every save so far."""

    model_config = _RECORD

    campaign_id: CampaignId
    turn: int
    side_id: SideId
    orders: SideOrders
    ready: bool
    updated_by: UserId
    updated_at: AwareDatetime
    edits: int


class PlacementRecord(BaseModel):
    """A side's deployment (turn 0): armies by sector, secret until turn 1 starts."""

    model_config = _RECORD

    campaign_id: CampaignId
    side_id: SideId
    placement: dict[SectorId, int]
    ready: bool
    updated_by: UserId
    updated_at: AwareDatetime
    edits: int


class LateOrdersRecord(BaseModel):
    """A side's late orders for a turn: rule-module orders given between the battle list and
    the resolution (a card played once the list is out, say). ``edits`` counts every save so
    far."""

    model_config = _RECORD

    campaign_id: CampaignId
    turn: int
    side_id: SideId
    orders: tuple[ModuleOrder, ...]
    updated_by: UserId
    updated_at: AwareDatetime
    edits: int


class OrderEdit(BaseModel):
    """One save of a side's orders (or placement, or late orders): who, when, and the whole
    set after it."""

    model_config = _RECORD

    seq: int
    orders: SideOrders | None
    placement: dict[SectorId, int] | None
    ready: bool
    edited_by: UserId
    edited_at: AwareDatetime
    retired: bool
    late: tuple[ModuleOrder, ...] | None = None


class WriteOutcome(StrEnum):
    """What a player-facing write did."""

    SAVED = "saved"
    PHASE_CLOSED = "phase_closed"  # the campaign is not in the phase that takes this write
    UNKNOWN_SIDE = "unknown_side"
    NO_SUCH_BATTLE = "no_such_battle"
    NO_REPORT = "no_report"  # confirm or dispute with nothing reported
    REPORT_CHANGED = "report_changed"  # confirm of a result that is no longer the reported one
    NOT_FOUND = "not_found"
    CONFLICT = "conflict"  # saved by someone else since it was read (``expected_edits``)
    CAMPAIGN_OVER = "campaign_over"  # the campaign has finished (or the GM ended it)
    NOT_ALLOWED = "not_allowed"  # the writer neither gives that side's orders nor is a GM


class OrdersWrite(BaseModel):
    """The outcome of saving orders or a placement, and the record as it now is."""

    model_config = _RECORD

    outcome: WriteOutcome
    orders: OrdersRecord | None = None
    placement: PlacementRecord | None = None
    late: LateOrdersRecord | None = None


class BattleListRecord(BaseModel):
    """The battle list as published for a turn (one revision; an undo retires it)."""

    model_config = _RECORD

    id: int
    campaign_id: CampaignId
    turn: int
    revision: int
    battles: tuple[Battle, ...]
    rejected: tuple[Rejection, ...]
    published_at: AwareDatetime
    published_by: UserId | None
    retired_at: AwareDatetime | None
    retired_reason: RetiredReason | None
    rolls: tuple[Roll, ...] = ()
    modules: dict[str, JsonValue] = Field(default_factory=dict)


class BattleReport(BaseModel):
    """Everything reported about one battle of the current battle list.

    The effective result is the GM's override, else the report unless it is disputed (RULES.md
    3.4: a report the other side neither confirms nor disputes stands), else none. A dispute
    keeps the disputing side's own account in ``counter`` for the GMs to decide between.
    """

    model_config = _RECORD

    campaign_id: CampaignId
    turn: int
    battle: int
    reported: BattleResult | None
    reported_by: UserId | None
    reported_at: AwareDatetime | None
    confirmed_by: UserId | None
    confirmed_at: AwareDatetime | None
    disputed_by: UserId | None
    disputed_at: AwareDatetime | None
    override: BattleResult | None
    override_by: UserId | None
    override_at: AwareDatetime | None
    counter: BattleResult | None = None
    reported_against: str | None = None
    override_against: str | None = None

    def effective(self) -> BattleResult | None:
        """The result resolution uses: GM override > undisputed report > none (of a chain
        battle, only while it is fought against the same defender: :func:`standing_results`)."""
        if self.override is not None:
            return self.override
        if self.reported is not None and self.disputed_by is None:
            return self.reported
        return None

    def effective_against(self) -> str | None:
        """The defender the effective result was given against (``None``: unknown, any)."""
        if self.override is not None:
            return self.override_against
        return self.reported_against

    @property
    def disputed(self) -> bool:
        """Disputed and not yet decided by a GM: it holds the resolution."""
        return self.override is None and self.reported is not None and self.disputed_by is not None

    @property
    def awaiting_answer(self) -> bool:
        """Reported, neither confirmed nor disputed, no GM decision: it stands unless the other
        side disputes it by the deadline."""
        return (
            self.override is None
            and self.reported is not None
            and self.confirmed_by is None
            and self.disputed_by is None
        )


class ReportWrite(BaseModel):
    """The outcome of reporting, confirming, disputing or overriding a result."""

    model_config = _RECORD

    outcome: WriteOutcome
    report: BattleReport | None = None


class StandingResults(BaseModel):
    """A battle list's results that count now, and every battle's sides given them (a chain
    battle's defender comes from the results before it, MODULES.md C6)."""

    model_config = ConfigDict(frozen=True)

    results: dict[int, BattleResult]
    sides: dict[int, BattleSides]

    def fought(self, battle: Battle) -> Battle:
        """``battle`` with the sides it is fought by now (:func:`rules.as_fought`)."""
        return as_fought(battle, self.sides.get(battle.id))

    def concerns(self, battle: Battle) -> tuple[str, ...]:
        """The sides a battle is about now: its two sides, or while it waits for its defender,
        its attacker and every side that may still defend it."""
        found = self.sides.get(battle.id)
        return battle.participants() if found is None else found.concerns()

    def current(self, report: BattleReport) -> BattleReport | None:
        """``report`` if it is about the sides its battle has now (or while its defender is
        not known); ``None`` if it was given against another defender (an earlier battle of
        the chain changed hands since): it no longer counts, and the battle is reported anew."""
        found = self.sides.get(report.battle)
        if found is None or found.defender is None:
            return report
        made_for = (
            report.effective_against()
            if report.effective() is not None
            else report.reported_against
        )
        return report if made_for in (None, found.defender) else None

    def holds(self, report: BattleReport) -> bool:
        """Whether ``report`` is an open dispute about a battle played, between the sides it
        has now (a dispute for the GMs to decide)."""
        found = self.sides.get(report.battle)
        return (
            report.disputed
            and found is not None
            and found.status is BattleStatus.PLAYABLE
            and self.current(report) is not None
        )


def standing_results(
    battles: Sequence[Battle], reports: Iterable[BattleReport], *, final: bool = False
) -> StandingResults:
    """What ``reports`` settle of ``battles`` now: a result counts when its battle is played
    and it was given against the defender the battle has now (``final``: as the resolution
    reads them, a battle without a result being a draw without losses)."""
    given: dict[int, BattleResult] = {}
    against: dict[int, str] = {}
    for report in reports:
        result = report.effective()
        if result is None:
            continue
        given[report.battle] = result
        if (made_for := report.effective_against()) is not None:
            against[report.battle] = made_for
    sides = battle_sides(battles, given, final=final, against=against)
    return StandingResults(results=counted_results(sides, given), sides=sides)


class TurnInputs(BaseModel):
    """Everything a turn's resolution is a function of, as stored now.

    ``orders`` are the sides' current orders (missing sides fortify everywhere); ``results`` are
    the effective results of the current battle list, in battle order; ``disputed`` the battles
    whose result is disputed and not yet decided by a GM (they hold the resolution); ``late``
    the late orders given after the list; ``seeds`` the turn's seeds (if made).
    """

    model_config = ConfigDict(frozen=True)

    campaign_id: CampaignId
    turn: int
    state: CampaignState
    orders: dict[SideId, SideOrders]
    results: tuple[BattleResult, ...]
    battle_list: BattleListRecord | None
    disputed: tuple[int, ...] = ()
    late: dict[SideId, tuple[ModuleOrder, ...]] = Field(default_factory=dict)
    seeds: TurnSeeds | None = None


class ResolutionRecord(BaseModel):
    """One revision of a turn's resolution: the inputs it used, the report and the new state."""

    model_config = ConfigDict(frozen=True)

    id: int
    campaign_id: CampaignId
    turn: int
    revision: int
    state: CampaignState
    orders: dict[SideId, SideOrders]
    results: tuple[BattleResult, ...]
    report: TurnReport
    state_after: CampaignState
    created_at: AwareDatetime
    created_by: UserId | None
    retired_at: AwareDatetime | None
    retired_reason: RetiredReason | None
    late: dict[SideId, tuple[ModuleOrder, ...]] = Field(default_factory=dict)


class TurnRecord(BaseModel):
    """A turn as it can be shown or replayed: start state, battle list, current resolution."""

    model_config = ConfigDict(frozen=True)

    campaign_id: CampaignId
    turn: int
    state: CampaignState
    battle_list: BattleListRecord | None
    resolution: ResolutionRecord | None


class AuditAction(StrEnum):
    """Kinds of GM action and clock change the audit log records."""

    CAMPAIGN_CREATED = "campaign_created"
    SETTINGS_CHANGED = "settings_changed"
    SIDE_ADDED = "side_added"
    SIDE_CHANGED = "side_changed"
    SIDE_REMOVED = "side_removed"
    MEMBER_SET = "member_set"
    MEMBER_REMOVED = "member_removed"
    MEMBER_READMITTED = "member_readmitted"  # a GM let a removed person join again
    STATUS_CHANGED = "status_changed"
    PHASE_CHANGED = "phase_changed"
    BATTLES_PUBLISHED = "battles_published"
    TURN_RESOLVED = "turn_resolved"
    TURN_CORRECTED = "turn_corrected"
    RESULT_OVERRIDDEN = "result_overridden"
    JOIN_APPROVED = "join_approved"  # a GM let a person join a side after deployment
    JOIN_REFUSED = "join_refused"
    ORDERS_SET_BY_GM = "orders_set_by_gm"
    PLACEMENT_SET_BY_GM = "placement_set_by_gm"
    UNDONE = "undone"
    CHAT_MIGRATED = "chat_migrated"  # the group became a supergroup with a new chat id
    DEPLOYMENT_CHOICE = "deployment_choice"  # a module's choice after deployment
    STATE_ADJUSTED = "state_adjusted"  # a GM carried out a module's effect on the state
    REWARDS_CLAIMED = "rewards_claimed"  # a side claimed rewards with its VP (MODULES.md S8)
    ORDERS_REOPENED = "orders_reopened"  # a GM reopened one side's orders with a short deadline
    SEAT_VACATED = "seat_vacated"  # a GM took a vanished player's place on a side from them
    SEAT_FILLED = "seat_filled"  # a GM gave a vacant seat to a newcomer
    SEAT_WITHDRAWN = "seat_withdrawn"  # a GM closed a vacant seat: nobody takes it
    STATE_EDITED = "state_edited"  # a GM edited the state directly (issue 23)
    STATE_EDIT_UNDONE = "state_edit_undone"  # a GM undid their edit of the state
    DEADLINE_SET = "deadline_set"  # a GM set the current deadline to a moment of their choice
    REWARD_CHOSEN = "reward_chosen"  # a GM chose a claimed reward's variant (MODULES.md S8)
    DUEL_STEP_CLOSED = "duel_step_closed"  # a GM closed a duel step now (MODULES.md W6)


class TurnSeedsRecord(BaseModel):
    """A turn's two seeds (G4), when they were made, and when the roll seed was revealed (the
    Monday summary); the deal seed is revealed when the campaign finishes."""

    model_config = _RECORD

    campaign_id: CampaignId
    turn: int
    roll: str
    deal: str
    created_at: AwareDatetime
    roll_revealed_at: AwareDatetime | None = None

    @property
    def seeds(self) -> TurnSeeds:
        """Both seeds, for the rules core."""
        return TurnSeeds(roll=self.roll, deal=self.deal)


class TableRollRecord(BaseModel):
    """Dice rolled at the table (``/roll``): the ``k``-th roll of ``context`` (a battle's number,
    or ``None`` for the group) in ``turn``, each die with its label."""

    model_config = _RECORD

    id: int
    campaign_id: CampaignId
    turn: int
    context: int | None
    k: int
    expression: str
    rolls: tuple[Roll, ...]
    rolled_by: UserId
    rolled_at: AwareDatetime


class StateAdjustmentRecord(BaseModel):
    """A GM's change of ``turn``'s start state (a card's effect), as the rules core's
    ``Adjustment`` JSON."""

    model_config = _RECORD

    id: int
    campaign_id: CampaignId
    turn: int
    adjustment: dict[str, JsonValue]
    made_by: UserId
    made_at: AwareDatetime
    before: CampaignState | None = None
    after: CampaignState | None = None


class AuditEntry(BaseModel):
    """Who did what, when, and the record before and after (JSON; ``None`` where none)."""

    model_config = _RECORD

    id: int
    campaign_id: CampaignId
    at: AwareDatetime
    actor: UserId | None
    action: AuditAction
    turn: int
    phase: Phase
    before: JsonValue
    after: JsonValue
    reason: str


class OutboxState(StrEnum):
    """Where an outgoing message is: waiting, being sent under a lease, done, or given up."""

    PENDING = "pending"
    SENDING = "sending"
    SENT = "sent"
    DEAD = "dead"  # failed for good: the worker gave up; it no longer holds back its chat
    CANCELLED = "cancelled"  # the step that queued it was undone or superseded before sending


class OutboxStage(IntEnum):
    """A post's place in the story a step tells: the posts one step queues reach each chat with
    what happened (results, maps, summaries) before what comes next (a phase opening, the
    board as it stands now), whatever order the step listed them in."""

    NEWS = 0
    NEXT = 1


class NewOutboxMessage(BaseModel):
    """A message that must reach Telegram. ``dedup_key`` makes enqueueing idempotent;
    ``stage`` orders it among the posts queued with it (:func:`story_order`)."""

    model_config = _RECORD

    campaign_id: CampaignId | None
    chat_id: ChatId
    thread_id: int = 0
    kind: str = Field(min_length=1, max_length=64)
    payload: dict[str, JsonValue]
    dedup_key: str = Field(min_length=1, max_length=256)
    not_before: AwareDatetime | None = None
    stage: OutboxStage = OutboxStage.NEWS


def story_order(messages: Iterable[NewOutboxMessage]) -> list[NewOutboxMessage]:
    """``messages`` queued together, in the order they are queued and so reach each chat: the
    ``NEWS`` first, then the ``NEXT``, each in the order given."""
    return sorted(messages, key=lambda message: message.stage)


class OutboxMessage(BaseModel):
    """A queued message and its delivery state. ``claim_token`` changes with every claim."""

    model_config = _RECORD

    id: int
    campaign_id: CampaignId | None
    chat_id: ChatId
    thread_id: int
    kind: str
    payload: dict[str, JsonValue]
    dedup_key: str
    state: OutboxState
    attempts: int
    created_at: AwareDatetime
    not_before: AwareDatetime
    lease_until: AwareDatetime | None
    claim_token: str | None
    telegram_message_id: int | None
    sent_at: AwareDatetime | None
    last_error: str | None


class CorrectionOutcome(StrEnum):
    """What a correction of a resolved turn did."""

    APPLIED = "applied"
    STALE_REVISION = "stale_revision"  # another correction or an undo came first
    NOT_LATEST_TURN = "not_latest_turn"  # only the latest resolved turn can be corrected
    NOT_FOUND = "not_found"


class CorrectionResult(BaseModel):
    """The outcome of a correction and the resolution revision now current."""

    model_config = ConfigDict(frozen=True)

    outcome: CorrectionOutcome
    resolution: ResolutionRecord | None
    campaign: Campaign | None
    message: str
    dropped: tuple[int, ...] = ()  # battles whose result no longer counts (their sides changed)


class Person(BaseModel):
    """Someone the bot has seen. ``language`` is their own choice (``None``: their Telegram's)."""

    model_config = _RECORD

    user_id: UserId
    display_name: DisplayName
    username: str | None
    telegram_language: str | None
    language: Language | None
    private_started_at: AwareDatetime | None
    current_campaign_id: CampaignId | None
    updated_at: AwareDatetime

    @property
    def can_receive_private(self) -> bool:
        """True once the person has opened a private chat with the bot."""
        return self.private_started_at is not None


class JoinRequest(BaseModel):
    """A person who pressed "join" in the group and has not finished in the private chat; or,
    with ``side_id`` and ``role``, one who chose and waits for a GM's approval."""

    model_config = _RECORD

    campaign_id: CampaignId
    user_id: UserId
    display_name: DisplayName
    requested_at: AwareDatetime
    side_id: SideId | None = None
    role: Role | None = None
    asked_at: AwareDatetime | None = None

    @property
    def awaits_gm(self) -> bool:
        """A side and role are chosen and a GM has not decided yet."""
        return self.side_id is not None and self.role is not None


class RemovedMember(BaseModel):
    """Someone a GM removed from a campaign; they may not join it again until a GM lets them."""

    model_config = _RECORD

    campaign_id: CampaignId
    user_id: UserId
    display_name: DisplayName
    removed_by: UserId
    removed_at: AwareDatetime


class Vacancy(BaseModel):
    """A player's place on a side (their player roles) that a GM marked vacant, with why; once
    a GM gives it to someone, ``filled_by`` names them and ``closed_at`` is set; a seat a GM
    withdrew is closed with ``filled_by`` unset."""

    model_config = _RECORD

    id: int
    campaign_id: CampaignId
    side_id: SideId
    roles: frozenset[Role]
    left_user_id: UserId
    left_name: DisplayName
    reason: str
    opened_by: UserId
    opened_at: AwareDatetime
    filled_by: UserId | None = None
    filled_name: DisplayName | None = None
    closed_by: UserId | None = None
    closed_at: AwareDatetime | None = None

    @property
    def is_open(self) -> bool:
        """Nobody has taken the seat yet."""
        return self.closed_at is None


class Prompt(BaseModel):
    """What the bot waits for a person to type in a chat: ``field`` names the dialogue step.
    Once answered it is kept (``answered_by``) until the next wait replaces it."""

    model_config = _RECORD

    chat_id: ChatId
    user_id: UserId
    campaign_id: CampaignId | None
    field: str
    data: dict[str, JsonValue]
    message_id: int | None
    created_at: AwareDatetime
    answered_by: int | None = None  # the message that answered it; None: still waiting


class UiMessage(BaseModel):
    """A bot message a person's screen is built on, edited in place (``kind`` says which)."""

    model_config = _RECORD

    campaign_id: CampaignId
    user_id: UserId
    kind: str
    chat_id: ChatId
    message_id: int
    updated_at: AwareDatetime


def json_of(record: BaseModel | None) -> Any:
    """A record as JSON data for the audit log (``None`` stays ``None``)."""
    return None if record is None else record.model_dump(mode="json")


def utc(moment: datetime) -> datetime:
    """``moment`` in UTC; a naive time is refused (storage never guesses a time zone)."""
    if moment.tzinfo is None or moment.utcoffset() is None:
        raise ValueError(f"naive datetime {moment!r}: storage needs timezone-aware times")
    return moment.astimezone(ZoneInfo("UTC"))
