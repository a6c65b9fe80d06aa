"""The real bot process in webhook mode: the emulator delivers updates to the bot's own HTTP
server with the secret token, a GM sets up a campaign and a player joins through it, and a
request without the right secret is refused and changes nothing."""

import time
from pathlib import Path

import aiohttp

from storage import Role, SqliteCampaignStore
from tests.e2e.conftest import BotService
from tests.e2e.harness import Chat, ScriptedTelegram, User
from tests.e2e.scenario import ClockClient, Player, Table, create_campaign, join

WEBHOOK_SECRET = "e2e-webhook-secret-7f3a"
GROUP = Chat(id=-1002600, type="supergroup", title="Webhook Wargamers")
GM = Player(User(id=2601, first_name="Gwen"))
PLAYER = Player(User(id=2602, first_name="Pavel"))
STRANGER = User(id=2603, first_name="Stranger")


def _forged_help(update_id: int) -> dict[str, object]:
    return {
        "update_id": update_id,
        "message": {
            "message_id": 1,
            "date": int(time.time()),
            "chat": {"id": STRANGER.id, "type": "private", "first_name": STRANGER.first_name},
            "from": STRANGER.as_api(),
            "text": "/help",
            "entities": [{"type": "bot_command", "offset": 0, "length": 5}],
        },
    }


async def test_a_campaign_is_set_up_over_the_webhook_and_a_wrong_secret_is_refused(
    telegram: ScriptedTelegram, bot_service: BotService, tmp_path: Path
) -> None:
    await bot_service.start(webhook_secret=WEBHOOK_SECRET)
    webhook = f"http://127.0.0.1:{bot_service.webhook_port}/telegram/webhook"
    info = await telegram.bot_api("getWebhookInfo")
    assert info["url"] == webhook

    async with aiohttp.ClientSession() as session:
        table = Table(telegram, ClockClient(bot_service.clock_url, session), GROUP, GM)
        campaign_id = await create_campaign(table, "Webhook Siege", ["Red", "Blue"])
        joined = await join(table, PLAYER, "Red")
        assert any("You play Red as strategist" in text for text in joined.texts(PLAYER.chat_id))
        await table.wait_for_text(GROUP.id, "Pavel joined Red as strategist.")

        for headers in ({"X-Telegram-Bot-Api-Secret-Token": "not-the-secret"}, {}):
            async with session.post(webhook, json=_forged_help(900_001), headers=headers) as answer:
                assert answer.status == 401
        # The bot still serves; the forged /help got no answer, the real one does.
        await table.command(Player(STRANGER), "/help")
        answered = await telegram.bot_messages(STRANGER.id)
        assert len(answered) == 1
        assert "/orders" in answered[0]["text"]

        # The Mini App is served on the webhook's port, under /miniapp/ (MINIAPP_URL).
        miniapp = f"http://127.0.0.1:{bot_service.webhook_port}/miniapp/"
        async with session.get(miniapp) as page:
            assert page.status == 200
            assert "telegram-web-app.js" in await page.text()
        async with session.get(miniapp + "api/campaigns") as unsigned:
            assert unsigned.status == 401

    counts = await telegram.request_counts()
    assert counts.get("getUpdates", 0) == 0  # every update came by the webhook
    assert counts.get("setWebhook", 0) == 1
    bot_service.stop()
    store = await SqliteCampaignStore.open(bot_service.database)
    try:
        member = await store.member(campaign_id, PLAYER.user.id)
        people = await store.people([STRANGER.id])
    finally:
        await store.close()
    assert member is not None
    assert member.roles == frozenset({Role.STRATEGIST})
    assert STRANGER.id in people  # seen once: by the real /help only
