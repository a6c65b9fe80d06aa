"""A campaign's record from its resolved turns: battles won, drawn and lost by each side and by
each player, and the sectors each side held turn by turn (``/history``, ``/stats`` and the
summary post when a campaign ends).

Only resolved turns count, so nothing here is secret. A battle counts when it was played with a
result; one without a result (a draw without losses by the unreported policy) or a chain battle
that was not played does not. A player is credited with a side's battle when they reported,
confirmed or disputed its result for that side (a GM's decision credits nobody new).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from bot.services.posting import group_post
from rules import BattleResult, CampaignState, TurnReport
from rules.battles import BattleStatus, battle_sides
from storage import (
    Campaign,
    CampaignStatus,
    Member,
    NewOutboxMessage,
    Phase,
    ResolutionRecord,
    Store,
)


@dataclass(frozen=True)
class Tally:
    """Wins, draws and losses."""

    wins: int = 0
    draws: int = 0
    losses: int = 0

    @property
    def battles(self) -> int:
        """Battles counted."""
        return self.wins + self.draws + self.losses

    def plus(self, other: Tally) -> Tally:
        """Both tallies added."""
        return Tally(self.wins + other.wins, self.draws + other.draws, self.losses + other.losses)


WIN, DRAW, LOSS = Tally(wins=1), Tally(draws=1), Tally(losses=1)


def _outcome_for(side: str, result: BattleResult) -> Tally:
    if not result.outcome.has_winner:
        return DRAW
    return WIN if result.winner == side else LOSS


@dataclass(frozen=True)
class Fought:
    """One battle that was played with a result: its sides and what each got."""

    turn: int
    battle: int
    outcomes: dict[str, Tally]


def fought_battles(report: TurnReport) -> list[Fought]:
    """The battles of a resolved turn that count: played, with a result."""
    results = {result.battle: result for result in report.results}
    sides = battle_sides(report.battles, results, final=True)
    fought = []
    for battle_id, status in sides.items():
        result = results.get(battle_id)
        if (
            status.status is not BattleStatus.PLAYABLE
            or result is None
            or battle_id in report.unreported
        ):
            continue
        outcomes = {side: _outcome_for(side, result) for side in status.participants()}
        fought.append(Fought(report.turn, battle_id, outcomes))
    return fought


def sectors_held(state: CampaignState) -> dict[str, int]:
    """How many sectors each side holds alone in ``state`` (RULES.md 3.4, capture)."""
    held: dict[str, int] = dict.fromkeys(state.sides(), 0)
    sectors = {sector for holdings in state.armies.values() for sector in holdings}
    for sector in sectors:
        occupants = state.occupants(sector)
        if len(occupants) == 1:
            [side] = occupants
            held[side] += 1
    return held


@dataclass(frozen=True)
class PlayerRecord:
    """One player's battles in a campaign, for the side they play."""

    user_id: int
    name: str
    side_id: str
    tally: Tally


@dataclass(frozen=True)
class CampaignRecord:
    """A campaign's record over its resolved turns. ``held[side][i]`` is the number of sectors
    the side held alone at the start of turn ``i + 1`` (index 0: after deployment)."""

    campaign: Campaign
    turns: int
    battles: int
    sides: dict[str, Tally]
    players: tuple[PlayerRecord, ...]
    held: dict[str, tuple[int, ...]]
    winner: str | None = None
    reports: tuple[TurnReport, ...] = field(default=(), repr=False)


async def current_resolutions(store: Store, campaign: Campaign) -> list[ResolutionRecord]:
    """The current resolution of every resolved turn, in turn order."""
    found = []
    for turn in range(1, campaign.turn + 1):
        resolutions = await store.resolutions(campaign.id, turn)
        if resolutions:
            found.append(resolutions[-1])
    return found


def _credits(
    members: Mapping[int, Member], people: Iterable[int | None], sides: Sequence[str]
) -> dict[int, str]:
    """Who of ``people`` played which of ``sides``: members of those sides only."""
    credited: dict[int, str] = {}
    for user_id in people:
        member = members.get(user_id) if user_id is not None else None
        if member is not None and member.side_id is not None and member.side_id in sides:
            credited[member.user_id] = member.side_id
    return credited


async def campaign_record(store: Store, campaign: Campaign) -> CampaignRecord:
    """Everything the campaign's resolved turns say about its sides and players."""
    resolutions = await current_resolutions(store, campaign)
    members = {member.user_id: member for member in await store.members(campaign.id)}
    side_ids = [side.id for side in await store.sides(campaign.id)]
    sides: dict[str, Tally] = {side: Tally() for side in side_ids}
    players: dict[int, PlayerRecord] = {}
    battles = 0
    held: dict[str, list[int]] = {side: [] for side in side_ids}
    for index, resolution in enumerate(resolutions):
        if index == 0:
            _add_held(held, sectors_held(resolution.state))
        _add_held(held, sectors_held(resolution.state_after))
        touched = {
            report.battle: (report.reported_by, report.confirmed_by, report.disputed_by)
            for report in await store.battle_reports(campaign.id, resolution.turn)
        }
        for fought in fought_battles(resolution.report):
            battles += 1
            for side, outcome in fought.outcomes.items():
                sides[side] = sides.get(side, Tally()).plus(outcome)
            credited = _credits(members, touched.get(fought.battle, ()), list(fought.outcomes))
            for user_id, side in credited.items():
                member = members[user_id]
                before = players.get(user_id) or PlayerRecord(
                    user_id, member.display_name, side, Tally()
                )
                players[user_id] = PlayerRecord(
                    user_id, member.display_name, side, before.tally.plus(fought.outcomes[side])
                )
    reports = tuple(resolution.report for resolution in resolutions)
    last = reports[-1] if reports else None
    ordered = sorted(players.values(), key=lambda p: (-p.tally.wins, -p.tally.battles, p.name))
    return CampaignRecord(
        campaign=campaign,
        turns=len(resolutions),
        battles=battles,
        sides=sides,
        players=tuple(ordered),
        held={side: tuple(counts) for side, counts in held.items()},
        winner=None if last is None else last.winner,
        reports=reports,
    )


@dataclass(frozen=True)
class ArchiveEntry:
    """One campaign as a list of campaigns shows it: when it ran, how many turns were resolved,
    who won (``ended`` is ``None`` while it runs)."""

    campaign: Campaign
    started: datetime
    ended: datetime | None
    turns: int
    winner: str | None


async def archive_entry(store: Store, campaign: Campaign) -> ArchiveEntry:
    """The campaign's dates, resolved turns and winner. It started when its first turn began
    (its creation, if it never got that far) and ended when it was finished (by the last
    resolution, or by the GM)."""
    history = [entry for entry in await store.phase_history(campaign.id) if entry.undone_at is None]
    started = next(
        (e.entered_at for e in history if e.turn == 1 and e.phase is Phase.ORDERS),
        campaign.created_at,
    )
    ended = None
    if campaign.status is CampaignStatus.FINISHED:
        finished = [e.entered_at for e in history if e.phase is Phase.FINISHED]
        ended = finished[-1] if finished else campaign.updated_at
    resolutions = await current_resolutions(store, campaign)
    winner = resolutions[-1].report.winner if resolutions else None
    return ArchiveEntry(campaign, started, ended, len(resolutions), winner)


def _add_held(held: dict[str, list[int]], now: Mapping[str, int]) -> None:
    for side, counts in held.items():
        counts.append(now.get(side, 0))


@dataclass(frozen=True)
class PlayerStats:
    """One person's record over a chat's campaigns."""

    campaigns: tuple[tuple[Campaign, str | None, Tally, bool], ...]
    """Each campaign they were in: the campaign, the side they played (if any), their battles
    there, and whether their side won it."""

    @property
    def total(self) -> Tally:
        """Their battles over every campaign."""
        total = Tally()
        for _campaign, _side, tally, _won in self.campaigns:
            total = total.plus(tally)
        return total

    @property
    def won(self) -> int:
        """Campaigns their side won."""
        return sum(1 for *_rest, won in self.campaigns if won)


async def player_stats(store: Store, user_id: int, campaigns: Iterable[Campaign]) -> PlayerStats:
    """``user_id``'s record in those of ``campaigns`` they are a member of (set-up campaigns
    left out)."""
    rows = []
    for campaign in campaigns:
        member = await store.member(campaign.id, user_id)
        if member is None or campaign.turn < 1:
            continue
        record = await campaign_record(store, campaign)
        mine = next((p for p in record.players if p.user_id == user_id), None)
        tally = mine.tally if mine is not None else Tally()
        won = member.side_id is not None and record.winner == member.side_id
        rows.append((campaign, member.side_id, tally, won))
    return PlayerStats(tuple(rows))


def summary_post(campaign: Campaign, key: str) -> NewOutboxMessage:
    """The end-of-campaign summary to the group (``key``: the step that ended it)."""
    return group_post(campaign, "campaign_summary", f"summary:{key}")
