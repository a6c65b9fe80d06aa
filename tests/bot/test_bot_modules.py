"""The bot side's registry of rule modules (bot/modules/, issue 35): one entry per rules
module, and each module's routers and post kinds come from its own package and reach the app."""

from __future__ import annotations

from aiogram import Router

from bot.handlers import build_router
from bot.modules import BOT_MODULES
from bot.posts import REGISTRY
from rules.modules import BUILTIN_MODULES


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
