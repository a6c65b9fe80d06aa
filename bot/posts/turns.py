"""Posts of the campaign's week: maps, the battle list and notices, phase notices, reminders,
and the clock's own notes (ran late, overdue, blocked, paused, resumed, extended, advanced).

Each renderer reads what it needs at send time, so a post shows the deadline as it is when it
goes out (after a pause or an extension), and a reminder to a side that became ready meanwhile
is not sent at all.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime, timedelta
from zoneinfo import ZoneInfo

from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.modules import BOT_MODULES
from bot.posts import Post, PostContext, Renderer
from bot.screens.callbacks import join_keyboard
from bot.screens.map_views import turn_map
from bot.services.deadlines import (
    Milestone,
    Planned,
    WindowChange,
    moved,
    plan_ahead,
    window_changes,
)
from bot.services.orders import battle_duties, result_sources, standing_list
from bot.services.turns import game_for
from bot.services.vacations import away_of_sides
from bot.services.window import (
    current_deadline,
    current_entry,
    held_by,
    orders_opening,
    undone_back,
    week_plan,
)
from bot.texts import core as texts
from bot.texts.core import away_lines, describe_unplayed, phase_name
from bot.texts.dice import describe_rolls
from bot.texts.limits import CAPTION_LIMIT, telegram_length
from bot.texts.moments import format_moment, format_wall, zone_label
from rules import Battle, CampaignMap, CampaignState, Roll, TurnReport
from storage import Campaign, CampaignStatus, OutboxMessage, Phase, Side, Store


def milestone_name(item: Planned) -> str:
    """ "turn 2: orders close": what happens at a planned moment."""
    match item.milestone:
        case Milestone.DEPLOYMENT_ENDS:
            return _("end of deployment")
        case Milestone.ORDERS_OPEN:
            return _("turn {turn}: orders open").format(turn=item.turn)
        case Milestone.ORDERS_CLOSE:
            return _("turn {turn}: orders close").format(turn=item.turn)
        case Milestone.BATTLE_LIST:
            return _("turn {turn}: battle list").format(turn=item.turn)
        case Milestone.RESOLUTION:
            return _("turn {turn}: resolution").format(turn=item.turn)


def plan_lines(plan: Sequence[Planned], zone: str, language: str) -> list[str]:
    """One line per planned moment: "• turn 1: orders close: Sun 29 Mar, 23:59"."""
    return [f"• {milestone_name(item)}: {format_wall(item.at, zone, language)}" for item in plan]


def change_lines(changes: Sequence[tuple[Planned, Planned]], zone: str, language: str) -> list[str]:
    """One line per moved moment: "• turn 1: orders close: Thu 26 Mar, 23:59 → Sun 29 Mar,
    23:59"."""
    return [
        f"• {milestone_name(new)}: {format_wall(old.at, zone, language)} → "
        f"{format_wall(new.at, zone, language)}"
        for old, new in changes
    ]


def window_lines(windows: Sequence[WindowChange]) -> list[str]:
    """One line per orders window a change moves: "• turn 2: orders window: 72 h → 36 h", or
    "still 72 h" when a later close keeps its length."""
    lines = []
    for window in windows:
        before, after = _hours(window.before), _hours(window.after)
        if before == after:
            length = _("still {n} h").format(n=after)
        else:
            length = _("{before} h → {after} h").format(before=before, after=after)
        lines.append(
            "• " + _("turn {turn}: orders window: {length}").format(turn=window.turn, length=length)
        )
    return lines


def _hours(length: timedelta) -> int:
    return round(length.total_seconds() / 3600)


def _language(context: PostContext) -> str:
    return context.i18n.current_locale


def _int(message: OutboxMessage, key: str) -> int | None:
    value = message.payload.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else None


def _str(message: OutboxMessage, key: str) -> str | None:
    value = message.payload.get(key)
    return value if isinstance(value, str) else None


def _phase(message: OutboxMessage) -> Phase | None:
    value = _str(message, "phase")
    return Phase(value) if value in {phase.value for phase in Phase} else None


def _moment(message: OutboxMessage, key: str) -> datetime | None:
    value = _str(message, key)
    return datetime.fromisoformat(value) if value else None


async def _campaign(context: PostContext, message: OutboxMessage) -> Campaign | None:
    campaign_id = _int(message, "campaign_id") or message.campaign_id
    return None if campaign_id is None else await context.store.campaign(campaign_id)


async def deadline_of(store: Store, campaign: Campaign, turn: int, phase: Phase) -> datetime | None:
    """The deadline of (turn, phase) if the campaign is there: as the scheduler recorded it, or
    as it will compute it (a post may go out before the scheduler has looked)."""
    if (campaign.turn, campaign.phase) != (turn, phase):
        return None
    return await current_deadline(store, campaign)


async def results_deadline(store: Store, campaign: Campaign, language: str) -> str | None:
    """The results deadline (the resolution) of the battles phase the campaign is in, worded in
    ``language``; ``None`` outside it or without a deadline."""
    if campaign.phase is not Phase.BATTLES:
        return None
    deadline = await deadline_of(store, campaign, campaign.turn, campaign.phase)
    return None if deadline is None else format_moment(deadline, campaign.time_zone, language)


def no_deadline_reason(campaign: Campaign, phase: Phase, returned: bool = False) -> str:
    """How ``phase`` ends when it has no deadline, as the scheduler runs it: deployment once
    every side has confirmed its placement (unless the GM chose to end it alone); a resolution
    that waits once its battles have results; otherwise (manual mode, a deployment the GM ends,
    a phase the GM's undo came back to: ``returned``) only when the GM advances it."""
    if returned and phase is Phase.RESOLUTION:
        return _("the GM has gone back to this phase and will resolve the turn again")
    if returned:
        return _("the GM has gone back to this phase and will end it")
    if campaign.schedule.mode == "weekly":
        if phase is Phase.DEPLOYMENT and campaign.schedule.deployment_ends_when_placed:
            return _(
                "deployment ends once every side has confirmed its placement, or when the GM "
                "ends it"
            )
        if phase is Phase.RESOLUTION:
            return _(
                "the turn is resolved as soon as the results it waits for are in or decided, or "
                "when the GM resolves it now"
            )
    return _("the GM advances this phase")


def deadline_words(
    campaign: Campaign,
    phase: Phase,
    deadline: datetime | None,
    language: str,
    returned: bool = False,
) -> str:
    """The line that says how ``phase`` ends: its deadline (and, when the schedule ends it
    earlier once every side is ready, that too, unless the GM's undo came back to it:
    ``returned``), or why it has none."""
    if deadline is None:
        return _("No deadline: {reason}.").format(
            reason=no_deadline_reason(campaign, phase, returned)
        )
    moment = format_moment(deadline, campaign.time_zone, language)
    schedule = campaign.schedule
    if schedule.mode == "weekly" and not returned:
        if phase is Phase.DEPLOYMENT and schedule.deployment_ends_when_placed:
            return _(
                "Deadline: {moment}, or earlier once every side has confirmed its placement."
            ).format(moment=moment)
        if phase is Phase.ORDERS and schedule.close_orders_early:
            return _("Deadline: {moment}, or earlier once every side's orders are ready.").format(
                moment=moment
            )
    return _("Deadline: {moment}.").format(moment=moment)


def passed_deadline_words(
    campaign: Campaign, deadline: datetime, reason: str, language: str
) -> str:
    """The line for a deadline that has passed while its step waits (``reason``, a
    :class:`~bot.services.clockwork.BlockReason` value): when it passed and what comes next."""
    moment = format_moment(deadline, campaign.time_zone, language)
    waits = {
        "sides_not_deployed": _("the first turn starts as soon as every side is placed"),
        "results_missing": _("the turn is resolved once the GM sets the missing results"),
        "results_disputed": _("the turn is resolved once the GM decides the disputed results"),
        "choice_pending": _("the orders close once the choice they wait for is made"),
        "orders_missing": _("the GM decides what the sides without orders do"),
    }.get(reason, _("the next step starts once what it waits for is settled"))
    return _("The deadline ({moment}) has passed: {waits}.").format(moment=moment, waits=waits)


async def passed_deadline_line(
    store: Store, campaign: Campaign, deadline: datetime, at: datetime, language: str
) -> str | None:
    """If ``deadline`` has passed by ``at`` while its step waits (blocked): the line that says
    so and what comes next (:func:`passed_deadline_words`); else ``None``."""
    if deadline >= at:
        return None
    reason = await held_by(store, campaign, (await current_entry(store, campaign)).seq)
    return None if reason is None else passed_deadline_words(campaign, deadline, reason, language)


async def _deadline_line(context: PostContext, campaign: Campaign, turn: int, phase: Phase) -> str:
    deadline = await deadline_of(context.store, campaign, turn, phase)
    returned = (campaign.turn, campaign.phase) == (turn, phase) and await undone_back(
        context.store, campaign
    )
    return deadline_words(campaign, phase, deadline, _language(context), returned)


async def _opening(
    context: PostContext, campaign: Campaign, turn: int, message: OutboxMessage
) -> str | None:
    """When turn ``turn``'s orders window opens, worded, if it opens after the moment the post is
    for (its ``not_before``); ``None`` when orders can be given by then."""
    if (campaign.turn, campaign.phase) != (turn, Phase.ORDERS):
        return None
    opening = await orders_opening(context.store, campaign, message.not_before)
    if opening is None:
        return None
    return format_moment(opening, campaign.time_zone, _language(context))


def _names(sides: Sequence[Side]) -> dict[str, str]:
    return {side.id: side.name for side in sides}


def _map_of(campaign: Campaign) -> CampaignMap:
    return game_for(campaign).map


async def _picture(
    context: PostContext,
    campaign: Campaign,
    state: CampaignState,
    sides: Sequence[Side],
    *,
    week: bool = False,
    battles: tuple[Battle, ...] | None = None,
) -> bytes:
    view = await turn_map(
        context.store, campaign, state, sides, campaign.title, week=week, battles=battles
    )
    return await context.maps.draw(view)


async def _last_report(store: Store, campaign_id: int, turn: int) -> TurnReport | None:
    if turn < 1:
        return None
    resolutions = await store.resolutions(campaign_id, turn)
    return resolutions[-1].report if resolutions else None


def module_list_lines(
    campaign: Campaign,
    modules: Mapping[str, JsonValue],
    rolls: Sequence[Roll],
    names: dict[str, str],
    language: str,
) -> list[str]:
    """The battle list's rule-module parts (``BotModule.battle_list_lines``) and its rolls."""
    lines: list[str] = []
    for name, module in BOT_MODULES.items():
        raw_module = modules.get(name)
        if raw_module is not None:
            lines += module.battle_list_lines(
                campaign, raw_module, _map_of(campaign), names, language
            )
    return lines + describe_rolls(rolls, _map_of(campaign), names, language)


def module_report_lines(
    campaign: Campaign,
    report: TurnReport,
    state: CampaignState,
    names: dict[str, str],
    language: str,
) -> list[str]:
    """The summary's module parts: the chain battles not played (but those a module explains),
    each rule module's part (``BotModule.summary_lines``, with ``state``, the next turn's
    start), and the resolution's rolls."""
    told = [
        battle
        for name, module in BOT_MODULES.items()
        if (raw_module := report.modules.get(name)) is not None
        for battle in module.summary_told_battles(raw_module)
    ]
    lines = describe_unplayed(report, told)
    for name, module in BOT_MODULES.items():
        raw_module = report.modules.get(name)
        if raw_module is not None:
            lines += module.summary_lines(
                campaign, raw_module, report, state, _map_of(campaign), names, language
            )
    return lines + describe_rolls(report.rolls, _map_of(campaign), names, language)


def battle_lines(battle: Battle, names: Mapping[str, str], language: str) -> list[str]:
    """The lines its rule module puts under a module's battle (``BotModule.battle_lines``)."""
    module = None if battle.module is None else BOT_MODULES.get(battle.module)
    return [] if module is None else list(module.battle_lines(battle, names, language))


def describe_chain(battle: Battle) -> list[str]:
    """A module battle's place in a chain: when it is played (who defends a battle taking its
    defender from another is said by ``bot.texts.core.describe_battle``)."""
    if battle.module is None:
        return []
    lines = []
    if battle.after is not None:
        lines.append(
            _("  Played only if the attacker of battle {after} wins it.").format(after=battle.after)
        )
    return lines


def module_names(state: CampaignState) -> dict[str, str]:
    """The names the modules give their pieces in ``state`` (the Watches' heroes), for the posts
    that name them beside the sides."""
    return {
        key: name for module in BOT_MODULES.values() for key, name in module.names(state).items()
    }


async def seed_lines(store: Store, campaign: Campaign, turn: int, over: bool) -> list[str]:
    """The Monday summary's dice audit: ``turn``'s roll seed, now revealed; at the campaign's
    end every turn's deal seed too (each checks against the SHA-256 posted before the orders)."""
    lines: list[str] = []
    seeds = await store.turn_seeds(campaign.id, turn)
    if seeds is not None:
        lines.append(
            _("🎲 Turn {turn}'s roll seed is revealed: {seed}").format(turn=turn, seed=seeds.roll)
        )
    if over:
        for record in await store.all_turn_seeds(campaign.id):
            lines.append(
                _("🎲 Turn {turn}'s deal seed: {seed}").format(turn=record.turn, seed=record.deal)
            )
    return lines


async def render_turn_map(context: PostContext, message: OutboxMessage) -> Post | None:
    """The map at the start of ``turn``; after a resolution, with its summary (Monday)."""
    campaign = await _campaign(context, message)
    turn = _int(message, "turn")
    if campaign is None or turn is None:
        return None
    state = await context.store.turn_start(campaign.id, turn)
    if state is None:
        return None
    sides = await context.store.sides(campaign.id)
    report = await _last_report(context.store, campaign.id, turn - 1)
    full: list[str] = []
    brief: list[str] = []
    names, language = _names(sides) | module_names(state), _language(context)
    if report is not None:
        sources = await result_sources(context.store, campaign.id, turn - 1)
        audit = module_report_lines(campaign, report, state, names, language)
        audit += await seed_lines(context.store, campaign, turn - 1, report.game_over)
        full = texts.describe_report(report, _map_of(campaign), names, language, sources) + audit
        brief = texts.brief_report(report, _map_of(campaign), names, language, sources) + audit
        brief.append(_("Every line of the turn: /history"))
    tail: list[str] = []
    if report is None or not report.game_over:
        opening = await _opening(context, campaign, turn, message)
        if opening is None:
            tail.append(_("Turn {turn} begins: orders are open.").format(turn=turn))
        else:
            tail.append(
                _("Turn {turn} begins: orders open {moment}.").format(turn=turn, moment=opening)
            )
        tail.append(await _deadline_line(context, campaign, turn, Phase.ORDERS))
        for module in BOT_MODULES.values():
            tail += module.orders_open_lines(state, turn, _map_of(campaign), names, language)
    photo = await _picture(context, campaign, state, sides, week=report is not None)
    return Post(text=fitting_caption(full + tail, brief + tail), photo=photo)


def fitting_caption(full: Sequence[str], brief: Sequence[str]) -> str:
    """``full`` when it fits a photo's caption, else ``brief`` when that does (one message
    instead of two on a Monday), else ``full``, sent as a caption and its continuation."""
    text = "\n".join(full)
    if telegram_length(text) <= CAPTION_LIMIT or not brief:
        return text
    short = "\n".join(brief)
    return short if telegram_length(short) <= CAPTION_LIMIT else text


async def render_corrected_map(context: PostContext, message: OutboxMessage) -> Post | None:
    """The map after the GM corrected a resolved turn, with the corrected summary."""
    campaign = await _campaign(context, message)
    turn, corrects = _int(message, "turn"), _int(message, "corrects")
    if campaign is None or turn is None or corrects is None:
        return None
    state = await context.store.turn_start(campaign.id, turn)
    report = await _last_report(context.store, campaign.id, corrects)
    if state is None or report is None:
        return None
    sides = await context.store.sides(campaign.id)
    names = _names(sides) | module_names(state)
    language = _language(context)
    sources = await result_sources(context.store, campaign.id, corrects)
    head = _("Correction: the GM changed results of turn {turn}; the turn was resolved again.")
    audit = module_report_lines(campaign, report, state, names, language)
    full = texts.describe_report(report, _map_of(campaign), names, language, sources)
    brief = texts.brief_report(report, _map_of(campaign), names, language, sources)
    every = _("Every line of the turn: /history")
    photo = await _picture(context, campaign, state, sides, week=True)
    text = fitting_caption(
        [head.format(turn=corrects), *full, *audit],
        [head.format(turn=corrects), *brief, *audit, every],
    )
    return Post(text=text, photo=photo)


def shared_advantages(battles: Sequence[Battle], sides: dict[str, str]) -> list[str]:
    """One line per sector where several battles share one fortified advantage."""
    by_sector: dict[tuple[str, str], list[int]] = {}
    for battle in battles:
        if battle.fortified is not None:
            by_sector.setdefault((battle.sector, battle.fortified), []).append(battle.id)
    return [
        _(
            "Battles {ids} in sector {sector} share {side}'s fortified advantage: "
            "it is used once this turn, in one of them."
        ).format(ids=", ".join(map(str, ids)), sector=sector, side=sides.get(side, side))
        for (sector, side), ids in by_sector.items()
        if len(ids) > 1
    ]


async def render_battle_list(context: PostContext, message: OutboxMessage) -> Post | None:
    """The Friday list to the group: every battle with counts, FOC, points and advantage."""
    campaign = await _campaign(context, message)
    turn = _int(message, "turn")
    if campaign is None or turn is None:
        return None
    battle_list = await context.store.battle_list(campaign.id, turn)
    state = await context.store.turn_start(campaign.id, turn)
    if battle_list is None or state is None:
        return None
    sides = await context.store.sides(campaign.id)
    names = _names(sides) | module_names(state)
    language = _language(context)
    lines = [_("Turn {turn}: the battle list.").format(turn=turn)]
    if not battle_list.battles:
        lines.append(_("No battles this turn."))
    for battle in battle_list.battles:
        lines += texts.describe_battle(battle, _map_of(campaign), names, language)
        lines += battle_lines(battle, names, language)
        lines += describe_chain(battle)
    lines += shared_advantages(battle_list.battles, names)
    lines += module_list_lines(campaign, battle_list.modules, battle_list.rolls, names, language)
    lines += texts.foc_legend(battle_list.battles)
    lines.append(await _deadline_line(context, campaign, turn, Phase.BATTLES))
    photo = await _picture(context, campaign, state, sides, battles=battle_list.battles)
    return Post(text="\n".join(lines), photo=photo)


async def render_battle_notice(context: PostContext, message: OutboxMessage) -> Post | None:
    """A participant's own battles, in private: opponent, sector, armies, FOC and points."""
    campaign = await _campaign(context, message)
    turn, side = _int(message, "turn"), _str(message, "side")
    if campaign is None or turn is None or side is None:
        return None
    battle_list = await context.store.battle_list(campaign.id, turn)
    if battle_list is None:
        return None
    names = _names(await context.store.sides(campaign.id))
    listed = standing_list(
        battle_list.battles, await context.store.battle_reports(campaign.id, turn)
    )
    mine = [battle for battle in battle_list.battles if side in listed.standing.concerns(battle)]
    if not mine:
        return None
    lines = [
        _("{campaign}, turn {turn}: your battles ({side}).").format(
            campaign=campaign.title, turn=turn, side=names.get(side, side)
        )
    ]
    for battle in mine:
        status = listed.standing.sides.get(battle.id)
        lines += texts.describe_battle(
            listed.standing.fought(battle), _map_of(campaign), names, _language(context), status
        )
        lines += battle_lines(battle, names, _language(context))
        lines += texts.chain_words(battle, status, names)
    lines += texts.foc_legend(listed.standing.fought(battle) for battle in mine)
    lines.append(_("Report each result with /battles once it is played."))
    lines.append(await _deadline_line(context, campaign, turn, Phase.BATTLES))
    return Post(text="\n".join(lines))


async def render_undo_notice(context: PostContext, message: OutboxMessage) -> Post | None:
    """The GM undid the last step: where the campaign is now."""
    campaign = await _campaign(context, message)
    if campaign is None:
        return None
    line = _("The GM undid the last step. The campaign is back at turn {turn}: {phase}.").format(
        turn=campaign.turn, phase=phase_name(campaign.phase)
    )
    deadline = await _deadline_line(context, campaign, campaign.turn, campaign.phase)
    return Post(text=f"{line}\n{deadline}")


def _phase_started(phase: Phase, turn: int, opening: str | None = None) -> str:
    match phase:
        case Phase.DEPLOYMENT:
            return _(
                "Deployment is open: each side places its starting armies in secret "
                "(/deploy in the private chat with the bot)."
            )
        case Phase.ORDERS if opening is not None:
            return _("Turn {turn}: orders open {moment} (/orders in the private chat).").format(
                turn=turn, moment=opening
            )
        case Phase.ORDERS:
            return _("Turn {turn}: orders are open (/orders in the private chat).").format(
                turn=turn
            )
        case Phase.BATTLES:
            return _("Turn {turn}: battles are on; report results with /battles.").format(turn=turn)
        case Phase.RESOLUTION:
            return _("Turn {turn}: the resolution waits for the last results.").format(turn=turn)
        case Phase.FINISHED:
            return _("The campaign is over.")
        case _:
            return _("The campaign is being set up.")


async def _phase_now(
    context: PostContext, campaign: Campaign, turn: int, phase: Phase, message: OutboxMessage
) -> str:
    """The phase that began (with when orders open) and its deadline: two lines; one, «The
    campaign is over.», when the GM's advance ended it (no phase, no deadline follows)."""
    if phase is Phase.FINISHED:
        return _phase_started(phase, turn)
    opening = await _opening(context, campaign, turn, message)
    deadline = await _deadline_line(context, campaign, turn, phase)
    return f"{_phase_started(phase, turn, opening)}\n{deadline}"


async def render_phase_notice(context: PostContext, message: OutboxMessage) -> Post | None:
    """A new phase has begun (group): what it is and its deadline, in the campaign's zone. The
    first, deployment, is the campaign's start: it invites players, with the «Join» button."""
    campaign = await _campaign(context, message)
    turn, phase = _int(message, "turn"), _phase(message)
    if campaign is None or turn is None or phase is None:
        return None
    if phase is not Phase.DEPLOYMENT:
        return Post(text=await _phase_now(context, campaign, turn, phase, message))
    begun = _("«{title}» has begun!").format(title=campaign.title)
    players = _(
        "Players: tap «Join», then «Start» in the private chat, and choose your side. Orders "
        "and deployments are secret and given there."
    )
    deadline = await _deadline_line(context, campaign, turn, phase)
    text = f"{begun} {_phase_started(phase, turn)}\n{players}\n{deadline}"
    return Post(text=text, keyboard=join_keyboard(campaign))


async def render_private_phase_notice(context: PostContext, message: OutboxMessage) -> Post | None:
    """A strategist's private note: deployment or orders are open, the command, the deadline."""
    campaign = await _campaign(context, message)
    turn, phase = _int(message, "turn"), _phase(message)
    if campaign is None or turn is None or phase is None:
        return None
    opening = await _opening(context, campaign, turn, message)
    if phase is Phase.DEPLOYMENT:
        line = _("{campaign}: deployment is open. Place your starting armies with /deploy.")
    elif opening is not None:
        line = _(
            "{campaign}, turn {turn}: orders open {moment}. Give your side's orders then with "
            "/orders; until then /orders shows your armies."
        )
    else:
        line = _("{campaign}, turn {turn}: orders are open. Give your side's orders with /orders.")
    deadline = await _deadline_line(context, campaign, turn, phase)
    text = line.format(campaign=campaign.title, turn=turn, moment=opening)
    return Post(text=text + "\n" + deadline)


async def _still_concerned(
    store: Store, campaign: Campaign, user_id: int, phase: Phase, turn: int
) -> bool:
    """Whether the reminder still concerns its person (their side may have become ready)."""
    if (campaign.turn, campaign.phase) != (turn, phase):
        return False
    member = await store.member(campaign.id, user_id)
    if member is None or member.side_id is None:
        return False
    if phase is Phase.ORDERS:
        orders = await store.orders(campaign.id, turn, member.side_id)
        return orders is None or not orders.ready
    if phase is Phase.DEPLOYMENT:
        placement = (await store.placements(campaign.id)).get(member.side_id)
        return placement is None or not placement.ready
    return True


async def _battles_reminder(
    context: PostContext, campaign: Campaign, user_id: int, turn: int
) -> Post | None:
    """What a player's side still has to do about this turn's results, battle by battle; nothing
    if it has done it all."""
    member = await context.store.member(campaign.id, user_id)
    if (
        member is None
        or member.side_id is None
        or (campaign.turn, campaign.phase)
        != (
            turn,
            Phase.BATTLES,
        )
    ):
        return None
    duties = (await battle_duties(context.store, campaign)).get(member.side_id)
    if not duties:
        return None
    names = _names(await context.store.sides(campaign.id))
    reports = {r.battle: r for r in await context.store.battle_reports(campaign.id, turn)}
    deadline = await deadline_of(context.store, campaign, turn, Phase.BATTLES)
    moment = (
        _("the deadline")
        if deadline is None
        else format_moment(deadline, campaign.time_zone, _language(context))
    )
    lines = [
        _("«{campaign}», turn {turn}: your side's battles.").format(
            campaign=campaign.title, turn=turn
        )
    ]
    for battle in duties.to_report:
        lines.append(_("Battle {id}: no result yet. Report it with /battles.").format(id=battle))
    for battle in duties.to_answer:
        reported = reports[battle].reported if battle in reports else None
        if reported is None:
            continue
        lines.append(
            _(
                "Battle {id}: the other side reported «{result}». It stands unless you dispute "
                "it by {moment} (/battles)."
            ).format(id=battle, result=texts.result_words(reported, names), moment=moment)
        )
    lines.append(await _deadline_line(context, campaign, turn, Phase.BATTLES))
    return Post(text="\n".join(lines))


async def render_reminder(context: PostContext, message: OutboxMessage) -> Post | None:
    """A deadline reminder to one person; nothing if it no longer concerns them."""
    campaign = await _campaign(context, message)
    turn, phase, kind = _int(message, "turn"), _phase(message), _str(message, "reminder")
    if campaign is None or turn is None or phase is None or kind is None:
        return None
    if phase is Phase.BATTLES:
        return await _battles_reminder(context, campaign, message.chat_id, turn)
    if not await _still_concerned(context.store, campaign, message.chat_id, phase, turn):
        return None
    deadline = await _deadline_line(context, campaign, turn, phase)
    if phase is Phase.DEPLOYMENT:
        line = _("{campaign}: your side has not confirmed its deployment yet. Use /deploy.")
    else:
        line = _("{campaign}, turn {turn}: your side's orders are not marked ready. Use /orders.")
    return Post(text=line.format(campaign=campaign.title, turn=turn) + "\n" + deadline)


def _step_name(phase: Phase) -> str:
    match phase:
        case Phase.DEPLOYMENT:
            return _("the end of deployment")
        case Phase.ORDERS:
            return _("the close of the orders window and the battle list")
        case Phase.BATTLES | Phase.RESOLUTION:
            return _("the resolution")
        case _:
            return phase_name(phase)


async def render_ran_late(context: PostContext, message: OutboxMessage) -> Post | None:
    """The group: a deadline passed while the bot was offline; its step ran late, once."""
    campaign = await _campaign(context, message)
    turn, phase = _int(message, "turn"), _phase(message)
    deadline, ran_at = _moment(message, "deadline"), _moment(message, "ran_at")
    if campaign is None or turn is None or phase is None or deadline is None or ran_at is None:
        return None
    language = _language(context)
    return Post(
        text=_(
            "The bot was offline at {deadline}: {step} of turn {turn} ran late, at {ran_at}."
        ).format(
            deadline=format_moment(deadline, campaign.time_zone, language),
            step=_step_name(phase),
            turn=turn,
            ran_at=format_moment(ran_at, campaign.time_zone, language),
        )
    )


async def render_overdue_alarm(context: PostContext, message: OutboxMessage) -> Post | None:
    """To the GMs: a deadline's step was overdue while the bot ran (a stuck job); it ran now."""
    campaign = await _campaign(context, message)
    turn, phase = _int(message, "turn"), _phase(message)
    deadline, ran_at = _moment(message, "deadline"), _moment(message, "ran_at")
    if campaign is None or turn is None or phase is None or deadline is None or ran_at is None:
        return None
    language = _language(context)
    return Post(
        text=_(
            "{campaign}: {step} of turn {turn} was due at {deadline} but had not run. "
            "It ran at {ran_at}. Please check the bot's log."
        ).format(
            campaign=campaign.title,
            step=_step_name(phase),
            turn=turn,
            deadline=format_moment(deadline, campaign.time_zone, language),
            ran_at=format_moment(ran_at, campaign.time_zone, language),
        )
    )


def _choice_alarm(campaign: Campaign) -> str | None:
    """The alarm of the first of the campaign's modules that has a deployment choice."""
    game = game_for(campaign)
    for name, module in BOT_MODULES.items():
        alarm = module.pending_choice_alarm() if game.module(name) is not None else None
        if alarm is not None:
            return alarm
    return None


async def render_blocked_alarm(context: PostContext, message: OutboxMessage) -> Post | None:
    """To the GMs: a deadline came but its step cannot happen; what to do."""
    campaign = await _campaign(context, message)
    reason = _str(message, "reason")
    if campaign is None or reason is None:
        return None
    names = _names(await context.store.sides(campaign.id))
    listed = message.payload.get("sides")
    sides = ", ".join(names.get(str(s), str(s)) for s in listed) if isinstance(listed, list) else ""
    battles = message.payload.get("battles")
    numbers = ", ".join(str(b) for b in battles) if isinstance(battles, list) else ""
    if reason == "sides_not_deployed":
        text = _(
            "{campaign}: the deployment deadline has passed, but these sides have not deployed: "
            "{sides}. Place them; the first turn starts as soon as every side is placed."
        )
    elif reason == "results_missing":
        text = _(
            "{campaign}: the resolution waits for you: battles {battles} have no result. "
            "Set their results, or force the resolution (they count as draws without losses)."
        )
    elif reason == "orders_missing":
        text = _(
            "{campaign}: the orders deadline has passed, but these sides gave no orders: "
            "{sides}. By the campaign's rule it waits for you: reopen their orders with a short "
            "deadline (/gm, «Reopen a side's orders»), or close the orders now (/gm, «Advance "
            "now»): sides without orders then hold."
        )
    elif reason == "results_disputed":
        text = _(
            "{campaign}: the resolution waits for you: the result of battles {battles} is "
            "disputed or missing. Decide them (/battles here), or force the resolution in the "
            "group (/gm): they then count as draws without losses."
        )
    elif reason == "choice_pending" and (alarm := _choice_alarm(campaign)) is not None:
        text = alarm
    else:
        text = _("{campaign}: the deadline has passed, but the next step cannot start yet.")
    text = text.format(campaign=campaign.title, sides=sides, battles=numbers)
    if reason == "orders_missing" and isinstance(listed, list):
        day = message.not_before.astimezone(ZoneInfo(campaign.time_zone)).date()
        away = await away_of_sides(context.store, campaign, [str(s) for s in listed], day)
        text = "\n".join([text, *away_lines(away, _language(context))])
    return Post(text=text)


async def render_clock_paused(context: PostContext, message: OutboxMessage) -> Post | None:
    """The GM paused the campaign: deadlines stand still, and what can still be done meanwhile
    (orders only when their window is open; one that was still to open opens after the resume,
    later by as long as the pause lasts)."""
    campaign = await _campaign(context, message)
    if campaign is None:
        return None
    line = _("The GM paused the campaign. Deadlines stand still until it is resumed.")
    meanwhile: str | None
    match campaign.phase:
        case Phase.DEPLOYMENT:
            meanwhile = _("Placements can still be given and confirmed.")
        case Phase.ORDERS if await orders_opening(context.store, campaign, message.not_before):
            meanwhile = _(
                "Turn {turn}'s orders open after the resume, later by as long as the pause lasts."
            ).format(turn=campaign.turn)
        case Phase.ORDERS:
            meanwhile = _("Orders can still be given.")
        case Phase.BATTLES | Phase.RESOLUTION:
            meanwhile = _("Battle results can still be reported.")
        case _:
            meanwhile = None
    return Post(text=line if meanwhile is None else f"{line} {meanwhile}")


async def render_clock_resumed(context: PostContext, message: OutboxMessage) -> Post | None:
    """The GM resumed the campaign; the deadline moved by the time paused: the dates now."""
    campaign = await _campaign(context, message)
    if campaign is None:
        return None
    line = _("The campaign runs again.")
    plan = await week_plan(context.store, campaign, message.not_before)
    if campaign.status is CampaignStatus.PAUSED or not plan:
        deadline = await _deadline_line(context, campaign, campaign.turn, campaign.phase)
        return Post(text=f"{line}\n{deadline}")
    zone, language = campaign.time_zone, _language(context)
    dates = _("The dates now ({zone}):").format(zone=zone_label(zone, language))
    return Post(text="\n".join([line, dates, *plan_lines(plan, zone, language)]))


async def render_deadline_extended(context: PostContext, message: OutboxMessage) -> Post | None:
    """The GM extended the current deadline: every date that moved, old and new."""
    campaign = await _campaign(context, message)
    turn, phase, hours = _int(message, "turn"), _phase(message), _int(message, "hours")
    if campaign is None or turn is None or phase is None or hours is None:
        return None
    line = _(
        "The GM extended the deadline by {n} hour.",
        "The GM extended the deadline by {n} hours.",
        hours,
    ).format(n=hours)
    before = _moment(message, "before")
    deadline = await deadline_of(context.store, campaign, turn, phase)
    if before is None or deadline is None or campaign.status is CampaignStatus.PAUSED:
        return Post(text=line + "\n" + await _deadline_line(context, campaign, turn, phase))
    zone = ZoneInfo(campaign.time_zone)
    opening = await orders_opening(context.store, campaign, message.not_before)
    was = plan_ahead(turn, phase, before, opening, campaign.schedule, zone)
    now = plan_ahead(turn, phase, deadline, opening, campaign.schedule, zone)
    lines = change_lines(moved(was, now), campaign.time_zone, _language(context))
    lines += window_lines(window_changes(was, now, zone))
    if not lines:
        return Post(text=line + "\n" + await _deadline_line(context, campaign, turn, phase))
    dates = _("New dates ({zone}):").format(zone=zone_label(campaign.time_zone, _language(context)))
    return Post(text="\n".join([line, dates, *lines]))


async def render_gm_advanced(context: PostContext, message: OutboxMessage) -> Post | None:
    """The GM advanced the campaign by hand: the phase it is in now."""
    campaign = await _campaign(context, message)
    turn, phase = _int(message, "turn"), _phase(message)
    if campaign is None or turn is None or phase is None:
        return None
    now = await _phase_now(context, campaign, turn, phase, message)
    return Post(text=_("The GM advanced the campaign.") + "\n" + now)


async def render_result_decided(context: PostContext, message: OutboxMessage) -> Post | None:
    """The group: a GM decided a battle's result (final); nothing if it was changed since."""
    campaign = await _campaign(context, message)
    turn, battle_id, gm = _int(message, "turn"), _int(message, "battle"), _int(message, "by")
    if campaign is None or turn is None or battle_id is None:
        return None
    report = next(
        (r for r in await context.store.battle_reports(campaign.id, turn) if r.battle == battle_id),
        None,
    )
    if report is None or report.override is None:
        return None
    member = None if gm is None else await context.store.member(campaign.id, gm)
    names = _names(await context.store.sides(campaign.id))
    words = texts.full_result_words(report.override, names)
    return Post(
        text=_(
            "Battle {id} of turn {turn}, the GM's decision ({gm}): {result}. It is final."
        ).format(id=battle_id, turn=turn, gm=member.display_name if member else "?", result=words)
    )


RENDERERS: dict[str, Renderer] = {
    "result_decided": render_result_decided,
    "map": render_turn_map,
    "corrected_map": render_corrected_map,
    "battle_list": render_battle_list,
    "battle_notice": render_battle_notice,
    "undo_notice": render_undo_notice,
    "phase_notice": render_phase_notice,
    "private_phase_notice": render_private_phase_notice,
    "reminder": render_reminder,
    "ran_late": render_ran_late,
    "overdue_alarm": render_overdue_alarm,
    "blocked_alarm": render_blocked_alarm,
    "clock_paused": render_clock_paused,
    "clock_resumed": render_clock_resumed,
    "deadline_extended": render_deadline_extended,
    "gm_advanced": render_gm_advanced,
}
