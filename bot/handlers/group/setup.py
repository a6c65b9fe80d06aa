"""``/newcampaign``: the setup wizard in the group, step by step with buttons.

Steps: name, time zone, map, sides (name and colour), schedule, unreported battles, then one
summary to confirm (where rules, language and any earlier step can be changed). Everything the
wizard knows is in the database: the campaign row (status ``setup``) and a ``Prompt`` when it
waits for typed input, so a restart in the middle continues where it was.
"""

from __future__ import annotations

import io
import unicodedata
from collections.abc import Awaitable, Callable
from datetime import datetime
from typing import Any, TypeVar

from aiogram import Bot, F, Router
from aiogram.filters import Command, CommandObject
from aiogram.filters.callback_data import CallbackData
from aiogram.types import (
    CallbackQuery,
    ForceReply,
    InlineKeyboardButton,
    InlineKeyboardMarkup,
    Message,
)
from aiogram.utils.i18n import I18n
from aiogram.utils.i18n import gettext as _
from pydantic import JsonValue, ValidationError

from bot.handlers.common import LANGUAGE_NAMES
from bot.handlers.filters import Awaited
from bot.handlers.group import victory_check
from bot.handlers.group.guards import (
    AwaitedAnswer,
    ask,
    ask_again,
    campaign_here,
    gm_member,
    not_gm_text,
    pressed_campaign,
    thread_of,
)
from bot.modules import BOT_MODULES, BotModule
from bot.modules.protocol import WizardChange
from bot.posts.group import colour_mark, colour_name
from bot.runtime.clock import Clock
from bot.runtime.middlewares import display_name
from bot.screens.callbacks import ButtonInt
from bot.services import campaigns, setup_map
from bot.services.clockwork import AdvanceOutcome, advance
from bot.texts.core import (
    describe_map_problem,
    joining_label,
    language_name,
    phase_name,
    policy_label,
    rule_name,
    schedule_label,
)
from bot.texts.moments import zone_label
from rules import (
    BUILTIN_MAPS,
    CampaignMap,
    MapError,
    Ruleset,
    builtin_map,
    overrides_in_force,
)
from rules.modules import module_maps
from rules.table import ScoreMargins
from storage import (
    Campaign,
    CampaignSettings,
    ChatHasActiveCampaignError,
    JoiningPolicy,
    NewCampaign,
    Person,
    Phase,
    Prompt,
    Store,
    UnreportedPolicy,
)
from storage.names import clean_name

ZONES = (
    "Europe/Kaliningrad",
    "Europe/Moscow",
    "Europe/Samara",
    "Asia/Yekaterinburg",
    "Asia/Novosibirsk",
    "Asia/Vladivostok",
    "Europe/London",
    "Europe/Berlin",
    "UTC",
)
STEPS = ("zone", "map", "sides", "schedule", "policy", "summary")
MAX_TITLE = 128
MAX_SIDE_NAME = 64


def name_problem(name: str, limit: int) -> str | None:
    """Why a cleaned name cannot be used, or ``None``."""
    if not any(unicodedata.category(char)[0] in "LNSP" for char in name):
        return _("A name needs at least one letter, digit or sign: send another.")
    if len(name) > limit:
        return _(
            "That name is too long: keep it under {limit} character.",
            "That name is too long: keep it under {limit} characters.",
            limit,
        ).format(limit=limit)
    return None


class SetupPress(CallbackData, prefix="su"):
    """A wizard button: campaign, action, value."""

    c: ButtonInt
    a: str
    v: str = ""


def _button(text: str, campaign: Campaign, action: str, value: str = "") -> InlineKeyboardButton:
    return InlineKeyboardButton(
        text=text, callback_data=SetupPress(c=campaign.id, a=action, v=value).pack()
    )


def _marked(label: str, chosen: bool) -> str:
    """A choice's label, with «• » when it is the one chosen."""
    return f"• {label}" if chosen else label


def _next(campaign: Campaign, step: str) -> list[InlineKeyboardButton]:
    following = STEPS[STEPS.index(step) + 1]
    return [_button(_("Next ▶"), campaign, "go", following)]


def map_label(campaign: Campaign) -> str:
    """The campaign's map: its name and size."""
    return map_words(setup_map.campaign_map(campaign), campaign.language)


def map_words(shown: CampaignMap, language: str) -> str:
    """A map's name in ``language`` and its size: «Ночная Москва (6 секторов)»."""
    name = shown.names.get(language, shown.name)
    count = len(shown.sectors)
    return _("{name} ({n} sector)", "{name} ({n} sectors)", count).format(name=name, n=count)


MODULE_KEYS = ("modules", "module_settings")
"""Ruleset overrides that are not numbers: the rule modules and their settings."""


def rules_label(campaign: Campaign) -> str:
    """The ruleset's changed numbers in words, or "standard" (modules are shown apart)."""
    numbers = {
        key: value for key, value in campaign.ruleset_overrides.items() if key not in MODULE_KEYS
    }
    if not numbers:
        return _("standard")
    return "; ".join(f"{rule_name(key)}: {value}" for key, value in numbers.items())


RULE_STEPS = {"battle_points": 250}
"""How much one −/+ press changes a number (1 unless named here)."""


def rules_screen(campaign: Campaign) -> tuple[str, list[list[InlineKeyboardButton]]]:
    """Each number of the rules in words with −/+ buttons, standard rules, typing them."""
    ruleset = Ruleset.with_overrides(overrides_in_force(campaign.ruleset_overrides))
    lines = [
        _("Rules: change each number with − and +; «Standard rules» brings back the usual ones.")
    ]
    rows = []
    for field in campaigns.TYPED_RULE_FIELDS:
        value = getattr(ruleset, field)
        lines.append(f"• {rule_name(field)}: {value}")
        rows.append(
            [
                _button("−", campaign, "rule", f"{field}.-"),
                _button(f"{rule_name(field)}: {value}", campaign, "go", "rules"),
                _button("+", campaign, "rule", f"{field}.+"),
            ]
        )
    rows.append([_button(_("↺ Standard rules"), campaign, "rule", "default")])
    rows.append([_button(_("⌨️ Type them instead"), campaign, "ask", "rules")])
    rows.append([_button(_("◀ Back"), campaign, "go", "summary")])
    return "\n".join(lines), rows


def changed_rules(campaign: Campaign, value: str) -> dict[str, JsonValue] | None:
    """The overrides after a −/+ press (``field.+``, ``field.-``) or «default» (the rule
    modules and their settings stay); ``None`` when the rules would not hold (e.g. fewer armies
    than sectors to deploy in)."""
    kept = {k: v for k, v in campaign.ruleset_overrides.items() if k in MODULE_KEYS}
    if value == "default":
        return kept
    field, _sep, sign = value.rpartition(".")
    if field not in campaigns.TYPED_RULE_FIELDS or sign not in ("+", "-"):
        return None
    overrides = {
        key: number
        for key, number in campaign.ruleset_overrides.items()
        if isinstance(number, int) and not isinstance(number, bool)
    }
    current = getattr(Ruleset.with_overrides(dict(overrides)), field)
    step = RULE_STEPS.get(field, 1)
    overrides[field] = current + step if sign == "+" else current - step
    if overrides[field] == getattr(Ruleset(), field):
        del overrides[field]
    try:
        Ruleset.with_overrides(overrides_in_force({**kept, **overrides}))
    except ValidationError:
        return None
    return {**kept, **overrides}


async def sides_lines(store: Store, campaign: Campaign) -> list[str]:
    """Each side with its colour, one a line."""
    lines = []
    for side in await store.sides(campaign.id):
        colour = campaigns.colour_by_hex(side.colour)
        name = colour_name(colour.key) if colour is not None else side.colour
        lines.append(f"{colour_mark(side.colour)} {side.name} ({name})")
    return lines or [_("none yet")]


async def screen(store: Store, campaign: Campaign, step: str) -> tuple[str, InlineKeyboardMarkup]:
    """The wizard's ``step`` for ``campaign``: its text and buttons."""
    rows: list[list[InlineKeyboardButton]] = []
    head = _("New campaign «{title}»").format(title=campaign.title)
    if step == "zone":
        text = _(
            "Step 2 of 6: time zone. Deadlines are set and shown in it. Now: {zone}.\n"
            "Choose one, or type a city or an IANA name (e.g. Omsk or Asia/Omsk) after "
            "«Type another»."
        ).format(zone=zone_label(campaign.time_zone, campaign.language))
        zone_buttons = [
            _button(zone_label(zone, campaign.language), campaign, "tz", zone) for zone in ZONES
        ]
        rows = [zone_buttons[i : i + 3] for i in range(0, len(zone_buttons), 3)]
        rows.append([_button(_("⌨️ Type another"), campaign, "ask", "zone")])
    elif step == "map":
        offered = [
            shown
            for module in BOT_MODULES.values()
            for shown in module.wizard_maps(campaign.language)
        ]
        if offered:
            text = _(
                "Step 3 of 6: map. Now: {map}.\nUse the rules' planet of five sectors, {maps}, or "
                "upload your own map as a TOML file."
            ).format(map=map_label(campaign), maps=", ".join(shown.phrase for shown in offered))
        else:
            text = _(
                "Step 3 of 6: map. Now: {map}.\nUse the rules' planet of five sectors or upload "
                "your own map as a TOML file."
            ).format(map=map_label(campaign))
        rows = [
            [_button(_("🪐 Planet (5 sectors)"), campaign, "map", "planet-5")],
            *(
                [
                    _button(
                        shown.button.format(
                            map=map_words(builtin_map(shown.map), campaign.language)
                        ),
                        campaign,
                        "map",
                        shown.map,
                    )
                ]
                for shown in offered
            ),
            [_button(_("📎 Upload a map file"), campaign, "ask", "map")],
        ]
    elif step == "sides":
        sides = await store.sides(campaign.id)
        text = _(
            "Step 4 of 6: sides (2 to 8). Each has a name and a colour from a colour-blind safe "
            "palette; a side named after a colour gets the safe colour nearest to it. The colour "
            "in brackets is the one the maps, the board and the charts draw.\n{sides}"
        ).format(sides="\n".join(await sides_lines(store, campaign)))
        if len(sides) < campaigns.MAX_SIDES:
            rows.append([_button(_("➕ Add a side"), campaign, "ask", "side")])
        for side in sides:
            rows.append(
                [
                    _button(
                        _("{mark} {name}: colour").format(
                            mark=colour_mark(side.colour), name=side.name
                        ),
                        campaign,
                        "pick",
                        side.id,
                    ),
                    _button(_("✖ Remove {name}").format(name=side.name), campaign, "del", side.id),
                ]
            )
    elif step == "schedule":
        text = _(
            "Step 5 of 6: schedule. Now: {schedule}.\nDeployment ends once every side has "
            "confirmed its placement, at a deadline (or earlier, once all have placed), or only "
            "when you end it: choose, then the weekly rhythm or manual mode."
        ).format(schedule=schedule_label(campaign))
        chosen = campaign.schedule
        undated = chosen.deployment_deadline is None
        placed = undated and chosen.deployment_ends_when_placed
        alone = undated and not chosen.deployment_ends_when_placed
        rows = [
            [
                _button(
                    _marked(_("Deployment: until all have placed"), placed),
                    campaign,
                    "dep",
                    "all",
                )
            ],
            [
                _button(_marked(_("Until I end it"), alone), campaign, "dep", "0"),
                _button(_("3 days"), campaign, "dep", "3"),
                _button(_("7 days"), campaign, "dep", "7"),
            ],
            [
                _button(
                    _("Weekly: orders Tue–Thu, battle list Fri, results Mon"),
                    campaign,
                    "sched",
                    "weekly",
                )
            ],
            [_button(_("Manual: I advance each phase"), campaign, "sched", "manual")],
        ]
    elif step == "policy":
        text = _("Step 6 of 6: a battle nobody reported by the deadline. Now: {policy}.").format(
            policy=policy_label(campaign.unreported_policy)
        )
        rows = [
            [_button(_("Draw without losses"), campaign, "pol", UnreportedPolicy.DRAW.value)],
            [_button(_("Wait for the GM"), campaign, "pol", UnreportedPolicy.WAIT_FOR_GM.value)],
        ]
    elif (module := _step_module(step)) is not None:
        side_pairs = [(side.id, side.name) for side in await store.sides(campaign.id)]
        shown = module.wizard_screen(campaign, side_pairs, step, _button)
        if shown is None:
            return await summary(store, campaign)
        text, rows = shown
        return f"{head}\n\n{text}", InlineKeyboardMarkup(inline_keyboard=rows)
    elif step == "rules":
        text, rows = rules_screen(campaign)
        return f"{head}\n\n{text}", InlineKeyboardMarkup(inline_keyboard=rows)
    elif step == "joining":
        text = _(
            "Joining: who may join once the campaign runs. A new player sees their side's "
            "secret orders at once, so after deployment a GM usually approves each one. "
            "Now: {joining}."
        ).format(joining=joining_label(campaign.joining))
        rows = [
            [_button(joining_label(policy), campaign, "joinset", policy.value)]
            for policy in JoiningPolicy
        ]
        rows.append([_button(_("◀ Back"), campaign, "go", "summary")])
        return f"{head}\n\n{text}", InlineKeyboardMarkup(inline_keyboard=rows)
    else:
        return await summary(store, campaign)
    rows.append(_next(campaign, step))
    return f"{head}\n\n{text}", InlineKeyboardMarkup(inline_keyboard=rows)


def _step_module(step: str) -> BotModule | None:
    """The module whose wizard screen ``step`` is, if any."""
    return next((module for module in BOT_MODULES.values() if module.wizard_owns_step(step)), None)


def _module_rows(campaign: Campaign) -> list[list[InlineKeyboardButton]]:
    """The summary's modules menu: each registered module's button, in the registry's order,
    then the score margins, two a row."""
    buttons = [
        _button(entry, campaign, "go", name)
        for name, module in BOT_MODULES.items()
        if (entry := module.wizard_entry()) is not None
    ]
    buttons.append(_button(_("🎯 Score margins"), campaign, "ask", "margins"))
    return [buttons[i : i + 2] for i in range(0, len(buttons), 2)]


async def summary(store: Store, campaign: Campaign) -> tuple[str, InlineKeyboardMarkup]:
    """Everything chosen, in one message, with a button to change each part and one to start."""
    other = "ru" if campaign.language == "en" else "en"
    text = "\n".join(
        [
            _("New campaign «{title}»: check and confirm.").format(title=campaign.title),
            "",
            _("Time zone: {zone}").format(zone=zone_label(campaign.time_zone, campaign.language)),
            _("Map: {map}").format(map=map_label(campaign)),
            _("Rules: {rules}").format(rules=rules_label(campaign)),
            *victory_check.warning_lines(campaign),
            *(
                line
                for module in BOT_MODULES.values()
                if (line := module.wizard_summary_line(campaign)) is not None
            ),
            _("Sides:"),
            *(f"  {line}" for line in await sides_lines(store, campaign)),
            _("Schedule: {schedule}").format(schedule=schedule_label(campaign)),
            _("Unreported battles: {policy}").format(
                policy=policy_label(campaign.unreported_policy)
            ),
            _("Joining: {joining}").format(joining=joining_label(campaign.joining)),
            _(
                "Score margins: solid victory from {solid}, crushing victory from {crushing}, "
                "slaughter from {slaughter}."
            ).format(
                solid=campaign.score_margins.solid,
                crushing=campaign.score_margins.crushing,
                slaughter=campaign.score_margins.slaughter,
            ),
            _("Language of posts here: {language}").format(
                language=language_name(campaign.language)
            ),
            "",
            _(
                "📖 /rules shows the rules of this campaign with these numbers, here and in "
                "the private chat, at any time."
            ),
            "",
            _("«Open deployment» starts the campaign: players join and place their armies."),
        ]
    )
    rows = [
        [
            _button(_("Name"), campaign, "ask", "title"),
            _button(_("Time zone"), campaign, "go", "zone"),
            _button(_("Map"), campaign, "go", "map"),
        ],
        [
            _button(_("Rules"), campaign, "go", "rules"),
            _button(_("Sides"), campaign, "go", "sides"),
            _button(_("Schedule"), campaign, "go", "schedule"),
        ],
        [
            _button(_("Unreported battles"), campaign, "go", "policy"),
            _button(_("Joining"), campaign, "go", "joining"),
            _button(LANGUAGE_NAMES[other], campaign, "lang", other),
        ],
        *_module_rows(campaign),
        *victory_check.fix_rows(campaign, _button),
        [_button(_("✅ Open deployment"), campaign, "ok")],
        [_button(_("✖ Cancel this campaign"), campaign, "cancel")],
    ]
    return text, InlineKeyboardMarkup(inline_keyboard=rows)


T = TypeVar("T")

# The wizard step a typed answer leads to; any other, the summary (a new campaign's title: the
# time zone).
_NEXT_STEP = {
    "setup.zone": "map",
    "setup.side": "sides",
    "setup.map": "sides",
}


def _typed_module(field: str) -> BotModule | None:
    """The module that reads the typed answer ``field``, if any."""
    return next(
        (module for module in BOT_MODULES.values() if field in module.wizard_typed_fields()),
        None,
    )


def _next_step(campaign: Campaign, prompt: Prompt) -> str:
    """The wizard step after a typed answer (a module's: the step the module names)."""
    module = _typed_module(prompt.field)
    if module is not None:
        return module.wizard_next_step(campaign, prompt.field, prompt.data)
    return _NEXT_STEP.get(prompt.field, "summary")


# ---- commands and typed answers ----------------------------------------------------------------


async def new_campaign(
    message: Message,
    command: CommandObject,
    store: Store,
    clock: Clock,
    person: Person,
    i18n: I18n,
) -> None:
    """``/newcampaign [name]``: create the campaign (or resume the one being set up here)."""
    existing = await campaign_here(store, message)
    if existing is not None:
        if existing.phase is not Phase.SETUP:
            await message.answer(
                _(
                    "This chat already runs «{title}» ({phase}). A chat runs one campaign at a "
                    "time: finish it with /gm first, or use another forum topic."
                ).format(title=existing.title, phase=phase_name(existing.phase))
            )
            return
        if await gm_member(store, existing, person.user_id) is None:
            await message.answer(not_gm_text())
            return
        text, keyboard = await summary(store, existing)
        await message.answer(text, reply_markup=keyboard)
        return
    title = clean_name(command.args or "")
    if not title:
        await store.set_prompt(
            message.chat.id,
            person.user_id,
            None,
            "setup.title",
            {"thread": thread_of(message)},
            None,
            clock.now(),
        )
        await message.reply(
            _(
                "Step 1 of 6: what is the campaign called? Reply to this message with the name "
                "(up to 128 characters)."
            ),
            reply_markup=ForceReply(selective=True),
        )
        return
    await _create(message, store, clock, person, i18n, title)


async def _create(
    message: Message, store: Store, clock: Clock, person: Person, i18n: I18n, title: str
) -> None:
    problem = name_problem(title, MAX_TITLE)
    if problem is not None:
        await ask_again(message, problem)
        return
    language = "ru" if i18n.current_locale == "ru" else "en"
    new = NewCampaign(
        chat_id=message.chat.id,
        thread_id=thread_of(message),
        title=title,
        created_by=person.user_id,
        creator_name=person.display_name,
        language=language,
    )
    try:
        campaign = await _answered(
            store, message, person, lambda: store.create_campaign(new, clock.now())
        )
    except ChatHasActiveCampaignError:
        await message.answer(_("This chat already runs a campaign: see /status."))
        return
    text, keyboard = await screen(store, campaign, "zone")
    await message.answer(text, reply_markup=keyboard)


async def typed_answer(
    message: Message, store: Store, clock: Clock, person: Person, i18n: I18n, prompt: Prompt
) -> None:
    """A typed wizard answer: name, time zone, a side's name or rules."""
    if prompt.answered_by is not None:
        await _answered_again(message, store, prompt)
        return
    text = (message.text or "").strip()
    if prompt.field == "setup.title" and prompt.campaign_id is None:
        await _create(message, store, clock, person, i18n, clean_name(text))
        return
    campaign = await store.campaign(prompt.campaign_id or 0)
    if campaign is None or campaign.phase is not Phase.SETUP:
        await store.clear_prompt(message.chat.id, person.user_id)
        await message.answer(_("That setup is over; nothing was changed."))
        return
    if not await _still_gm(message, store, person, campaign):
        return
    now = clock.now()
    settings = None
    if prompt.field == "setup.title":
        title = clean_name(text)
        problem = name_problem(title, MAX_TITLE)
        if problem is not None:
            await ask_again(message, problem)
            return
        settings = CampaignSettings(title=title)
    elif prompt.field == "setup.zone":
        zone = campaigns.find_time_zone(text)
        if zone is None:
            await ask_again(
                message,
                _(
                    "I do not know the time zone «{text}». Type a city such as Novosibirsk, or "
                    "an IANA name such as Asia/Novosibirsk (list: "
                    "https://en.wikipedia.org/wiki/List_of_tz_database_time_zones)."
                ).format(text=text[:64]),
            )
            return
        settings = campaigns.zone_change(campaign, zone)
    elif prompt.field == "setup.side":
        name = clean_name(text)
        problem = name_problem(name, MAX_SIDE_NAME)
        if problem is not None:
            await ask_again(message, problem)
            return
        async with store.atomic():
            outcome, _side = await campaigns.add_side(store, campaign, name, person.user_id, now)
            if outcome is campaigns.AddSideOutcome.ADDED:
                await store.clear_prompt(message.chat.id, person.user_id, message.message_id)
        if outcome is not campaigns.AddSideOutcome.ADDED:
            await ask_again(message, _add_side_refusal(outcome))
            return
    elif prompt.field in _TYPED_SETTINGS or _typed_module(prompt.field) is not None:
        settings, refusal = await _typed_any(store, campaign, prompt, text)
        if settings is None:
            await ask_again(message, refusal)
            return
    else:
        await ask_again(message, _("Send the map as a TOML file, not as text."))
        return
    if settings is not None:
        changes, campaign_id = settings, campaign.id
        campaign = await _answered(
            store,
            message,
            person,
            lambda: store.update_settings(campaign_id, changes, person.user_id, now),
        )
    text, keyboard = await screen(store, campaign, _next_step(campaign, prompt))
    await message.answer(text, reply_markup=keyboard)


async def uploaded_map(
    message: Message, bot: Bot, store: Store, clock: Clock, person: Person, prompt: Prompt
) -> None:
    """A TOML map file sent while the wizard waits for one: validated by the rules core."""
    if prompt.answered_by is not None:
        await _answered_again(message, store, prompt)
        return
    campaign = await store.campaign(prompt.campaign_id or 0)
    if campaign is None or campaign.phase is not Phase.SETUP or message.document is None:
        await store.clear_prompt(message.chat.id, person.user_id)
        return
    if not await _still_gm(message, store, person, campaign):
        return
    if (message.document.file_size or 0) > campaigns.MAX_MAP_BYTES:
        await ask_again(message, _("That file is too large for a map: the limit is 256 KB."))
        return
    content = io.BytesIO()
    await bot.download(message.document.file_id, destination=content)
    try:
        campaign_map = campaigns.read_map_file(content.getvalue())
    except MapError as error:
        problems = "\n".join(f"• {describe_map_problem(p)}" for p in error.problems[:10])
        await ask_again(
            message,
            _("I cannot use that map:\n{problems}\nFix the file and send it again.").format(
                problems=problems
            ),
        )
        return
    campaign_id, settings = (
        campaign.id,
        CampaignSettings(
            map=campaign_map,
            ruleset_overrides=_fitted(
                campaign.ruleset_overrides,
                campaign_map,
                [side.id for side in await store.sides(campaign.id)],
            ),
        ),
    )
    campaign = await _answered(
        store,
        message,
        person,
        lambda: store.update_settings(campaign_id, settings, person.user_id, clock.now()),
    )
    text, keyboard = await screen(store, campaign, _NEXT_STEP["setup.map"])
    await message.answer(
        _("Map «{name}» accepted.").format(name=campaign_map.name) + "\n\n" + text,
        reply_markup=keyboard,
    )


async def _still_gm(message: Message, store: Store, person: Person, campaign: Campaign) -> bool:
    """A typed answer counts only from a GM of the campaign *now*: one the wizard asked while
    they were GM, typed after they stopped being one, changes nothing and ends the wait."""
    if await gm_member(store, campaign, person.user_id) is not None:
        return True
    await store.clear_prompt(message.chat.id, person.user_id)
    await message.answer(not_gm_text())
    return False


async def _answered(
    store: Store, message: Message, person: Person, save: Callable[[], Awaitable[T]]
) -> T:
    """Save a typed answer and stop waiting for it, in one transaction (a crash between the two
    would leave the wizard waiting for an answer it already has)."""
    async with store.atomic():
        saved = await save()
        await store.clear_prompt(message.chat.id, person.user_id, message.message_id)
    return saved


async def _answered_again(message: Message, store: Store, prompt: Prompt) -> None:
    """The answer that was taken already, delivered again (the bot stopped before it could
    show the next step): show that step now, changing nothing."""
    campaign = (
        await store.campaign(prompt.campaign_id)
        if prompt.campaign_id is not None
        else await campaign_here(store, message)
    )
    if campaign is None or campaign.phase is not Phase.SETUP:
        await message.answer(_("That setup is over; nothing was changed."))
        return
    if await gm_member(store, campaign, prompt.user_id) is None:
        await message.answer(not_gm_text())
        return
    new = prompt.field == "setup.title" and prompt.campaign_id is None
    step = "zone" if new else _next_step(campaign, prompt)
    text, keyboard = await screen(store, campaign, step)
    await message.answer(text, reply_markup=keyboard)


async def cancel_answer(message: Message, store: Store, person: Person) -> None:
    """``/cancel`` in the group: stop waiting for this person's typed answer."""
    if await store.clear_prompt(message.chat.id, person.user_id):
        await message.answer(_("Stopped waiting for your answer; nothing was changed."))
        return
    await message.answer(_("Nothing is waiting for your answer, so there is nothing to cancel."))


def _add_side_refusal(outcome: campaigns.AddSideOutcome) -> str:
    match outcome:
        case campaigns.AddSideOutcome.TOO_MANY:
            return _("A campaign has at most 8 sides.")
        case campaigns.AddSideOutcome.NAME_TAKEN:
            return _("There is a side with that name already: send another name.")
        case _:
            return _("A side's name is 1 to 64 characters: send another name.")


_TYPED_SETTINGS = ("setup.rules", "setup.margins")
"""The shared typed settings; the modules read their own (``wizard_typed_fields``)."""


async def _typed_any(
    store: Store, campaign: Campaign, prompt: Prompt, text: str
) -> tuple[CampaignSettings | None, str]:
    """The settings after a typed answer of :data:`_TYPED_SETTINGS` or of a module's, or
    ``None`` and why not."""
    field = prompt.field
    module = _typed_module(field)
    if module is None:
        return _typed_settings(campaign, field, text)
    side_pairs = [(side.id, side.name) for side in await store.sides(campaign.id)]
    changed, refusal = module.wizard_typed_setting(campaign, side_pairs, field, prompt.data, text)
    return (None, refusal) if changed is None else (CampaignSettings(ruleset_overrides=changed), "")


def _typed_settings(
    campaign: Campaign, field: str, text: str
) -> tuple[CampaignSettings | None, str]:
    """The settings after typed rule numbers (the module settings kept) or the score-margin
    table; or ``None`` and why not."""
    if field == "setup.margins":
        numbers = text.replace(",", " ").replace("/", " ").split()
        try:
            margins = ScoreMargins(
                solid=int(numbers[0]), crushing=int(numbers[1]), slaughter=int(numbers[2])
            )
        except (IndexError, ValueError):
            return None, _(
                "Send three growing numbers: the least margin of points for a solid victory, a "
                "crushing victory and a slaughter, e.g. «1 5 10»."
            )
        return CampaignSettings(score_margins=margins), ""
    changed, refusal = _typed_rules(campaign, field, text)
    return (None, refusal) if changed is None else (CampaignSettings(ruleset_overrides=changed), "")


def _typed_rules(campaign: Campaign, field: str, text: str) -> tuple[dict[str, Any] | None, str]:
    """The overrides after typed rule numbers (the module settings kept); or ``None`` and why
    not."""
    try:
        kept = {
            key: value
            for key, value in campaign.ruleset_overrides.items()
            if key in ("modules", "module_settings")
        }
        changed = {**campaigns.parse_ruleset_overrides(text), **kept}
    except campaigns.RulesetInputError as error:
        return None, _rules_help(error.field)
    refused = setup_map.problem(campaign, changed)
    if refused is not None:
        return None, _("The rules refuse that setting: {problem}").format(problem=refused[:150])
    return changed, ""


def _rules_help(field: str) -> str:
    names = ", ".join(campaigns.TYPED_RULE_FIELDS)
    shown = field if len(field) <= 32 else field[:31] + "…"
    problem = (
        _("«{field}» cannot be used that way.").format(field=shown)
        if field
        else _("Those numbers do not make a valid ruleset.")
    )
    return (
        problem
        + " "
        + _(
            "Send overrides as name=number, e.g. «start_armies=12 sectors_to_win=4», or "
            "«default». Names: {names}."
        ).format(names=names)
    )


# ---- buttons -----------------------------------------------------------------------------------


async def pressed(
    query: CallbackQuery,
    callback_data: SetupPress,
    store: Store,
    clock: Clock,
    person: Person,
    i18n: I18n,
) -> None:
    """Any wizard button: re-check the campaign is still in setup and the presser is its GM."""
    campaign = await pressed_campaign(store, query, callback_data.c, 0, Phase.SETUP.value)
    if campaign is None:
        return
    if await gm_member(store, campaign, person.user_id) is None:
        await query.answer(not_gm_text(), show_alert=True)
        return
    if not isinstance(query.message, Message):
        await query.answer()
        return
    now = clock.now()
    action, value = callback_data.a, callback_data.v
    if action == "ask" and value in ("title", "zone", "map", "side", "rules", "margins"):
        await _ask_typed(query, query.message, store, campaign, person, value, {}, now)
        return
    question = _module_question(campaign, action, value)
    if question is not None:
        what, data = question
        await _ask_typed(query, query.message, store, campaign, person, what, data, now)
        return
    if action == "pick":
        await _colour_choice(query, store, campaign, value)
        return
    if action == "ok":
        await _confirm(query, store, clock, person, campaign)
        return
    if action == "cancel":
        await campaigns.end_campaign(store, campaign, person.user_id, now)
        await query.answer()
        await query.message.edit_text(
            _("Setup of «{title}» cancelled. /newcampaign starts again.").format(
                title=campaign.title
            )
        )
        return
    changed = await _change(store, campaign, person, action, value, clock)
    if changed is None:
        await query.answer(_("That button is not valid any more."), show_alert=True)
        return
    campaign, step, note = changed
    await query.answer(note or "", show_alert=note is not None)
    with i18n.use_locale(campaign.language):
        text, keyboard = await screen(store, campaign, step)
    await query.message.edit_text(text, reply_markup=keyboard)


async def _ask_typed(
    query: CallbackQuery,
    message: Message,
    store: Store,
    campaign: Campaign,
    person: Person,
    what: str,
    data: dict[str, JsonValue],
    now: datetime,
) -> None:
    """Wait for the GM's typed ``what`` (``data``: which weather state or token) and ask it."""
    await store.set_prompt(
        message.chat.id, person.user_id, campaign.id, f"setup.{what}", data, message.message_id, now
    )
    await query.answer()
    name = display_name(query.from_user)
    module = _typed_module(f"setup.{what}")
    if module is not None:
        question = module.wizard_ask_text(what, data, campaign, name)
    else:
        question = _ask_text(what, name)
    await ask(message, query.from_user, question)


def _module_question(
    campaign: Campaign, action: str, value: str
) -> tuple[str, dict[str, JsonValue]] | None:
    """The typed answer a module's button asks for (its name without «setup.») and what it is
    about; ``None`` for no module's question."""
    for module in BOT_MODULES.values():
        question = module.wizard_question(campaign, action, value)
        if question is not None:
            return question
    return None


def _checked(
    campaign: Campaign, overrides: dict[str, Any]
) -> tuple[CampaignSettings | None, str | None]:
    """The settings to store for ``overrides``, or a note why the rules refuse them."""
    refused = setup_map.problem(campaign, overrides)
    if refused is None:
        return CampaignSettings(ruleset_overrides=overrides), None
    return None, _("The rules refuse that setting: {problem}").format(problem=refused[:150])


async def _remove_side(
    store: Store, campaign: Campaign, side: str, actor: int, clock: Clock
) -> CampaignSettings | None:
    """Remove ``side``; the settings to store after it (its defences become neutral)."""
    await store.remove_side(campaign.id, side, actor, clock.now())
    left = [kept.id for kept in await store.sides(campaign.id)]
    fitted = _fitted(campaign.ruleset_overrides, setup_map.campaign_map(campaign), left)
    if fitted == campaign.ruleset_overrides:
        return None
    return CampaignSettings(ruleset_overrides=fitted)


def _fitted(overrides: dict[str, Any], new_map: CampaignMap, sides: list[str]) -> dict[str, Any]:
    """The module settings fitted to a new map or the sides left (each module's
    ``wizard_fitted``)."""
    for module in BOT_MODULES.values():
        overrides = module.wizard_fitted(overrides, new_map, sides)
    return overrides


def _action_module(action: str) -> BotModule | None:
    """The module whose wizard button ``action`` is, if any."""
    return next(
        (module for module in BOT_MODULES.values() if action in module.wizard_actions()), None
    )


async def _module_change(
    store: Store, campaign: Campaign, module: BotModule, action: str, value: str
) -> tuple[str, CampaignSettings | None, str | None] | None:
    """A module's button: the step to show, the settings to store (new overrides the rules
    accept, or a built-in map with the settings fitted to it) or a note why the rules refuse
    them; ``None`` for a button that does not fit."""
    sides = [side.id for side in await store.sides(campaign.id)]
    change: WizardChange | None = module.wizard_press(campaign, sides, action, value)
    if change is None:
        return None
    if change.map is not None:
        overrides = _fitted(
            change.overrides or campaign.ruleset_overrides, builtin_map(change.map), sides
        )
        return change.step, CampaignSettings(map=change.map, ruleset_overrides=overrides), None
    if change.overrides is None:
        return change.step, None, None
    settings, note = _checked(campaign, change.overrides)
    return change.step, settings, note


def _rules_settings(campaign: Campaign, value: str) -> tuple[CampaignSettings | None, str | None]:
    """A −/+ or «Standard rules» press: the settings to store, or a note why not."""
    overrides = changed_rules(campaign, value)
    if overrides is None:
        return None, _("Not possible: the rules would not hold with that number.")
    return CampaignSettings(ruleset_overrides=overrides), None


def _screen_step(value: str) -> str | None:
    """The step a «go» button shows (a module's: one it owns); ``None`` for one that does not
    fit."""
    if value in STEPS or value in ("joining", "rules") or _step_module(value) is not None:
        return value
    return None


async def _change(
    store: Store, campaign: Campaign, person: Person, action: str, value: str, clock: Clock
) -> tuple[Campaign, str, str | None] | None:
    """Apply a settings button; the campaign after it, the step to show and a note (or
    ``None`` for a button that does not fit)."""
    now, actor = clock.now(), person.user_id
    settings: CampaignSettings | None = None
    step, note = "summary", None
    if action == "go":
        found = _screen_step(value)
        if found is None:
            return None
        step = found
    elif (module := _action_module(action)) is not None:
        changed = await _module_change(store, campaign, module, action, value)
        if changed is None:
            return None
        step, settings, note = changed
    elif action == "rule":
        settings, note = _rules_settings(campaign, value)
        step = "rules"
    elif action == victory_check.ACTION:
        fixed = victory_check.fixed(campaign, value)
        if fixed is None:
            return None
        settings, note = _checked(campaign, fixed)
    elif action == "tz" and value in ZONES:
        settings, step = campaigns.zone_change(campaign, value), "map"
    elif action == "map" and (value in BUILTIN_MAPS or value in module_maps()):
        chosen = builtin_map(value)
        sides = [side.id for side in await store.sides(campaign.id)]
        overrides = _fitted(campaign.ruleset_overrides, chosen, sides)
        settings = CampaignSettings(map=value, ruleset_overrides=overrides)
        step = "sides"
    elif action == "col":
        note, step = await _recolour(store, campaign, value, actor, now), "sides"
    elif action == "del":
        settings, step = await _remove_side(store, campaign, value, actor, clock), "sides"
    elif action == "sched" and value in ("weekly", "manual"):
        schedule = campaign.schedule.model_copy(update={"mode": value})
        settings, step = CampaignSettings(schedule=schedule), "policy"
    elif action == "dep" and value in ("all", "0", "3", "7"):
        settings, step = _deployment_end(campaign, value, now), "schedule"
    elif action == "pol" and value in {p.value for p in UnreportedPolicy}:
        settings = CampaignSettings(unreported_policy=UnreportedPolicy(value))
    elif action == "joinset" and value in {p.value for p in JoiningPolicy}:
        settings = CampaignSettings(joining=JoiningPolicy(value))
    elif action == "lang" and value in LANGUAGE_NAMES:
        settings = CampaignSettings(language="ru" if value == "ru" else "en")
    else:
        return None
    if settings is not None:
        campaign = await store.update_settings(campaign.id, settings, actor, now)
    return campaign, step, note


async def _recolour(
    store: Store, campaign: Campaign, value: str, actor: int, now: datetime
) -> str | None:
    """A side's new colour (``value``: «side.key»); a note if it is taken now."""
    side_id, _sep, key = value.partition(".")
    colour = campaigns.colour_by_key(key)
    recoloured = colour and await campaigns.recolour_side(
        store, campaign, side_id, colour, actor, now
    )
    return None if recoloured else _("That colour is taken now; choose another.")


def _deployment_end(campaign: Campaign, value: str, now: datetime) -> CampaignSettings:
    """How deployment ends (``value``: «all» when all have placed, «0» when the GM ends it,
    else after that many days or earlier once all have placed)."""
    days = 0 if value == "all" else int(value)
    deadline = campaigns.deployment_deadline(now, campaign.time_zone, days)
    schedule = campaign.schedule.model_copy(
        update={"deployment_deadline": deadline, "deployment_ends_when_placed": value != "0"}
    )
    return CampaignSettings(schedule=schedule)


def _ask_text(what: str, name: str) -> str:
    asks = {
        "title": _("{name}, reply to this message with the campaign's new name."),
        "zone": _(
            "{name}, reply with the time zone: a city or an IANA name, e.g. Omsk or Asia/Omsk."
        ),
        "map": _("{name}, reply to this message with the map as a TOML file (up to 256 KB)."),
        "side": _("{name}, reply with the new side's name, e.g. «Imperium» or «Red»."),
        "rules": _(
            "{name}, reply with rule overrides as name=number, e.g. «start_armies=12 "
            "sectors_to_win=4», or «default» for the standard rules."
        ),
        "margins": _(
            "{name}, reply with the score margins: three growing numbers, the least margin of "
            "points for a solid victory, a crushing victory and a slaughter, e.g. «1 5 10»."
        ),
    }
    return asks[what].format(name=name)


async def _colour_choice(
    query: CallbackQuery, store: Store, campaign: Campaign, side_id: str
) -> None:
    sides = await store.sides(campaign.id)
    side = next((s for s in sides if s.id == side_id), None)
    if side is None or not isinstance(query.message, Message):
        await query.answer(_("That side is gone."), show_alert=True)
        return
    others = [s for s in sides if s.id != side_id]
    buttons = [
        _button(f"{colour_mark(c.hex)} {colour_name(c.key)}", campaign, "col", f"{side.id}.{c.key}")
        for c in campaigns.free_colours(others)
    ]
    rows = [buttons[i : i + 2] for i in range(0, len(buttons), 2)]
    rows.append([_button(_("◀ Back"), campaign, "go", "sides")])
    await query.answer()
    await query.message.edit_text(
        _("Colour for {name}:").format(name=side.name),
        reply_markup=InlineKeyboardMarkup(inline_keyboard=rows),
    )


async def _confirm(
    query: CallbackQuery, store: Store, clock: Clock, person: Person, campaign: Campaign
) -> None:
    chosen = campaign.schedule.deployment_deadline
    if chosen is not None and chosen <= clock.now():
        await query.answer(
            _("The end of deployment you chose has passed: choose it again under «Schedule»."),
            show_alert=True,
        )
        return
    named = await _owners_named(query, store, clock, person, campaign)
    if named is None:
        return
    result = await advance(store, named.id, 0, Phase.SETUP, person.user_id, clock.now())
    if result.outcome is AdvanceOutcome.BLOCKED:
        await query.answer(
            _("A campaign needs at least two sides: add them under «Sides» first."),
            show_alert=True,
        )
        return
    if not result.advanced or not isinstance(query.message, Message):
        await query.answer(_("The campaign has already started."), show_alert=True)
        return
    if person.can_receive_private:
        await query.answer()
    else:
        await query.answer(
            _(
                "The campaign has begun. Open a private chat with me (tap my name, then "
                "«Start»): that is where I send you disputed results to decide, join requests "
                "and alarms."
            ),
            show_alert=True,
        )
    text, _keyboard = await summary(store, campaign)
    await query.message.edit_text(text.rsplit("\n\n", 1)[0])


async def _owners_named(
    query: CallbackQuery, store: Store, clock: Clock, person: Person, campaign: Campaign
) -> Campaign | None:
    """The campaign with its map's holders and owners (``owner`` of an occult token or of
    defences) written by a side's name stored as that side's id, as the rules read them, now
    that the sides are final; ``None``, with the GM told which, while one names no side."""
    sides = [(side.id, side.name) for side in await store.sides(campaign.id)]
    named, unknown = setup_map.owners_by_id(campaign, sides)
    if unknown:
        listed = ", ".join(f"{feature.id} («{feature.owner}»)" for feature in unknown[:5])
        await query.answer(
            _(
                "The map names an owner that is no side here: {features}. Pick one with 🚩 on "
                "the module's screen, or write a side's name in the map file."
            ).format(features=listed)[:200],
            show_alert=True,
        )
        return None
    if named is None:
        return campaign
    return await store.update_settings(
        campaign.id, CampaignSettings(map=named), person.user_id, clock.now()
    )


def build() -> Router:
    """This module's router (a new one per dispatcher)."""
    router = Router(name=__name__)
    router.message.register(new_campaign, Command("newcampaign"))
    router.message.register(cancel_answer, Command("cancel"))
    router.message.register(uploaded_map, Awaited(F.document), AwaitedAnswer("setup.map"))
    router.message.register(typed_answer, Awaited(F.text), AwaitedAnswer("setup."))
    router.callback_query.register(pressed, SetupPress.filter())
    return router
