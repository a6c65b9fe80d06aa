"""The Midnight Siege step of the setup wizard (``bot.handlers.group.setup``): the main screen
(on or off, tokens placed by sector, weather-control sectors, cards and rewards), the tokens'
strength and starting holders, the eight weather states, what their buttons change and their
typed answers. The wizard's own button factory is passed in, so every button is one of the
wizard's (``su`` callbacks, re-checked for the GM on press).

Every change is new ruleset overrides (``module_settings.siege``, as the rules read them); the
wizard runs only while the campaign is set up, so before turn 1 (MODULES.md G1)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from aiogram.types import InlineKeyboardButton
from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue

from bot.modules.siege import setup as siege_setup
from bot.modules.siege.texts import token_label
from bot.services import setup_map
from bot.texts.limits import BUTTON_ROW, button_label
from bot.texts.sectors import sector_label
from rules.modules.siege import Token
from storage import Campaign

Button = Callable[[str, Campaign, str, str], InlineKeyboardButton]
ACTION_STEPS = {
    "sg": "siege",
    "tok": "siege",
    "tokdel": "siege",
    "wc": "siege",
    "sgs": "siege.tokens",
    "sgo": "siege.tokens",
    "sgw": "siege.weather",
}
"""Siege buttons that change settings, and the screen each leads to: on/off, place a token
``f.<sector>``/``o.<sector>``, remove a placed token, toggle a weather-control sector, a token's
strength ``<id>.+``/``<id>.-``, an occult token's starting holder ``<id>.<side>`` (``<id>.``
nobody), the standard weather states (``default``)."""
TOKENS_STEP = "siege.tokens"
TOKENS_PAGE = 10
"""Tokens a page of the strength-and-holders screen: at most 4 buttons each, under 100."""
HOLDER_STEP = "siege.holder:"
"""The wizard step that picks an occult token's starting holder: ``siege.holder:<token>``."""
STEPS = ("siege", "siege.tokens", "siege.weather")
TYPED_FIELDS = ("setup.cards", "setup.rewards", "setup.weather", "setup.strength")
"""The wizard's typed answers this step reads."""
NEXT_STEP = {
    "setup.cards": "siege",
    "setup.rewards": "siege",
    "setup.weather": "siege.weather",
    "setup.strength": "siege.tokens",
}
WEATHER_TEXT_SHOWN = 80
"""The characters of a weather state's effect or a card's text the screens show (the posts
show them whole)."""


def token_kind_name(kind: str) -> str:
    """A token kind in words."""
    return _("fortification") if kind == "fortification" else _("occult token")


def siege_label(campaign: Campaign) -> str:
    """Whether the Midnight Siege is on, how many tokens stand on the map, and the sectors that
    steer the weather (by their labels, as every other screen shows sectors)."""
    overrides = campaign.ruleset_overrides
    if not siege_setup.is_on(overrides):
        return _("off")
    count = len(siege_setup.map_tokens(campaign)) + len(siege_setup.placed_tokens(campaign))
    tokens = _("{n} token", "{n} tokens", count).format(n=count)
    control = siege_setup.weather_control(campaign)
    if not control:
        return _("on, {tokens}, no sector steers the weather").format(tokens=tokens)
    shown = setup_map.campaign_map(campaign)
    sectors = ", ".join(sector_label(shown, s, campaign.language) for s in control)
    return _(
        "on, {tokens}, the weather is steered from sector {sectors}",
        "on, {tokens}, the weather is steered from sectors {sectors}",
        len(control),
    ).format(tokens=tokens, sectors=sectors)


def holder_words(token: Token, side_name: dict[str, str]) -> str:
    """Who holds an occult token's card at the start: «held by «Red»», «held by nobody»."""
    if token.controller is None:
        return _("held by nobody")
    if token.controller not in side_name:
        return _("held by «{side}», which no side is called yet").format(side=token.controller)
    return _("held by «{side}»").format(side=side_name[token.controller])


def token_line(campaign: Campaign, token: Token, side_name: dict[str, str], on_map: bool) -> str:
    """A token as the wizard lists it: what, where, how strong, who holds it, whose it is."""
    shown = setup_map.campaign_map(campaign)
    language = campaign.language
    words = _("{kind} in {sector}, strength {strength}").format(
        kind=token_kind_name(token.kind),
        sector=sector_label(shown, token.sector, language),
        strength=token.strength,
    )
    if token.kind == "occult":
        words += ", " + holder_words(token, side_name)
    line = _("• {token}: {words}").format(token=token_label(shown, token.id, language), words=words)
    return line + (" " + _("(from the map)") if on_map else "")


def _side_names(
    campaign: Campaign, sides: Sequence[tuple[str, str]]
) -> tuple[tuple[Token, ...], dict[str, str]]:
    """The tokens at the start, with a map's holder written by a side's name read as that side
    (the map is written so when deployment opens), and the sides' names by id."""
    names = dict(sides)
    tokens = []
    for token in siege_setup.start_of(campaign):
        side = setup_map.holder_of(token.controller, sides)
        named = side is not None and side != token.controller
        tokens.append(token.model_copy(update={"controller": side}) if named else token)
    return tuple(tokens), names


def siege_screen(
    campaign: Campaign, sides: Sequence[tuple[str, str]], button: Button
) -> tuple[str, list[list[InlineKeyboardButton]]]:
    """The siege settings: on or off, the tokens (the map's and the GM's), the weather-control
    sectors, and buttons to place and remove tokens, toggle sectors, open the tokens' strength
    and holders and the weather states, write cards and rewards."""
    overrides = campaign.ruleset_overrides
    shown = setup_map.campaign_map(campaign)
    language = campaign.language
    lines = [
        _(
            "Midnight Siege: fortifications and occult tokens on the map, assaults "
            "with dice, guards, the weather rose and victory points. Now: {state}."
        ).format(state=siege_label(campaign))
    ]
    rows: list[list[InlineKeyboardButton]] = []
    if not siege_setup.is_on(overrides):
        rows.append([button(_("🏰 Switch the siege on"), campaign, "sg", "on")])
        return "\n".join(lines), rows
    rows.append([button(_("Switch the siege off"), campaign, "sg", "off")])
    tokens, side_name = _side_names(campaign, sides)
    on_map = {token_id for token_id, _kind, _sector in siege_setup.map_tokens(campaign)}
    lines += [token_line(campaign, token, side_name, token.id in on_map) for token in tokens]
    for token in siege_setup.placed_tokens(campaign):
        rows.append(
            [button(_("✖ Remove {id}").format(id=token["id"]), campaign, "tokdel", token["id"])]
        )
    lines += card_lines(campaign, tokens)
    control = siege_setup.weather_control(campaign)
    lines.append(
        _("The weather is steered from: {sectors}.").format(
            sectors=", ".join(sector_label(shown, s, language) for s in control)
        )
        if control
        else _("No sector steers the weather yet.")
    )
    lines.append(_("Place a token in a sector, or mark the sectors that steer the weather:"))
    for sector in shown.sectors:
        name = sector.display_name(language)
        rows.append(
            [
                button(_("🏰 {sector}").format(sector=name), campaign, "tok", f"f.{sector.id}"),
                button(_("🔮 {sector}").format(sector=name), campaign, "tok", f"o.{sector.id}"),
                button(
                    (_("🌬 ✔ {sector}") if sector.id in control else _("🌬 {sector}")).format(
                        sector=name
                    ),
                    campaign,
                    "wc",
                    sector.id,
                ),
            ]
        )
    nav = [button(_("🌦 Weather states"), campaign, "go", "siege.weather")]
    if tokens:
        nav.insert(0, button(_("💪 Strength and holders"), campaign, "go", "siege.tokens"))
    rows.append(nav)
    rows.append(
        [
            button(_("🃏 Card texts"), campaign, "ask", "cards"),
            button(_("🎁 Rewards"), campaign, "ask", "rewards"),
        ]
    )
    return "\n".join(lines), rows


def card_lines(campaign: Campaign, tokens: Sequence[Token]) -> list[str]:
    """Each occult token's card as the GM will be shown it when it is played: the text typed
    here, else the map's, in the campaign's language (shortened), or that there is none."""
    shown = setup_map.campaign_map(campaign)
    language = campaign.language
    typed = siege_setup.settings(campaign.ruleset_overrides).get("cards") or {}
    from_map = {feature.id: feature for feature in shown.features_of("occult")}
    lines = []
    for token in tokens:
        if token.kind != "occult":
            continue
        card = typed.get(token.id) or {}
        feature = from_map.get(token.id)
        text = str(card.get("texts", {}).get(language, card.get("text", "")))
        if not text and feature is not None:
            text = feature.texts.get(language, feature.text or "")
        label = token_label(shown, token.id, language)
        if len(text) > WEATHER_TEXT_SHOWN:
            text = text[: WEATHER_TEXT_SHOWN - 1].rstrip() + "…"
        lines.append(
            _("🃏 {token}: «{text}»").format(token=label, text=text)
            if text
            else _("🃏 {token}: no card text yet").format(token=label)
        )
    return lines


def tokens_step(campaign: Campaign, token_id: str) -> str:
    """The tokens screen's page that shows ``token_id`` (the first page if it is not there)."""
    ids = [token.id for token in siege_setup.start_of(campaign)]
    page = ids.index(token_id) // TOKENS_PAGE if token_id in ids else 0
    return TOKENS_STEP if page == 0 else f"{TOKENS_STEP}.{page}"


def tokens_page(step: str) -> int | None:
    """The page a tokens step names (``siege.tokens`` 0, ``siege.tokens.2`` 2), else ``None``."""
    if step == TOKENS_STEP:
        return 0
    head, _sep, page = step.rpartition(".")
    return int(page) if head == TOKENS_STEP and page.isdigit() and len(page) < 4 else None


def step_after(campaign: Campaign, action: str, value: str) -> str:
    """The screen a siege button leads back to: a token's own page after its strength or
    holder changed, else the one :data:`ACTION_STEPS` names."""
    if action in ("sgs", "sgo"):
        return tokens_step(campaign, value.rpartition(".")[0])
    return ACTION_STEPS[action]


def tokens_screen(
    campaign: Campaign, sides: Sequence[tuple[str, str]], button: Button, page: int = 0
) -> tuple[str, list[list[InlineKeyboardButton]]]:
    """Each token's strength (what an assault's total must beat) with −/+ and a button to type
    it, and each occult token's starting holder (its card ready at turn 1), picked by name;
    :data:`TOKENS_PAGE` tokens a page (a keyboard holds at most 100 buttons)."""
    every, side_name = _side_names(campaign, sides)
    pages = max(1, -(-len(every) // TOKENS_PAGE))
    page = min(page, pages - 1)
    tokens = every[page * TOKENS_PAGE : (page + 1) * TOKENS_PAGE]
    on_map = {token_id for token_id, _kind, _sector in siege_setup.map_tokens(campaign)}
    lines = [
        _(
            "Tokens: an assault takes a token when its total beats the token's strength; an "
            "occult token's holder has its card ready at turn 1. − and + change a strength by "
            "1; the middle button takes a typed one; 🚩 picks the holder."
        ),
        *(token_line(campaign, token, side_name, token.id in on_map) for token in tokens),
    ]
    rows: list[list[InlineKeyboardButton]] = []
    for token in tokens:
        rows.append(
            [
                button("−", campaign, "sgs", f"{token.id}.-"),
                button(
                    _("💪 {token}: {strength}").format(token=token.id, strength=token.strength),
                    campaign,
                    "askt",
                    token.id,
                ),
                button("+", campaign, "sgs", f"{token.id}.+"),
            ]
        )
        if token.kind == "occult":
            holder = (
                side_name.get(token.controller, token.controller)
                if token.controller is not None
                else _("nobody")
            )
            rows.append(
                [
                    button(
                        button_label(_("🚩 {token}: {side}").format(token=token.id, side=holder)),
                        campaign,
                        "sgp",
                        token.id,
                    )
                ]
            )
    if pages > 1:
        lines.append(_("Page {page} of {pages}.").format(page=page + 1, pages=pages))
        turn = [
            button(_("◀ Page {page}").format(page=page), campaign, "go", _page_step(page - 1))
            if page > 0
            else None,
            button(_("Page {page} ▶").format(page=page + 2), campaign, "go", _page_step(page + 1))
            if page + 1 < pages
            else None,
        ]
        rows.append([found for found in turn if found is not None])
    rows.append([button(_("◀ Back"), campaign, "go", "siege")])
    return "\n".join(lines), rows


def _page_step(page: int) -> str:
    return TOKENS_STEP if page == 0 else f"{TOKENS_STEP}.{page}"


def holder_screen(
    campaign: Campaign, sides: Sequence[tuple[str, str]], token_id: str, button: Button
) -> tuple[str, list[list[InlineKeyboardButton]]] | None:
    """The sides by name (and nobody) to pick occult token ``token_id``'s starting holder;
    ``None`` for a token that is not an occult one of the campaign."""
    tokens, side_name = _side_names(campaign, sides)
    token = next((t for t in tokens if t.id == token_id and t.kind == "occult"), None)
    if token is None:
        return None
    shown = setup_map.campaign_map(campaign)
    lines = [
        _(
            "Who holds {token} at the start? Its card is then ready at turn 1. Now: {holder}."
        ).format(
            token=token_label(shown, token.id, campaign.language),
            holder=holder_words(token, side_name),
        )
    ]
    rows = [
        [
            button(
                button_label(("✔ " if token.controller == side_id else "") + name),
                campaign,
                "sgo",
                f"{token.id}.{side_id}",
            )
        ]
        for side_id, name in sides
    ]
    rows.append(
        [
            button(
                ("✔ " if token.controller is None else "") + _("Nobody"),
                campaign,
                "sgo",
                f"{token.id}.",
            )
        ]
    )
    rows.append([button(_("◀ Back"), campaign, "go", tokens_step(campaign, token.id))])
    return "\n".join(lines), rows


def weather_screen(
    campaign: Campaign, button: Button
) -> tuple[str, list[list[InlineKeyboardButton]]]:
    """The eight weather states, clockwise, each with its name and effect in the campaign's
    language; a button to write each, one to write all eight, one for the standard states."""
    language = campaign.language
    states = siege_setup.weather_states(campaign.ruleset_overrides)
    lines = [
        _(
            "Weather states: the wind rose's eight states, clockwise; the weather turns a step "
            "for each steer and each assault won for the weather. Name each state and write "
            "what it does: the battle list prints the state in force, and its effect is played "
            "at the table."
        )
    ]
    buttons: list[InlineKeyboardButton] = []
    for number, state in enumerate(states, start=1):
        name = str(state.get("names", {}).get(language, state["name"]))
        text = str(state.get("texts", {}).get(language, state.get("text", "")))
        if len(text) > WEATHER_TEXT_SHOWN:
            text = text[: WEATHER_TEXT_SHOWN - 1].rstrip() + "…"
        lines.append(
            _("{n}. {name}: {text}").format(n=number, name=name, text=text)
            if text
            else _("{n}. {name}: no effect written").format(n=number, name=name)
        )
        label = button_label(_("✏️ {n}. {name}").format(n=number, name=name), BUTTON_ROW // 2)
        buttons.append(button(label, campaign, "askw", str(number - 1)))
    rows = [buttons[i : i + 2] for i in range(0, len(buttons), 2)]
    rows.append([button(_("⌨️ Write all eight"), campaign, "ask", "weather")])
    if "weather_states" in siege_setup.settings(campaign.ruleset_overrides):
        rows.append([button(_("↺ Standard states"), campaign, "sgw", "default")])
    rows.append([button(_("◀ Back"), campaign, "go", "siege")])
    return "\n".join(lines), rows


def siege_change(
    campaign: Campaign, action: str, value: str, sides: Sequence[str]
) -> dict[str, Any] | None:
    """The overrides after a siege button, or ``None`` for a button that does not fit."""
    overrides = campaign.ruleset_overrides
    sectors = set(setup_map.campaign_map(campaign).sector_ids())
    if action == "sg" and value in ("on", "off"):
        return siege_setup.switched(overrides, value == "on")
    if not siege_setup.is_on(overrides):
        return None
    match action:
        case "tok":
            kind, _sep, sector = value.partition(".")
            if kind not in ("f", "o") or sector not in sectors:
                return None
            if len(siege_setup.placed_tokens(campaign)) >= siege_setup.MAX_TOKENS:
                return None
            return siege_setup.with_token(
                campaign, "fortification" if kind == "f" else "occult", sector
            )
        case "tokdel" if value in {t["id"] for t in siege_setup.placed_tokens(campaign)}:
            return siege_setup.without_token(overrides, value)
        case "wc" if value in sectors:
            return siege_setup.with_weather_control(campaign, value)
        case "sgs":
            token_id, _sep, sign = value.rpartition(".")
            token = next((t for t in siege_setup.start_of(campaign) if t.id == token_id), None)
            if token is None or sign not in ("+", "-"):
                return None
            step = 1 if sign == "+" else -1
            return siege_setup.with_strength(campaign, token_id, token.strength + step)
        case "sgo":
            token_id, _sep, side = value.rpartition(".")
            if side and side not in sides:
                return None
            return siege_setup.with_holder(campaign, token_id, side or None)
        case "sgw" if value == "default":
            return siege_setup.with_weather_states(overrides, "default", campaign.language)
    return None


def holder_step(campaign: Campaign, token_id: str) -> str | None:
    """The step that picks ``token_id``'s starting holder, if it is an occult token there."""
    if not siege_setup.is_on(campaign.ruleset_overrides):
        return None
    found = any(t.id == token_id and t.kind == "occult" for t in siege_setup.start_of(campaign))
    return HOLDER_STEP + token_id if found else None


def typed_siege(
    campaign: Campaign, field: str, data: dict[str, Any], text: str
) -> tuple[dict[str, Any] | None, str]:
    """The overrides after a typed card list, reward list, weather state(s) or token strength,
    or ``None`` and what to write instead."""
    overrides, language = campaign.ruleset_overrides, campaign.language
    try:
        match field:
            case "setup.cards":
                changed = siege_setup.with_cards(overrides, text, language)
            case "setup.rewards":
                changed = siege_setup.with_rewards(overrides, text, language)
            case "setup.weather" if isinstance(data.get("state"), int):
                changed = siege_setup.with_weather_state(
                    overrides, int(data["state"]), text, language
                )
            case "setup.weather":
                changed = siege_setup.with_weather_states(overrides, text, language)
            case _:
                token = str(data.get("token", ""))
                typed = text.strip()
                found = typed.isdigit() and siege_setup.with_strength(campaign, token, int(typed))
                if not found:
                    return None, _(
                        "Send a whole number from 1 to {most}: the token's strength."
                    ).format(most=siege_setup.MAX_STRENGTH)
                changed = found
    except siege_setup.SiegeInputError as error:
        return None, siege_input_help(field, data, error.line)
    refused = setup_map.problem(campaign, changed)
    if refused is not None:
        return None, _("The rules refuse that setting: {problem}").format(problem=refused[:150])
    return changed, ""


def siege_input_help(field: str, data: dict[str, Any], line: int) -> str:
    """What to write instead of a typed answer that cannot be used (``line``: the first bad
    one, 0 for the whole text)."""
    where = (
        _("Line {line} cannot be used.").format(line=line)
        if line
        else _("Nothing to use was found.")
    )
    match field:
        case "setup.cards":
            how = _(
                "Write one card a line: «O1: what the card does», or «O1 weather: …» for a card "
                "that moves the weather one step; «-» removes all cards."
            )
        case "setup.weather" if isinstance(data.get("state"), int):
            return _(
                "Write the state's name, then after a colon what it does, e.g. «Storm: −1 to "
                "shooting» (a name of up to {most} characters); «-» restores the standard "
                "state."
            ).format(most=siege_setup.MAX_WEATHER_NAME)
        case "setup.weather":
            how = _(
                "Write eight lines, one a state, clockwise: «Name: what it does» (the effect may "
                "be left out); «default» restores the standard states."
            )
        case _:
            how = _(
                "Write one reward a line: a price from 1 to 1000, a space, the text, and after "
                "«|» what the GM chooses between («2 Cheque or pawn | Cheque | Pawn»); "
                "«default» restores the standard list."
            )
    return f"{where} {how}"


def ask_text(what: str, data: dict[str, Any], campaign: Campaign, name: str) -> str:
    """The question to ``name`` (the GM) for a typed siege answer."""
    match what:
        case "cards":
            question = _(
                "{name}, reply with the cards of the occult tokens, one a line: «O1: what the "
                "card does». Write «O1 weather: …» for a card that moves the weather one step "
                "(the bot does that itself). «-» removes all cards."
            )
        case "rewards":
            question = _(
                "{name}, reply with the reward list, one item a line: the price in victory "
                "points, then the text, e.g. «3 A simple cheque with history». For an item "
                "where the GM chooses after the claim, list the choices after «|»: «4 Knight or "
                "dot | Knight | Ability dot». «default» restores the standard list."
            )
        case "weather" if isinstance(data.get("state"), int):
            question = _(
                "{name}, reply with weather state {n}: its name, then after a colon what it "
                "does at the table, e.g. «Storm: −1 to shooting». «-» restores the standard "
                "state."
            )
        case "weather":
            question = _(
                "{name}, reply with the eight weather states, one a line, clockwise from the "
                "first: «Name: what it does at the table» (the effect may be left out). "
                "«default» restores the standard states."
            )
        case _:
            question = _(
                "{name}, reply with the strength of {token}: a whole number from 1 to {most}, "
                "what an assault's total must beat."
            )
    state = data.get("state")
    return question.format(
        name=name,
        n=state + 1 if isinstance(state, int) else "",
        token=token_label(
            setup_map.campaign_map(campaign), str(data.get("token", "")), campaign.language
        ),
        most=siege_setup.MAX_STRENGTH,
    )


def wizard_screen(
    campaign: Campaign, sides: Sequence[tuple[str, str]], step: str, button: Button
) -> tuple[str, list[list[InlineKeyboardButton]]]:
    """A siege screen: the main one, the tokens' strength and holders, a holder's pick, the
    weather states (the main one, for a holder's pick of a token that is gone)."""
    shown = None
    page = tokens_page(step)
    if page is not None:
        shown = tokens_screen(campaign, sides, button, page)
    elif step == "siege.weather":
        shown = weather_screen(campaign, button)
    elif step.startswith(HOLDER_STEP):
        shown = holder_screen(campaign, sides, step.removeprefix(HOLDER_STEP), button)
    if shown is not None:
        return shown
    text, rows = siege_screen(campaign, sides, button)
    rows.append([button(_("◀ Back"), campaign, "go", "summary")])
    return text, rows


def question(
    campaign: Campaign, action: str, value: str
) -> tuple[str, dict[str, JsonValue]] | None:
    """The typed answer a siege button asks for: the cards, the rewards or the weather states
    (``ask``), one weather state (``askw``, 0-7) or a token's strength (``askt``), with what it
    is about; ``None`` for another button or one that does not fit any more."""
    if action == "ask":
        return (value, {}) if value in ("cards", "rewards", "weather") else None
    if action not in ("askw", "askt") or not siege_setup.is_on(campaign.ruleset_overrides):
        return None
    if action == "askw":
        if value.isdigit() and int(value) < siege_setup.WEATHER_STATES:
            return "weather", {"state": int(value)}
        return None
    if any(token.id == value for token in siege_setup.start_of(campaign)):
        return "strength", {"token": value}
    return None
