"""Words of watch's duel steps (MODULES.md W6): the side's step screen, the group's posts of
played steps, the reminder, the refusals in the rule's words, the GM's list of open steps.

A hand is shown only on its own side's screen, read through ``public_view`` for that side
(``bot.modules.watch.duels.step_desk``); the group sees cards once they are on the table.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aiogram.utils.i18n import gettext as _

from bot.texts.limits import BUTTON_ROW, button_label
from bot.texts.moments import format_moment
from rules import CampaignMap, Rejection
from rules.modules.watch.orders import WatchRule
from rules.modules.watch.state import parse_card
from storage import DuelCloser, DuelMode, DuelPlay, DuelStep, DuelStepState


def card_name(card: str) -> str:
    """«Attack 3» for ``A3``, «Defence 2» for ``D2``."""
    try:
        parsed = parse_card(card)
    except ValueError:
        return card
    if parsed.kind == "A":
        return _("Attack {n}").format(n=parsed.power)
    return _("Defence {n}").format(n=parsed.power)


def plays_text(plays: Sequence[DuelPlay], names: Mapping[str, str]) -> str:
    """«Attack 3 → Andrey, Defence 2 → Larisa»."""
    return ", ".join(
        f"{card_name(play.card)} → {names.get(play.target, play.target)}" for play in plays
    )


def _place(campaign_map: CampaignMap, sector: str, language: str) -> str:
    """A duel's location by its name, «Metro» (the map's locations are named, not numbered)."""
    found = campaign_map.by_id.get(sector)
    return f"«{sector if found is None else found.display_name(language)}»"


def step_title(
    step: DuelStep, names: Mapping[str, str], campaign_map: CampaignMap, language: str
) -> str:
    """«Duel in «Metro», turn 2: Larisa's step»."""
    return _("⚔️ Duel in {place}, turn {turn}: {hero}'s step.").format(
        place=_place(campaign_map, step.sector, language),
        turn=step.turn,
        hero=names.get(step.hero, step.hero),
    )


def screen_text(
    step: DuelStep,
    hand: Sequence[str],
    heroes: Sequence[tuple[str, str, int]],
    names: Mapping[str, str],
    campaign_map: CampaignMap,
    zone: str,
    language: str,
) -> str:
    """The side's step screen: the hero's hand, the heroes there, the cards laid so far."""
    lines = [step_title(step, names, campaign_map, language)]
    if step.deadline is not None:
        lines.append(
            _("Deadline: {moment}.").format(moment=format_moment(step.deadline, zone, language))
        )
    if step.mode is DuelMode.SEALED:
        lines.append(
            _(
                "A sealed duel: every step is secret until all are played, then they are "
                "shown together."
            )
        )
    lines.append(_("In hand: {cards}.").format(cards=", ".join(card_name(c) for c in hand) or "—"))
    here = ", ".join(
        _("{name} ({n} wound)", "{name} ({n} wounds)", wounds).format(name=name, n=wounds)
        for _hero, name, wounds in heroes
    )
    lines.append(_("Heroes here: {heroes}.").format(heroes=here or "—"))
    if step.plays:
        lines.append(_("Laid so far: {plays}.").format(plays=plays_text(step.plays, names)))
    lines.append(
        _(
            "Choose a spell, then the hero it goes to; add more if you wish, then «Play». "
            "«Play nothing» ends the step without a spell."
        )
    )
    return "\n".join(lines)


def target_text(card: str) -> str:
    """Asked after a card is chosen."""
    return _("Which hero gets {card}?").format(card=card_name(card))


def closed_step_text(
    step: DuelStep, names: Mapping[str, str], campaign_map: CampaignMap, language: str
) -> str:
    """What a step's screen says once it is closed (to its own side)."""
    title = step_title(step, names, campaign_map, language)
    return "\n".join([title, step_outcome(step, names)])


def step_outcome(step: DuelStep, names: Mapping[str, str]) -> str:
    """What a closed step played, and why it closed when nothing was played."""
    if step.plays:
        return _("Played: {plays}.").format(plays=plays_text(step.plays, names))
    match step.closed_by:
        case DuelCloser.TIMEOUT:
            return _("Nothing played: the step's deadline passed.")
        case DuelCloser.DEADLINE:
            return _("Nothing played: the results deadline came first.")
        case DuelCloser.GM:
            return _("Nothing played: the GM closed the step.")
        case _:
            return _("Nothing played.")


def played_post(
    step: DuelStep,
    names: Mapping[str, str],
    campaign_map: CampaignMap,
    language: str,
    following: str | None,
) -> str:
    """The group (initiative mode): one step's cards on the table, and whose step is next."""
    lines = [step_title(step, names, campaign_map, language), step_outcome(step, names)]
    if following is not None:
        lines.append(_("Next: {hero}'s step.").format(hero=following))
    return "\n".join(lines)


def reveal_post(
    steps: Sequence[DuelStep], names: Mapping[str, str], campaign_map: CampaignMap, language: str
) -> str:
    """The group (sealed mode): every step of the turn's duels, shown together."""
    turn = steps[0].turn if steps else 0
    lines = [_("⚔️ Turn {turn}: the sealed duels are shown.").format(turn=turn)]
    sector = None
    for step in steps:
        if step.sector != sector:
            sector = step.sector
            lines.append(_("Duel in {place}:").format(place=_place(campaign_map, sector, language)))
        lines.append(f"• {names.get(step.hero, step.hero)}: {step_outcome(step, names)}")
    return "\n".join(lines)


def reminder_text(
    step: DuelStep,
    names: Mapping[str, str],
    campaign_map: CampaignMap,
    zone: str,
    language: str,
) -> str:
    """The side's reminder an hour before the step's deadline."""
    deadline = "" if step.deadline is None else format_moment(step.deadline, zone, language)
    return "\n".join(
        [
            step_title(step, names, campaign_map, language),
            _(
                "⏰ Your step ends at {moment}: play your spells or «Play nothing». Without an "
                "answer nothing is played."
            ).format(moment=deadline),
        ]
    )


def refusal_text(refusal: str) -> str:
    """Why a press on a step did nothing (``bot.modules.watch.duels.StepRefusal``)."""
    match refusal:
        case "not_open":
            return _(
                "This step is not open yet: the heroes before it in initiative order play first."
            )
        case "stale":
            return _("This screen is out of date: here is the step as it is now.")
        case "busy":
            return _("Too many presses at once: try again.")
        case "no_late_orders":
            return _(
                "No spell can be played: your side gives no orders after the battles this turn "
                "(it has no army left). «Play nothing» ends the step."
            )
        case _:
            return _("This step is closed: its spells can no longer change.")


def rule_text(rejection: Rejection, names: Mapping[str, str]) -> str:
    """A watch rule's words for a refused play (MODULES.md W6)."""
    params = rejection.params
    hero = names.get(str(params.get("hero", "")), str(params.get("hero", "")))
    match params.get("rule"):
        case WatchRule.CARD_NOT_IN_HAND:
            return _(
                "«{hero}» has no {card} left in hand: each spell is played once. Choose another."
            ).format(hero=hero, card=card_name(str(params.get("card", ""))))
        case WatchRule.TARGET_NOT_IN_SECTOR:
            target = names.get(str(params.get("target", "")), str(params.get("target", "")))
            return _(
                "«{target}» is not in this duel: a spell goes to a hero standing there."
            ).format(target=target)
        case WatchRule.STEP_ALREADY_PLAYED:
            return _("«{hero}» has played its step this turn already.").format(hero=hero)
        case WatchRule.NOT_YOUR_STEP:
            return _("It is not {hero}'s step yet: wait for your turn.").format(hero=hero)
        case WatchRule.NOT_YOUR_HERO:
            return _("«{hero}» is another side's hero: only its own side plays its step.").format(
                hero=hero
            )
        case WatchRule.NOT_IN_DUEL | WatchRule.HERO_DEAD | WatchRule.HERO_NOT_IN_PLAY:
            return _("«{hero}» is not in a duel this turn.").format(hero=hero)
        case _:
            return _("The rules refuse this play.")


def gm_steps_text(count: int, mode: DuelMode | None) -> str:
    """The GM's list of open duel steps (in ``sealed`` mode the group sees nothing of a step
    until all are closed, so the list does not promise it)."""
    if count == 0:
        return _("No duel step is open or waiting.")
    if mode is DuelMode.SEALED:
        return _(
            "Duel steps not closed yet: closing one now plays nothing for it (audited; the "
            "group sees it when the sealed duels are shown)."
        )
    return _(
        "Duel steps not closed yet: closing one now plays nothing for it (audited; the group "
        "sees it with the step's spells)."
    )


def gm_step_label(
    step: DuelStep, names: Mapping[str, str], campaign_map: CampaignMap, language: str
) -> str:
    """A button of the GM's list: «✖ Larisa, «Metro» (open)»; a long name is cut so that the
    place and the state still show on a phone."""
    state = _("open") if step.state is DuelStepState.OPEN else _("waiting")
    label = _("✖ {hero}, {place} ({state})")
    place = _place(campaign_map, step.sector, language)
    room = BUTTON_ROW - len(label.format(hero="", place=place, state=state))
    return label.format(
        hero=button_label(names.get(step.hero, step.hero), max(room, 8)), place=place, state=state
    )
