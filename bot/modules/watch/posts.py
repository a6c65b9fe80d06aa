"""Posts of watch's duel steps (MODULES.md W6): the side's step screen when a step opens, its
reminder, and in the group each step's cards once it closed (initiative mode) or every step
together once all closed (sealed mode); the GM's "-1" tokens on a laid card (W7). Rendered when
sent, from the step rows: a post never shows a play that is not public yet."""

from __future__ import annotations

from bot.modules.watch.duel_screens import step_screen
from bot.modules.watch.duel_texts import played_post, reminder_text, reveal_post
from bot.modules.watch.duels import (
    StepDesk,
    following_step,
    hero_names,
    sealed_unrevealed,
    step_desk,
)
from bot.modules.watch.gm_texts import card_lowered_post
from bot.posts import Post, PostContext, Renderer
from bot.services.orders import seat_in
from bot.services.turns import game_for
from rules.modules.watch.orders import DuelStepData, typed_orders
from storage import DuelMode, DuelStep, DuelStepState, OutboxMessage


def _int(message: OutboxMessage, key: str) -> int | None:
    value = message.payload.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


async def _step(context: PostContext, message: OutboxMessage) -> DuelStep | None:
    step_id = _int(message, "step")
    return None if step_id is None else await context.store.duel_step(step_id)


async def _open_desk(context: PostContext, message: OutboxMessage) -> StepDesk | None:
    """The open step's desk, if the recipient still gives the orders of the hero's side when
    the message is sent (a strategist moved to another side or out meanwhile sees nothing)."""
    step = await _step(context, message)
    if step is None or step.state is not DuelStepState.OPEN:
        return None
    seat = await seat_in(context.store, message.chat_id, step.campaign_id)
    if seat is None or not seat.gives_orders or seat.side != step.side_id:
        return None
    return await step_desk(context.store, step)


async def render_duel_step(context: PostContext, message: OutboxMessage) -> Post | None:
    """A strategist: their hero's step opened (the screen with its hand); nothing once closed."""
    desk = await _open_desk(context, message)
    if desk is None:
        return None
    text, keyboard = step_screen(desk, context.i18n.current_locale)
    return Post(text=text, keyboard=keyboard)


async def render_duel_reminder(context: PostContext, message: OutboxMessage) -> Post | None:
    """A strategist: an hour before the step's deadline, if it is still open (with its screen
    button), if they still give the orders of the hero's side."""
    desk = await _open_desk(context, message)
    if desk is None:
        return None
    language = context.i18n.current_locale
    _text, keyboard = step_screen(desk, language)
    text = reminder_text(desk.step, desk.names, desk.game.map, desk.campaign.time_zone, language)
    return Post(text=text, keyboard=keyboard)


async def render_duel_played(context: PostContext, message: OutboxMessage) -> Post | None:
    """The group, initiative mode: a closed step's cards, and whose step is next (none when a
    GM closed a waiting step: an earlier one is still being played)."""
    step = await _step(context, message)
    if (
        step is None
        or step.state is not DuelStepState.CLOSED
        or step.mode is not DuelMode.INITIATIVE
    ):
        return None
    campaign = await context.store.campaign(step.campaign_id)
    if campaign is None:
        return None
    names = await hero_names(context.store, campaign.id, step.turn)
    steps = await context.store.duel_steps(campaign.id, step.turn)
    following = following_step(steps, step)
    next_name = None if following is None else names.get(following.hero, following.hero)
    text = played_post(step, names, game_for(campaign).map, context.i18n.current_locale, next_name)
    return Post(text=text)


async def render_duel_reveal(context: PostContext, message: OutboxMessage) -> Post | None:
    """The group, sealed mode: every step of the list, once all are closed (found by the
    list's id: the last step may close at the resolution, after which the turn is the next)."""
    list_id = _int(message, "list")
    campaign_id = message.campaign_id
    if list_id is None or campaign_id is None:
        return None
    campaign = await context.store.campaign(campaign_id)
    if campaign is None:
        return None
    steps = await context.store.list_duel_steps(list_id)
    if (
        not steps
        or any(s.campaign_id != campaign.id for s in steps)
        or any(s.state is not DuelStepState.CLOSED for s in steps)
    ):
        return None
    names = await hero_names(context.store, campaign.id, steps[0].turn)
    return Post(text=reveal_post(steps, names, game_for(campaign).map, context.i18n.current_locale))


async def render_watch_card_lowered(context: PostContext, message: OutboxMessage) -> Post | None:
    """The group: the GM put "-1" tokens on a card laid in a duel (or took them off); nothing
    while sealed duels of the turn are not shown yet (the post would name a secret spell)."""
    turn, play, lowered = _int(message, "turn"), _int(message, "play"), _int(message, "lowered")
    hero = message.payload.get("hero")
    if (
        message.campaign_id is None
        or turn is None
        or play is None
        or lowered is None
        or not isinstance(hero, str)
    ):
        return None
    campaign = await context.store.campaign(message.campaign_id)
    if campaign is None or await sealed_unrevealed(context.store, campaign.id, turn):
        return None
    late = await context.store.late_orders(campaign.id, turn)
    steps = [
        typed
        for record in late.values()
        for typed in typed_orders(record.orders)
        if isinstance(typed, DuelStepData) and typed.hero == hero
    ]
    if not steps or play >= len(steps[0].plays):
        return None
    laid = steps[0].plays[play]
    names = {side.id: side.name for side in await context.store.sides(campaign.id)}
    names |= await hero_names(context.store, campaign.id, turn)
    return Post(text=card_lowered_post(hero, laid.card, laid.target, lowered, names, turn))


RENDERERS: dict[str, Renderer] = {
    "watch_card_lowered": render_watch_card_lowered,
    "duel_step": render_duel_step,
    "duel_reminder": render_duel_reminder,
    "duel_played": render_duel_played,
    "duel_reveal": render_duel_reveal,
}
