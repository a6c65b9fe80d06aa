"""Words for the rules core's values, in the current language (aiogram i18n context).

The rules core speaks in enums and parameters; this module is the only place they become
sentences. Every string here is a catalog message id (English), translated in
``bot/locales/ru``.
"""

from __future__ import annotations

from collections.abc import Collection, Iterable, Mapping, Sequence
from datetime import date

from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _
from babel.dates import format_date

from bot.modules import BOT_MODULES
from bot.services.orders import ResultSource, SourceKind
from bot.texts.moments import format_moment
from bot.texts.sectors import sector_label
from rules import (
    Attack,
    Battle,
    BattleResult,
    BattleSides,
    BattleStatus,
    CampaignMap,
    FocLimits,
    Fortify,
    ModuleOrder,
    Move,
    OrderRule,
    Outcome,
    Reinforce,
    Rejection,
    SideOrders,
    TurnReport,
)
from rules.deployment import DeploymentProblem
from rules.maps import MapProblem, MapProblemCode
from storage import Campaign, JoiningPolicy, NoShowPolicy, Phase, Role, UnreportedPolicy

SideNames = Mapping[str, str]


def armies(count: int) -> str:
    """ "1 army", "3 armies" (and the three Russian forms)."""
    return _("{n} army", "{n} armies", count).format(n=count)


def held_words(held: int, need: int) -> str:
    """ "holds 1 of 3 sectors": a side's held sectors (``bot.services.records.held_after``)
    against the captured sectors it needs to win, as the map's legend counts them."""
    return _("holds {held} of {need} sector", "holds {held} of {need} sectors", need).format(
        held=held, need=need
    )


def rule_name(field: str) -> str:
    """A ruleset number named in words, as a GM reads it (not its field name)."""
    names = {
        "start_armies": _("Starting armies per side"),
        "start_sectors": _("Sectors to deploy in"),
        "armies_per_attack": _("Armies per attack"),
        "capture_min_armies": _("Armies to capture a sector"),
        "sectors_to_win": _("Captured sectors to win"),
        "battle_points": _("Points per battle"),
        "replenishment": _("Replenishment per sector held alone"),
        "reinforcement": _("Orbital reinforcement per turn"),
    }
    return names.get(field, field)


def language_name(language: str) -> str:
    """A language's name inside a sentence, in the reader's language («русский», "English");
    the buttons that choose one name each language in itself («Русский», "English")."""
    names = {"en": _("English"), "ru": _("Russian")}
    return names.get(language, language)


def phase_name(phase: Phase) -> str:
    """The phase's name, as players read it."""
    names = {
        Phase.SETUP: _("setup"),
        Phase.DEPLOYMENT: _("deployment"),
        Phase.ORDERS: _("orders"),
        Phase.BATTLES: _("battles"),
        Phase.RESOLUTION: _("resolution"),
        Phase.FINISHED: _("finished"),
    }
    return names[phase]


def role_name(role: Role) -> str:
    """A role's name."""
    names = {
        Role.GM: _("GM"),
        Role.CO_GM: _("co-GM"),
        Role.STRATEGIST: _("strategist"),
        Role.TACTICIAN: _("tactician"),
    }
    return names[role]


def outcome_name(outcome: Outcome) -> str:
    """The outcome's name."""
    names = {
        Outcome.DRAW: _("draw"),
        Outcome.BLOODY_DRAW: _("bloody draw (someone lost over half)"),
        Outcome.SOLID: _("solid victory"),
        Outcome.CRUSHING: _("crushing victory"),
        Outcome.SLAUGHTER: _("slaughter"),
    }
    return names[outcome]


def outcome_label(outcome: Outcome) -> str:
    """The outcome's name on a button, with a capital: "Solid victory", «Ничья»."""
    name = outcome_name(outcome)
    return name[:1].upper() + name[1:]


def result_words(result: BattleResult, sides: SideNames) -> str:
    """ "Red: crushing victory" or "draw"."""
    if result.winner is None:
        return outcome_name(result.outcome)
    return _("{winner}: {outcome}").format(
        winner=sides.get(result.winner, result.winner), outcome=outcome_name(result.outcome)
    )


def full_result_words(result: BattleResult, sides: SideNames) -> str:
    """A result in words with what the modules add to it, each a phrase after it ("Red: solid
    victory; ...", :meth:`bot.modules.BotModule.result_notes`)."""
    notes = [
        note
        for name, data in result.modules.items()
        if (module := BOT_MODULES.get(name)) is not None
        for note in module.result_notes(data, sides)
    ]
    return "; ".join([result_words(result, sides), *notes])


def describe_order(
    order: Move | Attack | Fortify | Reinforce | ModuleOrder,
    campaign_map: CampaignMap,
    sides: SideNames,
    language: str,
) -> str:
    """One order in words."""
    match order:
        case Move():
            return _(
                "move {n} army from {source} to {to}",
                "move {n} armies from {source} to {to}",
                order.count,
            ).format(
                n=order.count,
                source=sector_label(campaign_map, order.source, language),
                to=sector_label(campaign_map, order.to, language),
            )
        case Attack():
            return _("attack {side} in {sector}").format(
                side=sides.get(order.target, order.target),
                sector=sector_label(campaign_map, order.sector, language),
            )
        case Fortify():
            return _("fortify {sector}").format(
                sector=sector_label(campaign_map, order.sector, language)
            )
        case Reinforce():
            return _("orbital reinforcement to {sector}").format(
                sector=sector_label(campaign_map, order.sector, language)
            )
        case ModuleOrder() if (
            words := _module_order_words(order, campaign_map, sides, language)
        ) is not None:
            return words
        case ModuleOrder():
            return _("{module} order").format(module=order.module)


def _module_order_words(
    order: ModuleOrder, campaign_map: CampaignMap, sides: SideNames, language: str
) -> str | None:
    module = BOT_MODULES.get(order.module)
    return None if module is None else module.describe_order(order, campaign_map, sides, language)


def describe_order_line(
    orders: Sequence[Move | Attack | Fortify | Reinforce | ModuleOrder],
    campaign_map: CampaignMap,
    sides: SideNames,
    language: str,
) -> str:
    """Orders given together, as one line that reads back as them (``bot.texts.orders``): the
    same attack declared N times in a row once with "×N", "; " between the others."""
    groups: list[tuple[Move | Attack | Fortify | Reinforce | ModuleOrder, int]] = []
    for order in orders:
        if isinstance(order, Attack) and groups and groups[-1][0] == order:
            groups[-1] = (order, groups[-1][1] + 1)
        else:
            groups.append((order, 1))
    return "; ".join(
        describe_order(order, campaign_map, sides, language) + (f" ×{n}" if n > 1 else "")
        for order, n in groups
    )


def describe_rejection(
    rejection: Rejection, campaign_map: CampaignMap, sides: SideNames, language: str
) -> str:
    """Why an order was refused and what to do instead."""
    p = rejection.params
    sector = sector_label(campaign_map, str(p.get("sector", "")), language)
    to = sector_label(campaign_map, str(p.get("to", "")), language)
    target = sides.get(str(p.get("target", "")), str(p.get("target", "")))
    match rejection.rule:
        case OrderRule.SIDE_NOT_IN_PLAY:
            return _("Your side has no armies left on the map, so it gives no orders.")
        case OrderRule.UNKNOWN_SECTOR:
            return _("There is no sector {sector} on this map.").format(sector=p.get("sector"))
        case OrderRule.NO_ARMIES_IN_SECTOR:
            return _(
                "You had no armies in {sector} at the start of the turn: "
                "orders are for sectors you hold."
            ).format(sector=sector)
        case OrderRule.SECOND_MOVE_FROM_SECTOR:
            return _(
                "Armies already move from {sector} to {to}: one destination per sector. "
                "Fortify {sector} first to change it."
            ).format(sector=sector, to=to)
        case OrderRule.MOVE_TO_SAME_SECTOR:
            return _("A move must go to another sector.")
        case OrderRule.MOVE_NOT_ADJACENT:
            return _("{to} is not next to {sector}: armies move to an adjacent sector.").format(
                to=to, sector=sector
            )
        case OrderRule.MOVE_COUNT_OUT_OF_RANGE:
            if int(p.get("max", 0)) < 1:
                return _(
                    "Only one army in {sector}: at least one must stay, so none can move."
                ).format(sector=sector)
            return _("You can move {min} to {max} from {sector}: at least one army stays.").format(
                min=p.get("min"), max=p.get("max"), sector=sector
            )
        case OrderRule.MOVE_AND_ATTACK_IN_SECTOR:
            return _(
                "Armies move out of {sector}: a sector either moves or attacks, not both."
            ).format(sector=sector)
        case OrderRule.ATTACK_OWN_SIDE:
            return _("You cannot attack your own side.")
        case OrderRule.UNKNOWN_SIDE:
            return _("There is no side {side} in this campaign.").format(side=target)
        case OrderRule.ATTACK_WITHOUT_OPPONENT:
            return _("{side} had no armies in {sector} at the start of the turn.").format(
                side=target, sector=sector
            )
        case OrderRule.ATTACK_LIMIT_EXCEEDED:
            limit = int(p.get("limit", 0))
            return _(
                "{armies} in {sector} allow {limit} attack: one per 3 armies, rounded up.",
                "{armies} in {sector} allow {limit} attacks: one per 3 armies, rounded up.",
                limit,
            ).format(armies=armies(int(p.get("armies", 0))), sector=sector, limit=limit)
        case OrderRule.REINFORCE_WITHOUT_ARMIES:
            return _("Reinforcements land only where you have armies; {sector} is not one.").format(
                sector=sector
            )
        case OrderRule.MODULE_RULE if (
            words := _module_rejection_words(p, campaign_map, sides, language)
        ) is not None:
            return words
        case OrderRule.SECTOR_HAS_MODULE_ORDER if (
            module := BOT_MODULES.get(str(p.get("module", "")))
        ) is not None and (words := module.describe_sector_taken(sector)) is not None:
            return words
        case OrderRule.SECTOR_HAS_MODULE_ORDER:
            return _(
                "{sector} already has a rule module's order this turn; fortify {sector} first "
                "to give it another order."
            ).format(sector=sector)
        case OrderRule.UNKNOWN_MODULE | OrderRule.MODULE_RULE:
            return _("This order is not part of this campaign's rules.")
        case _:
            return describe_deployment_rule(rejection.rule, p)


def _module_rejection_words(
    params: Mapping[str, str | int], campaign_map: CampaignMap, sides: SideNames, language: str
) -> str | None:
    module = BOT_MODULES.get(str(params.get("module", "")))
    if module is None:
        return None
    return module.describe_rejection(params, campaign_map, sides, language)


def describe_deployment_rule(rule: OrderRule, params: Mapping[str, str | int]) -> str:
    """Why a deployment was refused."""
    match rule:
        case OrderRule.DEPLOY_UNKNOWN_SECTOR:
            return _("There is no sector {sector} on this map.").format(sector=params.get("sector"))
        case OrderRule.DEPLOY_SECTOR_EMPTY:
            return _("Each chosen sector needs at least 1 army ({sector}: {armies}).").format(
                sector=params.get("sector"), armies=armies(int(params.get("count", 0)))
            )
        case OrderRule.DEPLOY_WRONG_TOTAL:
            required = int(params.get("required", 0))
            return _(
                "Place exactly {required} army in all (now {total}).",
                "Place exactly {required} armies in all (now {total}).",
                required,
            ).format(required=required, total=params.get("total"))
        case OrderRule.DEPLOY_WRONG_SECTOR_COUNT:
            required = int(params.get("required", 0))
            return _(
                "Use exactly {required} sector (now {sectors}).",
                "Use exactly {required} different sectors (now {sectors}).",
                required,
            ).format(required=required, sectors=params.get("sectors"))
        case _:
            return str(rule.value)


def describe_deployment_problem(problem: DeploymentProblem) -> str:
    """A deployment problem in words."""
    return describe_deployment_rule(problem.rule, problem.params)


def describe_map_problem(problem: MapProblem) -> str:
    """Why an uploaded map file was refused."""
    sector, other, detail = problem.sector, problem.other, problem.detail or ""
    match problem.code:
        case MapProblemCode.SYNTAX:
            return _("The file is not valid TOML: {detail}").format(detail=detail)
        case MapProblemCode.SCHEMA:
            return _("A map field is wrong: {detail}").format(detail=detail)
        case MapProblemCode.EMPTY:
            return _("The map has no sectors.")
        case MapProblemCode.DUPLICATE_ID:
            return _("Sector id {sector} is used twice.").format(sector=sector)
        case MapProblemCode.UNKNOWN_NEIGHBOUR:
            return _("Sector {sector} names neighbour {other}, which is not on the map.").format(
                sector=sector, other=other
            )
        case MapProblemCode.SELF_NEIGHBOUR:
            return _("Sector {sector} names itself as a neighbour.").format(sector=sector)
        case MapProblemCode.ASYMMETRIC_EDGE:
            return _(
                "Sector {sector} lists {other} as a neighbour, but {other} does not list {sector}."
            ).format(sector=sector, other=other)
        case MapProblemCode.UNREACHABLE_SECTOR:
            return _("Sector {sector} cannot be reached from sector {other}.").format(
                sector=sector, other=other
            )
        case MapProblemCode.BAD_GEOMETRY:
            return _("Sector {sector} has bad geometry: {detail}").format(
                sector=sector, detail=detail
            )
        case MapProblemCode.DUPLICATE_FEATURE_ID:
            return _("Feature id {feature} is used twice.").format(feature=other)
        case MapProblemCode.FEATURE_UNKNOWN_SECTOR:
            return _(
                "Feature {feature} stands in sector {sector}, which is not on the map."
            ).format(feature=other, sector=sector)
        case MapProblemCode.MODULE_RULE:
            return _("A rule module refuses the map: {detail}").format(detail=detail)


def describe_orders(
    orders: SideOrders,
    holdings: Mapping[str, int],
    campaign_map: CampaignMap,
    sides: SideNames,
    language: str,
    groups: Sequence[Move | ModuleOrder] | None = None,
) -> list[str]:
    """The whole order set, one line per held sector (map order), then the reinforcement.

    With a module's ``groups`` (the side's moves and transports in the order they move), a
    sector line shows only what stays (fortify, or its attacks; none where only groups leave),
    and the groups follow one a line in their order, so the lines read back as the same list."""
    lines = []
    for sector in campaign_map.sector_ids():
        count = holdings.get(sector, 0)
        if count == 0:
            continue
        label = sector_label(campaign_map, sector, language)
        move = orders.move_from(sector) if groups is None else None
        if (
            groups is not None
            and not orders.attacks_in(sector)
            and any(group.sector == sector for group in groups)
        ):
            continue
        attacks = orders.attacks_in(sector)
        claim = orders.module_order_in(sector)
        if move is not None:
            what = describe_order(move, campaign_map, sides, language)
        elif claim is not None and not attacks:
            what = describe_order(claim, campaign_map, sides, language)
        elif attacks:
            what = describe_order_line(attacks, campaign_map, sides, language)
        else:
            what = _("fortify")
        lines.append(f"{label} ({armies(count)}): {what}")
    if groups is not None:
        lines += [describe_order(group, campaign_map, sides, language) for group in groups]
    lines += [
        describe_order(order, campaign_map, sides, language)
        for order in orders.extra
        if not order.claims_sector and (groups is None or order not in groups)
    ]
    if orders.reinforce is not None:
        target = sector_label(campaign_map, orders.reinforce, language)
        lines.append(_("Reinforcement: {sector}").format(sector=target))
    else:
        lines.append(_("Reinforcement: not chosen (it will go to your smallest sector)"))
    return lines


def describe_foc(limits: FocLimits) -> str:
    """Force organisation limits in one line."""
    text = _("HQ {hq}, Troops {low}-{high}, Elite {elite}, Fast Attack {fa}, Heavy Support {hs}")
    line = text.format(
        hq=limits.hq,
        low=limits.troops[0],
        high=limits.troops[1],
        elite=limits.elite,
        fa=limits.fast_attack,
        hs=limits.heavy_support,
    )
    if limits.elite_fa_hs_total is not None:
        line += _(" (at most {n} of Elite, Fast Attack and Heavy Support together)").format(
            n=limits.elite_fa_hs_total
        )
    return line


def describe_battle(
    battle: Battle,
    campaign_map: CampaignMap,
    sides: SideNames,
    language: str,
    status: BattleSides | None = None,
) -> list[str]:
    """A battle of the Friday list: who, where, army counts, points, fortified advantage (the
    force organisation limits go once under the list: :func:`foc_legend`).

    A chain battle whose defender is the winner of an earlier one (``defender_from``) is told
    so while that defender is not known (``status`` without a defender, or no ``status``: the
    list as published), with every side that may defend it; ``battle`` is as fought now
    otherwise (:func:`rules.as_fought`)."""
    if battle.defender_from is not None and (status is None or status.defender is None):
        return _describe_waiting(battle, campaign_map, sides, language, status)
    attacker, defender = (
        sides.get(battle.attacker, battle.attacker),
        sides.get(battle.defender, battle.defender),
    )
    lines = [
        _(
            "Battle {id}: {attacker} attacks {defender} in {sector}, {points} point",
            "Battle {id}: {attacker} attacks {defender} in {sector}, {points} points",
            battle.points,
        ).format(
            id=battle.id,
            attacker=attacker,
            defender=defender,
            sector=sector_label(campaign_map, battle.sector, language),
            points=battle.points,
        ),
    ]
    for side in battle.participants():
        lines.append(_army_line(battle, side, sides))
    if battle.fortified is not None:
        lines.append(
            "  "
            + _(
                "{side} fortified: it chooses the table side and may re-roll for the first "
                "turn, once this turn in this sector ({n} battle there).",
                "{side} fortified: it chooses the table side and may re-roll for the first "
                "turn, once this turn in this sector ({n} battles there).",
                battle.fortified_battles_in_sector,
            ).format(
                side=sides.get(battle.fortified, battle.fortified),
                n=battle.fortified_battles_in_sector,
            )
        )
    return lines


def chain_words(
    battle: Battle, status: BattleSides | None, sides: SideNames, *, stale: bool = False
) -> list[str]:
    """Why a chain battle is not (yet) fought; or (``stale``) that the result reported for it
    was given against another defender than the one it has now."""
    before = battle.after if battle.after is not None else battle.defender_from
    if status is None or status.status is BattleStatus.PLAYABLE:
        if not stale:
            return []
        return [
            _(
                "⚠ The result reported earlier was for other sides: the result of battle "
                "{before} changed who defends here. It no longer counts: report this battle "
                "again."
            ).format(before=before)
        ]
    if status.status is BattleStatus.WAITING:
        return [_("⏳ It waits for the result of battle {after}.").format(after=before)]
    if status.unopposed:
        gone = status.defender or battle.defender
        return [
            _(
                "✖ Not played: {gone} has no armies left after battle {after}; "
                "{side} stands in the sector unopposed."
            ).format(
                gone=sides.get(gone, gone),
                after=before,
                side=sides.get(battle.attacker, battle.attacker),
            )
        ]
    return [_("✖ Not played: battle {after} did not go its way.").format(after=before)]


def foc_row(battle: Battle, side: str) -> int:
    """The army count whose row of the FOC table gives ``side``'s limits in ``battle``: its
    armies, or what a module counts instead (a guard, a chain battle's defender)."""
    return battle.foc_armies.get(side, battle.armies.get(side, 0))


def _army_line(battle: Battle, side: str, sides: SideNames) -> str:
    line = f"  {sides.get(side, side)}: {armies(battle.armies[side])}"
    row = foc_row(battle, side)
    if row != battle.armies[side]:
        line += _(" (force organisation as for {armies})").format(armies=armies(row))
    return line


def foc_legend(battles: Iterable[Battle]) -> list[str]:
    """The force organisation limits of the battles shown, once for a whole screen or post: a
    line per army count they use (each battle line says only its sides' armies)."""
    rows: dict[int, FocLimits] = {}
    for battle in battles:
        for side, limits in battle.foc.items():
            rows.setdefault(foc_row(battle, side), limits)
    if not rows:
        return []
    return [
        _("Force organisation limits by armies:"),
        *(
            "• " + _("{armies}: {limits}").format(armies=armies(n), limits=describe_foc(rows[n]))
            for n in sorted(rows)
        ),
    ]


def _describe_waiting(
    battle: Battle,
    campaign_map: CampaignMap,
    sides: SideNames,
    language: str,
    status: BattleSides | None,
) -> list[str]:
    """A chain battle whose defender is the winner of an earlier battle, not known yet."""
    before = battle.defender_from
    contenders = (
        status.contenders
        if status is not None and status.contenders
        else tuple(side for side in battle.armies if side != battle.attacker)
    )
    lines = [
        _(
            "Battle {id}: {attacker} attacks the winner of battle {before} (its defender on "
            "a draw) in {sector}, {points} point",
            "Battle {id}: {attacker} attacks the winner of battle {before} (its defender on "
            "a draw) in {sector}, {points} points",
            battle.points,
        ).format(
            id=battle.id,
            attacker=sides.get(battle.attacker, battle.attacker),
            before=before,
            sector=sector_label(campaign_map, battle.sector, language),
            points=battle.points,
        ),
        _army_line(battle, battle.attacker, sides),
    ]
    lines += [_army_line(battle, side, sides) for side in contenders if side in battle.armies]
    if battle.fortified is not None and battle.fortified in contenders:
        lines.append(
            "  "
            + _(
                "If {side} defends this battle too, its fortified advantage holds here: it is "
                "used once this turn in this sector."
            ).format(side=sides.get(battle.fortified, battle.fortified))
        )
    return lines


def result_source_words(source: ResultSource | None, sides: SideNames) -> str:
    """How a result came about, as a parenthesis after it (empty when unknown)."""
    if source is None:
        return ""
    side = (
        _("side «{side}»").format(side=sides.get(source.side, source.side)) if source.side else "?"
    )
    match source.kind:
        case SourceKind.GM:
            return " " + _("(the GM's decision)")
        case SourceKind.AGREED:
            return " " + _("(reported by {side}, confirmed)").format(side=side)
        case SourceKind.STANDS:
            return " " + _("(reported by {side}, not disputed: stands)").format(side=side)
        case _:
            return ""


def _battle_lines(
    report: TurnReport,
    campaign_map: CampaignMap,
    sides: SideNames,
    language: str,
    sources: Mapping[int, ResultSource] | None,
    *,
    brief: bool,
) -> list[str]:
    """Each battle's outcome and where it came from (``brief``: not said when simply agreed)."""
    lines: list[str] = []
    known = sources or {}
    for result in report.results:
        battle = report.battles[result.battle - 1]
        source = known.get(result.battle)
        if result.battle in report.unreported:
            if source is not None and source.kind is SourceKind.DISPUTED:
                how = _("disputed, not decided: counted as a draw without losses")
            else:
                how = _("no result reported: counted as a draw without losses")
        elif brief and source is not None and source.kind is SourceKind.AGREED:
            how = result_words(result, sides)
        else:
            how = result_words(result, sides) + result_source_words(source, sides)
        lines.append(
            _("Battle {id} in {sector}: {how}").format(
                id=battle.id, sector=sector_label(campaign_map, battle.sector, language), how=how
            )
        )
    return lines


def describe_report(
    report: TurnReport,
    campaign_map: CampaignMap,
    sides: SideNames,
    language: str,
    sources: Mapping[int, ResultSource] | None = None,
) -> list[str]:
    """What happened in a resolved turn, in the order of RULES.md 3.4; ``sources`` say where
    each battle result came from (agreed, standing unanswered, the GM's decision)."""
    name = sides.get

    def label(sector: str) -> str:
        return sector_label(campaign_map, sector, language)

    lines: list[str] = [_("Turn {turn} resolved.").format(turn=report.turn)]
    lines += _battle_lines(report, campaign_map, sides, language, sources, brief=False)
    for casualty in report.casualties:
        if casualty.lost:
            lines.append(
                _("{side} lost {armies} in {sector}").format(
                    side=name(casualty.side, casualty.side),
                    armies=armies(casualty.lost),
                    sector=label(casualty.sector),
                )
            )
    for arrival in report.arrivals:
        lines.append(
            _("{side}: {armies} arrived in {to} from {source}").format(
                side=name(arrival.side, arrival.side),
                armies=armies(arrival.count),
                to=label(arrival.to),
                source=label(arrival.source),
            )
        )
    for side, held in report.captured.items():
        if held:
            lines.append(
                _("{side} holds {sectors}").format(
                    side=name(side, side), sectors=", ".join(label(s) for s in held)
                )
            )
    for gain in report.gains:
        if gain.reason == "replenishment":
            lines.append(
                _("{side} replenished +{armies} in {sector}").format(
                    side=name(gain.side, gain.side),
                    armies=armies(gain.armies),
                    sector=label(gain.sector),
                )
            )
    for reinforcement in report.reinforcements:
        if reinforcement.fallback is None:
            line = _("{side}: orbital reinforcement +{armies} in {sector}")
        else:
            line = _("{side}: orbital reinforcement +{armies} in {sector} (its smallest sector)")
        lines.append(
            line.format(
                side=name(reinforcement.side, reinforcement.side),
                armies=armies(reinforcement.armies),
                sector=label(reinforcement.sector),
            )
        )
    for side in report.eliminated:
        lines.append(_("{side} has no armies left and is out.").format(side=name(side, side)))
    if report.winner is not None:
        lines.append(_("{side} wins the campaign!").format(side=name(report.winner, report.winner)))
    elif report.game_over and report.victory == "contact_vp_shared":
        lines.append(_("The campaign ends in a shared victory on victory points."))
    elif report.game_over:
        lines.append(_("No side has armies left: the campaign ends without a winner."))
    return lines


def brief_report(
    report: TurnReport,
    campaign_map: CampaignMap,
    sides: SideNames,
    language: str,
    sources: Mapping[int, ResultSource] | None = None,
) -> list[str]:
    """:func:`describe_report` short enough for a map's caption: each battle's outcome (its
    source only when not simply confirmed), then one line per side with its losses, gains and
    held sectors; the moves are the map's arrows, and /history has every line."""
    lines: list[str] = [_("Turn {turn} resolved.").format(turn=report.turn)]
    lines += _battle_lines(report, campaign_map, sides, language, sources, brief=True)
    lost: dict[str, int] = {}
    for casualty in report.casualties:
        lost[casualty.side] = lost.get(casualty.side, 0) + casualty.lost
    gained: dict[str, int] = {}
    for gain in report.gains:
        if gain.reason == "replenishment":
            gained[gain.side] = gained.get(gain.side, 0) + gain.armies
    for reinforcement in report.reinforcements:
        gained[reinforcement.side] = gained.get(reinforcement.side, 0) + reinforcement.armies
    for side in sides:
        parts: list[str] = []
        if lost.get(side):
            parts.append(_("losses in battles −{n}").format(n=lost[side]))
        if gained.get(side):
            parts.append(_("new armies +{n}").format(n=gained[side]))
        held = report.captured.get(side, ())
        if held:
            parts.append(
                _("holds {sectors}").format(
                    sectors=", ".join(sector_label(campaign_map, s, language) for s in held)
                )
            )
        if parts:
            lines.append(_("{side}: {what}").format(side=sides[side], what="; ".join(parts)))
    for side in report.eliminated:
        lines.append(_("{side} has no armies left and is out.").format(side=sides.get(side, side)))
    if report.winner is not None:
        winner = sides.get(report.winner, report.winner)
        lines.append(_("{side} wins the campaign!").format(side=winner))
    elif report.game_over and report.victory == "contact_vp_shared":
        lines.append(_("The campaign ends in a shared victory on victory points."))
    elif report.game_over:
        lines.append(_("No side has armies left: the campaign ends without a winner."))
    return lines


def no_show_label(policy: NoShowPolicy) -> str:
    """The no-show policy in words (what happens to a side without orders at the deadline)."""
    match policy:
        case NoShowPolicy.REPEAT:
            return _("it repeats last turn's orders (those still valid)")
        case NoShowPolicy.WAIT_FOR_GM:
            return _("the orders wait for the GM")
        case _:
            return _("it holds: every sector fortifies")


def schedule_label(campaign: Campaign) -> str:
    """The schedule in one line, with the end of deployment."""
    schedule = campaign.schedule
    if schedule.mode == "manual":
        return _("manual: the GM moves every phase with /gm")
    weekly = _("weekly: orders Tue 00:00 to Thu 23:59, battle list Fri 12:00, resolution Mon 12:00")
    placed = schedule.deployment_ends_when_placed
    if schedule.deployment_deadline is None and placed:
        deployment = _(
            "deployment ends once every side has confirmed its placement, or when the GM ends it"
        )
    elif schedule.deployment_deadline is None:
        deployment = _("deployment ends only when the GM ends it")
    else:
        # The reader's language (a private /rules of a Russian campaign read in English).
        moment = format_moment(
            schedule.deployment_deadline, campaign.time_zone, get_i18n().current_locale
        )
        deployment = (
            _("deployment ends {moment}, or earlier once every side has confirmed its placement")
            if placed
            else _("deployment ends {moment}")
        ).format(moment=moment)
    return f"{weekly}; {deployment}"


def policy_label(policy: UnreportedPolicy) -> str:
    """The unreported-battle policy in words."""
    if policy is UnreportedPolicy.WAIT_FOR_GM:
        return _("resolution waits for the GM")
    return _("counted as a draw without losses")


def joining_label(policy: JoiningPolicy) -> str:
    """The joining setting in words."""
    match policy:
        case JoiningPolicy.APPROVAL:
            return _("every new player needs a GM's approval")
        case JoiningPolicy.OPEN_THEN_CLOSED:
            return _("open until deployment ends, then closed")
        case _:
            return _("open until deployment ends, then with a GM's approval")


def day_label(day: date, language: str) -> str:
    """ "Sat 5 Dec" / «сб, 5 декабря»: a day of the campaign's calendar."""
    pattern = "EEE, d MMMM" if language == "ru" else "EEE d MMM"
    return str(format_date(day, pattern, locale=language))


def away_lines(away: Sequence[tuple[str, date]], language: str) -> list[str]:
    """ "Boris is on vacation until Sat 5 Dec." for each player away."""
    return [
        _("{name} is on vacation until {last}.").format(name=name, last=day_label(last, language))
        for name, last in away
    ]


def describe_unplayed(report: TurnReport, told: Collection[int] = ()) -> list[str]:
    """Chain battles that were not played (but those in ``told``, which a module explains)."""
    return [
        _(
            "Battle {id} was not played: the battle before it in the chain did not go its way."
        ).format(id=battle)
        for battle in report.unplayed
        if battle not in told
    ]
