"""The post registry: kinds are unique, every queued kind has a renderer, text posts render."""

import re
from datetime import UTC, datetime
from pathlib import Path

import pytest
from aiogram.utils.i18n import I18n

from bot.posts import REGISTRY, PostContext, build_registry, render, render_text
from bot.services.posting import OPENINGS, stage_of
from storage import NewCampaign, NewOutboxMessage, OutboxStage, Store

ROOT = Path(__file__).resolve().parents[2]
NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


def _queued_kinds() -> set[str]:
    """Every kind the code queues: ``kind="..."`` and the kinds given to the post helpers."""
    kinds: set[str] = set()
    for path in (ROOT / "bot").rglob("*.py"):
        source = path.read_text(encoding="utf-8")
        kinds.update(re.findall(r'kind="([a-z_]+)"', source))
        kinds.update(re.findall(r'group_post\(\s*\w+,\s*"([a-z_]+)"', source))
        kinds.update(re.findall(r'private_post\(\s*\w+,\s*[\w.]+,\s*"([a-z_]+)"', source))
        kinds.update(re.findall(r'gm_posts\(\s*[\w.]+,\s*\w+,\s*"([a-z_]+)"', source))
    return kinds


def test_every_kind_the_code_queues_has_a_renderer() -> None:
    queued = _queued_kinds()
    assert "text" in REGISTRY
    assert {"map", "battle_list", "battle_notice", "status_board", "overdue_alarm"} <= queued
    missing = queued - set(REGISTRY)
    assert not missing, f"no renderer for post kinds {sorted(missing)}"


def test_the_kinds_that_tell_what_comes_next_are_kinds_with_renderers() -> None:
    assert not OPENINGS - set(REGISTRY), sorted(OPENINGS - set(REGISTRY))
    assert stage_of("private_phase_notice") is OutboxStage.NEXT
    assert stage_of("turn_result") is OutboxStage.NEWS


def test_a_kind_defined_twice_is_refused() -> None:
    with pytest.raises(ValueError, match="two renderers"):
        build_registry({"text": render_text})


async def test_a_text_post_renders_with_buttons(store: Store, i18n: I18n) -> None:
    campaign = await store.create_campaign(
        NewCampaign(chat_id=-7, title="Siege", created_by=1, creator_name="GM"), NOW
    )
    queued = await store.enqueue(
        NewOutboxMessage(
            campaign_id=campaign.id,
            chat_id=-7,
            kind="text",
            payload={
                "text": "Deployment is open",
                "buttons": [[{"text": "Join", "url": "https://t.me/strategium_bot?start=j1"}]],
                "pin": True,
            },
            dedup_key="t1",
        ),
        NOW,
    )
    post = await render(PostContext(store=store, i18n=i18n, bot_username="strategium_bot"), queued)
    assert post is not None
    assert (post.text, post.pin) == ("Deployment is open", True)
    assert post.keyboard is not None
    assert post.keyboard.inline_keyboard[0][0].url == "https://t.me/strategium_bot?start=j1"
