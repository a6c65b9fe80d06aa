"""A side's secret business in private: deployment, the week's orders, battle results.

Pure async functions over the :class:`~storage.Store` (no Telegram). Who may do what:
strategists give the side's orders and placement; tacticians and the GM view them; members of
a battle's sides report its result and the other side confirms or disputes it (the GM may do
both). Orders are entered one at a time with :func:`rules.enter_order` against the turn-start
state and the stored set; a save is a compare-and-set on the set's edit count, so when two
strategists of a side save at the same moment the later one re-reads the set and applies its
change again (nobody's orders are lost). Every change is saved as a draft (``ready`` off) and
the side's other strategists are told, in the same transaction. Outcomes are values: a refusal
says which rule.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from datetime import datetime
from enum import StrEnum
from typing import TypeVar

from pydantic import JsonValue

from bot.modules import BOT_MODULES
from bot.services.campaigns import battle_list_public_at, board_refresh
from bot.services.posting import group_post
from bot.services.turns import game_for
from bot.services.window import entry_in, opening_after
from rules import (
    Battle,
    BattleResult,
    BattleSides,
    BattleStatus,
    CampaignState,
    DeploymentProblem,
    Game,
    LegalOrders,
    ModuleOrder,
    Order,
    Outcome,
    Reinforce,
    Rejection,
    SectorOptions,
    SideOrders,
    accept_orders,
    check_deployment,
    enter_order,
    legal_orders,
)
from rules.maps import SectorId
from storage import (
    BattleReport,
    Campaign,
    CampaignStatus,
    Member,
    Membership,
    NewOutboxMessage,
    OrdersRecord,
    Person,
    Phase,
    Role,
    SeatSnapshot,
    StandingResults,
    Store,
    WriteOutcome,
    standing_results,
)
from storage.models import SideId, UserId

NOTICE_WINDOW_SECONDS = 300
"""Edits within one window give the side's other strategists one notice, sent at its end."""

SAVE_ATTEMPTS = 5
"""How often a change is re-read and re-applied when another strategist saved in between."""


class Refusal(StrEnum):
    """Why a request from a person was not carried out (nothing changed)."""

    NOT_MEMBER = "not_member"  # not in this campaign
    NO_SIDE = "no_side"  # in the campaign but on no side (a GM)
    NOT_STRATEGIST = "not_strategist"  # only the side's strategists give orders
    WRONG_PHASE = "wrong_phase"  # the campaign is not in the phase this needs
    STALE = "stale"  # a button made for another turn or phase
    NOT_PARTICIPANT = "not_participant"  # the person's side does not fight this battle
    NOT_OPPONENT = "not_opponent"  # only the other side (or the GM) confirms or disputes
    NO_SUCH_BATTLE = "no_such_battle"
    NO_REPORT = "no_report"  # nothing reported yet to confirm or dispute
    REPORT_CHANGED = "report_changed"  # the result was reported again meanwhile
    BAD_WINNER = "bad_winner"  # a victory without a winner from the battle, or a draw with one
    BAD_WARLORD = "bad_warlord"  # a rule module refuses the result's marks (a slain warlord)
    LIST_NOT_PUBLIC = "list_not_public"  # the battle list is held until its posting time
    CHANGED_MEANWHILE = "changed_meanwhile"  # confirming a set another strategist just changed
    BUSY = "busy"  # others kept saving the same set; this change could not be applied
    SETTLED = "settled"  # a GM decided this battle's result: only a GM changes it
    AGREED = "agreed"  # both sides agreed on this result: only a GM changes it
    DISPUTED = "disputed"  # the result is disputed: the GMs decide (or a side accepts the other's)
    NOT_GM = "not_gm"  # only the campaign's GMs decide results
    NOT_PLAYABLE = "not_playable"  # a chain battle that waits for the one before, or ended
    SIDES_CHANGED = "sides_changed"  # a chain battle's defender changed since the button was made
    NOT_OPEN_YET = "not_open_yet"  # the turn began but its orders window opens later
    CAMPAIGN_OVER = "campaign_over"  # the campaign has finished (or the GM ended it)
    REOPENED_FOR_OTHER = "reopened_for_other"  # the window closed; a GM reopened another side's


_UPDATE: ContextVar[object | None] = ContextVar("seat_snapshots", default=None)
"""The update being handled (:func:`one_update`): what a seat's snapshot is good for."""


@contextmanager
def one_update() -> Iterator[None]:
    """The block handles one update (the dispatcher's :class:`bot.runtime.middlewares.UpdateReads`):
    a seat's snapshot read in it serves the rest of it (:func:`snapshot_of`). Outside such a
    block every service call reads the database anew."""
    token = _UPDATE.set(object())
    try:
        yield
    finally:
        _UPDATE.reset(token)


@dataclass(frozen=True)
class Seat:
    """A person's place in one campaign: the campaign as it is now and their membership.

    Within one update (:func:`one_update`) a seat keeps what the update read of the campaign
    for its screens, in one read transaction (:attr:`snapshot`, :func:`snapshot_of`). What
    the seat saves in the update is put in it (:func:`_save_desk`, :func:`remember_screen`), so
    what the update shows after a save shows what was saved."""

    campaign: Campaign
    member: Member
    _read: tuple[object, SeatSnapshot] | None = field(
        default=None, init=False, compare=False, repr=False
    )

    @classmethod
    def of(cls, snapshot: SeatSnapshot) -> Seat:
        """The seat a snapshot was read for (keeping it for the update)."""
        seat = cls(snapshot.campaign, snapshot.member)
        seat._keep(snapshot)
        return seat

    @property
    def snapshot(self) -> SeatSnapshot | None:
        """What this update read for the seat, if it read it yet."""
        update = _UPDATE.get()
        if update is None or self._read is None or self._read[0] is not update:
            return None
        return self._read[1]

    def anew(self) -> Seat:
        """This seat without its snapshot: its next reader reads the database again."""
        return Seat(self.campaign, self.member)

    def _keep(self, snapshot: SeatSnapshot) -> None:
        update = _UPDATE.get()
        if update is not None:
            object.__setattr__(self, "_read", (update, snapshot))

    @property
    def side(self) -> SideId | None:
        """The side they play, if any."""
        return self.member.side_id

    @property
    def gives_orders(self) -> bool:
        """True for a strategist of a side."""
        return self.side is not None and Role.STRATEGIST in self.member.roles

    @property
    def is_gm(self) -> bool:
        """True for the GM and co-GMs."""
        return self.member.is_gm


@dataclass(frozen=True)
class CampaignPick:
    """The campaign a person's private commands are about, or the choices when unclear."""

    seat: Seat | None
    choices: tuple[Membership, ...] = ()


def is_active(campaign: Campaign) -> bool:
    """Still being played (not finished)."""
    return campaign.status is not CampaignStatus.FINISHED


async def pick_campaign(store: Store, person: Person) -> CampaignPick:
    """The person's current campaign: the one chosen with /campaigns if still active, else the
    only active one; with several and no choice, ``seat`` is ``None`` and ``choices`` lists
    them."""
    active = tuple(m for m in await store.memberships(person.user_id) if is_active(m.campaign))
    chosen = next((m for m in active if m.campaign.id == person.current_campaign_id), None)
    if chosen is None and len(active) == 1:
        chosen = active[0]
    if chosen is None:
        return CampaignPick(seat=None, choices=active)
    return CampaignPick(seat=Seat(chosen.campaign, chosen.member), choices=active)


async def seat_in(store: Store, user_id: UserId, campaign_id: int) -> Seat | None:
    """The person's seat in ``campaign_id`` with this update's snapshot of it, or ``None`` if
    they are not in it."""
    snapshot = await store.seat_snapshot(campaign_id, user_id)
    return None if snapshot is None else Seat.of(snapshot)


async def snapshot_of(store: Store, seat: Seat) -> SeatSnapshot | None:
    """The seat's snapshot for this update: the one it was found with, else read now (kept
    for the rest of the update); ``None`` when the person is no longer in the campaign."""
    kept = seat.snapshot
    if kept is not None:
        return kept
    read = await store.seat_snapshot(seat.campaign.id, seat.member.user_id)
    if read is not None:
        seat._keep(read)
    return read


async def remember_screen(
    store: Store, seat: Seat, kind: str, chat_id: int, message_id: int, now: datetime
) -> None:
    """Remember that ``message_id`` shows the seat's ``kind`` screen (to edit it in place later);
    nothing to write when the seat's snapshot already has that message for it."""
    snapshot = seat.snapshot
    known = None if snapshot is None else snapshot.ui_messages.get(kind)
    if known is not None and (known.chat_id, known.message_id) == (chat_id, message_id):
        return
    screen = await store.remember_ui_message(
        seat.campaign.id, seat.member.user_id, kind, chat_id, message_id, now
    )
    if snapshot is not None:
        seat._keep(snapshot.with_screen(screen))


async def side_names(store: Store, campaign_id: int) -> dict[SideId, str]:
    """Each side's display name."""
    return {side.id: side.name for side in await store.sides(campaign_id)}


# ---- orders ---------------------------------------------------------------------------------


@dataclass(frozen=True)
class Desk:
    """A side's orders for the current turn as stored, with what it may order next."""

    campaign: Campaign
    game: Game
    state: CampaignState
    side: SideId
    orders: SideOrders
    ready: bool
    edits: int
    updated_by: UserId | None
    snapshot: SeatSnapshot = field(compare=False, repr=False)
    """What the desk was read with (the sides and members its screens name)."""

    @property
    def turn(self) -> int:
        """The turn these orders are for."""
        return self.campaign.turn

    def saved_as(self, campaign: Campaign, record: OrdersRecord) -> Desk:
        """This desk after ``record`` was saved."""
        return Desk(
            campaign=campaign,
            game=self.game,
            state=self.state,
            side=self.side,
            orders=record.orders,
            ready=record.ready,
            edits=record.edits,
            updated_by=record.updated_by,
            snapshot=self.snapshot.with_orders(record),
        )

    def side_names(self) -> dict[SideId, str]:
        """Each side's display name."""
        return {side.id: side.name for side in self.snapshot.sides}

    def editor_name(self) -> str | None:
        """Who changed the orders last, if anyone did and is still in the campaign."""
        if self.updated_by is None:
            return None
        editor = self.snapshot.member_named(self.updated_by)
        return None if editor is None else editor.display_name

    @property
    def holdings(self) -> dict[SectorId, int]:
        """The side's armies by sector at the start of the turn."""
        return dict(self.state.armies.get(self.side, {}))

    def listing(self) -> LegalOrders:
        """Every order that may be added to the current set (worked out once a desk: a screen
        asks for it once a sector)."""
        kept = self.__dict__.get("_listing")
        if not isinstance(kept, LegalOrders):
            kept = legal_orders(self.game, self.state, self.side, self.orders)
            object.__setattr__(self, "_listing", kept)
        return kept

    def change_options(self, sector: SectorId) -> SectorOptions | None:
        """What ``sector`` may be given instead of its order (a move replaces it)."""
        listing = legal_orders(self.game, self.state, self.side, self.orders.without_sector(sector))
        return listing.for_sector(sector)

    def attack_options(self, sector: SectorId) -> SectorOptions | None:
        """What may be added in ``sector`` keeping its attacks (an attack replaces a move)."""
        listing = legal_orders(self.game, self.state, self.side, self.orders.without_move(sector))
        return listing.for_sector(sector)


def orders_opening_of(desk: Desk, now: datetime) -> datetime | None:
    """When the desk's orders window opens, if that is still ahead of ``now`` (as
    :func:`bot.services.window.orders_opening`, from the desk's snapshot)."""
    snapshot = desk.snapshot
    entry = entry_in(snapshot.history, snapshot.campaign)
    return opening_after(snapshot.campaign, entry, snapshot.clock, now)


@dataclass(frozen=True)
class DeskResult:
    """A desk, or why there is none."""

    desk: Desk | None
    refusal: Refusal | None = None


async def open_desk(
    store: Store, seat: Seat, side: SideId | None = None, *, closed: bool = False
) -> DeskResult:
    """The side's orders for the current turn (``side`` defaults to the seat's; a GM may name
    any side). Only while the window is open, unless ``closed`` (to view them until the turn
    resolves). Read from the seat's snapshot (:func:`snapshot_of`)."""
    snapshot = await snapshot_of(store, seat)
    if snapshot is None:
        return DeskResult(None, Refusal.NOT_MEMBER)
    campaign = snapshot.campaign
    # The membership as the snapshot read it, with the orders: not the seat's, which may be
    # older (a player the GM moved to another side since never sees the old side's set).
    member = snapshot.member
    side = side or member.side_id
    if side is None:
        return DeskResult(None, Refusal.NO_SIDE)
    if side != member.side_id and not member.is_gm:
        return DeskResult(None, Refusal.NOT_MEMBER)
    viewable = (Phase.ORDERS, Phase.BATTLES, Phase.RESOLUTION) if closed else (Phase.ORDERS,)
    if campaign.phase not in viewable:
        return DeskResult(None, Refusal.WRONG_PHASE)
    state = snapshot.turn_start
    if state is None:
        return DeskResult(None, Refusal.WRONG_PHASE)
    record = snapshot.orders.get(side)
    return DeskResult(
        Desk(
            campaign=campaign,
            game=game_for(campaign),
            state=state,
            side=side,
            orders=record.orders if record else SideOrders(),
            ready=record.ready if record else False,
            edits=record.edits if record else 0,
            updated_by=record.updated_by if record else None,
            snapshot=snapshot,
        )
    )


@dataclass(frozen=True)
class LineOutcome:
    """One line (or button) of orders: the orders it gave and the first rejection, if any."""

    orders: tuple[Order, ...]
    rejection: Rejection | None = None

    @property
    def accepted(self) -> bool:
        """True when every order of the line is now recorded."""
        return self.rejection is None


@dataclass(frozen=True)
class EntryResult:
    """What entering orders did: per line, and the desk as now stored."""

    refusal: Refusal | None = None
    desk: Desk | None = None
    lines: tuple[LineOutcome, ...] = ()
    changed: bool = False
    notices: tuple[NewOutboxMessage, ...] = ()
    opens_at: datetime | None = None  # with ``NOT_OPEN_YET``: when the window opens


def _may_order(member: Member, expected_turn: int | None, campaign: Campaign) -> Refusal | None:
    if not is_active(campaign):
        return Refusal.CAMPAIGN_OVER
    if member.side_id is None:
        return Refusal.NO_SIDE
    if Role.STRATEGIST not in member.roles:
        return Refusal.NOT_STRATEGIST
    if expected_turn is not None and (campaign.turn, campaign.phase) != (
        expected_turn,
        Phase.ORDERS,
    ):
        return Refusal.STALE
    if campaign.phase is not Phase.ORDERS:
        return Refusal.WRONG_PHASE
    return None


async def _refusal_now(
    store: Store, seat: Seat, expected_turn: int | None, now: datetime
) -> EntryResult | None:
    """Why the seat may not change its side's orders now, or ``None`` if it may (judged on the
    seat's snapshot; the save itself is a compare-and-set on the turn, phase and set)."""
    snapshot = await snapshot_of(store, seat)
    if snapshot is None:
        return EntryResult(refusal=Refusal.NOT_MEMBER)
    campaign = snapshot.campaign
    refusal = _may_order(snapshot.member, expected_turn, campaign)
    if refusal is not None:
        return EntryResult(refusal=refusal)
    entry = entry_in(snapshot.history, campaign)
    opening = opening_after(campaign, entry, snapshot.clock, now)
    if opening is not None:
        return EntryResult(refusal=Refusal.NOT_OPEN_YET, opens_at=opening)
    reopening = snapshot.reopenings.get(entry.seq)
    if reopening is not None and reopening.side_id != snapshot.member.side_id:
        return EntryResult(refusal=Refusal.REOPENED_FOR_OTHER)
    return None


def apply_lines(
    game: Game,
    state: CampaignState,
    side: SideId,
    current: SideOrders,
    lines: Sequence[Sequence[Order]],
) -> tuple[SideOrders, list[LineOutcome]]:
    """Enter lines of orders with :func:`rules.enter_order`, each line whole or not at all; a
    module's order as its module enters it (``BotModule.entering_order``)."""
    orders = current
    outcomes: list[LineOutcome] = []
    for line in lines:
        attempt, rejection = orders, None
        for given in line:
            order = given
            if isinstance(order, ModuleOrder) and order.module in BOT_MODULES:
                order, attempt = BOT_MODULES[order.module].entering_order(attempt, order)
            attempt, rejection = enter_order(game, state, side, attempt, order)
            if rejection is not None:
                break
        outcomes.append(LineOutcome(tuple(line), rejection))
        if rejection is None:
            orders = attempt
    return orders, outcomes


def repeat_lines(orders: SideOrders) -> list[tuple[Order, ...]]:
    """A set of orders as lines to enter again, one order per line (each kept or refused on
    its own): the moves, the attacks, the reinforcement; a module that orders the set its own
    way gives the lines instead (``BotModule.repeat_lines``)."""
    for module in BOT_MODULES.values():
        own = module.repeat_lines(orders)
        if own is not None:
            return own
    lines: list[tuple[Order, ...]] = [(move,) for move in orders.moves]
    lines += [(attack,) for attack in orders.attacks]
    if orders.reinforce is not None:
        lines.append((Reinforce(sector=orders.reinforce),))
    return lines


async def last_turn_orders(store: Store, campaign: Campaign, side: SideId) -> SideOrders | None:
    """The side's orders of the previous turn, if it gave any."""
    if campaign.turn < 2:
        return None
    record = await store.orders(campaign.id, campaign.turn - 1, side)
    if record is None or record.orders == SideOrders():
        return None
    return record.orders


async def enter_orders(
    store: Store,
    seat: Seat,
    lines: Sequence[Sequence[Order]],
    now: datetime,
    expected_turn: int | None = None,
) -> EntryResult:
    """Give the side's orders, line by line.

    Each line is taken whole or refused whole (its first rejection named), against the orders
    as the earlier lines left them; a refused line changes nothing. A change is saved as a
    draft (the side is no longer ready) and the side's other strategists are told. If another
    strategist saved the set meanwhile, the lines are applied again to the set as they left
    it (``BUSY`` if that keeps happening). ``expected_turn`` (from a button) refuses with
    ``STALE`` once the turn or phase moved on; before the window opens: ``NOT_OPEN_YET``.
    """

    def entered(desk: Desk) -> _Save | EntryResult:
        orders, outcomes = apply_lines(desk.game, desk.state, desk.side, desk.orders, lines)
        if orders == desk.orders:
            return EntryResult(desk=desk, lines=tuple(outcomes))
        return _Save(orders, False, f"orders:{desk.side}", tuple(outcomes))

    return await _save_retrying(store, seat, expected_turn, now, entered)


async def drop_module_order(
    store: Store,
    seat: Seat,
    index: int,
    expected: ModuleOrder,
    now: datetime,
    expected_turn: int | None = None,
) -> EntryResult:
    """Take back the side's module order ``index`` (a guard or a card, which no sector order
    replaces), if it is still ``expected``; saved as a draft like :func:`enter_orders`.
    An order no longer there changes nothing."""

    def dropped(desk: Desk) -> _Save | EntryResult:
        extra = list(desk.orders.extra)
        if not 0 <= index < len(extra) or extra[index] != expected:
            return EntryResult(desk=desk)
        del extra[index]
        orders = desk.orders.model_copy(update={"extra": tuple(extra)})
        return _Save(orders, False, f"orders:{desk.side}")

    return await _save_retrying(store, seat, expected_turn, now, dropped)


async def rewrite_orders(
    store: Store,
    seat: Seat,
    change: Callable[[Desk], SideOrders | None],
    now: datetime,
    expected_turn: int | None = None,
) -> EntryResult:
    """Replace the side's set by ``change(desk)`` (a module's list of groups reordered, a group
    taken back), if the rules accept the whole new set; saved as a draft like
    :func:`enter_orders`. ``change`` returning ``None`` (the button no longer fits) changes
    nothing; a set the rules refuse changes nothing and names the first rejection."""

    def rewritten(desk: Desk) -> _Save | EntryResult:
        orders = change(desk)
        if orders is None or orders == desk.orders:
            return EntryResult(desk=desk)
        accepted, rejections = accept_orders(desk.game, desk.state, desk.side, orders)
        if rejections:
            return EntryResult(desk=desk, lines=(LineOutcome((), rejections[0]),))
        return _Save(accepted, False, f"orders:{desk.side}")

    return await _save_retrying(store, seat, expected_turn, now, rewritten)


@dataclass(frozen=True)
class _Save:
    """A change to save over the desk it was worked out on: the orders, whether the side is
    ready with them, the board refresh's reason, and the lines' outcomes to answer with."""

    orders: SideOrders
    ready: bool
    reason: str
    lines: tuple[LineOutcome, ...] = ()


async def _save_retrying(
    store: Store,
    seat: Seat,
    expected_turn: int | None,
    now: datetime,
    decide: Callable[[Desk], _Save | EntryResult],
) -> EntryResult:
    """Save what ``decide`` makes of the side's desk (an :class:`EntryResult` from it: nothing
    to save, answered as it is). If another strategist saved the set meanwhile, ``decide``
    works on the set as they left it (``BUSY`` after :data:`SAVE_ATTEMPTS`); a campaign ended
    or a seat moved meanwhile is refused."""
    refused = await _refusal_now(store, seat, expected_turn, now)
    if refused is not None:
        return refused
    opened = await open_desk(store, seat)

    async def attempt() -> EntryResult | None:
        nonlocal opened
        if opened.desk is None:
            return EntryResult(refusal=opened.refusal)
        desk = opened.desk
        decided = decide(desk)
        if isinstance(decided, EntryResult):
            return decided
        written = await _save_desk(
            store, seat, desk, decided.orders, decided.ready, decided.reason, now
        )
        if isinstance(written, DeskResult):  # saved by someone else meanwhile: apply it again
            if written.desk is None:  # or refused: the campaign ended, the seat moved
                return EntryResult(refusal=written.refusal)
            opened = written
            return None
        after, notices = written
        if after is None:
            return EntryResult(refusal=Refusal.WRONG_PHASE, lines=decided.lines)
        return EntryResult(desk=after, lines=decided.lines, changed=True, notices=notices)

    return await _until_saved(attempt, EntryResult(refusal=Refusal.BUSY))


Answer = TypeVar("Answer")


async def _until_saved(attempt: Callable[[], Awaitable[Answer | None]], busy: Answer) -> Answer:
    """Run ``attempt`` (read, decide, save) until it answers; ``None``: another strategist
    saved in between, so it reads their set and tries again, :data:`SAVE_ATTEMPTS` times at
    most (then ``busy``). The one save-and-retry loop of the orders and the placement."""
    for _attempt in range(SAVE_ATTEMPTS):
        answer = await attempt()
        if answer is not None:
            return answer
    return busy


def _refusal_of(outcome: WriteOutcome) -> Refusal | None:
    """The refusal of a save the database refused on what it found at the save, not at the
    press: the GM ended the campaign, or moved the writer off the side, in between."""
    match outcome:
        case WriteOutcome.CAMPAIGN_OVER:
            return Refusal.CAMPAIGN_OVER
        case WriteOutcome.NOT_ALLOWED:
            return Refusal.NOT_STRATEGIST
    return None


async def _save_desk(
    store: Store,
    seat: Seat,
    desk: Desk,
    orders: SideOrders,
    ready: bool,
    reason: str,
    now: datetime,
) -> tuple[Desk | None, tuple[NewOutboxMessage, ...]] | DeskResult:
    """Save ``orders`` over the set ``desk`` was read from (a compare-and-set on its edit
    count), with the side's notices and a board refresh in the same transaction: the desk as
    saved (``None`` if the window closed) and the notices; or, if the set was saved by someone
    else since, the desk as that save left it (the set the database answered the refusal
    with), to apply the change to again; or, if the database found the campaign ended or the
    writer no longer on the side since the press, no desk and that refusal."""
    campaign = desk.campaign
    editor = seat.member.user_id
    notices = _side_notices(desk.snapshot, campaign, desk.side, editor, now)
    saved = await store.save_orders(
        campaign.id,
        campaign.turn,
        desk.side,
        orders,
        ready,
        editor,
        now,
        expected_edits=desk.edits,
        outbox=(*notices, board_refresh(campaign, reason, now)),
    )
    if saved.outcome is WriteOutcome.CONFLICT:
        if saved.orders is None:  # the set is gone (retired): read the side's orders anew
            return await open_desk(store, seat.anew(), desk.side)
        return DeskResult(desk.saved_as(campaign, saved.orders))
    refusal = _refusal_of(saved.outcome)
    if refusal is not None:
        return DeskResult(None, refusal)
    if saved.outcome is not WriteOutcome.SAVED or saved.orders is None:
        return None, ()
    after = desk.saved_as(campaign, saved.orders)
    seat._keep(after.snapshot)  # what the update shows after this shows the set saved
    return after, notices


async def set_ready(
    store: Store,
    seat: Seat,
    expected_turn: int,
    ready: bool,
    now: datetime,
    *,
    seen_edits: int | None = None,
) -> EntryResult:
    """Confirm the side's orders as they stand (``ready``), or take the confirmation back.

    If another strategist saved the set meanwhile: taking the confirmation back is applied
    again; a confirmation is refused (``CHANGED_MEANWHILE``, with the set as it now is) when
    the orders are no longer the ones read, or no longer the version ``seen_edits`` (the edit
    count the Ready button was shown with), so nobody confirms orders they have not seen."""
    first_read: list[SideOrders] = []

    def confirmed(desk: Desk) -> _Save | EntryResult:
        if ready and seen_edits is not None and desk.edits != seen_edits:
            return EntryResult(refusal=Refusal.CHANGED_MEANWHILE, desk=desk)
        if not first_read:
            first_read.append(desk.orders)
        elif ready and desk.orders != first_read[0]:
            return EntryResult(refusal=Refusal.CHANGED_MEANWHILE, desk=desk)
        if desk.ready == ready and (desk.edits > 0 or not ready):
            return EntryResult(desk=desk)
        return _Save(desk.orders, ready, f"ready:{desk.side}")

    return await _save_retrying(store, seat, expected_turn, now, confirmed)


def orders_notice(
    campaign: Campaign, side: SideId, user_id: UserId, now: datetime
) -> NewOutboxMessage:
    """ "Your side's orders changed": one per person per window, sent at the window's end and
    worded then, so it shows the set as it is after the last edit of the window."""
    window = int(now.timestamp()) // NOTICE_WINDOW_SECONDS
    send_at = datetime.fromtimestamp((window + 1) * NOTICE_WINDOW_SECONDS, tz=now.tzinfo)
    return NewOutboxMessage(
        campaign_id=campaign.id,
        chat_id=user_id,
        kind="orders_changed",
        payload={"campaign_id": campaign.id, "turn": campaign.turn, "side": side},
        dedup_key=(
            f"campaign:{campaign.id}:turn:{campaign.turn}:orders_changed:{side}:{user_id}:{window}"
        ),
        not_before=send_at,
    )


def _side_notices(
    snapshot: SeatSnapshot, campaign: Campaign, side: SideId, editor: UserId, now: datetime
) -> tuple[NewOutboxMessage, ...]:
    """The notices for the side's other strategists who can get private messages (to be
    queued with the change)."""
    others = [
        m
        for m in snapshot.members
        if m.side_id == side and Role.STRATEGIST in m.roles and m.user_id != editor
    ]
    queued: list[NewOutboxMessage] = []
    for member in others:
        person = snapshot.people.get(member.user_id)
        if person is None or not person.can_receive_private:
            continue
        queued.append(orders_notice(campaign, side, member.user_id, now))
    return tuple(queued)


async def gm_overview(store: Store, seat: Seat) -> dict[SideId, Desk]:
    """Every side's orders this turn until it resolves, for the GM (empty for anyone else)."""
    if not seat.is_gm:
        return {}
    snapshot = await snapshot_of(store, seat)
    desks: dict[SideId, Desk] = {}
    for side in snapshot.sides if snapshot is not None else ():
        opened = await open_desk(store, seat, side.id, closed=True)
        if opened.desk is not None and side.id in opened.desk.state.armies:
            desks[side.id] = opened.desk
    return desks


# ---- deployment -----------------------------------------------------------------------------


@dataclass(frozen=True)
class Deployment:
    """A side's placement as stored (draft or confirmed) and the rules it must meet."""

    campaign: Campaign
    game: Game
    side: SideId
    placement: dict[SectorId, int]
    ready: bool
    edits: int = 0

    @property
    def total(self) -> int:
        """Armies placed so far."""
        return sum(self.placement.values())

    def problems(self) -> list[DeploymentProblem]:
        """Every deployment rule the placement breaks."""
        return check_deployment(self.game, self.placement)

    def can_add(self, sector: SectorId) -> bool:
        """True when one more army may go to ``sector`` without passing the limits."""
        rules = self.game.ruleset
        used = sum(1 for count in self.placement.values() if count > 0)
        opens_sector = self.placement.get(sector, 0) == 0
        return self.total < rules.start_armies and (not opens_sector or used < rules.start_sectors)

    def room(self, sector: SectorId) -> int:
        """How many armies may still go to ``sector`` at once (0 when none may)."""
        return self.game.ruleset.start_armies - self.total if self.can_add(sector) else 0


@dataclass(frozen=True)
class DeploymentResult:
    """What a deployment request did: the placement now, or why nothing changed."""

    refusal: Refusal | None = None
    deployment: Deployment | None = None
    problems: tuple[DeploymentProblem, ...] = ()
    changed: bool = False


async def open_deployment(store: Store, seat: Seat) -> DeploymentResult:
    """The side's placement now (empty if none saved)."""
    campaign = await store.campaign(seat.campaign.id) or seat.campaign
    if not is_active(campaign):
        return DeploymentResult(refusal=Refusal.CAMPAIGN_OVER)
    if seat.side is None:
        return DeploymentResult(refusal=Refusal.NO_SIDE)
    if campaign.phase is not Phase.DEPLOYMENT:
        return DeploymentResult(refusal=Refusal.WRONG_PHASE)
    record = (await store.placements(campaign.id)).get(seat.side)
    return DeploymentResult(
        deployment=Deployment(
            campaign=campaign,
            game=game_for(campaign),
            side=seat.side,
            placement=dict(record.placement) if record else {},
            ready=record.ready if record else False,
            edits=record.edits if record else 0,
        )
    )


async def _write_placement(
    store: Store,
    seat: Seat,
    opened: Deployment,
    placement: dict[SectorId, int],
    ready: bool,
    now: datetime,
) -> DeploymentResult | None:
    """Save over the placement ``opened`` was read from; ``None`` if someone else saved it
    since (read it again)."""
    kept = {sector: count for sector, count in placement.items() if count > 0}
    saved = await store.save_placement(
        opened.campaign.id,
        opened.side,
        kept,
        ready,
        seat.member.user_id,
        now,
        expected_edits=opened.edits,
        outbox=(board_refresh(opened.campaign, f"placement:{opened.side}", now),),
    )
    if saved.outcome is WriteOutcome.CONFLICT:
        return None
    if saved.outcome is not WriteOutcome.SAVED or saved.placement is None:
        return DeploymentResult(refusal=_refusal_of(saved.outcome) or Refusal.WRONG_PHASE)
    after = Deployment(
        campaign=opened.campaign,
        game=opened.game,
        side=opened.side,
        placement=dict(saved.placement.placement),
        ready=saved.placement.ready,
        edits=saved.placement.edits,
    )
    return DeploymentResult(deployment=after, changed=True)


PlacementChange = Callable[[Deployment], DeploymentResult | tuple[dict[SectorId, int], bool]]
"""What a request does to the placement as read: the placement and ``ready`` to save, or the
answer when nothing is to be saved."""


async def _update_placement(
    store: Store, seat: Seat, change: PlacementChange, now: datetime
) -> DeploymentResult:
    """Read the side's placement, apply ``change`` and save it; when another strategist saved
    in between, read it again and apply ``change`` to theirs (``BUSY`` if that keeps
    happening)."""
    if seat.side is not None and not seat.gives_orders:
        return DeploymentResult(refusal=Refusal.NOT_STRATEGIST)

    async def attempt() -> DeploymentResult | None:
        opened = await open_deployment(store, seat)
        if opened.deployment is None:
            return opened
        decided = change(opened.deployment)
        if isinstance(decided, DeploymentResult):
            return decided
        placement, ready = decided
        return await _write_placement(store, seat, opened.deployment, placement, ready, now)

    return await _until_saved(attempt, DeploymentResult(refusal=Refusal.BUSY))


async def change_placement(
    store: Store, seat: Seat, sector: SectorId, delta: int, now: datetime
) -> DeploymentResult:
    """``delta`` armies more (1 or more) or one less (-1) in ``sector``: saved as an
    unconfirmed draft. A change past the limits (below 0, over the armies or sectors allowed)
    changes nothing."""

    def step(deployment: Deployment) -> DeploymentResult | tuple[dict[SectorId, int], bool]:
        count = deployment.placement.get(sector, 0)
        allowed = sector in deployment.game.map.by_id and (
            0 < delta <= deployment.room(sector) if delta > 0 else delta == -1 and count > 0
        )
        if not allowed:
            return DeploymentResult(deployment=deployment)
        return {**deployment.placement, sector: count + delta}, False

    return await _update_placement(store, seat, step, now)


async def replace_placement(
    store: Store, seat: Seat, placement: Mapping[SectorId, int], now: datetime
) -> DeploymentResult:
    """A whole placement typed at once: refused with every rule it breaks, else saved and
    confirmed in the same step (it can still be changed until deployment closes). The
    placement the side has already confirmed is not saved again (``changed`` stays False):
    the same line typed twice, or delivered again by Telegram, changes nothing."""

    def replace(deployment: Deployment) -> DeploymentResult | tuple[dict[SectorId, int], bool]:
        problems = check_deployment(deployment.game, placement)
        if problems:
            return DeploymentResult(deployment=deployment, problems=tuple(problems))
        if deployment.ready and deployment.placement == dict(placement):
            return DeploymentResult(deployment=deployment)
        return dict(placement), True

    return await _update_placement(store, seat, replace, now)


async def confirmed_placement(store: Store, seat: Seat) -> dict[SectorId, int] | None:
    """The placement the seat's side confirmed at deployment (kept after deployment closes),
    or ``None`` if it has none."""
    if seat.side is None:
        return None
    record = (await store.placements(seat.campaign.id)).get(seat.side)
    return dict(record.placement) if record is not None and record.ready else None


async def confirm_placement(store: Store, seat: Seat, now: datetime) -> DeploymentResult:
    """Confirm the draft if it meets the deployment rules; else name the rules it breaks. A
    draft another strategist changed meanwhile is not confirmed (``CHANGED_MEANWHILE``, with
    the placement as it now is)."""
    seen: list[dict[SectorId, int]] = []

    def confirm(deployment: Deployment) -> DeploymentResult | tuple[dict[SectorId, int], bool]:
        if seen and deployment.placement != seen[0]:
            return DeploymentResult(refusal=Refusal.CHANGED_MEANWHILE, deployment=deployment)
        seen.append(deployment.placement)
        problems = deployment.problems()
        if problems:
            return DeploymentResult(deployment=deployment, problems=tuple(problems))
        if deployment.ready:
            return DeploymentResult(deployment=deployment)
        return deployment.placement, True

    return await _update_placement(store, seat, confirm, now)


# ---- battles and results --------------------------------------------------------------------


@dataclass(frozen=True)
class BattleDesk:
    """This turn's battles a person may see (their side's, or all for the GM) and reports.

    ``battles`` are as fought now: a chain battle's defender is the one the results so far give
    it (MODULES.md C6), and a person sees a chain battle while their side may still fight it.
    ``reports`` are about the sides each battle has now; ``stale`` are the battles whose report
    was given against another defender (an earlier battle changed hands): it no longer counts."""

    campaign: Campaign
    battles: tuple[Battle, ...]
    reports: Mapping[int, BattleReport]
    reporters: Mapping[int, SideId | None]  # battle -> side of whoever reported it
    disputers: Mapping[int, SideId | None] = field(default_factory=dict)  # ... disputed it
    status: Mapping[int, BattleSides] = field(default_factory=dict)  # chain battles' status
    stale: frozenset[int] = frozenset()

    def playable(self, battle: Battle) -> bool:
        """Whether the battle is fought on the results so far (a chain battle may wait for
        the one before it, or not be played at all)."""
        known = self.status.get(battle.id)
        return known is None or known.status is BattleStatus.PLAYABLE


@dataclass(frozen=True)
class ListedBattles:
    """The current turn's battle list as it stands: the reports that are about each battle's
    sides now, and who wrote them."""

    battles: tuple[Battle, ...]
    standing: StandingResults
    reports: Mapping[int, BattleReport]
    stale: frozenset[int]

    def fought(self, battle_id: int) -> Battle | None:
        """Battle ``battle_id`` with the sides it is fought by now."""
        found = next((b for b in self.battles if b.id == battle_id), None)
        return None if found is None else self.standing.fought(found)


async def listed_battles(store: Store, campaign: Campaign) -> ListedBattles | None:
    """The current turn's list and its reports as they stand (``None`` before the list)."""
    listed = await store.battle_list(campaign.id, campaign.turn)
    if listed is None:
        return None
    return standing_list(listed.battles, await store.battle_reports(campaign.id, campaign.turn))


def standing_list(battles: Sequence[Battle], reports: Sequence[BattleReport]) -> ListedBattles:
    """``battles`` and ``reports`` as they stand (see :class:`ListedBattles`)."""
    standing = standing_results(battles, reports)
    kept: dict[int, BattleReport] = {}
    stale: set[int] = set()
    for report in reports:
        current = standing.current(report)
        if current is not None:
            kept[report.battle] = current
        else:
            stale.add(report.battle)
    return ListedBattles(tuple(battles), standing, kept, frozenset(stale))


async def battles_public_at(store: Store, seat: Seat, now: datetime) -> datetime | None:
    """When this turn's battle list becomes public if it is not yet (orders close on Thursday,
    the list is posted on Friday); ``None`` once it is, and always for the GM."""
    if seat.is_gm:
        return None
    campaign = await store.campaign(seat.campaign.id) or seat.campaign
    if campaign.phase not in (Phase.BATTLES, Phase.RESOLUTION):
        return None
    return await battle_list_public_at(store, campaign, now)


async def open_battles(store: Store, seat: Seat, now: datetime) -> BattleDesk | None:
    """The person's battles of the current turn's list; ``None`` before the list is out, and
    before it is public at ``now``, except for the GM."""
    campaign = await store.campaign(seat.campaign.id) or seat.campaign
    if campaign.phase not in (Phase.BATTLES, Phase.RESOLUTION):
        return None
    if await battles_public_at(store, seat, now) is not None:
        return None
    listed = await listed_battles(store, campaign)
    if listed is None:
        return None
    standing = listed.standing
    mine = tuple(
        standing.fought(battle)
        for battle in listed.battles
        if seat.is_gm or (seat.side is not None and seat.side in standing.concerns(battle))
    )
    members = {m.user_id: m for m in await store.members(campaign.id)}
    reporters: dict[int, SideId | None] = {}
    disputers: dict[int, SideId | None] = {}
    for number, report in listed.reports.items():
        who = members.get(report.reported_by) if report.reported_by is not None else None
        reporters[number] = who.side_id if who else None
        if report.disputed_by is not None:
            disputer = members.get(report.disputed_by)
            disputers[number] = disputer.side_id if disputer else None
    return BattleDesk(
        campaign=campaign,
        battles=mine,
        reports=listed.reports,
        reporters=reporters,
        disputers=disputers,
        status=standing.sides,
        stale=listed.stale,
    )


@dataclass(frozen=True)
class ResultWrite:
    """What a report, confirmation or dispute did (``event``: what the others are told)."""

    refusal: Refusal | None = None
    battle: Battle | None = None
    report: BattleReport | None = None
    notices: tuple[NewOutboxMessage, ...] = ()
    event: str = ""


@dataclass(frozen=True)
class _Target:
    """A battle a result is written for: the campaign, the battle as fought now, the list it
    stands in."""

    campaign: Campaign
    battle: Battle | None = None
    listed: ListedBattles | None = None
    refusal: Refusal | None = None


async def _battle_for(
    store: Store, seat: Seat, expected_turn: int, battle_id: int, now: datetime
) -> _Target:
    campaign = await store.campaign(seat.campaign.id) or seat.campaign
    if not is_active(campaign):
        return _Target(campaign, refusal=Refusal.CAMPAIGN_OVER)
    if campaign.turn != expected_turn or campaign.phase not in (Phase.BATTLES, Phase.RESOLUTION):
        return _Target(campaign, refusal=Refusal.STALE)
    if await battles_public_at(store, seat, now) is not None:
        return _Target(campaign, refusal=Refusal.LIST_NOT_PUBLIC)
    listed = await listed_battles(store, campaign)
    battle = None if listed is None else listed.fought(battle_id)
    if battle is None or listed is None:
        return _Target(campaign, refusal=Refusal.NO_SUCH_BATTLE)
    status = listed.standing.sides.get(battle.id)
    if not seat.is_gm and seat.side not in listed.standing.concerns(battle):
        return _Target(campaign, battle, listed, Refusal.NOT_PARTICIPANT)
    if status is not None and status.status is not BattleStatus.PLAYABLE:
        return _Target(campaign, battle, listed, Refusal.NOT_PLAYABLE)
    if not seat.is_gm and seat.side not in battle.participants():
        return _Target(campaign, battle, listed, Refusal.NOT_PARTICIPANT)
    return _Target(campaign, battle, listed)


def result_notice(
    campaign: Campaign, turn: int, battle: int, user_id: UserId, event: str, seq: int
) -> NewOutboxMessage:
    """A private note about a battle's result (reported, confirmed, disputed, accepted,
    decided) to one person."""
    return NewOutboxMessage(
        campaign_id=campaign.id,
        chat_id=user_id,
        kind="battle_result",
        payload={"campaign_id": campaign.id, "turn": turn, "battle": battle, "event": event},
        dedup_key=f"campaign:{campaign.id}:turn:{turn}:battle:{battle}:{event}:{seq}:{user_id}",
    )


def chain_notice(
    campaign: Campaign, turn: int, sides: BattleSides, user_id: UserId, seq: int
) -> NewOutboxMessage:
    """A private note that a chain battle's sides changed with the result of an earlier one
    (worded when sent, from the battle as it stands then); one per change of its ``sides``."""
    now = f"{sides.status.value}-{sides.defender or ''}-{int(sides.unopposed)}-{int(sides.stale)}"
    return NewOutboxMessage(
        campaign_id=campaign.id,
        chat_id=user_id,
        kind="chain_battle",
        payload={"campaign_id": campaign.id, "turn": turn, "battle": sides.battle},
        dedup_key=(
            f"campaign:{campaign.id}:turn:{turn}:battle:{sides.battle}:chain:{now}:{seq}:{user_id}"
        ),
    )


async def reachable_players(
    store: Store, campaign: Campaign, sides: set[SideId], actor: UserId | None = None
) -> list[UserId]:
    """The strategists and tacticians of ``sides`` (but ``actor``) the bot can write to."""
    members = [
        m
        for m in await store.members(campaign.id)
        if m.side_id in sides and m.user_id != actor and m.roles & {Role.STRATEGIST, Role.TACTICIAN}
    ]
    people = await store.people([m.user_id for m in members])
    return [
        m.user_id
        for m in members
        if (person := people.get(m.user_id)) is not None and person.can_receive_private
    ]


async def reachable_gms(store: Store, campaign: Campaign) -> list[UserId]:
    """The GMs and co-GMs the bot can write to in private."""
    gms = [m.user_id for m in await store.members(campaign.id) if m.is_gm]
    people = await store.people(gms)
    return [
        uid for uid in gms if (person := people.get(uid)) is not None and person.can_receive_private
    ]


async def result_notices(
    store: Store,
    campaign: Campaign,
    battle: Battle,
    sides: set[SideId],
    actor: UserId | None,
    event: str,
    now: datetime,
) -> tuple[NewOutboxMessage, ...]:
    """The notes to the players of ``sides`` who can get private messages (to be queued with
    the write they announce)."""
    seq = int(now.timestamp() * 1000)
    return tuple(
        result_notice(campaign, campaign.turn, battle.id, user_id, event, seq)
        for user_id in await reachable_players(store, campaign, sides, actor)
    )


def _chain_view(sides: BattleSides | None) -> tuple[object, ...]:
    if sides is None:
        return ()
    return (sides.status, sides.defender, sides.unopposed, sides.stale)


async def chain_changes(
    store: Store,
    campaign: Campaign,
    before: ListedBattles,
    actor: UserId | None,
    now: datetime,
) -> tuple[NewOutboxMessage, ...]:
    """After a result of this turn was written (inside the write's transaction): a note to the
    players of every chain battle whose sides or status that result changed, on both its old
    and its new sides (a battle that now has its defender, has another one, waits again, or is
    not played), so each side knows what it plays now."""
    after = await listed_battles(store, campaign)
    if after is None:
        return ()
    seq = int(now.timestamp() * 1000)
    notices: list[NewOutboxMessage] = []
    for battle in after.battles:
        old, new = before.standing.sides.get(battle.id), after.standing.sides.get(battle.id)
        if new is None or battle.defender_from is None or _chain_view(old) == _chain_view(new):
            continue
        sides = {*before.standing.concerns(battle), *after.standing.concerns(battle)}
        for user_id in await reachable_players(store, campaign, sides, actor):
            notices.append(chain_notice(campaign, campaign.turn, new, user_id, seq))
    return tuple(notices)


async def _queue_chain_changes(
    store: Store, campaign: Campaign, before: ListedBattles, actor: UserId, now: datetime
) -> None:
    for message in await chain_changes(store, campaign, before, actor, now):
        await store.enqueue(message, now)


def dispute_notice(
    campaign: Campaign, turn: int, battle: int, user_id: UserId, seq: int
) -> NewOutboxMessage:
    """A GM's private message about a disputed battle: both accounts and the decision buttons."""
    return NewOutboxMessage(
        campaign_id=campaign.id,
        chat_id=user_id,
        kind="dispute",
        payload={"campaign_id": campaign.id, "turn": turn, "battle": battle},
        dedup_key=f"campaign:{campaign.id}:turn:{turn}:battle:{battle}:dispute:{seq}:{user_id}",
    )


async def _dispute_notices(
    store: Store, campaign: Campaign, battle: Battle, now: datetime
) -> tuple[NewOutboxMessage, ...]:
    seq = int(now.timestamp() * 1000)
    return tuple(
        dispute_notice(campaign, campaign.turn, battle.id, gm, seq)
        for gm in await reachable_gms(store, campaign)
    )


async def _current_report(
    store: Store, target: _Target, battle: Battle
) -> tuple[BattleReport | None, SideId | None, SideId | None]:
    """The battle's report about its sides now, and the sides of whoever reported and
    disputed it."""
    report = None if target.listed is None else target.listed.reports.get(battle.id)
    if report is None:
        return None, None, None
    campaign = target.campaign
    sides: dict[UserId, SideId | None] = {}
    for user_id in (report.reported_by, report.disputed_by):
        if user_id is not None and user_id not in sides:
            member = await store.member(campaign.id, user_id)
            sides[user_id] = member.side_id if member is not None else None
    reporter = sides.get(report.reported_by) if report.reported_by is not None else None
    disputer = sides.get(report.disputed_by) if report.disputed_by is not None else None
    return report, reporter, disputer


def defender_mark(battle: Battle) -> int:
    """Which of the sides that may defend a chain battle defends it (its place among the
    battle's ``armies``), for a button to carry: -1 for a battle with fixed sides."""
    if battle.defender_from is None or battle.defender not in battle.armies:
        return -1
    return list(battle.armies).index(battle.defender)


def _fighting_side(seat: Seat, battle: Battle) -> SideId | None:
    """The presser's side if it fights this battle (a GM who plays it too counts as a player)."""
    return seat.side if seat.side in battle.participants() else None


def _module_data_problem(campaign: Campaign, battle: Battle, result: BattleResult) -> bool:
    """Whether a rule module refuses the data a result carries for it (or is not enabled)."""
    game = game_for(campaign)
    for name, data in result.modules.items():
        module = game.module(name)
        if module is None or module.check_result(battle, data) is not None:
            return True
    return False


async def report_result(
    store: Store,
    seat: Seat,
    expected_turn: int,
    battle_id: int,
    outcome: Outcome,
    winner: SideId | None,
    now: datetime,
    modules: Mapping[str, JsonValue] | None = None,
    defender: SideId | None = None,
) -> ResultWrite:
    """A participant (or the GM) reports how a battle ended (RULES.md 3.4), with rule modules'
    data by module name (``BotModule.report_data``: a slain warlord), which the rules check;
    ``defender``: the defender the reporter saw (refused if the battle has another now).

    The first report stands unless the other side disputes it by the deadline; the other side
    reporting the same result confirms it, and a different one disputes it (the GMs decide).
    A side may change its own report until the other side answers; a result both sides agreed
    on, or a GM decided, is changed only by a GM. A chain battle is reported by the sides it
    has now (MODULES.md C6: its defender is the winner of the battle before)."""
    target = await _battle_for(store, seat, expected_turn, battle_id, now)
    battle, campaign = target.battle, target.campaign
    if target.refusal is not None or battle is None or target.listed is None:
        return ResultWrite(refusal=target.refusal)
    if defender is not None and defender != battle.defender:
        return ResultWrite(refusal=Refusal.SIDES_CHANGED, battle=battle)
    if (winner is None) == outcome.has_winner or (
        winner is not None and winner not in battle.participants()
    ):
        return ResultWrite(refusal=Refusal.BAD_WINNER, battle=battle)
    result = BattleResult(
        battle=battle.id, outcome=outcome, winner=winner, modules=dict(modules or {})
    )
    if _module_data_problem(campaign, battle, result):
        return ResultWrite(refusal=Refusal.BAD_WARLORD, battle=battle)
    report, reporter, disputer = await _current_report(store, target, battle)
    side = _fighting_side(seat, battle)
    if report is not None and report.override is not None:
        return ResultWrite(refusal=Refusal.SETTLED, battle=battle, report=report)
    if report is not None and report.disputed and side is None:
        return ResultWrite(refusal=Refusal.DISPUTED, battle=battle, report=report)
    if report is not None and report.reported is not None and side is not None:
        if report.disputed:
            # Either side may take the other's account (it ends the dispute); the disputing
            # side may give another account; otherwise the GMs decide.
            if side == reporter and result == report.counter:
                return await _confirm(store, seat, target, battle, result, now)
            if side == disputer and result == report.reported:
                return await _confirm(store, seat, target, battle, result, now)
            if side == disputer:
                return await _dispute(store, seat, target, battle, report.reported, result, now)
            return ResultWrite(refusal=Refusal.DISPUTED, battle=battle, report=report)
        if reporter is not None and side != reporter:
            if result == report.reported:
                return await _confirm(store, seat, target, battle, result, now)
            return await _dispute(store, seat, target, battle, report.reported, result, now)
        if report.confirmed_by is not None:
            return ResultWrite(refusal=Refusal.AGREED, battle=battle, report=report)
    others = set(battle.participants()) - ({side} if side else set())
    notices = await result_notices(
        store, campaign, battle, others, seat.member.user_id, "reported", now
    )
    async with store.atomic():
        written = await store.report_result(
            campaign.id,
            campaign.turn,
            result,
            seat.member.user_id,
            now,
            against=battle.defender,
            outbox=(*notices, board_refresh(campaign, f"result:{battle.id}", now)),
        )
        if written.outcome is WriteOutcome.SAVED:
            await _queue_chain_changes(store, campaign, target.listed, seat.member.user_id, now)
    if written.outcome is not WriteOutcome.SAVED:
        return ResultWrite(refusal=Refusal.STALE, battle=battle)
    return ResultWrite(battle=battle, report=written.report, notices=notices, event="reported")


async def answer_result(
    store: Store,
    seat: Seat,
    expected_turn: int,
    battle_id: int,
    expected: BattleResult | None,
    confirm: bool,
    now: datetime,
    counter: BattleResult | None = None,
) -> ResultWrite:
    """Confirm an account of a battle (only if it is still ``expected``), or dispute the
    reported one with the presser's own account ``counter`` for the GMs to decide.

    Confirming the reported result is for the other side (or a GM); in a dispute, the side that
    reported may confirm the disputing side's account instead, which ends the dispute."""
    target = await _battle_for(store, seat, expected_turn, battle_id, now)
    battle = target.battle
    if target.refusal is not None or battle is None:
        return ResultWrite(refusal=target.refusal)
    report, reporter, disputer = await _current_report(store, target, battle)
    if report is None or report.reported is None or report.reported_by is None:
        return ResultWrite(refusal=Refusal.NO_REPORT, battle=battle)
    if report.override is not None:
        return ResultWrite(refusal=Refusal.SETTLED, battle=battle, report=report)
    if expected is None or expected.battle != battle.id:
        return ResultWrite(refusal=Refusal.REPORT_CHANGED, battle=battle, report=report)
    side = _fighting_side(seat, battle)
    if confirm:
        if expected == report.reported:
            author = reporter
        elif report.disputed and expected == report.counter:
            author = disputer
        else:
            return ResultWrite(refusal=Refusal.REPORT_CHANGED, battle=battle, report=report)
        if (side is None and not seat.is_gm) or (side is not None and side == author):
            return ResultWrite(refusal=Refusal.NOT_OPPONENT, battle=battle, report=report)
        return await _confirm(store, seat, target, battle, expected, now)
    if side is None or side == reporter:
        return ResultWrite(refusal=Refusal.NOT_OPPONENT, battle=battle, report=report)
    if expected != report.reported:
        return ResultWrite(refusal=Refusal.REPORT_CHANGED, battle=battle, report=report)
    if (
        counter is None
        or counter.battle != battle.id
        or (counter.winner is not None and counter.winner not in battle.participants())
    ):
        return ResultWrite(refusal=Refusal.BAD_WINNER, battle=battle, report=report)
    if _module_data_problem(target.campaign, battle, counter):
        return ResultWrite(refusal=Refusal.BAD_WARLORD, battle=battle, report=report)
    if counter == report.reported:
        return await _confirm(store, seat, target, battle, counter, now)
    return await _dispute(store, seat, target, battle, report.reported, counter, now)


async def _confirm(
    store: Store,
    seat: Seat,
    target: _Target,
    battle: Battle,
    expected: BattleResult,
    now: datetime,
) -> ResultWrite:
    campaign = target.campaign
    side = _fighting_side(seat, battle)
    told = set(battle.participants()) - ({side} if side else set())
    notices = await result_notices(
        store, campaign, battle, told, seat.member.user_id, "confirmed", now
    )
    async with store.atomic():
        written = await store.confirm_result(
            campaign.id,
            campaign.turn,
            expected,
            seat.member.user_id,
            now,
            against=battle.defender,
            outbox=(*notices, board_refresh(campaign, f"result:{battle.id}", now)),
        )
        if written.outcome is WriteOutcome.SAVED and target.listed is not None:
            await _queue_chain_changes(store, campaign, target.listed, seat.member.user_id, now)
    return _written(written.outcome, battle, written.report, notices, "confirmed")


async def _dispute(
    store: Store,
    seat: Seat,
    target: _Target,
    battle: Battle,
    expected: BattleResult,
    counter: BattleResult,
    now: datetime,
) -> ResultWrite:
    campaign = target.campaign
    side = _fighting_side(seat, battle)
    told = set(battle.participants()) - ({side} if side else set())
    notices = await result_notices(
        store, campaign, battle, told, seat.member.user_id, "disputed", now
    )
    alarms = await _dispute_notices(store, campaign, battle, now)
    async with store.atomic():
        written = await store.dispute_result(
            campaign.id,
            campaign.turn,
            expected,
            counter,
            seat.member.user_id,
            now,
            against=battle.defender,
            outbox=(*notices, *alarms, board_refresh(campaign, f"result:{battle.id}", now)),
        )
        if written.outcome is WriteOutcome.SAVED and target.listed is not None:
            await _queue_chain_changes(store, campaign, target.listed, seat.member.user_id, now)
    return _written(written.outcome, battle, written.report, notices, "disputed")


def _written(
    outcome: WriteOutcome,
    battle: Battle,
    report: BattleReport | None,
    notices: tuple[NewOutboxMessage, ...],
    event: str,
) -> ResultWrite:
    match outcome:
        case WriteOutcome.SAVED:
            return ResultWrite(battle=battle, report=report, notices=notices, event=event)
        case WriteOutcome.REPORT_CHANGED:
            return ResultWrite(refusal=Refusal.REPORT_CHANGED, battle=battle, report=report)
        case WriteOutcome.NO_REPORT:
            return ResultWrite(refusal=Refusal.NO_REPORT, battle=battle)
        case _:
            return ResultWrite(refusal=Refusal.STALE, battle=battle)


async def decide_result(
    store: Store,
    seat: Seat,
    expected_turn: int,
    battle_id: int,
    result: BattleResult,
    now: datetime,
) -> ResultWrite:
    """A GM's final word on a battle of the turn being played (a dispute, or any other):
    audited, both sides told in private, the group told, the board refreshed, all at once."""
    if not seat.is_gm:
        return ResultWrite(refusal=Refusal.NOT_GM)
    target = await _battle_for(store, seat, expected_turn, battle_id, now)
    battle, campaign = target.battle, target.campaign
    if target.refusal is not None or battle is None or target.listed is None:
        return ResultWrite(refusal=target.refusal)
    if result.battle != battle.id or (
        result.winner is not None and result.winner not in battle.participants()
    ):
        return ResultWrite(refusal=Refusal.BAD_WINNER, battle=battle)
    if _module_data_problem(campaign, battle, result):
        return ResultWrite(refusal=Refusal.BAD_WARLORD, battle=battle)
    report, _reporter, _disputer = await _current_report(store, target, battle)
    if report is not None and report.override == result:
        return ResultWrite(battle=battle, report=report, event="decided")
    reason = (
        "dispute decided by the GM" if report is not None and report.disputed else "set by the GM"
    )
    actor = seat.member.user_id
    notices = await result_notices(
        store, campaign, battle, set(battle.participants()), actor, "decided", now
    )
    seq = int(now.timestamp() * 1000)
    announcement = group_post(
        campaign,
        "result_decided",
        f"turn:{campaign.turn}:battle:{battle.id}:decided:{seq}",
        turn=campaign.turn,
        battle=battle.id,
        by=actor,
    )
    async with store.atomic():
        written = await store.override_result(
            campaign.id,
            campaign.turn,
            battle.id,
            result,
            actor,
            reason,
            now,
            against=battle.defender,
        )
        if written.outcome is not WriteOutcome.SAVED:
            return _written(written.outcome, battle, written.report, (), "decided")
        for message in (
            *notices,
            announcement,
            board_refresh(campaign, f"decided:{battle.id}", now),
        ):
            await store.enqueue(message, now)
        await _queue_chain_changes(store, campaign, target.listed, actor, now)
    return ResultWrite(battle=battle, report=written.report, notices=notices, event="decided")


@dataclass(frozen=True)
class BattleDuties:
    """What a side still has to do about this turn's results: battles nobody reported yet,
    and reports of the other side it has not answered (they stand unless it disputes)."""

    to_report: tuple[int, ...] = ()
    to_answer: tuple[int, ...] = ()

    def __bool__(self) -> bool:
        return bool(self.to_report or self.to_answer)


async def battle_duties(store: Store, campaign: Campaign) -> dict[SideId, BattleDuties]:
    """Each side's :class:`BattleDuties` for the current turn's list (sides with none left
    out): battles played by the sides they have now (a chain battle waiting for the one before
    asks nothing yet)."""
    listed = await listed_battles(store, campaign)
    if listed is None:
        return {}
    members = {m.user_id: m.side_id for m in await store.members(campaign.id)}
    report_of: dict[SideId, list[int]] = {}
    answer_of: dict[SideId, list[int]] = {}
    for listed_battle in listed.battles:
        known = listed.standing.sides.get(listed_battle.id)
        if known is not None and known.status is not BattleStatus.PLAYABLE:
            continue
        battle = listed.standing.fought(listed_battle)
        report = listed.reports.get(battle.id)
        if report is None or (report.reported is None and report.override is None):
            for side in battle.participants():
                report_of.setdefault(side, []).append(battle.id)
        elif report.awaiting_answer:
            reporter = members.get(report.reported_by) if report.reported_by is not None else None
            for side in battle.participants():
                if side != reporter:
                    answer_of.setdefault(side, []).append(battle.id)
    return {
        side: BattleDuties(tuple(report_of.get(side, ())), tuple(answer_of.get(side, ())))
        for side in {*report_of, *answer_of}
    }


class SourceKind(StrEnum):
    """Where a battle's result in a resolved turn came from."""

    GM = "gm"  # a GM decided it
    AGREED = "agreed"  # one side reported it, the other confirmed it
    STANDS = "stands"  # reported, neither confirmed nor disputed by the deadline: it stands
    DISPUTED = "disputed"  # still disputed when a GM forced the resolution: the policy applied
    UNREPORTED = "unreported"  # nobody reported it: the policy applied


@dataclass(frozen=True)
class ResultSource:
    """A battle's result source, with the side that reported it (``STANDS``, ``AGREED``)."""

    kind: SourceKind
    side: SideId | None = None


async def result_sources(store: Store, campaign_id: int, turn: int) -> dict[int, ResultSource]:
    """Where each battle result of ``turn``'s current list came from, for the summary (a
    report given against a defender its chain battle no longer had counts as none)."""
    reports = await store.battle_reports(campaign_id, turn)
    listed = await store.battle_list(campaign_id, turn)
    standing = standing_results(() if listed is None else listed.battles, reports, final=True)
    members = {m.user_id: m.side_id for m in await store.members(campaign_id)}
    sources: dict[int, ResultSource] = {}
    for given in reports:
        report = standing.current(given)
        side = (
            members.get(report.reported_by)
            if report is not None and report.reported_by is not None
            else None
        )
        if report is None:
            sources[given.battle] = ResultSource(SourceKind.UNREPORTED)
        elif report.override is not None:
            sources[report.battle] = ResultSource(SourceKind.GM)
        elif report.reported is None:
            sources[report.battle] = ResultSource(SourceKind.UNREPORTED)
        elif report.disputed:
            sources[report.battle] = ResultSource(SourceKind.DISPUTED, side)
        elif report.confirmed_by is not None:
            sources[report.battle] = ResultSource(SourceKind.AGREED, side)
        else:
            sources[report.battle] = ResultSource(SourceKind.STANDS, side)
    return sources
