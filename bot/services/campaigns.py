"""Campaign setup and membership: the steps behind the group's wizard, joining and GM tools.

Pure async functions over the :class:`~storage.Store` (no Telegram, no clock: ``now`` is passed
in). They check what the rules and storage need and return values; the handlers word them.
Phase changes go through :func:`bot.services.clockwork.advance` only.
"""

from __future__ import annotations

import tomllib
import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime, time, timedelta
from enum import StrEnum
from zoneinfo import ZoneInfo, available_timezones

from pydantic import JsonValue, ValidationError

from bot.modules import BOT_MODULES
from bot.services.deployment import sides_to_place
from bot.services.posting import board_post, group_post, private_post
from bot.services.records import held_at, summary_post
from bot.services.turns import game_for, private_summaries
from bot.texts.moments import find_zone_by_city
from rules import (
    BattleResult,
    BattleStatus,
    CampaignMap,
    MapError,
    MapProblem,
    MapProblemCode,
    Outcome,
    Ruleset,
    check_deployment,
    default_deployment,
    parse_map_toml,
)
from rules.colours import OKABE_ITO, choose_colour
from rules.deployment import DeploymentProblem
from storage import (
    Campaign,
    CampaignSettings,
    CampaignStatus,
    JoiningPolicy,
    JoinRequest,
    Member,
    NewOutboxMessage,
    NewSide,
    OutboxState,
    Phase,
    Role,
    Side,
    Store,
    WriteOutcome,
    standing_results,
)
from storage.models import SectorId, SideId, UserId
from storage.names import clean_name

MAX_SIDES = len(OKABE_ITO)
MAX_MAP_BYTES = 256 * 1024
PLAYER_ROLES = frozenset({Role.STRATEGIST, Role.TACTICIAN})


@dataclass(frozen=True)
class Colour:
    """A side colour of the Okabe-Ito palette: a short key, its name and its hex value."""

    key: str
    name: str
    hex: str


def _colour_key(name: str) -> str:
    return "sky" if name == "sky blue" else name.rsplit(maxsplit=1)[-1]


PALETTE: tuple[Colour, ...] = tuple(
    Colour(key=_colour_key(name), name=name, hex=f"#{r:02x}{g:02x}{b:02x}")
    for name, (r, g, b) in OKABE_ITO
)
"""The eight colours offered for sides, in palette order (colour-blind safe)."""


def colour_by_key(key: str) -> Colour | None:
    """The palette colour with ``key``, if any."""
    return next((colour for colour in PALETTE if colour.key == key), None)


def colour_by_hex(value: str) -> Colour | None:
    """The palette colour with hex ``value``, if any."""
    return next((colour for colour in PALETTE if colour.hex == value.lower()), None)


def new_side_colour(name: str, sides: list[Side]) -> Colour | None:
    """The colour a new side called ``name`` takes beside ``sides``, chosen once and drawn by
    every picture: the safe colour its name names when no side has it
    (:func:`rules.colours.named_colour`: «Красные» are vermillion), else the first free one;
    ``None`` when every colour is taken."""
    free = free_colours(sides)
    if not free:
        return None
    taken = {index for index, colour in enumerate(PALETTE) if colour not in free}
    return PALETTE[choose_colour(name, taken)]


def free_colours(sides: list[Side]) -> list[Colour]:
    """Palette colours no side uses yet."""
    used = {side.colour.lower() for side in sides}
    return [colour for colour in PALETTE if colour.hex not in used]


# ---- setup -------------------------------------------------------------------------------------


def find_time_zone(text: str) -> str | None:
    """The IANA zone named by ``text`` (any letter case, spaces for underscores), or by its
    city in English or Russian («Омск», "Omsk"), else ``None``."""
    wanted = text.strip().replace(" ", "_")
    if not wanted or len(wanted) > 64:
        return None
    if wanted.upper() == "UTC":
        return "UTC"
    for zone in available_timezones():
        if zone.lower() == wanted.lower():
            ZoneInfo(zone)
            return zone
    return find_zone_by_city(text)


def deployment_deadline(now: datetime, time_zone: str, days: int) -> datetime | None:
    """The end of deployment ``days`` days from ``now``: 23:59 of that day in the campaign's
    time zone (``0``: no deadline)."""
    if days <= 0:
        return None
    zone = ZoneInfo(time_zone)
    day = (now.astimezone(zone) + timedelta(days=days)).date()
    return datetime.combine(day, time(23, 59), zone)


def zone_change(campaign: Campaign, time_zone: str) -> CampaignSettings:
    """The settings that move ``campaign`` to ``time_zone``. The deadlines already chosen keep
    their local time: a deployment that ended Monday 23:59 under UTC ends Monday 23:59 in the
    new zone (the weekly moments are local times already)."""
    chosen = campaign.schedule.deployment_deadline
    if chosen is None or time_zone == campaign.time_zone:
        return CampaignSettings(time_zone=time_zone)
    wall = chosen.astimezone(ZoneInfo(campaign.time_zone)).replace(tzinfo=None)
    moved = wall.replace(tzinfo=ZoneInfo(time_zone), fold=0)
    schedule = campaign.schedule.model_copy(update={"deployment_deadline": moved})
    return CampaignSettings(time_zone=time_zone, schedule=schedule)


def read_map_file(content: bytes) -> CampaignMap:
    """A GM's uploaded TOML map, validated by the rules core; :class:`MapError` says why not."""
    if len(content) > MAX_MAP_BYTES:
        detail = f"the file is larger than {MAX_MAP_BYTES // 1024} KB"
        raise MapError([MapProblem(code=MapProblemCode.SYNTAX, detail=detail)])
    try:
        text = content.decode("utf-8")
    except UnicodeDecodeError as error:
        detail = f"not UTF-8 text ({error.reason})"
        raise MapError([MapProblem(code=MapProblemCode.SYNTAX, detail=detail)]) from error
    try:
        return parse_map_toml(text)
    except (tomllib.TOMLDecodeError, RecursionError) as error:  # nested too deep: recursion
        raise MapError([MapProblem(code=MapProblemCode.SYNTAX, detail=str(error))]) from error


class RulesetInputError(ValueError):
    """Typed ruleset overrides that cannot be used; ``field`` names the culprit (or ``""``)."""

    def __init__(self, field: str) -> None:
        self.field = field
        super().__init__(field)


TYPED_RULE_FIELDS = (
    "start_armies",
    "start_sectors",
    "armies_per_attack",
    "capture_min_armies",
    "sectors_to_win",
    "battle_points",
    "replenishment",
    "reinforcement",
)


def parse_ruleset_overrides(text: str) -> dict[str, int]:
    """``start_armies=12 sectors_to_win=4`` as overrides, checked as a whole ruleset.

    ``default`` (or ``-``) gives no overrides. Raises :class:`RulesetInputError`.
    """
    words = text.replace(",", " ").replace("\n", " ").split()
    if [w.lower() for w in words] in (["default"], ["-"]):
        return {}
    overrides: dict[str, int] = {}
    for word in words:
        name, sep, value = word.partition("=")
        name = name.strip().lower()
        if not sep or name not in TYPED_RULE_FIELDS or not value.strip().isdigit():
            raise RulesetInputError(name if name in TYPED_RULE_FIELDS else word)
        overrides[name] = int(value)
    if not overrides:
        raise RulesetInputError("")
    try:
        Ruleset.with_overrides(dict(overrides))
    except ValidationError as error:
        location = error.errors()[0].get("loc") or ("",)
        raise RulesetInputError(str(location[0])) from error
    return overrides


class AddSideOutcome(StrEnum):
    """What :func:`add_side` did."""

    ADDED = "added"
    TOO_MANY = "too_many"
    NAME_TAKEN = "name_taken"
    BAD_NAME = "bad_name"


async def add_side(
    store: Store, campaign: Campaign, name: str, actor: UserId, now: datetime
) -> tuple[AddSideOutcome, Side | None]:
    """Add a side named ``name``. Its colour, chosen here once and drawn by every picture, is
    the safe colour its name names when no side has it (`rules.colours.named_colour`:
    «Красные» are vermillion), else the first free palette colour; the GM may change it."""
    name = " ".join(name.split())
    if not 1 <= len(name) <= 64:
        return AddSideOutcome.BAD_NAME, None
    sides = await store.sides(campaign.id)
    if len(sides) >= MAX_SIDES:
        return AddSideOutcome.TOO_MANY, None
    if any(side.name.casefold() == name.casefold() for side in sides):
        return AddSideOutcome.NAME_TAKEN, None
    used_ids = {side.id for side in sides}
    side_id = next(f"s{n}" for n in range(1, MAX_SIDES * 4) if f"s{n}" not in used_ids)
    colour = new_side_colour(name, sides)
    if colour is None:
        return AddSideOutcome.TOO_MANY, None
    side = await store.add_side(
        campaign.id, NewSide(id=side_id, name=name, colour=colour.hex), actor, now
    )
    return AddSideOutcome.ADDED, side


class RenameOutcome(StrEnum):
    """What :func:`rename_side` did."""

    RENAMED = "renamed"
    UNCHANGED = "unchanged"
    NAME_TAKEN = "name_taken"
    BAD_NAME = "bad_name"
    NO_SIDE = "no_side"


async def rename_side(
    store: Store, campaign: Campaign, side_id: SideId, name: str, actor: UserId, now: datetime
) -> tuple[RenameOutcome, Side | None]:
    """Give side ``side_id`` a new name (1-64 characters, no other side's), audited; the
    side's id, colour, armies and orders stay. Returns the side as it was before."""
    name = clean_name(name)
    if not 1 <= len(name) <= 64:
        return RenameOutcome.BAD_NAME, None
    sides = await store.sides(campaign.id)
    side = next((s for s in sides if s.id == side_id), None)
    if side is None:
        return RenameOutcome.NO_SIDE, None
    if side.name == name:
        return RenameOutcome.UNCHANGED, side
    if any(s.name.casefold() == name.casefold() for s in sides if s.id != side_id):
        return RenameOutcome.NAME_TAKEN, side
    await store.update_side(
        campaign.id, NewSide(id=side.id, name=name, colour=side.colour), actor, now
    )
    return RenameOutcome.RENAMED, side


async def recolour_side(
    store: Store, campaign: Campaign, side_id: SideId, colour: Colour, actor: UserId, now: datetime
) -> Side | None:
    """Give a side a palette colour no other side uses; ``None`` if the side or colour is taken."""
    sides = await store.sides(campaign.id)
    side = next((s for s in sides if s.id == side_id), None)
    taken = {s.colour.lower() for s in sides if s.id != side_id}
    if side is None or colour.hex in taken:
        return None
    return await store.update_side(
        campaign.id, NewSide(id=side.id, name=side.name, colour=colour.hex), actor, now
    )


# ---- membership ----------------------------------------------------------------------------------


class JoinOutcome(StrEnum):
    """What :func:`join_side` did."""

    JOINED = "joined"
    ASKED = "asked"  # the join waits for a GM's approval (``Campaign.joining``)
    APPROVAL_NEEDED = "approval_needed"  # ask with :func:`ask_to_join` instead
    JOINING_CLOSED = "joining_closed"  # the campaign takes no new players now
    ALREADY_PLAYING = "already_playing"  # only a GM moves a player to another side
    UNKNOWN_SIDE = "unknown_side"
    CLOSED = "closed"
    REMOVED = "removed"  # a GM removed them; they wait until a GM lets them back
    NO_REQUEST = "no_request"  # they never pressed «Join» in the group (or it was used)


class JoinRule(StrEnum):
    """How a person joins a campaign right now (from its ``joining`` setting and phase)."""

    OPEN = "open"  # they choose a side and play it at once
    APPROVAL = "approval"  # they choose a side; a GM approves before they see anything
    CLOSED = "closed"  # nobody joins


def join_rule(campaign: Campaign, is_gm: bool = False) -> JoinRule:
    """How ``campaign`` takes a new player now: joining shows that side's secret orders, so
    after deployment it is the GM's call (``JoiningPolicy``). A GM joins a side freely."""
    if is_gm:
        return JoinRule.OPEN
    early = campaign.phase in (Phase.SETUP, Phase.DEPLOYMENT)
    match campaign.joining:
        case JoiningPolicy.APPROVAL:
            return JoinRule.APPROVAL
        case JoiningPolicy.OPEN_THEN_CLOSED:
            return JoinRule.OPEN if early else JoinRule.CLOSED
        case _:
            return JoinRule.OPEN if early else JoinRule.APPROVAL


async def join_rule_now(
    store: Store,
    campaign: Campaign,
    is_gm: bool = False,
    side_id: SideId | None = None,
    user_id: UserId | None = None,
) -> JoinRule:
    """:func:`join_rule`, with the seats a GM left vacant: a side with an open seat takes
    requests even when the campaign is closed to newcomers, and always through a GM (the GM
    chooses who replaces the player); with ``side_id``, the rule for joining that side. A
    person whose seat a GM left vacant (``user_id``) has seen that side's secrets: they join
    again only through a GM, even while joining is open."""
    rule = join_rule(campaign, is_gm)
    if is_gm:
        return rule
    vacancies = await store.vacancies(campaign.id, open_only=False)
    vacant = {vacancy.side_id for vacancy in vacancies if vacancy.closed_at is None}
    if side_id is not None and side_id in vacant:
        return JoinRule.APPROVAL
    if rule is JoinRule.OPEN and any(v.left_user_id == user_id for v in vacancies):
        return JoinRule.APPROVAL
    if rule is JoinRule.CLOSED and side_id is None and vacant:
        return JoinRule.APPROVAL
    return rule


async def join_refusal(
    store: Store, campaign: Campaign, user_id: UserId, side_id: SideId | None = None
) -> JoinOutcome | None:
    """Why ``user_id`` may not choose a side of ``campaign`` (``side_id``, when given) now, or
    ``None`` if they may.

    A join needs the person's own join request, made by the group's «Join» button or
    ``/join`` (which proves they are in the group); a person a GM removed waits until a GM
    lets them back; a member who has a side keeps it (only a GM moves members: nobody holds
    seats on two sides); a campaign closed to newcomers takes nobody but for a vacant seat.
    """
    if campaign.status is CampaignStatus.FINISHED:
        return JoinOutcome.CLOSED
    if await store.removed_member(campaign.id, user_id) is not None:
        return JoinOutcome.REMOVED
    current = await store.member(campaign.id, user_id)
    if current is not None and current.side_id is not None:
        return JoinOutcome.ALREADY_PLAYING
    is_gm = current is not None and current.is_gm
    if await join_rule_now(store, campaign, is_gm, side_id) is JoinRule.CLOSED:
        return JoinOutcome.JOINING_CLOSED
    if await store.join_request(campaign.id, user_id) is None:
        return JoinOutcome.NO_REQUEST
    return None


async def join_side(
    store: Store,
    campaign: Campaign,
    user_id: UserId,
    name: str,
    side_id: SideId,
    role: Role,
    now: datetime,
    notices: Sequence[NewOutboxMessage] = (),
) -> tuple[JoinOutcome, Member | None]:
    """Put a person on a side with a player role (a GM keeps their GM role) and finish the join.

    Refused unless :func:`join_refusal` allows it. The join request is the ticket. Taking it,
    the membership, the board refresh and ``notices`` (who joined) are one transaction: two
    presses at once join once, and a crash keeps all of it or none.
    """
    if role not in PLAYER_ROLES:
        return JoinOutcome.CLOSED, None
    async with store.atomic():
        refusal = await join_refusal(store, campaign, user_id, side_id)
        if refusal is not None:
            return refusal, await store.member(campaign.id, user_id)
        if side_id not in {side.id for side in await store.sides(campaign.id) if not side.retired}:
            return JoinOutcome.UNKNOWN_SIDE, None
        current = await store.member(campaign.id, user_id)
        is_gm = current is not None and current.is_gm
        if await join_rule_now(store, campaign, is_gm, side_id, user_id) is JoinRule.APPROVAL:
            return JoinOutcome.APPROVAL_NEEDED, current
        if not await store.drop_join_request(campaign.id, user_id):
            current = await store.member(campaign.id, user_id)
            playing = current is not None and current.side_id is not None
            return (JoinOutcome.ALREADY_PLAYING if playing else JoinOutcome.NO_REQUEST), current
        current = await store.member(campaign.id, user_id)
        roles = frozenset({role}) | (current.roles if current is not None else frozenset())
        member = await store.put_member(campaign.id, user_id, name, roles, side_id, user_id, now)
        await store.enqueue(board_refresh(campaign, f"joined:{user_id}", now), now)
        for notice in notices:
            await store.enqueue(notice, now)
    return JoinOutcome.JOINED, member


async def ask_to_join(
    store: Store,
    campaign: Campaign,
    user_id: UserId,
    side_id: SideId,
    role: Role,
    now: datetime,
) -> JoinOutcome:
    """A join that needs a GM: the request names the side and role and waits; each GM gets it
    in private with one tap to approve or refuse, the side's strategists hear of it, and the
    board lists it, all in one transaction. The person sees nothing of the side meanwhile."""
    if role not in PLAYER_ROLES:
        return JoinOutcome.CLOSED
    async with store.atomic():
        refusal = await join_refusal(store, campaign, user_id, side_id)
        if refusal is not None:
            return refusal
        if side_id not in {side.id for side in await store.sides(campaign.id) if not side.retired}:
            return JoinOutcome.UNKNOWN_SIDE
        asked = await store.ask_to_join(campaign.id, user_id, side_id, role, now)
        if asked is None:
            return JoinOutcome.NO_REQUEST
        stamp = now.strftime("%Y%m%dT%H%M%S%f")
        key = f"join:{user_id}:{stamp}"
        gms = [m.user_id for m in await store.members(campaign.id) if m.is_gm]
        reachable = await store.people(gms)
        queued = [
            private_post(campaign, gm, "join_request", key, user=user_id)
            for gm in gms
            if gm in reachable and reachable[gm].can_receive_private
        ]
        queued += await _side_news(store, campaign, side_id, user_id, role, "asked", key)
        queued.append(board_refresh(campaign, f"asked:{user_id}", now))
        for message in queued:
            await store.enqueue(message, now)
    return JoinOutcome.ASKED


async def _side_news(
    store: Store,
    campaign: Campaign,
    side_id: SideId,
    user_id: UserId,
    role: Role,
    event: str,
    key: str,
) -> list[NewOutboxMessage]:
    """Private notes to the side's strategists about a join request (asked, approved,
    refused), worded when sent in each one's language."""
    strategists = [
        m.user_id
        for m in await store.members(campaign.id)
        if m.side_id == side_id and Role.STRATEGIST in m.roles and m.user_id != user_id
    ]
    person = await store.person(user_id)
    name = person.display_name if person is not None else str(user_id)
    return [
        private_post(
            campaign,
            uid,
            "join_news",
            f"{key}:{event}",
            side=side_id,
            role=role.value,
            name=name,
            event=event,
        )
        for uid in strategists
    ]


class JoinDecision(StrEnum):
    """What :func:`decide_join` did."""

    APPROVED = "approved"
    REFUSED = "refused"
    GONE = "gone"  # no request waits (decided by another GM, withdrawn, or the person removed)
    CANNOT_JOIN = "cannot_join"  # approved, but the side is gone or they already play


async def decide_join(
    store: Store,
    campaign: Campaign,
    gm: UserId,
    user_id: UserId,
    approve: bool,
    now: datetime,
    group_notice_text: str | None = None,
) -> tuple[JoinDecision, JoinRequest | None]:
    """A GM approves or refuses a join request that waits (audited). Approved: the person
    joins the side they asked for, with the role they asked for; refused: the request goes.
    The person and the side's strategists are told in private, the group (approved, with
    ``group_notice_text``) and the board, all in one transaction with the decision."""
    async with store.atomic():
        request = await store.join_request(campaign.id, user_id)
        if request is None or not request.awaits_gm or request.role is None:
            return JoinDecision.GONE, request
        side_id, role = request.side_id, request.role
        sides = {side.id for side in await store.sides(campaign.id) if not side.retired}
        current = await store.member(campaign.id, user_id)
        cannot = side_id not in sides or (current is not None and current.side_id is not None)
        settled = await store.settle_join_request(
            campaign.id, user_id, approve and not cannot, gm, now
        )
        if settled is None or side_id is None:
            return JoinDecision.GONE, request
        stamp = now.strftime("%Y%m%dT%H%M%S%f")
        key = f"join:{user_id}:{stamp}"
        approved = approve and not cannot
        event = "approved" if approved else "refused"
        queued = await _side_news(store, campaign, side_id, user_id, role, event, key)
        queued.append(
            private_post(
                campaign, user_id, "join_answer", key, side=side_id, role=role.value, event=event
            )
        )
        queued.append(board_refresh(campaign, f"decided:{user_id}", now))
        vacant = [v for v in await store.vacancies(campaign.id) if v.side_id == side_id]
        if approved and vacant:
            # The newcomer takes the vacant seat: its roles, and the vacancy closes (audited).
            await store.fill_seat(
                vacant[0].id,
                user_id,
                request.display_name,
                gm,
                now,
                extra_roles=frozenset({role}),
            )
        elif approved:
            roles = frozenset({role}) | (current.roles if current is not None else frozenset())
            await store.put_member(
                campaign.id, user_id, request.display_name, roles, side_id, gm, now
            )
        if approved and group_notice_text is not None:
            queued.append(group_notice(campaign, group_notice_text, now))
        for message in queued:
            await store.enqueue(message, now)
    if cannot and approve:
        return JoinDecision.CANNOT_JOIN, request
    return (JoinDecision.APPROVED if approved else JoinDecision.REFUSED), request


async def move_member(
    store: Store, campaign: Campaign, member: Member, side_id: SideId, actor: UserId, now: datetime
) -> Member | None:
    """Move a member to another side (a member without a player role becomes a strategist)."""
    if side_id not in {side.id for side in await store.sides(campaign.id) if not side.retired}:
        return None
    roles = member.roles if member.roles & PLAYER_ROLES else member.roles | {Role.STRATEGIST}
    moved = await store.put_member(
        campaign.id, member.user_id, member.display_name, roles, side_id, actor, now
    )
    await store.enqueue(board_refresh(campaign, f"moved:{member.user_id}", now), now)
    return moved


async def toggle_role(
    store: Store, campaign: Campaign, member: Member, role: Role, actor: UserId, now: datetime
) -> Member | None:
    """Give or take a role: co-GM, or strategist/tactician on the member's side.

    ``None`` when the change is not possible: the creator's GM role stays, a player role needs a
    side, and a side member keeps at least one player role.
    """
    if role is Role.GM:
        return None
    roles = member.roles ^ {role}
    if role in PLAYER_ROLES and (member.side_id is None or not roles & PLAYER_ROLES):
        return None
    updated = await store.put_member(
        campaign.id, member.user_id, member.display_name, roles, member.side_id, actor, now
    )
    await store.enqueue(board_refresh(campaign, f"role:{member.user_id}", now), now)
    return updated


async def remove_member(
    store: Store, campaign: Campaign, member: Member, actor: UserId, now: datetime
) -> bool:
    """Remove a member, who may not join again until a GM lets them (:func:`readmit`); the
    campaign's creator cannot be removed.

    The removal is noted before the membership goes: if the second write fails, the person is
    still a member the GM can remove again, never a removed one free to rejoin.
    """
    if Role.GM in member.roles:
        return False
    await store.record_removal(campaign.id, member.user_id, member.display_name, actor, now)
    removed = await store.remove_member(campaign.id, member.user_id, actor, now)
    await store.enqueue(board_refresh(campaign, f"removed:{member.user_id}", now), now)
    return removed


async def readmit(
    store: Store, campaign: Campaign, user_id: UserId, actor: UserId, now: datetime
) -> bool:
    """GM ``actor`` lets a removed person join again (they press «Join» like anyone), audited;
    False if they were not removed."""
    return await store.clear_removal(campaign.id, user_id, actor, now)


# ---- the status board ------------------------------------------------------------------------


class Readiness(StrEnum):
    """How far a side is with this phase's secret input (never what it is)."""

    READY = "ready"
    SAVED = "saved"  # something saved, not marked ready
    SILENT = "silent"  # nothing yet


@dataclass(frozen=True)
class SideLine:
    """A side on the board: who plays it, how far it is (no orders, ever) and how many sectors
    it holds (``bot.services.records.held_at``) of the ``need``ed to win."""

    side: Side
    players: tuple[str, ...]
    readiness: Readiness | None  # None outside deployment and orders
    held: int | None = None  # None before turn 1
    need: int = 0


@dataclass(frozen=True)
class Board:
    """What the status board shows: the campaign, each side's readiness, unfinished joins."""

    campaign: Campaign
    sides: tuple[SideLine, ...]
    must_open_private: tuple[str, ...]  # pressed "join", never started the bot
    choosing_side: tuple[str, ...]  # started the bot, no side yet
    results_in: int | None = None  # battles with a result, in battles and resolution
    battles: int | None = None
    awaiting_answer: tuple[tuple[int, SideId | None], ...] = ()  # (battle, reporting side)
    disputed: tuple[int, ...] = ()  # battles whose result is disputed: the GMs decide
    awaiting_gm: tuple[tuple[str, SideId], ...] = ()  # (name, side) waiting for approval


async def battle_list_public_at(store: Store, campaign: Campaign, now: datetime) -> datetime | None:
    """When the current turn's battle list becomes public: the moment its group post is held
    until (orders close on Thursday, the list is posted on Friday), or ``None`` when it is
    public already (or was never held). Until then nobody but the GM may see the battles."""
    held = [
        message.not_before
        for message in await store.unsent_outbox_messages(campaign.id, "battle_list")
        if message.payload.get("turn") == campaign.turn
        and message.state is OutboxState.PENDING
        and message.not_before > now
    ]
    return max(held, default=None)


async def board(store: Store, campaign: Campaign, now: datetime) -> Board:
    """The board of ``campaign`` at ``now``: readiness flags only, never what a side ordered;
    no battle count before the battle list is public; a retired side is not listed."""
    sides = [side for side in await store.sides(campaign.id) if not side.retired]
    members = await store.members(campaign.id)
    readiness: dict[SideId, Readiness] = {}
    if campaign.phase is Phase.DEPLOYMENT:
        placed = await store.placements(campaign.id)
        readiness = {
            s: Readiness.READY if record.ready else Readiness.SAVED for s, record in placed.items()
        }
    elif campaign.phase is Phase.ORDERS:
        given = await store.orders_for_turn(campaign.id, campaign.turn)
        readiness = {
            s: Readiness.READY if record.ready else Readiness.SAVED for s, record in given.items()
        }
    tracked = campaign.phase in (Phase.DEPLOYMENT, Phase.ORDERS)
    held = await held_at(store, campaign.id, campaign.turn) if campaign.turn >= 1 else None
    need = game_for(campaign).ruleset.sectors_to_win
    lines = tuple(
        SideLine(
            side=side,
            players=tuple(m.display_name for m in members if m.side_id == side.id),
            readiness=readiness.get(side.id, Readiness.SILENT) if tracked else None,
            held=None if held is None else len(held.get(side.id, ())),
            need=need,
        )
        for side in sides
    )
    requests = await store.join_requests(campaign.id)
    asked = [r for r in requests if r.awaits_gm and r.side_id is not None]
    requests = [r for r in requests if not r.awaits_gm]
    people = await store.people([r.user_id for r in requests])
    opened = {uid for uid, person in people.items() if person.can_receive_private}
    results_in = battles = None
    awaiting: tuple[tuple[int, SideId | None], ...] = ()
    disputed: tuple[int, ...] = ()
    listed = campaign.phase in (Phase.BATTLES, Phase.RESOLUTION)
    battle_list = (
        await store.battle_list(campaign.id, campaign.turn)
        if listed and await battle_list_public_at(store, campaign, now) is None
        else None
    )
    if battle_list is not None:
        # Counted as they stand: a chain battle not played is no battle; a report given
        # against a defender the battle no longer has is no result.
        written = await store.battle_reports(campaign.id, campaign.turn)
        standing = standing_results(battle_list.battles, written)
        reports = [
            report
            for found in written
            if (report := standing.current(found)) is not None
            and standing.sides[report.battle].status is not BattleStatus.NOT_PLAYED
        ]
        battles = sum(
            1 for sides in standing.sides.values() if sides.status is not BattleStatus.NOT_PLAYED
        )
        results_in = len(standing.results)
        side_of = {m.user_id: m.side_id for m in members}
        awaiting = tuple(
            (report.battle, side_of.get(report.reported_by) if report.reported_by else None)
            for report in reports
            if report.awaiting_answer
            and standing.sides[report.battle].status is BattleStatus.PLAYABLE
        )
        disputed = tuple(report.battle for report in reports if standing.holds(report))
    return Board(
        campaign=campaign,
        sides=lines,
        must_open_private=tuple(r.display_name for r in requests if r.user_id not in opened),
        choosing_side=tuple(r.display_name for r in requests if r.user_id in opened),
        results_in=results_in,
        battles=battles,
        awaiting_answer=awaiting,
        disputed=disputed,
        awaiting_gm=tuple((r.display_name, r.side_id) for r in asked if r.side_id is not None),
    )


def board_refresh(campaign: Campaign, reason: str, now: datetime) -> NewOutboxMessage:
    """Queue this after any change the status board shows; bursts collapse into one edit."""
    stamp = now.strftime("%Y%m%dT%H%M%S%f")
    return board_post(campaign, f"{reason[:32]}:{stamp}:{uuid.uuid4().hex}")


def group_notice(campaign: Campaign, text: str, now: datetime) -> NewOutboxMessage:
    """A ready-worded announcement to the campaign's group (the ``text`` post kind)."""
    stamp = now.strftime("%Y%m%dT%H%M%S%f")
    return group_post(campaign, "text", f"notice:{stamp}:{uuid.uuid4().hex}", text=text)


# ---- GM tools --------------------------------------------------------------------------------


async def missing_placements(store: Store, campaign: Campaign) -> list[Side]:
    """Sides that have not deployed (deployment phase): no placement, or only an unconfirmed
    draft; the same test turn 1 waits on (:func:`bot.services.deployment.sides_to_place`)."""
    return sides_to_place(await store.sides(campaign.id), await store.placements(campaign.id))


async def proposed_placement(
    store: Store, campaign: Campaign, side_id: SideId
) -> dict[SectorId, int]:
    """The documented default placement for a side that did not deploy (``rules``)."""
    placed = await store.placements(campaign.id)
    others = {s: record.placement for s, record in placed.items() if s != side_id}
    return default_deployment(game_for(campaign), others)


class PlaceOutcome(StrEnum):
    """What :func:`place_side` did."""

    PLACED = "placed"
    INVALID = "invalid"  # the rules refuse it: see the problems
    CLOSED = "closed"  # deployment is over
    DEPLOYED = "deployed"  # the side confirmed its own placement meanwhile: nothing changed


class PlacementInputError(ValueError):
    """A typed placement could not be read (not ``sector:armies`` pairs)."""


def parse_placement(text: str) -> dict[SectorId, int]:
    """``1:4 2:3 4:3`` as a placement (``x`` or ``=`` also separate sector and count)."""
    placement: dict[SectorId, int] = {}
    for word in text.replace(",", " ").split():
        for separator in (":", "=", "x", "х"):
            if separator in word:
                sector, _, count = word.partition(separator)
                break
        else:
            raise PlacementInputError(word)
        if not count.isdigit() or not sector or sector in placement:
            raise PlacementInputError(word)
        placement[sector] = int(count)
    if not placement:
        raise PlacementInputError(text)
    return placement


async def place_side(
    store: Store,
    campaign: Campaign,
    side_id: SideId,
    placement: dict[SectorId, int],
    actor: UserId,
    now: datetime,
) -> tuple[PlaceOutcome, list[DeploymentProblem]]:
    """Store the GM's placement for a side that has not confirmed its own, checked by the rules
    first (audited as the GM's). A compare-and-set on the side's placement as read here: a
    strategist confirming at the same moment wins, and the GM is told (``DEPLOYED``)."""
    problems = check_deployment(game_for(campaign), placement)
    if problems:
        return PlaceOutcome.INVALID, problems
    current = (await store.placements(campaign.id)).get(side_id)
    if current is not None and current.ready:
        return PlaceOutcome.DEPLOYED, []
    written = await store.save_placement(
        campaign.id,
        side_id,
        placement,
        True,
        actor,
        now,
        expected_edits=0 if current is None else current.edits,
    )
    if written.outcome is WriteOutcome.CONFLICT:
        return PlaceOutcome.DEPLOYED, []
    if written.placement is None:
        return PlaceOutcome.CLOSED, []
    await store.enqueue(board_refresh(campaign, f"placed:{side_id}", now), now)
    return PlaceOutcome.PLACED, []


def battle_result(battle: int, outcome: str, winner: str) -> BattleResult | None:
    """A result from a button's parts; ``None`` if they do not make one."""
    try:
        return BattleResult(battle=battle, outcome=Outcome(outcome), winner=winner or None)
    except ValueError:
        return None


async def end_campaign(
    store: Store,
    campaign: Campaign,
    actor: UserId,
    now: datetime,
    reason: str = "",
    notices: Sequence[NewOutboxMessage] = (),
) -> Campaign | None:
    """Finish the campaign now (the GM confirmed, with their ``reason`` when they gave one);
    ``None`` if it changed meanwhile. The ``notices`` go in the same transaction; every player
    hears of it in private too (with the reason)."""
    extra: dict[str, JsonValue] = {"reason": reason} if reason else {}
    told = await private_summaries(
        store,
        campaign,
        "campaign_ended",
        "ended",
        [s.id for s in await store.sides(campaign.id)],
        **extra,
    )
    state = await store.turn_start(campaign.id, campaign.turn)
    rewards = (
        []
        if state is None
        else [
            post
            for module in BOT_MODULES.values()
            for post in await module.campaign_over_posts(store, campaign, state, "ended")
        ]
    )
    async with store.atomic():
        result = await store.set_status(
            campaign.id,
            campaign.status,
            CampaignStatus.FINISHED,
            actor,
            reason or "ended by the GM",
            now,
        )
        if not result.applied or result.campaign is None:
            return None
        ended = (board_refresh(result.campaign, "ended", now), summary_post(campaign, "ended"))
        for message in (*ended, *notices, *told, *rewards):
            await store.enqueue(message, now)
    return result.campaign
