"""The Midnight Siege in words (MODULES.md S): its orders as typed orders read them back
(``bot.texts.orders``), and why the rules refuse one, with what to do instead."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.modules.siege.typed import TOKEN, siege_tokens
from bot.texts.orders import LineProblem, ParsedLine
from bot.texts.sectors import sector_label
from rules import Battle, CampaignMap, ModuleOrder, Roll
from rules.modules.siege import (
    NAME,
    Adjustment,
    AdjustmentProblem,
    AdjustmentProblemCode,
    CardOutcome,
    CardText,
    PlayedCard,
    SiegePlan,
    SiegeReport,
    SiegeState,
)
from rules.modules.siege.settings import TOKEN_KINDS

if TYPE_CHECKING:
    from bot.services.orders import Desk


def token_label(campaign_map: CampaignMap, token: str, language: str) -> str:
    """ "O1 «Dark Market»", in Russian «O1 «Тёмный рынок»»: a token's id (what buttons and typed
    orders use) and, where the map names it, its name in ``language``; the id alone otherwise."""
    feature = next(
        (f for f in campaign_map.features if f.id == token and f.kind in TOKEN_KINDS), None
    )
    if feature is None or (feature.name is None and not feature.names):
        return token
    return f"{token} «{feature.display_name(language)}»"


def typed_problem(
    line: ParsedLine, desk: Desk, names: Mapping[str, str], language: str
) -> str | None:
    """A typed order's token that names none of the siege's: the tokens there are."""
    if line.problem is not LineProblem.UNKNOWN_PIECE or line.piece != TOKEN:
        return None
    campaign_map = desk.game.map
    tokens = ", ".join(
        token_label(campaign_map, token, language) for token in siege_tokens(desk.state.modules)
    )
    tokens = tokens or _("none")
    return _("There is no token «{word}». Tokens: {tokens}.").format(word=line.word, tokens=tokens)


def _text(data: Mapping[str, JsonValue], key: str) -> str:
    value = data.get(key)
    return "" if value is None else str(value)


def describe_siege_order(order: ModuleOrder, campaign_map: CampaignMap, language: str) -> str:
    """A siege order in words that read back as it (``штурм F1 в секторе 2 «Запад» за ПО``)."""
    data = order.data
    token = token_label(campaign_map, _text(data, "token"), language)
    match data.get("order"):
        case "assault":
            sector = sector_label(campaign_map, _text(data, "sector"), language)
            if data.get("reward") == "weather":
                return _("assault {token} in {sector} for weather").format(
                    token=token, sector=sector
                )
            return _("assault {token} in {sector} for VP").format(token=token, sector=sector)
        case "guard":
            return _("guard {token} from {sector}").format(
                token=token, sector=sector_label(campaign_map, _text(data, "from"), language)
            )
        case "steer":
            return _("steer weather from {sector}").format(
                sector=sector_label(campaign_map, _text(data, "sector"), language)
            )
        case "play_card" if data.get("window") == "after":
            return _("play card {token} after battles").format(token=token)
        case "play_card":
            return _("play card {token} before battles").format(token=token)
    return _("{module} order").format(module=order.module)


def _window(value: str) -> str:
    return _("after the battles") if value == "after" else _("before the battles")


_REASONS: dict[str, Callable[[], str]] = {
    "bad_order": lambda: _("That siege order cannot be read; use the buttons of /orders."),
    "not_a_stormer": lambda: _("Your side does not storm in this siege: it cannot assault."),
    "not_a_defender": lambda: _("Your side does not defend in this siege: it cannot guard."),
    "unknown_token": lambda: _("There is no token {token} on the map."),
    "token_not_in_sector": lambda: _(
        "Token {token} stands in {token_sector}, not in {sector}: assault it from there."
    ),
    "own_token": lambda: _("Your side holds {token} already; assault a token of another side."),
    "no_force": lambda: _("You had no armies in {sector} at the start of the turn."),
    "sector_has_order": lambda: _(
        "{sector} already has its order this turn; fortify it first to change it."
    ),
    "bad_reward": lambda: _("An occult token gives control, not weather: assault {token} for VP."),
    "out_of_range": lambda: _(
        "{from} is {distance} sectors from {token}; guards reach {range} at most."
    ),
    "guard_from_moving": lambda: _(
        "Armies move out of {from}: a sector that moves cannot guard {token}."
    ),
    "guard_from_steering": lambda: _(
        "{from} steers the weather: a sector that steers cannot guard {token}."
    ),
    "second_guard": lambda: _("Your side guards {token} already: one guard per token."),
    "guard_own_assault": lambda: _("Your side assaults {token}: it cannot guard it too."),
    "not_weather_control": lambda: _(
        "The weather is steered only from the weather-control sectors; {sector} is not one."
    ),
    "not_your_card": lambda: _("Only the side holding the occult token {token} plays its card."),
    "card_tapped": lambda: _("The card of {token} is tapped: it is ready again next turn."),
    "second_card_in_window": lambda: _(
        "Your side plays {token} {window} already: one card per window."
    ),
    "wrong_window": lambda: _("Now only cards {window} can be played."),
}


def describe_siege_rejection(
    params: Mapping[str, str | int], campaign_map: CampaignMap, language: str
) -> str:
    """Why siege refused an order, from its ``params`` (``rule`` and what it names)."""
    rule = str(params.get("rule", ""))
    words = {key: str(value) for key, value in params.items()}
    for key in ("sector", "token_sector", "from"):
        if key in words:
            words[key] = sector_label(campaign_map, words[key], language)
    if "token" in words:
        words["token"] = token_label(campaign_map, words["token"], language)
    if "window" in words:
        words["window"] = _window(words["window"])
    if rule == "steer_limit":
        limit = int(params.get("limit", 0))
        return _(
            "The weather moves at most {limit} step a turn.",
            "The weather moves at most {limit} steps a turn.",
            limit,
        ).format(limit=limit)
    reason = _REASONS.get(rule)
    if reason is None:
        return _("This order is not part of this campaign's rules.")
    try:
        return reason().format(**words)
    except (KeyError, IndexError):
        return _("This order is not part of this campaign's rules.")


# ---- the battle list and the Monday summary ------------------------------------------------


def _token_words(campaign_map: CampaignMap, token: str, kind: str, language: str) -> str:
    """ "fortification F1", "occult token O1 «Dark Market»": a token with its kind."""
    label = token_label(campaign_map, token, language)
    return (
        _("fortification {token}").format(token=label)
        if kind == "fortification"
        else _("occult token {token}").format(token=label)
    )


def describe_assault_abilities(battle: Battle, sides: Mapping[str, str]) -> list[str]:
    """A guarded assault's battle (MODULES.md S4.3): the stormer's figures use none of their
    abilities, the guard's keep all of theirs; nothing for any other battle."""
    if battle.module != NAME or battle.kind != "assault":
        return []
    return [
        _(
            "  An assault on a token: {attacker}'s figures use none of their abilities in this "
            "battle; {defender}'s figures keep all of theirs."
        ).format(
            attacker=sides.get(battle.attacker, battle.attacker),
            defender=sides.get(battle.defender, battle.defender),
        )
    ]


def describe_siege_plan(
    plan: SiegePlan,
    campaign_map: CampaignMap,
    sides: Mapping[str, str],
    language: str,
    weather: Callable[[int], tuple[str, str]],
) -> list[str]:
    """The battle list's siege part: the weather in force, each assault with its roll or its
    guards (the battles the stormer must win), the cards played before the battles."""
    name, text = weather(plan.weather)
    lines = [_("🌬 Weather in force: {weather}.").format(weather=name)]
    if text:
        lines.append(f"  {text}")
    for card in plan.cards_before:
        lines.append(
            _("🃏 {side} plays the card of {token} before the battles.").format(
                side=sides.get(card.side, card.side),
                token=token_label(campaign_map, card.token, language),
            )
        )
    for assault in plan.assaults:
        where = sector_label(campaign_map, assault.sector, language)
        who = sides.get(assault.side, assault.side)
        token = _token_words(campaign_map, assault.token, assault.kind, language)
        if assault.guards:
            battles = ", ".join(str(guard.battle) for guard in assault.guards)
            lines.append(
                _(
                    "🏰 {side} assaults {token} in {sector}: it is guarded, so {side} must win "
                    "battle {battles} for it to fall.",
                    "🏰 {side} assaults {token} in {sector}: it is guarded, so {side} must win "
                    "battles {battles} in turn for it to fall.",
                    len(assault.guards),
                ).format(side=who, token=token, sector=where, battles=battles)
            )
            for guard in assault.guards:
                lines.append(
                    _("  {side} guards it from {sector} (battle {battle}).").format(
                        side=sides.get(guard.side, guard.side),
                        sector=sector_label(campaign_map, guard.source, language),
                        battle=guard.battle,
                    )
                )
            continue
        verdict = _("it falls") if assault.falls else _("it holds")
        lines.append(
            _(
                "🏰 {side} assaults {token} in {sector}: strength {strength} + roll {roll} = "
                "{total} against {defence}: {verdict}."
            ).format(
                side=who,
                token=token,
                sector=where,
                strength=assault.strength,
                roll=assault.roll,
                total=assault.total,
                defence=assault.defence,
                verdict=verdict,
            )
        )
    return lines


def describe_siege_report(
    report: SiegeReport,
    state: SiegeState | None,
    campaign_map: CampaignMap,
    sides: Mapping[str, str],
    language: str,
    weather: Callable[[int], tuple[str, str]],
) -> list[str]:
    """The Monday summary's siege part: fallen and taken tokens, cards, the weather's move,
    victory points, and who controls the occult tokens now."""
    lines: list[str] = []
    for assault in report.assaults:
        who = sides.get(assault.side, assault.side)
        token = token_label(campaign_map, assault.token, language)
        where = sector_label(campaign_map, assault.sector, language)
        fortification = assault.kind == "fortification"
        match assault.verdict:
            case "fell":
                reward = {
                    "vp": _("+1 VP"),
                    "weather": _("a weather step"),
                    "weather_lost": _("+1 VP (the weather could move no further)"),
                }.get(assault.reward or "", "")
                line = _("🏰 Fortification {token} in {sector} fell to {side}").format(
                    token=token, sector=where, side=who
                )
                lines.append(line + (f": {reward}." if reward else "."))
            case "taken":
                lines.append(
                    _(
                        "🔮 {side} took occult token {token} in {sector}: it controls it now."
                    ).format(side=who, token=token, sector=where)
                )
            case "already_fallen":
                lines.append(
                    _(
                        "🏰 Fortification {token} had already fallen this turn: {side}'s assault "
                        "came too late."
                    ).format(token=token, side=who)
                )
            case _:
                stood = (
                    _("🏰 Fortification {token} in {sector} held against {side}.")
                    if fortification
                    else _("🔮 Occult token {token} in {sector} held against {side}.")
                )
                lost = (
                    _(
                        " {side} loses {n} army there.",
                        " {side} loses {n} armies there.",
                        assault.loss,
                    ).format(side=who, n=assault.loss)
                    if assault.loss
                    else ""
                )
                lines.append(stood.format(token=token, sector=where, side=who) + lost)
    for card in report.cards:
        who = sides.get(card.side, card.side)
        label = token_label(campaign_map, card.token, language)
        if card.void:
            lines.append(
                _("🃏 The card of {token} ({side}) was void: the token changed hands.").format(
                    token=label, side=who
                )
            )
        elif card.weather_step:
            lines.append(
                _("🃏 The card of {token} ({side}) moved the weather a step.").format(
                    token=label, side=who
                )
            )
        elif card.weather_step is not None:
            lines.append(
                _(
                    "🃏 The card of {token} ({side}) could not move the weather: the side's "
                    "steps for this turn were used up."
                ).format(token=label, side=who)
            )
        else:
            lines.append(
                _("🃏 {side} played the card of {token}: the GM carries out its effect.").format(
                    token=label, side=who
                )
            )
    before, _text_before = weather(report.weather.before)
    after, text_after = weather(report.weather.after)
    if report.weather.before != report.weather.after:
        lines.append(
            _("🌬 The weather turned: {before} → {after}.").format(before=before, after=after)
        )
    else:
        lines.append(_("🌬 The weather stays: {weather}.").format(weather=after))
    if text_after:
        lines.append(f"  {text_after}")
    if report.vp:
        totals = ", ".join(
            _("{side} {vp}").format(side=sides.get(side, side), vp=vp)
            + (f" (+{report.vp_gained[side]})" if report.vp_gained.get(side) else "")
            for side, vp in report.vp.items()
        )
        lines.append(_("🏆 Siege VP: {totals}.").format(totals=totals))
    if state is not None:
        held = [
            _("{token} — {side}").format(
                token=token_label(campaign_map, token.id, language),
                side=sides.get(token.controller, token.controller),
            )
            if token.controller
            else _("{token} — nobody's").format(token=token_label(campaign_map, token.id, language))
            for token in state.tokens
            if token.kind == "occult"
        ]
        if held:
            lines.append(_("🔮 Occult tokens: {held}.").format(held="; ".join(held)))
        standing = [
            token_label(campaign_map, token.id, language)
            for token in state.tokens
            if token.kind == "fortification"
        ]
        lines.append(
            _("🏰 Fortifications standing: {tokens}.").format(tokens=", ".join(standing))
            if standing
            else _("🏰 No fortification stands any more.")
        )
    return lines


def describe_cards_for_gm(
    window: str,
    cards: Sequence[PlayedCard | CardOutcome],
    texts: Mapping[str, CardText],
    campaign_map: CampaignMap,
    sides: Mapping[str, str],
    language: str,
) -> list[str]:
    """The GM's note on the cards played in ``window`` (``before``: from the battle list;
    ``after``: from the resolution): each card's text, in ``language`` where the GM wrote it so,
    and what the GM is to do about it (the bot carries out only a weather step)."""
    lines: list[str] = []
    for card in cards:
        label = token_label(campaign_map, card.token, language)
        who = sides.get(card.side, card.side)
        lines.append(
            _("🃏 {side} plays the card of {token} before the battles.")
            if window == "before"
            else _("🃏 {side} played the card of {token} after the battles.")
        )
        lines[-1] = lines[-1].format(side=who, token=label)
        written = texts.get(card.token)
        text = "" if written is None else written.texts.get(language, written.text)
        lines.append(
            _("  The card: «{text}»").format(text=text)
            if text
            else _("  The card has no text: none was written for {token} in the setup.").format(
                token=card.token
            )
        )
        void = isinstance(card, CardOutcome) and card.void
        if void:
            lines.append(_("  It was void: the token changed hands before the cards acted."))
        elif isinstance(card, CardOutcome) and card.weather_step is not None:
            lines.append(
                _("  The bot moved the weather a step for it.")
                if card.weather_step
                else _(
                    "  It could not move the weather: the side's steps for this turn were used up."
                )
            )
        elif written is not None and written.effect == "weather_step":
            lines.append(_("  The bot moves the weather a step for it when the turn is resolved."))
        else:
            lines.append(
                _(
                    "  Its effect is carried out by the GM: «🃏 Carry out a card (siege)» in /gm "
                    "while the orders are open."
                )
            )
    return lines


def describe_adjustment_problem(
    problem: AdjustmentProblem, campaign_map: CampaignMap, sides: Mapping[str, str], language: str
) -> str:
    """Why the rules refuse a GM's card effect."""
    p = problem.params
    side = sides.get(str(p.get("side", "")), str(p.get("side", "")))
    sector = sector_label(campaign_map, str(p.get("sector", "")), language)
    match problem.code:
        case AdjustmentProblemCode.UNKNOWN_SECTOR:
            return _("There is no sector {sector} on this map.").format(sector=p.get("sector"))
        case AdjustmentProblemCode.SIDE_NOT_IN_PLAY:
            return _("{side} has no armies left on the map.").format(side=side)
        case AdjustmentProblemCode.ARMIES_BELOW_ZERO:
            have = int(p.get("have", 0))
            return _(
                "{side} has {have} army in {sector}: it cannot lose {lose}.",
                "{side} has {have} armies in {sector}: it cannot lose {lose}.",
                have,
            ).format(side=side, have=have, sector=sector, lose=-int(p.get("delta", 0)))
        case AdjustmentProblemCode.VP_BELOW_ZERO:
            return _("{side} has {have} siege VP: it cannot lose {lose}.").format(
                side=side, have=p.get("have"), lose=-int(p.get("delta", 0))
            )
    return _("The starting weather is not chosen yet: the weather cannot turn.")


def describe_adjustment(
    adjustment: Adjustment,
    campaign_map: CampaignMap,
    sides: Mapping[str, str],
    language: str,
    weather: Callable[[int], tuple[str, str]],
    now_weather: int | None,
) -> list[str]:
    """A GM's card effect as the group is told it."""
    lines = [_("🃏 The GM carried out a card's effect:")]
    for change in adjustment.armies:
        lines.append(
            _("• {side}: {delta} armies in {sector}").format(
                side=sides.get(change.side, change.side),
                delta=f"{change.delta:+d}",
                sector=sector_label(campaign_map, change.sector, language),
            )
        )
    for vp in adjustment.vp:
        lines.append(
            _("• {side}: {delta} siege VP").format(
                side=sides.get(vp.side, vp.side), delta=f"{vp.delta:+d}"
            )
        )
    if adjustment.weather_steps and now_weather is not None:
        lines.append(
            _(
                "• weather {steps} step: now {weather}",
                "• weather {steps} steps: now {weather}",
                abs(adjustment.weather_steps),
            ).format(steps=f"{adjustment.weather_steps:+d}", weather=weather(now_weather)[0])
        )
    if adjustment.reason:
        lines.append(_("Reason: {reason}").format(reason=adjustment.reason))
    return lines


def roll_words(
    parts: Sequence[str],
    roll: Roll,
    campaign_map: CampaignMap,
    sides: Mapping[str, str],
    language: str,
) -> str | None:
    """An assault's die by its token and side (label ``…/siege/assault/<token>/<side>``)."""
    if len(parts) != 3 or parts[0] != "assault":
        return None
    return _("🎲 Assault on {token} by side «{side}»: d{sides} = {value}").format(
        token=token_label(campaign_map, parts[1], language),
        side=sides.get(parts[2], parts[2]),
        sides=roll.sides,
        value=roll.value,
    )


def shuffle_words(parts: Sequence[str], rolls: int) -> str | None:
    """The line of the siege's lots (the order of assaults of equal strength)."""
    if parts[:1] != ["lots"]:
        return None
    return _(
        "🎲 Lots for the order of assaults of equal strength: {n} roll, in the export",
        "🎲 Lots for the order of assaults of equal strength: {n} rolls, in the export",
        rolls,
    ).format(n=rolls)


def sector_taken(sector: str) -> str:
    """Why a sector with a siege order this turn takes no other (``sector``: its label)."""
    return _(
        "{sector} already has a siege order this turn (an assault or steering); "
        "fortify {sector} first to give it another order."
    ).format(sector=sector)
