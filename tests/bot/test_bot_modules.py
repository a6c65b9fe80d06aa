"""The bot side's registry of rule modules (bot/modules/, issue 35): one entry per rules
module, and each module's routers and post kinds come from its own package and reach the app."""

from __future__ import annotations

from aiogram import Router
from aiogram.utils.i18n import I18n

from bot.handlers import build_router
from bot.handlers.group.clock import advanced_text
from bot.modules import BOT_MODULES, BotModule
from bot.posts import REGISTRY
from bot.services.clockwork import AdvanceOutcome, AdvanceResult, BlockReason
from rules.modules import BUILTIN_MODULES, module_maps


def _names(router: Router) -> list[str]:
    return [router.name, *(name for child in router.sub_routers for name in _names(child))]


def _child(router: Router, name: str) -> Router:
    return next(child for child in router.sub_routers if child.name == name)


def test_the_registry_lists_the_rules_modules_in_their_order() -> None:
    assert list(BOT_MODULES) == [module.name for module in BUILTIN_MODULES]
    assert all(module.name == name for name, module in BOT_MODULES.items())


def test_a_modules_routers_and_posts_are_its_packages() -> None:
    for name, module in BOT_MODULES.items():
        routers = [*module.group_routers(), *module.gm_routers(), *module.private_routers()]
        assert all(router.name.startswith(f"bot.modules.{name}.") for router in routers), name
        renderers = module.renderers()
        assert all(
            renderer.__module__.startswith(f"bot.modules.{name}.") and REGISTRY[kind] is renderer
            for kind, renderer in renderers.items()
        ), name
    assert BOT_MODULES["watch"].renderers()


def test_the_app_places_the_watch_routers_through_the_registry() -> None:
    root = build_router()
    group, private = _names(_child(root, "group")), _names(_child(root, "private"))
    assert {"bot.modules.watch.handlers.duels_gm", "bot.modules.watch.handlers.gm"} <= set(group)
    assert {
        "bot.modules.watch.handlers.duels_gm",
        "bot.modules.watch.handlers.gm",
        "bot.modules.watch.handlers.duels",
    } <= set(private)
    # The players' duel screens come before plain text is read as orders.
    assert private.index("bot.modules.watch.handlers.duels") < private.index(
        "bot.handlers.private.typed"
    )


def test_a_module_without_gm_tools_adds_nothing_to_the_state_editor_or_the_victory_check() -> None:
    """The hooks' defaults (bot/modules/protocol.py, slice hgroup) add nothing."""
    bare = BotModule("bare")
    assert bare.gm_state_screens() == {}
    assert bare.victory_fix({"modules": ["bare"]}, 6) is None


def test_each_module_on_fixes_an_early_end_with_its_own_victory(i18n: I18n) -> None:
    """Issue 30's warning (``bot.handlers.group.victory_check``): the Watches offer victory by
    heroes, contact its victory points (10 unless the GM set some), each with the map's every
    sector to capture; a module that is off offers nothing. In both languages."""
    both = {"modules": ["watch", "contact"]}
    with i18n.context(), i18n.use_locale("en"):
        heroes = BOT_MODULES["watch"].victory_fix(both, 6)
        vp = BOT_MODULES["contact"].victory_fix(both, 6)
        assert BOT_MODULES["watch"].victory_fix({"modules": ["contact"]}, 6) is None
        assert BOT_MODULES["contact"].victory_fix({"modules": ["watch"]}, 6) is None
        assert BOT_MODULES["siege"].victory_fix({"modules": ["siege"]}, 6) is None
    assert heroes is not None
    assert vp is not None
    assert (heroes.value, heroes.label) == ("heroes", "🌃 Victory by heroes only")
    assert heroes.overrides["module_settings"]["watch"] == {"hero_victory": True}
    assert "all 6 of the map" in heroes.line
    assert (vp.value, vp.label) == ("vp", "🧟 Victory points only")
    assert vp.overrides["module_settings"]["contact"] == {"vp_to_win": 10}
    assert vp.line.startswith("«🧟 Victory points only» sets 10 VP to win")
    with i18n.context(), i18n.use_locale("ru"):
        russian = BOT_MODULES["watch"].victory_fix(both, 6)
    assert russian is not None
    assert russian.label != heroes.label
    assert "6" in russian.line


def test_advance_while_a_modules_choice_waits_is_worded_by_that_module(i18n: I18n) -> None:
    """«Advance now» blocked by a choice after deployment: the siege says its starting weather
    waits; a module with no words of its own gets the shared ones. In both languages."""

    def words(*modules: str) -> str:
        return advanced_text(
            AdvanceResult(
                outcome=AdvanceOutcome.BLOCKED,
                campaign=None,
                reason=BlockReason.CHOICE_PENDING,
                modules=modules,
            )
        )

    with i18n.context(), i18n.use_locale("en"):
        assert words("siege").startswith("Not yet: the starting weather of the siege")
        assert words("contact").startswith("Not yet: a choice of this campaign's rules")
    with i18n.context(), i18n.use_locale("ru"):
        assert words("siege").startswith("Ещё нельзя: начальная погода осады не выбрана.")
        assert words().startswith("Ещё нельзя: выбор по правилам этой кампании ещё не сделан.")


def test_the_maps_a_module_offers_in_the_wizard_are_its_own(i18n: I18n) -> None:
    """``wizard_maps``: a module offers only built-in maps its rules side lists (the wizard
    takes a press on no other), each button with the place of the map's name; a module that
    ships no map offers none."""
    assert BotModule("bare").wizard_maps("en") == ()
    offered: dict[tuple[str, str], str] = {}
    for language in ("en", "ru"):
        with i18n.context(), i18n.use_locale(language):
            for name, module in BOT_MODULES.items():
                for shown in module.wizard_maps(language):
                    assert module_maps().get(shown.map) == name, shown
                    assert "{map}" in shown.button, shown
                    offered[language, shown.map] = shown.phrase
    assert offered == {
        ("en", "night-demo"): "the night map «Night Moscow» made for the Watches",
        ("ru", "night-demo"): "ночную карту «Ночная Москва» для Дозоров",
    }
