"""The Midnight Siege's section of ``/rules`` (``bot.texts.rules``), with the campaign's numbers:
its tokens, assaults, guards, the weather rose, cards and rewards."""

from __future__ import annotations

from collections.abc import Sequence

from aiogram.utils.i18n import gettext as _

from bot.modules.siege import setup as siege_setup
from bot.modules.siege.handlers.wizard import holder_words, token_kind_name
from bot.modules.siege.texts import token_label
from bot.services import setup_map
from bot.texts.rules import LISTED, RulesView, away, module_settings
from rules.modules.siege import NAME, SiegeSettings


def button() -> str:
    """The label of the section's button."""
    return _("🏰 Midnight Siege")


def rules_lines(view: RulesView) -> list[str]:
    """Midnight Siege: the tokens at the start, assaults, guards, the weather rose, cards and
    the rewards, with this campaign's numbers."""
    settings = module_settings(view.game, NAME, SiegeSettings)
    if settings is None:
        return []
    campaign, language = view.campaign, view.language
    shown = view.game.map
    names = view.side_names
    pairs = list(names.items())
    tokens = [
        token.model_copy(update={"controller": _holder(token.controller, pairs)})
        for token in siege_setup.start_of(campaign)
    ]
    lines = [_("Tokens at the start:") if tokens else _("No tokens on the map.")]
    for token in tokens[:LISTED]:
        words = _("{kind} in {sector}, strength {strength}").format(
            kind=token_kind_name(token.kind),
            sector=view.sector(token.sector),
            strength=token.strength,
        )
        if token.kind == "occult":
            words += ", " + holder_words(token, names)
        lines.append(
            _("• {token}: {words}").format(
                token=token_label(shown, token.id, language), words=words
            )
        )
    if len(tokens) > LISTED:
        lines.append(_("…and {n} more (/map shows them).").format(n=len(tokens) - LISTED))
    per, die = settings.strength_per_army, settings.die
    lines += [
        "",
        _(
            "Assault (the sector's order, instead of a move or attacks there): strength = "
            "{per} × armies in the sector + a d{die}; the token falls if the total beats its "
            "strength (a tie holds). {loss} A fallen fortification gives 1 VP or one step of "
            "the weather, as ordered; a taken occult token gives its card."
        ).format(
            per=per,
            die=die,
            loss=_(
                "A failed unguarded assault costs {n} army.",
                "A failed unguarded assault costs {n} armies.",
                settings.assault_loss,
            ).format(n=settings.assault_loss),
        ),
        _(
            "Guard: a side with armies {distance} may guard a token. A guarded "
            "assault is a chain of battles, one per guard, nearest first; the stormer must win "
            "each. The guard's force organisation counts its armies plus the token's strength "
            "divided by {per} (rounded up); the stormer's units use no abilities."
        ).format(distance=away(settings.guard_range), per=per),
    ]
    control = siege_setup.weather_control(campaign)
    steps = _("{n} step", "{n} steps", settings.weather_steps_per_turn).format(
        n=settings.weather_steps_per_turn
    )
    steering = (
        _("It is steered from {sectors} (the sector's order).").format(
            sectors=", ".join(view.sector(sector) for sector in control)
        )
        if control
        else _("No sector steers it: only won assaults move it.")
    )
    lines += [
        _(
            "Weather: a wind rose of 8 states, a step moves it one state clockwise. {steering} "
            "Each side moves it at most {steps} a turn, and a won step beyond that becomes "
            "1 VP. The last side picks the starting state."
        ).format(steering=steering, steps=steps),
        _("The states:"),
    ]
    for number, state in enumerate(settings.weather_states):
        name = state.names.get(language, state.name)
        text = state.texts.get(language, state.text)
        lines.append(f"{number}. {name}" + (f": {text}" if text else ""))
    lines += [
        _(
            "Cards: the holder of an occult token plays its card with the orders or after the "
            "battle list, one card per side in each; weakest token first. The GM carries out "
            "its text."
        ),
    ]
    roles = settings.roles.items()
    stormers = [names.get(side, side) for side, played in roles if "defender" not in played]
    defenders = [names.get(side, side) for side, played in roles if "stormer" not in played]
    if stormers or defenders:
        lines.append(
            _("Only assault: {sides}. Only guard: {others}. Every other side does both.").format(
                sides=", ".join(stormers) or _("nobody"), others=", ".join(defenders) or _("nobody")
            )
        )
    lines += ["", _("When the campaign ends, a side's VP buy rewards:")]
    for item in settings.rewards[:LISTED]:
        lines.append(
            _("• {price} VP: {text}").format(
                price=item.price, text=item.texts.get(language, item.text)
            )
        )
    return lines


def _holder(owner: str | None, sides: Sequence[tuple[str, str]]) -> str | None:
    """An occult token's holder by side id (a map may name the side), as the map says when
    it names no side here."""
    return setup_map.holder_of(owner, sides) or owner
