"""Contact in words (MODULES.md C): its orders as typed orders read them back
(``bot.texts.orders``), and why the rules refuse one, with what to do instead."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence

from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.texts.sectors import sector_label
from rules import BattleResult, CampaignMap, ModuleOrder
from rules.modules.contact import (
    NAME,
    Chain,
    ContactPlan,
    ContactReport,
    GroupMove,
    Retreat,
    ZombieFight,
)


def _sector(campaign_map: CampaignMap, sector: str, language: str) -> str:
    """The sector as every other text says it (:func:`bot.texts.sectors.sector_label`): «3
    «Восток»»."""
    return sector_label(campaign_map, sector, language)


def _sectors(data: Mapping[str, JsonValue], key: str) -> list[str]:
    value = data.get(key)
    return [str(item) for item in value] if isinstance(value, list) else []


def _number(data: Mapping[str, JsonValue], key: str) -> int:
    value = data.get(key)
    return value if isinstance(value, int) and not isinstance(value, bool) else 0


def describe_path(path: list[str], campaign_map: CampaignMap, language: str) -> str:
    """Sectors a transport passes, joined by the word for "via" (``2 West via 3 East``)."""
    joiner = " " + _("via") + " "
    return joiner.join(_sector(campaign_map, sector, language) for sector in path)


def describe_contact_order(order: ModuleOrder, campaign_map: CampaignMap, language: str) -> str:
    """A contact order in words that read back as it (``перевезти 3 армии из 1 Экватор через
    2 Запад в 4 Северный полюс``, ``уступить 2 Запад``, ``отступление из 2 Запад в 1 Экватор,
    затем 3 Восток``)."""
    data = order.data
    match data.get("order"):
        case "transport":
            path = _sectors(data, "path")
            count = _number(data, "count")
            source = _sector(campaign_map, str(data.get("from", "")), language)
            to = _sector(campaign_map, path[-1], language) if path else ""
            if len(path) > 1:
                return _(
                    "transport {n} army from {source} via {via} to {to}",
                    "transport {n} armies from {source} via {via} to {to}",
                    count,
                ).format(
                    n=count,
                    source=source,
                    via=describe_path(path[:-1], campaign_map, language),
                    to=to,
                )
            return _(
                "transport {n} army from {source} to {to}",
                "transport {n} armies from {source} to {to}",
                count,
            ).format(n=count, source=source, to=to)
        case "yield":
            return _("yield {sector}").format(
                sector=_sector(campaign_map, str(data.get("sector", "")), language)
            )
        case "retreat_to" if not _sectors(data, "to"):
            return _(
                "retreat from {sector}: no preference (to your sector with most armies)"
            ).format(sector=_sector(campaign_map, str(data.get("sector", "")), language))
        case "retreat_to":
            joiner = ", " + _("then") + " "
            return _("retreat from {sector} to {to}").format(
                sector=_sector(campaign_map, str(data.get("sector", "")), language),
                to=joiner.join(
                    _sector(campaign_map, sector, language) for sector in _sectors(data, "to")
                ),
            )
    return _("{module} order").format(module=order.module)


_REASONS: dict[str, Callable[[], str]] = {
    "bad_order": lambda: _("That contact order cannot be read; use the buttons of /orders."),
    "unknown_sector": lambda: _("There is no sector {sector} on the map."),
    "no_force": lambda: _("You had no armies in {sector} at the start of the turn."),
    "bound_by_combat": lambda: _(
        "Another side's armies stand in {sector}: your armies there are bound by combat and "
        "cannot leave. Fortify or attack there instead."
    ),
    "path_not_adjacent": lambda: _(
        "{to} is not next to {sector}: a transport goes from sector to neighbouring sector."
    ),
    "path_too_long": lambda: _(
        "A transport goes at most {range} sectors, not {length}: choose a shorter path."
    ),
    "transport_limit": lambda: _(
        "Your side has used its transports this turn ({limit}): take one back to give another."
    ),
    "over_capacity": lambda: _(
        "A transport carries at most {capacity} armies, not {count}: send fewer, or the rest "
        "as a move."
    ),
    "exhausted_transport": lambda: _(
        "Only {fresh} of your armies in {sector} are fresh: exhausted armies move one sector "
        "only, so they cannot be transported."
    ),
    "move_count_out_of_range": lambda: _(
        "From {sector} you can send {min} to {max} armies in all: one army stays."
    ),
    "move_and_attack_in_sector": lambda: _(
        "{sector} has attacks and a transport: give one or the other (fortify {sector} to "
        "clear its attacks)."
    ),
    "sector_has_order": lambda: _(
        "{sector} already has another module's order this turn; fortify it first."
    ),
    "second_yield": lambda: _("You yield {sector} already."),
    "retreat_not_adjacent": lambda: _(
        "{to} is not next to {sector}: armies retreat to a neighbouring sector."
    ),
    "retreat_repeated": lambda: _("{to} is named twice: name each sector once."),
    "second_retreat_to": lambda: _(
        "Retreats from {sector} already have a choice this turn: take it back to give another."
    ),
}


def describe_contact_rejection(
    params: Mapping[str, str | int], campaign_map: CampaignMap, language: str
) -> str:
    """Why contact refused an order, from its ``params`` (``rule`` and what it names)."""
    rule = str(params.get("rule", ""))
    words = {key: str(value) for key, value in params.items()}
    for key in ("sector", "to"):
        if key in words:
            words[key] = _sector(campaign_map, words[key], language)
    reason = _REASONS.get(rule)
    if reason is None:
        return _("This order is not part of this campaign's rules.")
    try:
        return reason().format(**words)
    except (KeyError, IndexError):
        return _("This order is not part of this campaign's rules.")


# ---- the battle list and the Monday summary ------------------------------------------------


def _side(sides: Mapping[str, str], side: str | None) -> str:
    return "" if side is None else sides.get(side, side)


def describe_group(
    group: GroupMove, campaign_map: CampaignMap, sides: Mapping[str, str], language: str
) -> str:
    """One group of the movement log: where it went and how it ended the movement."""
    words = {
        "side": _side(sides, group.side),
        "index": group.index,
        "armies": armies_words(group.count),
        "source": _sector(campaign_map, group.source, language),
        "stop": _sector(campaign_map, group.stop or "", language),
        "arrival": group.arrival or 0,
        "passed": ", ".join(_sector(campaign_map, s, language) for s in group.passed),
    }
    mark = "🚚" if group.transport else "🚶"
    match group.status:
        case "cancelled":
            text = _(
                "{side}: group {index} ({armies}) stays in {source}: another side arrived "
                "there first, the armies are bound by combat."
            )
        case "joined":
            text = _(
                "{side}: group {index} ({armies}) from {source} stops in {stop} and joins "
                "the side's armies there."
            )
        case _:
            text = _(
                "{side}: group {index} ({armies}) from {source} stops in {stop}, arrival {arrival}."
            )
    line = f"{mark} " + text.format(**words)
    if group.passed:
        line += " " + _("Passed through: {passed}.").format(passed=words["passed"])
    return line


def armies_words(count: int) -> str:
    """ "1 army", "3 armies" (and the three Russian forms)."""
    return _("{n} army", "{n} armies", count).format(n=count)


def describe_zombies(
    fight: ZombieFight, campaign_map: CampaignMap, sides: Mapping[str, str], language: str
) -> str:
    """A group against a zombie card: the card, the defences' bonus, both strengths, who won."""
    words = {
        "side": _side(sides, fight.side),
        "armies": armies_words(fight.armies),
        "sector": _sector(campaign_map, fight.sector, language),
        "card": fight.card,
        "bonus": fight.bonus,
        "zombies": fight.zombies,
        "strength": fight.strength,
    }
    if fight.bonus:
        card = _("zombie card {card} +{bonus} for the defences = {zombies}").format(**words)
    else:
        card = _("zombie card {card}").format(**words)
    words["card"] = card
    text = (
        _(
            "🧟 {side}: {armies} in {sector} against {card}: strength {strength}, the zombies "
            "are beaten."
        )
        if fight.won
        else _(
            "🧟 {side}: {armies} in {sector} against {card}: strength {strength}, the "
            "zombies win and the armies retreat."
        )
    )
    return text.format(**words)


def describe_retreat(
    retreat: Retreat, campaign_map: CampaignMap, sides: Mapping[str, str], language: str
) -> str:
    """Armies leaving a sector after zombies, a yield, a lost battle or a draw."""
    words = {
        "side": _side(sides, retreat.side),
        "armies": armies_words(retreat.armies),
        "source": _sector(campaign_map, retreat.source, language),
        "to": _sector(campaign_map, retreat.to or "", language),
        "died": armies_words(retreat.died),
    }
    if retreat.kind == "destroyed" or retreat.to is None:
        line = _("↩ {side}: {armies} in {source} have nowhere to retreat and are destroyed.")
    elif retreat.kind == "return":
        line = _("↩ {side}: {armies} return from {source} to {to}.")
    elif retreat.kind == "neutral":
        line = _("↩ {side}: {armies} retreat from {source} to the neutral sector {to}, exhausted.")
    else:
        line = _("↩ {side}: {armies} retreat from {source} to {to}, exhausted.")
    text = line.format(**words)
    if retreat.died:
        text += " " + _("Exhausted armies die: {died}.").format(**words)
    return text


def describe_contact_plan(
    plan: ContactPlan, campaign_map: CampaignMap, sides: Mapping[str, str], language: str
) -> list[str]:
    """The battle list's contact part: the turn order, the movement log, the zombies with their
    cards and the retreats they cause, yields, and the chains in order with who defends each."""
    lines = [
        _("🧟 Contact. Turn order: {sides}.").format(
            sides=", ".join(_side(sides, side) for side in plan.turn_order)
        )
    ]
    if plan.groups:
        lines.append(_("Movement, step by step:"))
        rounds = sorted({group.round for group in plan.groups})
        for number in rounds:
            lines.append(_("Step {step}:").format(step=number))
            lines += [
                "  " + describe_group(group, campaign_map, sides, language)
                for group in plan.groups
                if group.round == number
            ]
    else:
        lines.append(_("No group moves this turn."))
    lines += [describe_zombies(fight, campaign_map, sides, language) for fight in plan.zombies]
    lines += [describe_retreat(retreat, campaign_map, sides, language) for retreat in plan.retreats]
    for ruin in plan.ruins:
        words = {
            "sector": _sector(campaign_map, ruin.sector, language),
            "side": _side(sides, ruin.side),
        }
        lines.append(
            _("🏚 {side} yields {sector}: its defences fall at the end of the turn.").format(**words)
            if ruin.reason == "yield"
            else _(
                "🏚 {side} beat the zombies in undefended {sector}: its defences fall at the end "
                "of the turn."
            ).format(**words)
        )
    for chain in plan.chains:
        lines += describe_contact_chain(chain, campaign_map, sides, language)
    if plan.deck is not None:
        lines.append(
            _("🃏 Zombie deck: {used} of {cards} cards drawn (shuffle {shuffle}).").format(
                used=plan.deck.used, cards=len(plan.deck.cards), shuffle=plan.deck.shuffles
            )
        )
    return lines


def describe_contact_chain(
    chain: Chain, campaign_map: CampaignMap, sides: Mapping[str, str], language: str
) -> list[str]:
    """A chain of battles in one sector: the first defender, the attackers in arrival order,
    which battle each is, and the defences' bonus."""
    where = _sector(campaign_map, chain.sector, language)
    lines = [
        _("⛓ Chain in {sector}: {side} defends first; each winner defends the next battle.").format(
            sector=where, side=_side(sides, chain.defender)
        )
    ]
    if chain.yielded is not None:
        lines.append(
            "  "
            + _("{side} yielded the sector before the chain.").format(
                side=_side(sides, chain.yielded)
            )
        )
    if chain.level:
        lines.append(
            "  "
            + _(
                "Every defender in this chain reads its FOC row for {level} more army.",
                "Every defender in this chain reads its FOC row for {level} more armies.",
                chain.level,
            ).format(level=chain.level)
        )
    for number, (attacker, battle) in enumerate(
        zip(chain.attackers, chain.battles, strict=False), start=1
    ):
        if number == 1:
            text = _("  Battle {battle}: {attacker} against {side}.").format(
                battle=battle, attacker=_side(sides, attacker), side=_side(sides, chain.defender)
            )
        else:
            text = _(
                "  Battle {battle}: {attacker} against the winner of battle {before}; it "
                "opens for reporting once that result is in."
            ).format(
                battle=battle, attacker=_side(sides, attacker), before=chain.battles[number - 2]
            )
        lines.append(text)
    if len(chain.attackers) > 1:
        lines.append(
            "  "
            + _(
                "A defender left with no armies by a draw defends no more: the next battle is "
                "not played, and its attacker stands in the sector unopposed and defends the "
                "battle after it."
            )
        )
    return lines


def describe_contact_report(
    report: ContactReport, campaign_map: CampaignMap, sides: Mapping[str, str], language: str
) -> list[str]:
    """The Monday summary's contact part: retreats and zombies after the battles, ruined
    defences, VP gained and held, armies exhausted for the next turn, a VP victory."""
    lines: list[str] = []
    lines += [
        describe_retreat(retreat, campaign_map, sides, language) for retreat in report.retreats
    ]
    lines += [describe_zombies(fight, campaign_map, sides, language) for fight in report.zombies]
    for unopposed in report.unopposed:
        lines.append(
            _(
                "⛓ Battle {battle} in {sector} was not played: {gone} has no armies left after "
                "battle {before}; {side} stands there unopposed."
            ).format(
                battle=unopposed.battle,
                sector=_sector(campaign_map, unopposed.sector, language),
                gone=_side(sides, unopposed.gone),
                before=unopposed.before,
                side=_side(sides, unopposed.side),
            )
        )
    for ruin in report.ruined:
        where = _sector(campaign_map, ruin.sector, language)
        if ruin.vp and ruin.holder is not None:
            lines.append(
                _("🏚 The defences in {sector} are ruined; {side} gains {vp} VP.").format(
                    sector=where, side=_side(sides, ruin.holder), vp=ruin.vp
                )
            )
        else:
            lines.append(_("🏚 The defences in {sector} are ruined.").format(sector=where))
    for gain in report.vp_gains:
        if gain.reason == "warlord":
            lines.append(
                _(
                    "🏆 {side}: +{points} VP, the warlord of {slain} was slain in battle {battle}."
                ).format(
                    side=_side(sides, gain.side),
                    points=gain.points,
                    slain=_side(sides, gain.slain),
                    battle=gain.battle or "?",
                )
            )
    tired = [
        _("{side}: {armies} in {sector}").format(
            side=_side(sides, side),
            armies=armies_words(count),
            sector=_sector(campaign_map, sector, language),
        )
        for side, counts in report.exhausted.items()
        for sector, count in counts.items()
        if count
    ]
    if tired:
        lines.append(
            _("😮‍💨 Exhausted next turn (they move one sector only): {armies}.").format(
                armies="; ".join(tired)
            )
        )
    held = [f"{_side(sides, side)} {points}" for side, points in report.vp.items() if points]
    if held:
        lines.append(_("🏆 Victory points: {points}.").format(points=", ".join(held)))
    if report.shared_victory:
        lines.append(
            _("🏆 Victory points end the campaign: a shared victory of {sides}.").format(
                sides=", ".join(_side(sides, side) for side in report.shared_victory)
            )
        )
    return lines


def slain_warlords(result: BattleResult) -> list[str]:
    """The sides whose warlord a result says was slain (its ``warlord_slain``)."""
    return _slain(result.modules.get(NAME))


def _slain(data: JsonValue) -> list[str]:
    slain = data.get("warlord_slain") if isinstance(data, dict) else None
    return [str(side) for side in slain] if isinstance(slain, list) else []


def result_notes(data: JsonValue, sides: Mapping[str, str]) -> list[str]:
    """A result's contact data in words, after the result: «warlord slain: Blue»."""
    slain = _slain(data)
    if not slain:
        return []
    return [
        _("warlord slain: {sides}").format(sides=", ".join(sides.get(side, side) for side in slain))
    ]


def shuffle_words(parts: Sequence[str], rolls: int) -> str | None:
    """The line of the zombie deck's shuffle."""
    if parts[:1] != ["zombies"]:
        return None
    return _(
        "🎲 The zombie deck shuffled: {n} roll, in the export",
        "🎲 The zombie deck shuffled: {n} rolls, in the export",
        rolls,
    ).format(n=rolls)
