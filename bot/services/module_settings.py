"""A rule module's place in a campaign's ruleset overrides: switched on or off, its settings
stored or cleared. One pair of functions for every module's setup service."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any


def with_settings(overrides: Mapping[str, Any], module: str, new: dict[str, Any]) -> dict[str, Any]:
    """The overrides with ``module``'s settings replaced by ``new`` (empty: cleared, and
    ``module_settings`` dropped when no module has any)."""
    result = dict(overrides)
    module_settings = dict(result.get("module_settings") or {})
    if new:
        module_settings[module] = new
    else:
        module_settings.pop(module, None)
    if module_settings:
        result["module_settings"] = module_settings
    else:
        result.pop("module_settings", None)
    return result


def switched(overrides: Mapping[str, Any], module: str, on: bool) -> dict[str, Any]:
    """The overrides with ``module`` switched on (last in the list) or off; its settings are
    kept for switching back."""
    result = dict(overrides)
    modules = [name for name in result.get("modules") or () if name != module]
    if on:
        modules.append(module)
    if modules:
        result["modules"] = modules
    else:
        result.pop("modules", None)
    return result
