"""Rewards bought with siege VP when the campaign finishes (MODULES.md S8).

When a siege campaign finishes, each side with VP hears in private (its strategists) that it
may claim rewards; the strategist picks items with buttons and sends the claim once (it is
final, as the seed's "curator's choice, cannot be agreed beforehand" asks: nothing is
negotiated afterwards). The GMs are told of the claim in private and, where an item says "or"
(or the curator picks which abilities), choose with one tap; the group hears of the side's
claim when every choice is made. The rules core checks the claim (:func:`check_claim`) and
each choice (:func:`valid_choice`); storage records them, each in one transaction with its
posts.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from datetime import datetime
from enum import StrEnum

from bot.services.posting import group_post, private_post
from rules import CampaignState, Ruleset, overrides_in_force
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import (
    ClaimProblem,
    SiegeSettings,
    check_claim,
    choices_to_make,
    load,
    valid_choice,
)
from storage import (
    Campaign,
    CampaignStatus,
    NewOutboxMessage,
    RewardClaimRecord,
    Role,
    Store,
    WriteOutcome,
)
from storage.models import SideId, UserId


def reward_settings(campaign: Campaign) -> SiegeSettings | None:
    """The campaign's siege settings, ``None`` without siege."""
    ruleset = Ruleset.with_overrides(overrides_in_force(campaign.ruleset_overrides))
    if SIEGE not in ruleset.modules:
        return None
    return SiegeSettings.model_validate(ruleset.module_settings.get(SIEGE) or {})


def siege_vp(state: CampaignState | None) -> dict[SideId, int]:
    """Each side's siege VP in ``state`` (empty without siege)."""
    raw = None if state is None else state.modules.get(SIEGE)
    return {} if raw is None else dict(load(raw).vp)


async def final_vp(store: Store, campaign: Campaign) -> dict[SideId, int]:
    """Each side's siege VP as the campaign stands (its last turn start)."""
    return siege_vp(await store.turn_start(campaign.id, campaign.turn))


async def reward_posts(
    store: Store, campaign: Campaign, state: CampaignState, key: str
) -> list[NewOutboxMessage]:
    """The private invitations to claim rewards, to the strategists of every side with VP in
    ``state`` (the campaign's last state), queued with the step that finishes the campaign."""
    if reward_settings(campaign) is None:
        return []
    posts = []
    for side, points in siege_vp(state).items():
        if points <= 0:
            continue
        for user in await reachable_strategists(store, campaign, side):
            posts.append(
                private_post(campaign, user, "reward_claim", f"{key}:rewards:{side}", side=side)
            )
    return posts


async def _reachable(store: Store, users: Sequence[UserId]) -> list[UserId]:
    people = await store.people(list(users))
    return [
        user
        for user in users
        if (person := people.get(user)) is not None and person.can_receive_private
    ]


async def reachable_strategists(store: Store, campaign: Campaign, side: SideId) -> list[UserId]:
    """The strategists of ``side`` the bot can write to."""
    members = await store.members(campaign.id)
    return await _reachable(
        store,
        [m.user_id for m in members if m.side_id == side and Role.STRATEGIST in m.roles],
    )


class ClaimOutcome(StrEnum):
    """What became of a claim or a GM's choice."""

    SAVED = "saved"
    NO_REWARDS = "no_rewards"  # no siege, or the campaign is not over
    NOT_STRATEGIST = "not_strategist"
    NOT_GM = "not_gm"
    REFUSED = "refused"  # the rules refused it (``problems``)
    ALREADY = "already"  # claimed (or chosen) already: final
    NO_CLAIM = "no_claim"


@dataclass(frozen=True)
class ClaimResult:
    """A claim's or a choice's outcome, with the rules' problems and the side's VP."""

    outcome: ClaimOutcome
    problems: tuple[ClaimProblem, ...] = ()
    vp: int = 0


def claim_over(campaign: Campaign) -> bool:
    """Whether the campaign is over, so rewards may be claimed."""
    return campaign.status is CampaignStatus.FINISHED


async def claim_side(store: Store, campaign: Campaign, user: UserId) -> SideId | None:
    """The side ``user`` claims for: the side they are a strategist of, if any."""
    member = await store.member(campaign.id, user)
    if member is None or member.side_id is None or Role.STRATEGIST not in member.roles:
        return None
    return member.side_id


def announcement(campaign: Campaign, side: SideId) -> NewOutboxMessage:
    """The group's post of a side's claim (with the GM's choices)."""
    return group_post(campaign, "rewards_claimed", f"rewards:{side}:announced", side=side)


async def claim_rewards(
    store: Store, campaign: Campaign, user: UserId, items: Sequence[str], now: datetime
) -> ClaimResult:
    """``user`` claims ``items`` (ids, repeats allowed) for their side: checked against the
    side's VP, recorded once (final), the GMs told; the group hears of it now if no item needs
    the GM's choice, or else once the GM has chosen."""
    settings = reward_settings(campaign)
    if settings is None or not claim_over(campaign):
        return ClaimResult(ClaimOutcome.NO_REWARDS)
    side = await claim_side(store, campaign, user)
    if side is None:
        return ClaimResult(ClaimOutcome.NOT_STRATEGIST)
    vp = (await final_vp(store, campaign)).get(side, 0)
    checked = check_claim(settings, vp, items)
    if not checked.ok:
        return ClaimResult(ClaimOutcome.REFUSED, checked.problems, vp)
    gms = await _reachable(store, [m.user_id for m in await store.members(campaign.id) if m.is_gm])
    told = [
        private_post(campaign, gm, "reward_choice", f"rewards:{side}:claimed", side=side)
        for gm in gms
    ]
    if not choices_to_make(settings, items):
        told.append(announcement(campaign, side))
    written = await store.claim_rewards(
        campaign.id, side, items, checked.total, vp, user, now, told
    )
    if written is WriteOutcome.CONFLICT:
        return ClaimResult(ClaimOutcome.ALREADY, vp=vp)
    if written is not WriteOutcome.SAVED:
        return ClaimResult(ClaimOutcome.NO_REWARDS, vp=vp)
    return ClaimResult(ClaimOutcome.SAVED, vp=vp)


async def choose_reward(
    store: Store,
    campaign: Campaign,
    user: UserId,
    side: SideId,
    place: int,
    variant: int,
    now: datetime,
) -> ClaimResult:
    """A GM's choice ``variant`` at ``place`` of ``side``'s claim (final); the group hears of
    the claim once every choice is made."""
    settings = reward_settings(campaign)
    if settings is None:
        return ClaimResult(ClaimOutcome.NO_REWARDS)
    member = await store.member(campaign.id, user)
    if member is None or not member.is_gm:
        return ClaimResult(ClaimOutcome.NOT_GM)
    claim = (await store.reward_claims(campaign.id)).get(side)
    if claim is None:
        return ClaimResult(ClaimOutcome.NO_CLAIM)
    if place in claim.choices:
        return ClaimResult(ClaimOutcome.ALREADY)
    if not valid_choice(settings, claim.items, place, variant):
        return ClaimResult(ClaimOutcome.REFUSED)
    written = await store.choose_reward(
        campaign.id,
        side,
        place,
        variant,
        choices_to_make(settings, claim.items),
        user,
        now,
        [announcement(campaign, side)],
    )
    if written is WriteOutcome.CONFLICT:
        return ClaimResult(ClaimOutcome.ALREADY)
    if written is not WriteOutcome.SAVED:
        return ClaimResult(ClaimOutcome.NO_CLAIM)
    return ClaimResult(ClaimOutcome.SAVED)


def pending_choices(settings: SiegeSettings, claim: RewardClaimRecord) -> tuple[int, ...]:
    """The places of ``claim`` still waiting for the GM's choice."""
    return tuple(
        place for place in choices_to_make(settings, claim.items) if place not in claim.choices
    )
