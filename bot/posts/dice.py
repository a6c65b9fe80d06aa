"""Posts of the auditable dice: each turn's seed commitments, and the table's ``/roll`` news in
private to the other side of a battle."""

from __future__ import annotations

from aiogram.utils.i18n import gettext as _

from bot.posts import Post, PostContext, Renderer
from rules import commitment
from storage import Campaign, OutboxMessage


def _int(message: OutboxMessage, key: str) -> int | None:
    value = message.payload.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


async def _campaign(context: PostContext, message: OutboxMessage) -> Campaign | None:
    if message.campaign_id is None:
        return None
    return await context.store.campaign(message.campaign_id)


async def render_seeds_committed(context: PostContext, message: OutboxMessage) -> Post | None:
    """The group: the SHA-256 of a turn's two seeds, posted as its orders open."""
    campaign = await _campaign(context, message)
    turn = _int(message, "turn")
    if campaign is None or turn is None:
        return None
    seeds = await context.store.turn_seeds(campaign.id, turn)
    if seeds is None:
        return None
    return Post(
        text="\n".join(
            [
                _("🎲 Turn {turn}: the dice are sealed before any order is given.").format(
                    turn=turn
                ),
                _("SHA-256 of the roll seed: {hash}").format(hash=commitment(seeds.roll)),
                _("SHA-256 of the deal seed: {hash}").format(hash=commitment(seeds.deal)),
                _(
                    "The roll seed is revealed in the turn's summary, the deal seed when the "
                    "campaign ends; anyone can then check every roll (python -m rules "
                    "verify-rolls)."
                ),
            ]
        )
    )


async def render_table_roll(context: PostContext, message: OutboxMessage) -> Post | None:
    """The other side of a battle: dice were rolled for it at the table."""
    campaign = await _campaign(context, message)
    turn, k = _int(message, "turn"), _int(message, "k")
    if campaign is None or turn is None or k is None:
        return None
    context_id = _int(message, "context")
    where = "group" if context_id is None else str(context_id)
    found = [
        entry
        for entry in await context.store.table_rolls(campaign.id, turn)
        if entry.k == k and entry.context == context_id
    ]
    if not found:
        return None
    entry = found[0]
    values = ", ".join(str(roll.value) for roll in entry.rolls)
    total = sum(roll.value for roll in entry.rolls)
    if where == "group":
        head = _("{title}: dice rolled at the table").format(title=campaign.title)
    else:
        head = _("{title}: dice rolled for battle {battle}").format(
            title=campaign.title, battle=context_id
        )
    label = entry.rolls[0].label.rsplit("/", 1)[0] if entry.rolls else ""
    return Post(
        text="\n".join(
            [
                _("{head}: {expression} → {values} (total {total}).").format(
                    head=head, expression=entry.expression, values=values, total=total
                ),
                _(
                    "Drawn from turn {turn}'s roll seed as {label}…; it is revealed in the "
                    "turn's summary."
                ).format(turn=turn, label=label),
            ]
        )
    )


RENDERERS: dict[str, Renderer] = {
    "seeds_committed": render_seeds_committed,
    "table_roll": render_table_roll,
}
