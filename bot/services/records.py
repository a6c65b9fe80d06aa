"""A campaign's record from its resolved turns: battles won, drawn and lost by each side and by
each player, and the sectors each side held turn by turn (``/history``, ``/stats`` and the
summary post when a campaign ends); and what each side holds now (:func:`held_at`), the one
count of held sectors every map, the board, ``/status`` and the summary use.

Only resolved turns count, so nothing here is secret. A battle counts as the Monday post told
it: played with a result, or played without one and counted as a draw without losses (the
unreported policy; such a draw is also counted as unreported). A chain battle that was not
played does not count, and a chain battle counts for the sides that really fought it
(``rules.battles.battle_sides``). A player is credited with a side's battle when they
reported, confirmed or disputed its result for that side (a GM's decision credits nobody new).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime

from bot.services.posting import group_post
from rules import BattleResult, TurnReport
from rules.maps import SectorId
from rules.state import SideId
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
    """Wins, draws and losses; ``unreported`` of the draws had no result and were counted as
    draws without losses."""

    wins: int = 0
    draws: int = 0
    losses: int = 0
    unreported: int = 0

    @property
    def battles(self) -> int:
        """Battles counted."""
        return self.wins + self.draws + self.losses

    def plus(self, other: Tally) -> Tally:
        """Both tallies added."""
        return Tally(
            self.wins + other.wins,
            self.draws + other.draws,
            self.losses + other.losses,
            self.unreported + other.unreported,
        )


WIN, DRAW, LOSS = Tally(wins=1), Tally(draws=1), Tally(losses=1)
UNREPORTED = Tally(unreported=1)


def _outcome_for(side: str, result: BattleResult) -> Tally:
    if not result.outcome.has_winner:
        return DRAW
    return WIN if result.winner == side else LOSS


@dataclass(frozen=True)
class Fought:
    """One battle that counts: played, with the result it was resolved with (for an unreported
    one, a draw without losses), its real sides and what each got."""

    turn: int
    battle: int
    result: BattleResult
    unreported: bool
    outcomes: dict[str, Tally]

    @property
    def sides(self) -> tuple[str, ...]:
        """Attacker and defender as they fought (a chain's defender taken from its battle)."""
        return tuple(self.outcomes)


def fought_battles(report: TurnReport) -> list[Fought]:
    """The battles of a resolved turn that count, in battle order: every one played, with its
    result or, unreported, as the draw without losses it was counted as; not a chain battle
    that was not played. Each with the sides that really fought it
    (:meth:`rules.TurnReport.fought_battles`)."""
    results = {result.battle: result for result in report.results}
    fought = []
    for battle in report.fought_battles():
        result = results.get(battle.id)
        if result is None:
            continue
        unreported = battle.id in report.unreported
        outcomes = {
            side: _outcome_for(side, result).plus(UNREPORTED if unreported else Tally())
            for side in battle.participants()
        }
        fought.append(Fought(report.turn, battle.id, result, unreported, outcomes))
    return fought


def held_after(report: TurnReport | None) -> dict[SideId, tuple[SectorId, ...]]:
    """The sectors each side holds after the turn ``report`` resolved: those it captured in
    that resolution (RULES.md 3.4 step 3: at least ``capture_min_armies`` of its armies and no
    opponent's, counted after the battles and moves); nothing before the first resolution
    (``None``). The one definition of "held": the maps' «N of M», the board, ``/status``, the
    end summary and its chart all count it."""
    return {} if report is None else {side: tuple(held) for side, held in report.captured.items()}


async def held_at(store: Store, campaign_id: int, turn: int) -> dict[SideId, tuple[SectorId, ...]]:
    """The sectors each side holds at the start of ``turn``: :func:`held_after` the current
    resolution of ``turn - 1`` (nothing at turn 1)."""
    if turn < 2:
        return {}
    resolutions = await store.resolutions(campaign_id, turn - 1)
    return held_after(resolutions[-1].report if resolutions else None)


@dataclass(frozen=True)
class PlayerRecord:
    """One player's battles in a campaign, for the side they play."""

    user_id: int
    name: str
    side_id: str
    tally: Tally


@dataclass(frozen=True)
class CampaignRecord:
    """A campaign's record over its resolved turns. ``battles`` counts every battle played,
    ``unreported`` those of them counted as draws without a result. ``held[side][i]`` is the
    number of sectors the side held (:func:`held_after`) at the start of turn ``i + 1``
    (index 0: after deployment, nothing yet)."""

    campaign: Campaign
    turns: int
    battles: int
    sides: dict[str, Tally]
    players: tuple[PlayerRecord, ...]
    held: dict[str, tuple[int, ...]]
    winner: str | None = None
    reports: tuple[TurnReport, ...] = field(default=(), repr=False)
    unreported: int = 0


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
    battles = unreported = 0
    held: dict[str, list[int]] = {side: [0] for side in side_ids}
    for resolution in resolutions:
        _add_held(held, held_after(resolution.report))
        touched = {
            report.battle: (report.reported_by, report.confirmed_by, report.disputed_by)
            for report in await store.battle_reports(campaign.id, resolution.turn)
        }
        for fought in fought_battles(resolution.report):
            battles += 1
            unreported += fought.unreported
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
        unreported=unreported,
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


def _add_held(held: dict[str, list[int]], now: Mapping[str, Sequence[str]]) -> None:
    for side, counts in held.items():
        counts.append(len(now.get(side, ())))


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
