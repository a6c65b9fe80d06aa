"""The chain battles of `contact` (MODULES.md C6) through the real dispatcher, as a club plays
them: Синие hold 3 East behind a blockpost, Red Legion's group arrives first and Green Horde's
second, so the Friday list has «Battle 1: Red Legion against Синие» and «Battle 2: Green
Horde against the winner of battle 1». Battle 2 is played and reported by the sides it has
once battle 1's result is in, whoever that is: the attacker winning battle 1, the defender
winning it, a draw, a defender wiped out (battle 2 not played), a yield, a GM deciding a
disputed battle 1, and battle 1 changed after battle 2 was reported (its report no longer
counts, both its old and new sides are told).

Every group is strong enough to beat any zombie card (4 armies x 2 >= card 7 + 1), so the
week does not depend on the seeds the bot draws."""

from __future__ import annotations

import functools
import json
from typing import Any

import pytest
from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.services import campaigns
from bot.services.clockwork import advance
from bot.texts.core import outcome_label
from bot.texts.i18n import build_i18n
from rules import Outcome
from rules.cli import resolve_answer
from rules.modules.contact import NAME as CONTACT
from storage import CampaignSettings, Language, Phase, Store
from tests.bot.private_campaign import GM, GROUP, Table, alert, open_table, screen
from tests.bot.telegram import FakeTelegram, Sent

PLACEMENTS = {"red": {"4": 6}, "blue": {"3": 6}, "green": {"5": 6}}
RED, BLUE, GREEN = "Red Legion", "Синие", "Green Horde"
ANNA, BORIS, CARL, VERA, GLEB, DORA = 201, 203, 202, 301, 302, 401


def rules(**losses: int) -> dict[str, Any]:
    """Contact with a VP victory at 3 (one slain warlord) and Синие's blockpost in 3 East."""
    found: dict[str, Any] = {
        "start_sectors": 1,
        "start_armies": 6,
        "modules": [CONTACT],
        "module_settings": {
            CONTACT: {
                "vp_to_win": 3,
                "defences": [
                    {"sector": "3", "level": 2, "owner": "blue"},
                    {"sector": "4", "level": 1, "owner": "red"},
                    {"sector": "5", "level": 1, "owner": "green"},
                ],
            }
        },
    }
    if losses:
        found["losses"] = losses
    return found


@functools.cache
def _catalogs() -> I18n:
    return build_i18n()


class Words:
    """The bot's words in one person's language (read from the catalogs, so the test follows
    the translation)."""

    def __init__(self, language: str) -> None:
        self.i18n: I18n = _catalogs()
        self.language = language

    def __call__(self, text: str, **values: object) -> str:
        with self.i18n.context(), self.i18n.use_locale(self.language):
            return self.i18n.gettext(text).format(**values)

    def outcome(self, outcome: Outcome) -> str:
        with self.i18n.context(), self.i18n.use_locale(self.language):
            return outcome_label(outcome)


async def chain_list(
    telegram: FakeTelegram,
    store: Store,
    clock: ManualClock,
    language: Language = "en",
    *,
    blue_yields: bool = False,
    **losses: int,
) -> Table:
    """The week up to the Friday list with the chain in 3 East (``blue_yields``: Синие give the
    sector up instead of defending it)."""
    table = await open_table(telegram, store, clock, rules(**losses))
    await store.update_settings(
        table.campaign.id, CampaignSettings(language=language), GM, clock.now()
    )
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    assert (await advance(store, table.campaign.id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    await telegram.deliver()
    typed = "\n".join(s.text for s in await table.say(ANNA, "move 4 from 4 to 3"))
    assert "✓" in typed, typed
    typed = "\n".join(s.text for s in await table.say(DORA, "move 4 from 5 to 3"))
    assert "✓" in typed, typed
    if blue_yields:
        typed = "\n".join(s.text for s in await table.say(VERA, "уступить 3"))
        assert "✓" in typed, typed
    assert (await advance(store, table.campaign.id, 1, Phase.ORDERS, GM, now)).advanced
    listed = texts_to(await telegram.deliver(), GROUP)
    words = Words(language)
    if blue_yields:
        assert words("{side} yielded the sector before the chain.", side=BLUE) in listed
    else:
        second = words(
            "  Battle {battle}: {attacker} against the winner of battle {before}; it "
            "opens for reporting once that result is in.",
            battle=2,
            attacker=GREEN,
            before=1,
        )
        assert second in listed, listed
        # Синие fortified 3 East: the advantage is theirs in battle 2 only if they defend it.
        conditional = words(
            "If {side} defends this battle too, its fortified advantage holds here: it is "
            "used once this turn in this sector.",
            side=BLUE,
        )
        assert conditional in listed, listed
    table.take()
    return table


async def report(
    table: Table,
    user: int,
    battle: int,
    outcome: Outcome,
    winner: str | None,
    slain: str | None = None,
) -> str:
    """``user`` reports battle ``battle`` from /battles with buttons; the answer's alert."""
    words = Words(table.users[user].language_code or "en")
    listing = screen(await table.say(user, "/battles"))
    picked = screen(await table.tap(user, listing, words("✍ Report battle {id}", id=battle)))
    chosen = await tap_exact(table, user, picked, words.outcome(outcome))
    if winner is not None:
        chosen = await table.tap(user, screen(chosen), words("{side} won", side=winner))
    question = screen(chosen)
    label = (
        words("No warlord was slain")
        if slain is None
        else words("☠ The warlord of {side} was slain", side=slain)
    )
    return alert(await table.tap(user, question, label))


async def tap_exact(table: Table, user: int, under: Sent, label: str) -> list[Sent]:
    """``user`` taps the button labelled exactly ``label`` under ``under``."""
    [data] = [data for text, data in under.buttons() if text == label]
    table.take()
    await table.telegram.feed(table.telegram.press(table.user(user), under, data))
    return table.take()


async def gm_decides(table: Table, battle: int, *labels: str) -> str:
    """The GM decides ``battle`` from /battles: «Decide», then each of ``labels``, then no
    warlord slain; the answer's alert."""
    listing = screen(await table.say(GM, "/battles"))
    shown = await table.tap(GM, listing, f"Decide battle {battle}")
    for label in labels:
        shown = await table.tap(GM, screen(shown), label)
    return alert(await table.tap(GM, screen(shown), "No warlord was slain"))


async def confirm(table: Table, user: int, battle: int) -> str:
    """``user`` confirms the other side's report of ``battle`` from /battles."""
    words = Words(table.users[user].language_code or "en")
    listing = screen(await table.say(user, "/battles"))
    return alert(await table.tap(user, listing, words("👍 Confirm battle {id}", id=battle)))


def texts_to(sent: list[Sent], chat: int) -> str:
    """Everything sent to ``chat``, one text after another."""
    return "\n".join(s.text for s in sent if s.chat_id == chat)


async def monday(table: Table) -> Any:
    """The resolution runs; its stored report."""
    campaign = await table.now_campaign()
    assert (
        await advance(table.store, campaign.id, 1, Phase.BATTLES, GM, table.clock.now())
    ).advanced
    await table.telegram.deliver()
    [resolution] = await table.store.resolutions(campaign.id, 1)
    return resolution.report


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_the_attacker_who_wins_battle_1_defends_battle_2(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: Language
) -> None:
    table = await chain_list(telegram, store, clock, language)
    red = ANNA if language == "en" else BORIS
    red_words = Words(language)
    dora = Words("en")

    # Before battle 1's result: battle 2 waits, and Red (who may defend it) sees it waiting.
    waiting = screen(await table.say(red, "/battles"))
    assert red_words("⏳ It waits for the result of battle {after}.", after=1) in waiting.text
    assert red_words("✍ Report battle {id}", id=2) not in str(waiting.buttons())

    assert await report(table, red, 1, Outcome.SOLID, RED, BLUE)
    assert await confirm(table, VERA, 1)

    # Red defends battle 2 now: told so in private, sees it, and can report it.
    told = await telegram.deliver()
    heading = dora(
        "Battle {id} now has its sides: {defender} defends it, as the result of battle "
        "{before} gives (each winner of the chain defends the next battle).",
        id=2,
        defender=RED,
        before=1,
    )
    assert heading in texts_to(told, DORA)
    # (the reporter sees it on the list his report redrew; his side's other players are told)
    assert Words("en")("✍ Report battle {id}", id=2) in str(
        [s.buttons() for s in told if s.chat_id == CARL]
    )
    no_longer = Words("ru")(
        "Your side no longer plays battle {id}: the result of battle {before} gives it to "
        "other sides.",
        id=2,
        before=1,
    )
    assert no_longer in texts_to(told, VERA)
    mine = screen(await table.say(red, "/battles"))
    assert red_words("✍ Report battle {id}", id=2) in str(mine.buttons())
    theirs = screen(await table.say(DORA, "/battles"))
    attacks = dora(
        "Battle {id}: {attacker} attacks {defender} in {sector}, {points} point",
        id=2,
        attacker=GREEN,
        defender=RED,
        sector="3 East",
        points=1000,
    ).split(", ")[0]
    assert attacks in theirs.text
    battle_2 = theirs.text.split(attacks)[1].split("\n\n")[0]
    assert BLUE not in battle_2
    assert "fortified" not in battle_2  # C6: only a defender that fortified the sector
    picked = screen(await table.tap(DORA, theirs, dora("✍ Report battle {id}", id=2)))
    winners = screen(await table.tap(DORA, picked, dora.outcome(Outcome.SOLID)))
    labels = [label for label, _data in winners.buttons()]
    assert dora("{side} won", side=GREEN) in labels
    assert dora("{side} won", side=RED) in labels
    assert dora("{side} won", side=BLUE) not in labels
    blue_view = screen(await table.say(VERA, "/battles"))
    assert "2" not in [data.split(":")[4] for _label, data in blue_view.buttons() if data]

    # Red reports battle 2 and Green confirms: it counts on Monday, and Red wins on VP.
    assert await report(table, red, 2, Outcome.SOLID, RED)
    assert await confirm(table, DORA, 2)
    result = await monday(table)
    assert result.unreported == ()
    assert {r.battle: r.winner for r in result.results} == {1: "red", 2: "red"}
    assert result.winner == "red"
    assert result.victory == "contact_vp"
    # The export names who really defended battle 2, and replays to the stored state.
    exported = await store.export_campaign(table.campaign.id)
    [turn] = [t for t in exported["turns"] if t["turn"] == 1]
    second = turn["battles"][1]
    assert (second["defender_from"], second["played"], second["fought_defender"]) == (
        1,
        True,
        "red",
    )
    replayed = resolve_answer(json.dumps(turn["document"]))
    assert replayed["state"]["armies"] == turn["state_after"]["armies"]
    assert replayed["winner"] == "red"


async def test_the_defender_who_wins_battle_1_defends_battle_2(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await chain_list(telegram, store, clock)
    assert await report(table, VERA, 1, Outcome.SOLID, BLUE)
    assert await confirm(table, ANNA, 1)
    await telegram.deliver()
    red = screen(await table.say(ANNA, "/battles"))
    assert "Report battle 2" not in str(red.buttons())
    assert await report(table, GLEB, 2, Outcome.CRUSHING, BLUE)
    assert await confirm(table, DORA, 2)
    result = await monday(table)
    assert {r.battle: r.winner for r in result.results} == {1: "blue", 2: "blue"}
    assert result.unreported == ()


async def test_a_draw_in_battle_1_leaves_the_defender_to_defend_battle_2(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await chain_list(telegram, store, clock)
    assert await report(table, ANNA, 1, Outcome.DRAW, None)
    assert await confirm(table, VERA, 1)
    await telegram.deliver()
    green = screen(await table.say(DORA, "/battles"))
    assert "Battle 2: Green Horde attacks Синие in 3 East" in green.text
    assert await report(table, DORA, 2, Outcome.SOLID, GREEN)
    assert await confirm(table, GLEB, 2)
    result = await monday(table)
    assert {r.battle: r.winner for r in result.results} == {1: None, 2: "green"}


async def test_a_defender_wiped_out_in_battle_1_leaves_battle_2_unplayed(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await chain_list(telegram, store, clock, bloody_draw=6)
    assert await report(table, ANNA, 1, Outcome.BLOODY_DRAW, None)
    assert await confirm(table, VERA, 1)
    told = await telegram.deliver()
    assert "Battle 2 is not played after all." in texts_to(told, DORA)
    green = screen(await table.say(DORA, "/battles"))
    assert "✖ Not played: Синие has no armies left after battle 1" in green.text
    assert "Report battle 2" not in str(green.buttons())
    gm = screen(await table.say(GM, "/battles"))
    assert "Decide battle 2" not in str(gm.buttons())
    result = await monday(table)
    assert result.unplayed == (2,)


async def test_a_yield_makes_the_first_arrival_defend_the_only_battle(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await chain_list(telegram, store, clock, blue_yields=True)
    green = screen(await table.say(DORA, "/battles"))
    assert "Battle 1: Green Horde attacks Red Legion in 3 East" in green.text
    assert await report(table, DORA, 1, Outcome.SOLID, GREEN)
    assert await confirm(table, ANNA, 1)
    result = await monday(table)
    assert [(b.attacker, b.defender) for b in result.battles] == [("green", "red")]
    assert {r.battle: r.winner for r in result.results} == {1: "green"}


async def test_a_gm_decides_a_disputed_battle_1_and_battle_2_follows_the_decision(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await chain_list(telegram, store, clock)
    assert await report(table, ANNA, 1, Outcome.SOLID, RED)
    await telegram.deliver()
    # Синие dispute it with their own account: battle 2 waits again, and its sides are told.
    listing = screen(await table.say(VERA, "/battles"))
    picked = screen(await table.tap(VERA, listing, "Оспорить"))
    winners = screen(await table.tap(VERA, picked, Words("ru").outcome(Outcome.SOLID)))
    question = screen(await table.tap(VERA, winners, BLUE))
    alert(await table.tap(VERA, question, Words("ru")("No warlord was slain")))
    told = await telegram.deliver()
    assert "Battle 2 waits again: the result of battle 1 is not settled." in texts_to(told, DORA)
    waiting = screen(await table.say(DORA, "/battles"))
    assert "It waits for the result of battle 1." in waiting.text
    # The GM takes Синие's account: Синие defend battle 2.
    gm = screen(await table.say(GM, "/battles"))
    assert "Decide battle 2" not in str(gm.buttons())
    assert (await gm_decides(table, 1, f"As side «{BLUE}» says")).startswith("Decided")
    told = await telegram.deliver()
    assert "Синие defends it" in texts_to(told, DORA)
    assert await report(table, DORA, 2, Outcome.SOLID, GREEN)
    assert await confirm(table, VERA, 2)
    result = await monday(table)
    assert {r.battle: r.winner for r in result.results} == {1: "blue", 2: "green"}
    assert result.unreported == ()


async def test_battle_1_changed_after_battle_2_was_reported(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await chain_list(telegram, store, clock)
    assert await report(table, ANNA, 1, Outcome.SOLID, RED)
    assert await report(table, DORA, 2, Outcome.SOLID, GREEN)
    assert await confirm(table, ANNA, 2)
    await telegram.deliver()
    # The GM decides battle 1 the other way: Синие won it, so Синие defend battle 2.
    decided = await gm_decides(table, 1, "Another outcome", f"{BLUE}: solid")
    assert decided.startswith("Decided")
    told = await telegram.deliver()
    assert "Your side no longer plays battle 2" in texts_to(told, ANNA)
    assert "Синие defends it" in texts_to(told, DORA)
    assert "Синие" in texts_to(told, VERA)
    green = screen(await table.say(DORA, "/battles"))
    assert "The result reported earlier was for other sides" in green.text
    assert "Report battle 2" in str(green.buttons())
    red = screen(await table.say(ANNA, "/battles"))
    assert "Battle 2" not in red.text
    gm_view = screen(await table.say(GM, "/battles"))
    assert "Decide battle 2" in str(gm_view.buttons())
    # Left alone, battle 2 counts as unreported at the resolution (not Green against Red).
    result = await monday(table)
    assert {r.battle: r.winner for r in result.results} == {1: "blue", 2: None}
    assert 2 in result.unreported


async def test_a_button_made_for_the_old_defender_is_refused(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await chain_list(telegram, store, clock)
    assert await report(table, ANNA, 1, Outcome.SOLID, RED)
    await telegram.deliver()
    listing = screen(await table.say(DORA, "/battles"))
    picked = screen(await table.tap(DORA, listing, "Report battle 2"))
    winners = screen(await table.tap(DORA, picked, "Solid victory"))
    # Meanwhile the GM gives battle 1 to Синие: «Red Legion won» is no longer a side of it.
    decided = await gm_decides(table, 1, "Another outcome", f"{BLUE}: solid")
    assert decided.startswith("Decided")
    refused = await table.tap(DORA, winners, f"{GREEN} won")
    assert "The sides of this battle changed" in alert(refused)
    reports = {r.battle: r for r in await store.battle_reports(table.campaign.id, 1)}
    assert reports[2].reported is None


async def test_a_correction_of_battle_1_after_the_monday_drops_battle_2s_result(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = await chain_list(telegram, store, clock)
    assert await report(table, ANNA, 1, Outcome.SOLID, RED)
    assert await confirm(table, VERA, 1)
    assert await report(table, DORA, 2, Outcome.SOLID, GREEN)
    assert await confirm(table, ANNA, 2)
    await monday(table)
    # The GM corrects battle 1 from the panel: Синие won it.
    panel = screen(await table.say(GM, "/gm"))
    results = screen(await table.tap(GM, panel, "Battle results"))
    assert "Battle 2: Green Horde vs Red Legion in 3 East" in results.text
    battle = screen(await table.tap(GM, results, "Battle 1"))
    winner = screen(await table.tap(GM, battle, f"{BLUE} won"))
    await table.tap(GM, winner, "Solid victory")
    told = "\n".join(
        text
        for m in await store.outbox_messages(table.campaign.id)
        if isinstance(text := m.payload.get("text"), str)
    )
    assert "The result of battle 2 was for other sides" in told
    [current] = await store.resolutions(table.campaign.id, 1)
    assert {r.battle: r.winner for r in current.results} == {1: "blue"}
    assert 2 in current.report.unreported
    results = screen(await table.tap(GM, screen(await table.say(GM, "/gm")), "Battle results"))
    assert "Battle 2: Green Horde vs Синие in 3 East" in results.text
