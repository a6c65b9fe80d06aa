"""The Night Watch step of the setup wizard (``bot.handlers.group.setup``): the screen, what its
buttons change and typed heroes, NPC marker and spell deck. The wizard's own button factory is
passed in, so every button is one of the wizard's (``su`` callbacks, re-checked for the GM on
press)."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

from aiogram.types import InlineKeyboardButton
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.modules.protocol import OfferedMap
from bot.modules.watch import setup as watch_setup
from bot.modules.watch.texts import (
    deck_input_help,
    deck_words,
    duel_mode_words,
    hero_input_help,
    passages,
)
from bot.services import setup_map
from bot.texts.limits import BUTTON_ROW, button_label
from bot.texts.sectors import sector_label
from rules import builtin_map
from rules.modules.watch import DEFAULT_SPELL_DECK, WatchSettings
from storage import Campaign

Button = Callable[[str, Campaign, str, str], InlineKeyboardButton]
WATCH_ACTIONS = ("wt", "whd", "whi", "wdm", "wsh", "wmap", "whv", "wwk", "whs", "wdk")
"""Watch buttons: on/off, remove hero ``v``, initiative ``h.+``/``h.-``, duel mode ``v``,
step hours ``+``/``-``, the night-demo map, the heroes' victory on/off, the wounds that kill
``+``/``-``, the spells in hand ``+``/``-``, the standard spell deck (``default``)."""
TYPED_FIELDS = ("setup.heroes", "setup.npc", "setup.deck")
"""The wizard's typed answers this screen reads."""
_STEPS = {"-": -1, "+": 1, "0": 0}


def night_map(language: str) -> OfferedMap:
    """The night-demo map as the wizard's map step offers it (its name in ``language``)."""
    night = builtin_map(watch_setup.DEMO_MAP)
    return OfferedMap(
        map=watch_setup.DEMO_MAP,
        button=_("🌃 {map}"),
        phrase=_("the night map «{night}» made for the Watches").format(
            night=night.names.get(language, night.name)
        ),
    )


def watch_label(campaign: Campaign) -> str:
    """The summary's line on the Watches: off, or the heroes and how duels go."""
    overrides = campaign.ruleset_overrides
    if not watch_setup.is_on(overrides):
        return _("Watches: off")
    count = len(watch_setup.heroes(overrides))
    listed = _("{n} hero", "{n} heroes", count).format(n=count)
    chosen = watch_setup.effective(overrides)
    mode = _("sealed duels") if chosen.duel_mode == "sealed" else _("duels step by step")
    parts = [
        _("Watches: on, {heroes}, {mode}").format(heroes=listed, mode=mode),
        _("{n} wound kills", "{n} wounds kill", chosen.wounds_to_kill).format(
            n=chosen.wounds_to_kill
        ),
        _("{n} spell in hand", "{n} spells in hand", chosen.hand_size).format(n=chosen.hand_size),
    ]
    if chosen.spell_deck != DEFAULT_SPELL_DECK:
        count = len(chosen.spell_deck)
        parts.append(_("a deck of {n} spell", "a deck of {n} spells", count).format(n=count))
    if chosen.hero_victory:
        parts.append(_("victory by heroes"))
    return ", ".join(parts)


def watch_screen(
    campaign: Campaign, sides: Sequence[tuple[str, str]], button: Button
) -> tuple[str, list[list[InlineKeyboardButton]]]:
    """The watch settings: on or off, the heroes (with initiative −/+ and removal), the NPC
    marker, the duel mode and a step's hours, typing heroes and the marker, the demo map."""
    overrides = campaign.ruleset_overrides
    shown = setup_map.campaign_map(campaign)
    side_name = dict(sides)
    lines = [
        _(
            "Watches: each turn, each named hero of a side may move to a neighbouring location, "
            "and where heroes of two sides meet they play a duel of attack and defence spells."
        )
    ]
    ways = passages(shown, campaign.language)
    if ways is not None:
        lines.append(_("Passages on this map: {passages}.").format(passages=ways))
    lines.append(watch_label(campaign))
    rows: list[list[InlineKeyboardButton]] = []
    if not watch_setup.is_on(overrides):
        rows.append([button(_("🌃 Switch the Watches on"), campaign, "wt", "on")])
        if campaign.map != watch_setup.DEMO_MAP:
            rows.append([button(_("🗺 Night demo map"), campaign, "wmap", "")])
        return "\n".join(lines), rows
    rows.append([button(_("Switch the Watches off"), campaign, "wt", "off")])
    listed = watch_setup.heroes(overrides)
    if not listed:
        lines.append(_("No heroes yet: type them with «Add heroes»."))
    for hero in listed:
        enters = int(hero.get("enters_turn", 1))
        where = sector_label(shown, str(hero["start"]), campaign.language)
        line = _("• {hero} (side «{side}»), initiative {initiative}, starts in {sector}").format(
            hero=hero["name"],
            side=side_name.get(hero["side"], hero["side"]),
            initiative=hero["initiative"],
            sector=where,
        )
        if enters > 1:
            line += _(", enters on turn {turn}").format(turn=enters)
        lines.append(line)
        initiative = _("⚡ {hero}: {initiative}")
        remove = _("✖ {hero}")
        fixed = len("−+") + len(initiative.format(hero="", initiative=hero["initiative"]))
        name = button_label(
            str(hero["name"]), max((BUTTON_ROW - fixed - len(remove.format(hero=""))) // 2, 6)
        )
        rows.append(
            [
                button("−", campaign, "whi", f"{hero['id']}.-"),
                button(
                    initiative.format(hero=name, initiative=hero["initiative"]),
                    campaign,
                    "whi",
                    f"{hero['id']}.0",
                ),
                button("+", campaign, "whi", f"{hero['id']}.+"),
                button(remove.format(hero=name), campaign, "whd", hero["id"]),
            ]
        )
    chosen = watch_setup.effective(overrides)
    if chosen.npc is None:
        lines.append(_("NPC marker: none."))
    else:
        lines.append(
            _("NPC marker: {name}, starts in {sector}.").format(
                name=chosen.npc.name,
                sector=sector_label(shown, chosen.npc.start, campaign.language),
            )
        )
    lines.append(_("Duels: {mode}.").format(mode=duel_mode_words(chosen.duel_mode)))
    hours = chosen.duel_step_hours
    lines.append(
        _(
            "A duel step lasts at most {n} hour.", "A duel step lasts at most {n} hours.", hours
        ).format(n=hours)
    )
    lines += _rule_lines(chosen)
    rows.append(
        [
            button(_("🧙 Add heroes"), campaign, "ask", "heroes"),
            button(_("👤 NPC marker"), campaign, "ask", "npc"),
        ]
    )
    other = "initiative" if chosen.duel_mode == "sealed" else "sealed"
    rows.append(
        [
            button(
                _("⚔ Duels step by step") if other == "initiative" else _("✉ Sealed duels"),
                campaign,
                "wdm",
                other,
            )
        ]
    )
    rows.append(
        [
            button(_("⏱ −"), campaign, "wsh", "-"),
            button(_("⏱ {n} h").format(n=chosen.duel_step_hours), campaign, "wsh", "0"),
            button(_("⏱ +"), campaign, "wsh", "+"),
        ]
    )
    rows += _rule_rows(campaign, chosen, button)
    if campaign.map != watch_setup.DEMO_MAP:
        rows.append([button(_("🗺 Night demo map"), campaign, "wmap", "")])
    return "\n".join(lines), rows


def _rule_lines(chosen: WatchSettings) -> list[str]:
    """The screen's lines on the wounds that kill, the hand, the deck and the heroes' victory."""
    wounds, hand, deck = chosen.wounds_to_kill, chosen.hand_size, chosen.spell_deck
    standard = deck == DEFAULT_SPELL_DECK
    spells = _(
        "Spell deck, {n} spell: {cards}.", "Spell deck, {n} spells: {cards}.", len(deck)
    ).format(n=len(deck), cards=deck_words(deck))
    lines = [
        _("A hero falls at {n} wound.", "A hero falls at {n} wounds.", wounds).format(n=wounds),
        _("A hero holds {n} spell in hand.", "A hero holds {n} spells in hand.", hand).format(
            n=hand
        ),
        spells + " " + (_("The standard deck.") if standard else _("The GM's own deck.")),
        _("(A: attack, D: defence, the number is its power.)"),
    ]
    if chosen.hero_victory:
        lines.append(
            _(
                "Victory by heroes: on. When heroes of two sides or more were listed and only "
                "one side's heroes are alive, that side wins the campaign."
            )
        )
    else:
        lines.append(_("Victory by heroes: off. Heroes falling does not end the campaign."))
    return lines


def _rule_rows(
    campaign: Campaign, chosen: WatchSettings, button: Button
) -> list[list[InlineKeyboardButton]]:
    """The buttons for the wounds that kill, the hand, the deck and the heroes' victory."""
    rows = [
        [
            button(_("🩸 −"), campaign, "wwk", "-"),
            button(_("🩸 wounds: {n}").format(n=chosen.wounds_to_kill), campaign, "wwk", "0"),
            button(_("🩸 +"), campaign, "wwk", "+"),
        ],
        [
            button(_("🃏 −"), campaign, "whs", "-"),
            button(_("🃏 {n} in hand").format(n=chosen.hand_size), campaign, "whs", "0"),
            button(_("🃏 +"), campaign, "whs", "+"),
        ],
    ]
    deck_row = [button(_("📜 Spell deck"), campaign, "ask", "deck")]
    if chosen.spell_deck != DEFAULT_SPELL_DECK:
        deck_row.append(button(_("↩ Standard deck"), campaign, "wdk", "default"))
    rows.append(deck_row)
    if chosen.hero_victory:
        rows.append([button(_("Switch victory by heroes off"), campaign, "whv", "off")])
    else:
        rows.append([button(_("🏆 Switch victory by heroes on"), campaign, "whv", "on")])
    return rows


def watch_change(campaign: Campaign, action: str, value: str) -> dict[str, Any] | None:
    """The overrides after a watch button (not the map), or ``None`` for one that does not fit."""
    overrides = campaign.ruleset_overrides
    if action == "wt" and value in ("on", "off"):
        return watch_setup.switched(overrides, value == "on")
    if not watch_setup.is_on(overrides):
        return None
    if action == "whd":
        return watch_setup.without_hero(overrides, value)
    if action == "whi":
        hero, _sep, sign = value.rpartition(".")
        if sign not in _STEPS:
            return None
        return watch_setup.with_initiative(overrides, hero, _STEPS[sign])
    if action == "wdm":
        return watch_setup.with_duel_mode(overrides, value)
    if action == "wsh" and value in _STEPS:
        return watch_setup.with_step_hours(overrides, _STEPS[value])
    if action == "whv" and value in ("on", "off"):
        return watch_setup.with_hero_victory(overrides, value == "on")
    if action == "wwk" and value in _STEPS:
        return watch_setup.with_wounds_to_kill(overrides, _STEPS[value])
    if action == "whs" and value in _STEPS:
        return watch_setup.with_hand_size(overrides, _STEPS[value])
    if action == "wdk" and value == "default":
        return watch_setup.with_spell_deck(overrides, None)
    return None


def typed_watch(
    campaign: Campaign, field: str, text: str, sides: Sequence[tuple[str, str]]
) -> tuple[dict[str, Any] | None, str]:
    """The overrides after typed heroes (``setup.heroes``), NPC marker (``setup.npc``) or spell
    deck (``setup.deck``), or ``None`` and why not."""
    names = watch_setup.Names.build(setup_map.campaign_map(campaign), sides)
    overrides = campaign.ruleset_overrides
    try:
        if field == "setup.deck":
            changed = watch_setup.with_spell_deck(overrides, watch_setup.parse_deck(text))
        elif field == "setup.heroes":
            changed = watch_setup.with_heroes(overrides, watch_setup.parse_heroes(text, names))
        else:
            changed = watch_setup.with_npc(overrides, watch_setup.parse_npc(text, names))
    except watch_setup.HeroInputError as error:
        campaign_map = setup_map.campaign_map(campaign)
        return None, hero_input_help(
            error.line, error.problem, error.word, campaign_map, get_i18n().current_locale
        )
    except watch_setup.DeckInputError as error:
        return None, deck_input_help(error.problem, error.word)
    refused = setup_map.problem(campaign, changed)
    if refused is not None:
        return None, _("The rules refuse that setting: {problem}").format(problem=refused[:150])
    return changed, ""


def ask_text(what: str) -> str:
    """What the wizard asks for typed heroes, the NPC marker or the spell deck (``{name}``: the
    GM)."""
    if what == "deck":
        return _(
            "{name}, reply with the spell deck the heroes' hands are dealt from each turn: the "
            "spells separated by spaces, A and the power (0 to 99) for an attack, D and the "
            "power for a defence, «×n» after a spell for n copies, e.g. «A1 A2 A2 A3×2 D1 D2×2 "
            "D3». «default» restores the standard deck."
        )
    if what == "heroes":
        return _(
            "{name}, reply with the heroes, one a line: name, side, initiative (0 to 99, lower "
            "moves and acts first), start location and, for a hero who comes later, the turn "
            "it enters. E.g.:\nLarisa, Day Watch, 2, Hairdresser\nZavulon, Day Watch, 9, "
            "Entrance, 3\nTyping a hero's name again corrects that hero."
        )
    return _(
        "{name}, reply with the NPC marker: its name and start location, e.g. «Egor, "
        "Apartment»; «-» for no marker."
    )
