"""Built text never passes Telegram's 4096 characters: a long paste of typed orders is saved and
answered (refused lines counted, not all worded), and a long screen is split at line ends."""

from aiogram.methods import EditMessageText, SendMessage

from bot.handlers.private.base import show_screen
from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from bot.services.orders import seat_in
from bot.texts.limits import TEXT_LIMIT, shorten, split_text, telegram_length
from storage import Phase, Store
from tests.bot.private_campaign import GM, open_table, screen
from tests.bot.telegram import FakeTelegram, Sent

PLACEMENT = {"1": 4, "2": 3, "3": 3}


def texts(sent: list[Sent]) -> list[str]:
    """The texts of the messages sent or edited."""
    return [s.text for s in sent if isinstance(s.method, SendMessage | EditMessageText)]


async def test_a_pasted_wall_of_orders_is_saved_and_the_reply_fits(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    for side in ("red", "blue", "green"):
        await campaigns.place_side(store, table.campaign, side, PLACEMENT, GM, clock.now())
    await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, clock.now())

    sent = await table.say(201, "reinforce 1\n" + "zz\n" * 1300)

    stored = await store.orders(table.campaign.id, 1, "red")
    assert stored is not None
    assert stored.orders.reinforce == "1"
    replies = texts(sent)
    assert replies
    assert all(telegram_length(text) <= TEXT_LIMIT for text in replies)
    reply = "\n".join(replies)
    assert "Saved as a draft." in reply
    assert "Something went wrong" not in reply
    assert reply.count("✗") == 15
    assert "…and 24 more lines were not recorded." in reply
    assert "1261 more lines were not read: at most 40 lines in one message" in reply
    # The screen with its buttons is the last message.
    assert screen(sent).buttons()


async def test_a_long_screen_goes_out_in_pieces_with_the_buttons_under_the_last(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await open_table(telegram, store, clock)
    seat = await seat_in(store, 201, table.campaign.id)
    assert seat is not None
    text = "\n".join(f"line {n:05} " + "x" * 60 for n in range(200))
    keyboard = screen(await table.say(201, "/deploy")).markup
    table.take()
    await show_screen(telegram.bot, store, clock, seat, "test", 201, text, keyboard, None)
    pieces = [s for s in table.take() if isinstance(s.method, SendMessage)]
    assert len(pieces) > 1
    assert all(telegram_length(p.text) <= TEXT_LIMIT for p in pieces)
    assert "\n".join(p.text for p in pieces) == text
    assert all(p.markup is None for p in pieces[:-1])
    assert pieces[-1].markup == keyboard

    # Edited in place, it is shortened to one message.
    message_id = 1234
    await show_screen(telegram.bot, store, clock, seat, "test", 201, text, keyboard, message_id)
    edits = [s for s in table.take() if isinstance(s.method, EditMessageText)]
    assert len(edits) == 1
    assert telegram_length(edits[0].text) <= TEXT_LIMIT
    assert edits[0].text.endswith("…")


def test_limits_count_utf16_units_and_cut_at_line_ends() -> None:
    text = "\n".join("🛰" * 30 for _ in range(100))  # 60 units a line
    pieces = split_text(text, 1000)
    assert all(telegram_length(piece) <= 1000 for piece in pieces)
    assert all(piece.count("🛰") % 30 == 0 for piece in pieces)
    assert "\n".join(pieces) == text
    short = shorten(text, 1000)
    assert telegram_length(short) <= 1000
    assert short.endswith("\n…")
    assert shorten("fits", 1000) == "fits"
    assert split_text("x" * 2500, 1000) == ["x" * 1000, "x" * 1000, "x" * 500]
