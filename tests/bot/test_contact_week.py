"""A contact week through the real dispatcher, with the group in English and in Russian: the
priority list by buttons and orders typed in both languages, the battle list with the movement
log, the zombies with their cards and the chain with who defends each battle; the chain's
battles reported one by one (the second opens once the first result is in), a slain warlord
marked with a button; the Monday summary with the retreats, exhaustion, VP and the VP victory.

Every group is strong enough to beat any zombie card (4 armies x 2 >= card 7 + 1), so the
week's outcome does not depend on the seeds the bot draws."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest
from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.screens.map_views import turn_map
from bot.services import campaigns
from bot.services.clockwork import advance
from rules.modules.contact import NAME as CONTACT
from rules.render import render_map
from storage import CampaignSettings, Language, Phase, Store
from tests.bot.private_campaign import GM, GROUP, Table, alert, open_table, screen
from tests.bot.telegram import FakeTelegram, Sent

CONTACT_RULES: dict[str, Any] = {
    "start_sectors": 1,
    "start_armies": 6,
    "modules": [CONTACT],
    "module_settings": {
        CONTACT: {
            "vp_to_win": 3,
            "defences": [
                {"sector": "3", "level": 1, "owner": "blue"},
                {"sector": "4", "level": 1, "owner": "red"},
                {"sector": "5", "level": 2, "owner": "green"},
            ],
        }
    },
}
PLACEMENTS = {"red": {"4": 6}, "blue": {"3": 6}, "green": {"5": 6}}
SAVE_PICTURE = os.environ.get("CONTACT_MAP_PICTURE")
"""A path to save the week's map to, for a person to look at (unset in the suite)."""


def _group_text(sent: list[Sent]) -> str:
    return "\n".join(s.text for s in sent if s.chat_id == GROUP)


async def _report(
    table: Table, reporter: int, confirmer: int, battle: int, winner: str, slain: str | None
) -> None:
    """``reporter`` reports ``winner``'s solid victory in ``battle`` (the warlord of ``slain``
    slain, or none); ``confirmer`` confirms."""
    listing = screen(await table.say(reporter, "/battles"))
    picked = screen(await table.tap(reporter, listing, f"Report battle {battle}"))
    outcome = screen(await table.tap(reporter, picked, "Solid"))
    question = screen(await table.tap(reporter, outcome, f"{winner} won"))
    assert "Was a warlord slain?" in question.text
    label = "No warlord was slain" if slain is None else f"The warlord of {slain} was slain"
    done = await table.tap(reporter, question, label)
    assert alert(done).startswith("Reported")
    listing = screen(await table.say(confirmer, "/battles"))
    word = "Confirm battle" if table.users[confirmer].language_code == "en" else "Подтвердить бой"
    confirmed = await table.tap(confirmer, listing, f"{word} {battle}")
    assert alert(confirmed)


GROUP_WORDS: dict[str, dict[str, str]] = {
    "en": {
        "order": "🧟 Contact. Turn order: Red Legion, Синие, Green Horde.",
        "red": "🚶 Red Legion: group 1 (4 armies) from 4 North Pole stops in 3 East, arrival 1.",
        "green": "🚶 Green Horde: group 1 (4 armies) from 5 South Pole stops in 3 East, arrival 2.",
        "zombies": "🧟 Red Legion: 4 armies in 3 East against zombie card",
        "chain": "⛓ Chain in 3 East: Синие defends first; each winner defends the next battle.",
        "level": "  Every defender in this chain reads its FOC row for 1 more army.",
        "second": "  Battle 2: Green Horde against the winner of battle 1; it opens for "
        "reporting once that result is in.",
        "red back": "↩ Red Legion: 3 armies retreat from 3 East to 4 North Pole, exhausted.",
        "green back": "↩ Green Horde: 3 armies retreat from 3 East to 5 South Pole, exhausted.",
        "warlord": "🏆 Синие: +3 VP, the warlord of Red Legion was slain in battle 1.",
        "tired": "😮\u200d💨 Exhausted next turn (they move one sector only): Red Legion: 3 "
        "armies in 4 North Pole; Green Horde: 3 armies in 5 South Pole.",
        "vp": "🏆 Victory points: Синие 3.",
        "won": "🏆 Синие has the victory points that win: the campaign is over.",
        "ex": "ex 3",
        "title": "VP: Синие 3",
    },
    "ru": {
        "order": "🧟 Сближение. Очерёдность сторон: Red Legion, Синие, Green Horde.",
        "red": "🚶 Сторона «Red Legion»: группа 1 (4 армии) из 4 «Северный полюс» "
        "останавливается в 3 «Восток», прибытие 1.",
        "green": "🚶 Сторона «Green Horde»: группа 1 (4 армии) из 5 «Южный полюс» "
        "останавливается в 3 «Восток», прибытие 2.",
        "zombies": "🧟 Сторона «Red Legion»: 4 армии в 3 «Восток» против карты зомби",
        "chain": "⛓ Цепочка в 3 «Восток»: первой защищается сторона «Синие»; победитель каждого "
        "боя защищается в следующем.",
        "level": "  Схема организации войск каждого защитника в этой цепочке — как если бы у него "
        "было на 1 армию больше.",
        "second": "  Бой 2: сторона «Green Horde» против победителя боя 1; о нём можно "
        "сообщить, когда известен результат боя 1.",
        "red back": "↩ Сторона «Red Legion»: 3 армии отступают из 3 «Восток» в 4 «Северный полюс» "
        "измотанными.",
        "green back": "↩ Сторона «Green Horde»: 3 армии отступают из 3 «Восток» в 5 «Южный полюс» "
        "измотанными.",
        "warlord": "🏆 Сторона «Синие»: +3 ПО, военачальник стороны «Red Legion» убит в бою 1.",
        "tired": "😮\u200d💨 Измотаны на следующий ход (ходят лишь на один сектор): сторона "
        "«Red Legion»: 3 армии в 4 «Северный полюс»; сторона «Green Horde»: 3 армии в 5 «Южный "
        "полюс».",
        "vp": "🏆 Победные очки: Синие 3.",
        "won": "🏆 У стороны «Синие» победные очки для победы: кампания окончена.",
        "ex": "изм 3",
        "title": "ПО: Синие 3",
    },
}


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_a_contact_week_through_the_dispatcher(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n, language: Language
) -> None:
    words = GROUP_WORDS[language]
    table = await open_table(telegram, store, clock, CONTACT_RULES)
    campaign_id = table.campaign.id
    await store.update_settings(campaign_id, CampaignSettings(language=language), GM, clock.now())
    now = clock.now()
    for side, placement in PLACEMENTS.items():
        await campaigns.place_side(store, table.campaign, side, placement, GM, now)
    await telegram.deliver()
    table.take()
    assert (await advance(store, campaign_id, 0, Phase.DEPLOYMENT, GM, now)).advanced
    await telegram.deliver()

    # Red moves a group by buttons; Green types in English, Blue sets a retreat in Russian.
    home = screen(await table.say(201, "/orders"))
    sector = screen(await table.tap(201, home, "4 North Pole"))
    destinations = screen(await table.tap(201, sector, "Move a group"))
    counts = screen(await table.tap(201, destinations, "3 East"))
    assert alert(await table.tap(201, counts, "4")).startswith("Saved")
    typed = "\n".join(s.text for s in await table.say(401, "move 4 from 5 to 3"))
    assert "✓ move 4 armies from 5 South Pole to 3 East" in typed
    typed = "\n".join(s.text for s in await table.say(301, "отступление из 3 в 1"))
    assert "✓ отступление из 3 «Восток» в 1 «Экватор»" in typed

    # Friday: the movement log, the zombies and the chain.
    assert (await advance(store, campaign_id, 1, Phase.ORDERS, GM, now)).advanced
    listed = _group_text(await telegram.deliver())
    for key in ("order", "red", "green", "zombies", "chain", "level", "second"):
        assert words[key] in listed, (key, listed)

    # Battle 2 waits for battle 1; Blue wins it and slays Red's warlord.
    waiting = screen(await table.say(401, "/battles"))
    assert "It waits for the result of battle 1." in waiting.text
    assert "Report battle 2" not in str(waiting.buttons())
    await _report(table, 202, 302, 1, "Синие", "Red Legion")
    await _report(table, 401, 302, 2, "Синие", None)
    reports = {report.battle: report for report in await store.battle_reports(campaign_id, 1)}
    assert reports[1].reported is not None
    assert reports[1].reported.modules == {CONTACT: {"warlord_slain": ["red"]}}
    assert reports[1].confirmed_by == 302

    # Monday: the attackers retreat exhausted; Blue's 3 VP win the campaign.
    assert (await advance(store, campaign_id, 1, Phase.BATTLES, GM, now)).advanced
    monday = _group_text(await telegram.deliver())
    for key in ("red back", "green back", "warlord", "tired", "vp", "won"):
        assert words[key] in monday, (key, monday)
    [resolution] = await store.resolutions(campaign_id, 1)
    assert resolution.report.winner == "blue"
    assert resolution.report.victory == "contact_vp"

    # The map after it: the defences, the exhausted armies, Blue's VP in the title.
    final = await store.turn_start(campaign_id, 2)
    assert final is not None
    with i18n.context(), i18n.use_locale(language):
        view = await turn_map(store, table.campaign, final, await store.sides(campaign_id), "W")
    assert {(mark.sector, mark.text, mark.side) for mark in view.marks} == {
        ("3", "+1", "blue"),
        ("4", "+1", "red"),
        ("5", "+2", "green"),
        ("4", words["ex"], "red"),
        ("5", words["ex"], "green"),
    }
    assert view.title == "W · " + words["title"]
    with i18n.context(), i18n.use_locale(language):
        monday_map = await turn_map(
            store, table.campaign, final, await store.sides(campaign_id), "W", week=True
        )
    assert monday_map.week is not None
    assert {(m.side, m.source, m.to, m.count) for m in monday_map.week.moves} == {
        ("red", "4", "3", 4),
        ("green", "5", "3", 4),
        ("red", "3", "4", 3),
        ("green", "3", "5", 3),
    }
    picture = render_map(view)
    assert picture.startswith(b"\x89PNG")
    if SAVE_PICTURE:
        Path(SAVE_PICTURE).with_suffix(f".{language}.png").write_bytes(picture)
