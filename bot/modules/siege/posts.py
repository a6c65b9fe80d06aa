"""The Midnight Siege's posts (served by :meth:`SiegeBotModule.renderers`): the starting
weather's choice (MODULES.md S8), the late window's cards, a card's effect carried out by the GM,
the cards played for the GMs, and the rewards claimed with the VP when the campaign ends."""

from __future__ import annotations

from collections.abc import Callable

from aiogram.utils.i18n import gettext as _

from bot.modules.siege.reward_screens import choice_screen, claim_announcement, claim_screen
from bot.modules.siege.rewards import claim_over, final_vp, pending_choices, reward_settings
from bot.modules.siege.screens import late_screen, weather_keyboard, weather_name, weather_text
from bot.modules.siege.texts import describe_adjustment, describe_cards_for_gm
from bot.posts import Post, PostContext, Renderer
from bot.services.late import late_desk
from bot.services.turns import game_for
from rules.edits import is_edit
from rules.modules.siege import NAME as SIEGE
from rules.modules.siege import (
    Adjustment,
    CardOutcome,
    CardText,
    PlayedCard,
    SiegePlan,
    SiegeReport,
    SiegeSettings,
    load,
)
from storage import Campaign, OutboxMessage


def _int(message: OutboxMessage, key: str) -> int | None:
    value = message.payload.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


async def _campaign(context: PostContext, message: OutboxMessage) -> Campaign | None:
    if message.campaign_id is None:
        return None
    return await context.store.campaign(message.campaign_id)


def _language(context: PostContext) -> str:
    return context.i18n.current_locale


def weather_words(campaign: Campaign, language: str) -> Callable[[int], tuple[str, str]]:
    """The weather states' words in ``campaign`` and ``language``: index -> (name, text)."""

    def words(index: int) -> tuple[str, str]:
        return weather_name(campaign, index, language), weather_text(campaign, index, language)

    return words


def choice_alarm() -> str:
    """The GMs' alarm when the orders deadline passed but the starting weather is not chosen
    (``{campaign}``: the campaign's title)."""
    return _(
        "{campaign}: the orders deadline has passed, but the starting weather of the siege "
        "is not chosen, so the orders stay open. Choose it with the buttons I sent you."
    )


async def _choice_pending(context: PostContext, campaign: Campaign) -> bool:
    state = await context.store.turn_start(campaign.id, 1)
    if state is None or campaign.turn != 1:
        return False
    game = game_for(campaign)
    return bool(game.pending_choices(game.upgraded(state)))


async def render_module_choice(context: PostContext, message: OutboxMessage) -> Post | None:
    """The choosing side's strategist: pick the starting weather (buttons). The side chooses
    because it is the last in the campaign's order of sides (MODULES.md S8), not because of when
    it deployed."""
    campaign = await _campaign(context, message)
    if campaign is None or not await _choice_pending(context, campaign):
        return None
    return Post(
        text=_(
            "{title}: your side chooses the starting weather of the siege, as the last side in "
            "the campaign's list of sides (the order the GM added them in). Pick one of the "
            "eight states of the wind rose; the orders close only after it is chosen."
        ).format(title=campaign.title),
        keyboard=weather_keyboard(campaign, _language(context)),
    )


async def render_module_choice_gm(context: PostContext, message: OutboxMessage) -> Post | None:
    """The GMs: a side chooses the starting weather; they may choose for it."""
    campaign = await _campaign(context, message)
    if campaign is None or not await _choice_pending(context, campaign):
        return None
    side = message.payload.get("side")
    sides = {s.id: s.name for s in await context.store.sides(campaign.id)}
    return Post(
        text=_(
            "{title}: side «{side}» chooses the starting weather of the siege, as the last side "
            "in the campaign's list of sides. The orders do not close until it is chosen; you "
            "may choose for the side here."
        ).format(title=campaign.title, side=sides.get(str(side), str(side))),
        keyboard=weather_keyboard(campaign, _language(context)),
    )


async def render_module_choice_news(context: PostContext, message: OutboxMessage) -> Post | None:
    """The group: who chooses the starting weather, and why that side."""
    campaign = await _campaign(context, message)
    if campaign is None or not await _choice_pending(context, campaign):
        return None
    side = message.payload.get("side")
    sides = {s.id: s.name for s in await context.store.sides(campaign.id)}
    return Post(
        text=_(
            "🌬 Side «{side}» chooses the starting weather of the siege: it is the last side in "
            "the campaign's list of sides (the order the GM added them in). The orders close "
            "only after it is chosen."
        ).format(side=sides.get(str(side), str(side)))
    )


async def render_module_choice_made(context: PostContext, message: OutboxMessage) -> Post | None:
    """The group: the starting weather was chosen."""
    campaign = await _campaign(context, message)
    if campaign is None:
        return None
    state = await context.store.turn_start(campaign.id, 1)
    if state is None:
        return None
    weather = load(state.modules.get(SIEGE)).weather
    if weather is None:
        return None
    language = _language(context)
    lines = [
        _("🌬 The starting weather is chosen: {weather}.").format(
            weather=weather_name(campaign, weather, language)
        )
    ]
    text = weather_text(campaign, weather, language)
    if text:
        lines.append(text)
    return Post(text="\n".join(lines))


async def render_late_window(context: PostContext, message: OutboxMessage) -> Post | None:
    """A strategist: the cards their side may play after the battles (buttons); nothing once
    the window closed or no card can be played."""
    campaign = await _campaign(context, message)
    turn, side = _int(message, "turn"), message.payload.get("side")
    if campaign is None or turn is None or not isinstance(side, str):
        return None
    desk = await late_desk(context.store, campaign.id, side, turn)
    if desk is None or not desk.options():
        return None
    names = {s.id: s.name for s in await context.store.sides(campaign.id)}
    text, keyboard = late_screen(desk, names, _language(context))
    return Post(text=text, keyboard=keyboard)


async def render_state_adjusted(context: PostContext, message: OutboxMessage) -> Post | None:
    """The group: the GM carried out a card's effect (what changed and why)."""
    campaign = await _campaign(context, message)
    turn, n = _int(message, "turn"), _int(message, "n")
    if campaign is None or turn is None or n is None:
        return None
    made = await context.store.adjustments(campaign.id, turn)
    if not 1 <= n <= len(made) or is_edit(made[n - 1].adjustment):
        return None  # undone since
    adjustment = Adjustment.model_validate(made[n - 1].adjustment)
    state = await context.store.turn_start(campaign.id, turn)
    raw = None if state is None else state.modules.get(SIEGE)
    weather = None if raw is None else load(raw).weather
    language = _language(context)
    names = {side.id: side.name for side in await context.store.sides(campaign.id)}

    words = weather_words(campaign, language)
    lines = describe_adjustment(adjustment, game_for(campaign).map, names, language, words, weather)
    return Post(text="\n".join(lines))


async def render_reward_claim(context: PostContext, message: OutboxMessage) -> Post | None:
    """A strategist: the campaign is over, claim rewards with the side's VP (buttons); nothing
    once the side has claimed, or if the campaign was reopened."""
    campaign = await _campaign(context, message)
    side = message.payload.get("side")
    if campaign is None or not isinstance(side, str) or not claim_over(campaign):
        return None
    settings = reward_settings(campaign)
    vp = (await final_vp(context.store, campaign)).get(side, 0)
    if settings is None or vp <= 0 or side in await context.store.reward_claims(campaign.id):
        return None
    names = {s.id: s.name for s in await context.store.sides(campaign.id)}
    text, keyboard = claim_screen(
        campaign,
        settings,
        names.get(side, side),
        vp,
        [0] * len(settings.rewards),
        _language(context),
    )
    return Post(text=text, keyboard=keyboard)


async def render_reward_choice(context: PostContext, message: OutboxMessage) -> Post | None:
    """A GM: a side's claim, with a button per variant where the GM chooses."""
    campaign = await _campaign(context, message)
    side = message.payload.get("side")
    if campaign is None or not isinstance(side, str):
        return None
    settings = reward_settings(campaign)
    claim = (await context.store.reward_claims(campaign.id)).get(side)
    sides = await context.store.sides(campaign.id)
    index = next((i for i, s in enumerate(sides) if s.id == side), None)
    if settings is None or claim is None or index is None:
        return None
    text, keyboard = choice_screen(
        campaign,
        settings,
        index,
        sides[index].name,
        claim,
        pending_choices(settings, claim),
        _language(context),
    )
    return Post(text=text, keyboard=keyboard)


async def render_rewards_claimed(context: PostContext, message: OutboxMessage) -> Post | None:
    """The group: a side's rewards, with the GM's choices."""
    campaign = await _campaign(context, message)
    side = message.payload.get("side")
    if campaign is None or not isinstance(side, str):
        return None
    settings = reward_settings(campaign)
    claim = (await context.store.reward_claims(campaign.id)).get(side)
    if settings is None or claim is None:
        return None
    names = {s.id: s.name for s in await context.store.sides(campaign.id)}
    return Post(text=claim_announcement(settings, names.get(side, side), claim, _language(context)))


async def render_siege_cards_gm(context: PostContext, message: OutboxMessage) -> Post | None:
    """A GM: the siege cards played before the battles (sent with the battle list) or after
    them (with the resolution), each with its text and what the GM is to do about it."""
    campaign = await _campaign(context, message)
    turn, window = _int(message, "turn"), message.payload.get("window")
    if campaign is None or turn is None or window not in ("before", "after"):
        return None
    cards: tuple[PlayedCard | CardOutcome, ...] = ()
    if window == "before":
        listed = await context.store.battle_list(campaign.id, turn)
        raw = None if listed is None else listed.modules.get(SIEGE)
        if raw is not None:
            cards = SiegePlan.model_validate(raw).cards_before
    else:
        resolutions = await context.store.resolutions(campaign.id, turn)
        raw = resolutions[-1].report.modules.get(SIEGE) if resolutions else None
        if raw is not None:
            report = SiegeReport.model_validate(raw)
            cards = tuple(card for card in report.cards if card.window == "after")
    if not cards:
        return None
    game = game_for(campaign)
    written = {
        feature.id: CardText(text=feature.text or "", texts=feature.texts)
        for feature in game.map.features_of("occult")
        if feature.text or feature.texts
    }
    written |= game.settings_of(SIEGE, SiegeSettings).cards  # the wizard's texts win
    names = {s.id: s.name for s in await context.store.sides(campaign.id)}
    head = (
        _("«{title}», turn {turn}: siege cards played before the battles.")
        if window == "before"
        else _("«{title}», turn {turn}: siege cards played after the battles.")
    )
    lines = [head.format(title=campaign.title, turn=turn)]
    lines += describe_cards_for_gm(window, cards, written, game.map, names, _language(context))
    return Post(text="\n".join(lines))


RENDERERS: dict[str, Renderer] = {
    "reward_claim": render_reward_claim,
    "reward_choice": render_reward_choice,
    "rewards_claimed": render_rewards_claimed,
    "state_adjusted": render_state_adjusted,
    "late_window": render_late_window,
    "siege_cards_gm": render_siege_cards_gm,
    "module_choice": render_module_choice,
    "module_choice_gm": render_module_choice_gm,
    "module_choice_news": render_module_choice_news,
    "module_choice_made": render_module_choice_made,
}
