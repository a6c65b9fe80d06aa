"""The post registry: kinds are unique; text posts render with their buttons."""

from datetime import UTC, datetime

import pytest
from aiogram.utils.i18n import I18n

from bot.posts import PostContext, build_registry, render, render_text
from storage import NewCampaign, NewOutboxMessage, Store

NOW = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)


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
