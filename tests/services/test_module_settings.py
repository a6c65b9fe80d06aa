"""A module's place in the overrides: switched on and off with its settings kept, settings
cleared with the key dropped when no module has any."""

from bot.services.module_settings import switched, with_settings


def test_switching_off_keeps_the_settings_for_switching_back() -> None:
    overrides = {"modules": ["siege"], "module_settings": {"siege": {"rounds": 3}}}
    off = switched(overrides, "siege", False)
    assert off == {"module_settings": {"siege": {"rounds": 3}}}
    assert switched(off, "siege", True) == overrides
    assert switched(switched(overrides, "watch", True), "siege", True)["modules"] == [
        "watch",
        "siege",
    ]
    assert overrides == {"modules": ["siege"], "module_settings": {"siege": {"rounds": 3}}}


def test_settings_cleared_drop_the_key_only_when_no_module_has_any() -> None:
    both = with_settings({"module_settings": {"watch": {"deck": 8}}}, "contact", {"vp": 2})
    assert both == {"module_settings": {"watch": {"deck": 8}, "contact": {"vp": 2}}}
    assert with_settings(both, "contact", {}) == {"module_settings": {"watch": {"deck": 8}}}
    assert with_settings(with_settings(both, "contact", {}), "watch", {}) == {}
