"""``/rules``: the campaign's rules with its own numbers, in the group and in private, one
section a page with buttons; always true to the stored settings (compared with them for
random settings, every module on); in the reader's language; in every phase."""

from __future__ import annotations

import random
import re
from datetime import timedelta
from typing import Any

from aiogram.methods import AnswerCallbackQuery, EditMessageText, SendMessage

from bot.handlers.rules import RulesPress
from bot.runtime.clock import ManualClock
from bot.services.campaigns import end_campaign
from bot.services.turns import game_for
from bot.texts.limits import TEXT_LIMIT
from rules import Ruleset
from rules.modules.contact import ContactSettings
from rules.modules.siege import SiegeSettings
from rules.modules.watch import WatchSettings
from rules.ruleset import Outcome
from rules.table import ScoreMargins
from storage import (
    Campaign,
    CampaignSettings,
    JoiningPolicy,
    NewCampaign,
    NewSide,
    NoShowPolicy,
    Store,
    UnreportedPolicy,
)
from tests.bot.private_campaign import GM, GROUP, open_table
from tests.bot.telegram import FakeTelegram, Sent
from tests.storage.campaign_script import PLACEMENTS

SECTORS = {"1": "1 Equator", "2": "2 West", "3": "3 East", "4": "4 North Pole", "5": "5 South Pole"}
ALL_MODULES = {"modules": ["siege", "contact", "watch"]}
HEROES = [
    {"id": "h1", "side": "red", "name": "Лариса", "initiative": 2, "start": "1"},
    {"id": "h2", "side": "blue", "name": "Андрей", "initiative": 4, "start": "3"},
]


async def _pages(telegram: FakeTelegram, user_id: int, chat_id: int) -> dict[str, Sent]:
    """``/rules`` in ``chat_id`` by ``user_id``, then every section's button in turn: each
    section's screen by its button's section name."""
    user = telegram.users[user_id]
    first = await telegram.feed(telegram.message(user, chat_id, "/rules"))
    assert first is not None
    assert isinstance(first.method, SendMessage), first
    pages = {"campaign": first}
    for _label, data in first.buttons():
        section = RulesPress.unpack(data).s
        shown = await telegram.feed(telegram.press(user, first, data))
        assert shown is not None
        if section != "campaign":
            assert isinstance(shown.method, EditMessageText), shown
            pages[section] = shown
    for page in pages.values():
        assert len(page.text) < TEXT_LIMIT
        assert all(len(label) <= 40 for label, _data in page.buttons())
    return pages


async def test_rules_in_the_group_and_in_private_in_the_readers_language(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    overrides = {**ALL_MODULES, "module_settings": {"watch": {"heroes": HEROES}}}
    await open_table(telegram, store, clock, overrides)
    group = await _pages(telegram, GM, GROUP)
    assert list(group) == ["campaign", "orders", "battles", "monday", "siege", "contact", "watch"]
    first = group["campaign"].text
    assert first.startswith("📖 Rules of «Siege» (1 of 7)")
    assert "• 1 Equator: 2 West, 3 East, 4 North Pole, 5 South Pole" in first
    assert "• 4 North Pole: 1 Equator, 2 West, 3 East" in first
    assert "Now: deployment." in first
    assert "Rule modules: 🏰 Midnight Siege, 🧟 Contact, 🌃 Watches." in first
    assert [label for label, _data in group["watch"].buttons()][-1] == "• 🌃 Watches"
    assert "• Лариса (side «Red Legion»), initiative 2, starts in 1 Equator" in group["watch"].text

    # Борис reads in Russian in private: the sectors' names too.
    russian = await _pages(telegram, 203, 203)
    assert russian["campaign"].text.startswith("📖 Правила «Siege» (1 из 7)")
    assert "• 1 «Экватор»: 2 «Запад», 3 «Восток», 4 «Северный полюс»" in russian["campaign"].text
    assert "Расстановка: каждая сторона тайно расставляет 10 армий ровно по 3 разным секторам" in (
        russian["orders"].text
    )
    assert (
        "Если сторона не отдала приказы к сроку, стоит на месте: все её сектора укрепляются."
        in russian["campaign"].text
    )
    # The outcomes in the glossary's words, and once the names the rules' text uses.
    assert "• Ничья: никто не теряет армий" in russian["battles"].text
    assert "Бой, о котором никто не сообщил: засчитывается ничья без потерь." in (
        russian["battles"].text
    )
    assert russian["battles"].text.count("Slaughter — разгром") == 1
    assert "Crushing victory — сокрушительная победа" in russian["battles"].text
    assert "in English" not in group["battles"].text
    assert "• Иной" not in russian["watch"].text
    assert "• Лариса (сторона «Red Legion»), инициатива 2" in russian["watch"].text


async def test_rules_answer_in_every_phase(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    setting_up = await store.create_campaign(
        NewCampaign(chat_id=GROUP - 5, title="Draft", created_by=GM, creator_name="GM"),
        clock.now(),
    )
    telegram.group(setting_up.chat_id, "Drafts")
    await store.see_person(GM, "Game Master", None, "en", True, clock.now())
    telegram.user(GM, "Game Master")
    draft = await _pages(telegram, GM, setting_up.chat_id)
    assert "Now: setup." in draft["campaign"].text
    assert "Sides:\nnone yet" in draft["campaign"].text

    table = await open_table(telegram, store, clock)
    seen = [(await _pages(telegram, GM, GROUP))["campaign"].text]
    for side, placement in PLACEMENTS.items():
        await store.save_placement(table.campaign.id, side, placement, True, GM, clock.now())
    for _step in range(3):  # orders, battles, then the resolution opens turn 2's orders
        await table.step()
        seen.append((await _pages(telegram, 201, 201))["campaign"].text)
    assert [re.findall(r"^Now: .*$", text, re.MULTILINE) for text in seen] == [
        ["Now: deployment."],
        ["Now: turn 1, orders."],
        ["Now: turn 1, battles."],
        ["Now: turn 2, orders."],
    ]
    assert "• turn 1: battle list: " in seen[1]
    assert "Deadline: " in seen[2]


async def test_a_rules_button_is_read_only_where_the_campaign_is(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    await open_table(telegram, store, clock)
    pages = await _pages(telegram, GM, GROUP)
    stranger = telegram.user(999, "Stranger")
    data = next(data for _label, data in pages["campaign"].buttons() if ":battles" in data)
    other = telegram.group(GROUP - 1, "Another group")
    forged = await telegram.feed(telegram.forged_press(stranger, other, data))
    assert forged is not None
    assert isinstance(forged.method, AnswerCallbackQuery)
    assert forged.method.show_alert
    campaign_id = RulesPress.unpack(data).c
    made_up = RulesPress(c=campaign_id, s="nonsense").pack()
    refused = await telegram.feed(telegram.forged_press(telegram.users[GM], GROUP, made_up))
    assert refused is not None
    assert isinstance(refused.method, AnswerCallbackQuery)
    assert refused.method.show_alert
    # In private, only a member of the campaign reads its rules.
    elsewhere = await telegram.feed(telegram.forged_press(stranger, stranger.id, data))
    assert elsewhere is not None
    assert isinstance(elsewhere.method, AnswerCallbackQuery)
    assert elsewhere.method.show_alert
    member = await telegram.feed(telegram.forged_press(telegram.users[201], 201, data))
    assert member is not None
    assert isinstance(member.method, EditMessageText)
    assert "Outcomes and the armies lost in the battle's sector:" in member.text


# ---- random settings ---------------------------------------------------------------------


def _random_settings(rng: random.Random) -> dict[str, Any]:
    """Ruleset overrides with every module on and random numbers everywhere."""
    per = rng.randint(1, 6)
    sectors = rng.randint(1, 5)
    foc = [
        {
            "armies": armies,
            "limits": {
                "hq": rng.randint(0, 3),
                "troops": [rng.randint(0, 3), rng.randint(3, 9)],
                "elite": rng.randint(0, 4),
                "fast_attack": rng.randint(0, 4),
                "heavy_support": rng.randint(0, 4),
            },
        }
        for armies in sorted({1, *rng.sample(range(2, 12), rng.randint(0, 4))})
    ]
    tokens = [
        {
            "id": f"T{n}",
            "kind": rng.choice(["fortification", "occult"]),
            "sector": str(rng.randint(1, 5)),
            "strength": rng.randint(1, 40),
        }
        for n in range(rng.randint(0, 4))
    ]
    for token in tokens:
        if token["kind"] == "occult" and rng.random() < 0.5:
            token["owner"] = rng.choice(["red", "blue", "green"])
    siege = {
        "strength_per_army": rng.randint(1, 5),
        "die": rng.randint(2, 20),
        "assault_loss": rng.randint(0, 4),
        "guard_range": rng.randint(0, 4),
        "weather_steps_per_turn": rng.randint(0, 5),
        "weather_control": rng.sample(["1", "2", "3", "4", "5"], rng.randint(0, 2)),
        "tokens": tokens,
        "weather_states": [
            {"name": f"State{n}", "text": f"Effect {rng.randint(0, 999)}"} for n in range(8)
        ],
        "rewards": [
            {"id": f"r{n}", "price": rng.randint(1, 30), "text": f"Reward {n}"}
            for n in range(rng.randint(1, 5))
        ],
        "roles": {"red": ["stormer"]} if rng.random() < 0.5 else {},
    }
    contact = {
        "strength_per_army": rng.randint(1, 5),
        "transports_per_turn": rng.randint(0, 3),
        "transport_capacity": rng.randint(1, 9),
        "transport_range": rng.randint(1, 4),
        "zombie_deck": [rng.randint(1, 9) for _n in range(rng.randint(1, 8))],
        "warlord_vp": rng.randint(0, 6),
        "defences_vp": rng.randint(0, 6),
        "defences": [
            {"sector": sector, "level": rng.choice([1, 2]), "owner": rng.choice(["red", None])}
            for sector in rng.sample(["1", "2", "3", "4", "5"], rng.randint(0, 3))
        ],
    }
    if rng.random() < 0.6:
        contact["vp_to_win"] = rng.randint(1, 40)
    watch = {
        "heroes": [
            {
                "id": f"h{n}",
                "side": rng.choice(["red", "blue", "green"]),
                "name": f"Hero{n}",
                "initiative": rng.randint(0, 20),
                "start": str(rng.randint(1, 5)),
                "enters_turn": rng.choice([1, 1, 3]),
            }
            for n in range(rng.randint(0, 4))
        ],
        "wounds_to_kill": rng.randint(1, 9),
        "hand_size": rng.randint(0, 6),
        "spell_deck": [rng.choice(["A", "D"]) + str(rng.randint(0, 9)) for _n in range(6)],
        "duel_mode": rng.choice(["initiative", "sealed"]),
        "duel_step_hours": rng.randint(1, 72),
        "hero_victory": rng.random() < 0.5,
    }
    if rng.random() < 0.5:
        watch["npc"] = {"name": "Егор", "start": str(rng.randint(1, 5))}
    return {
        "start_armies": rng.randint(sectors, 20),
        "start_sectors": sectors,
        "armies_per_attack": per,
        "capture_min_armies": rng.randint(1, 6),
        "sectors_to_win": rng.randint(1, 5),
        "battle_points": rng.choice([500, 750, 1000, 1500, 2000]),
        "replenishment": rng.randint(0, 3),
        "reinforcement": rng.randint(0, 3),
        "losses": {outcome.value: rng.randint(0, 4) for outcome in Outcome},
        "foc_table": foc,
        "modules": ["siege", "contact", "watch"],
        "module_settings": {"siege": siege, "contact": contact, "watch": watch},
    }


NO_SHOW = {
    NoShowPolicy.HOLD: "it holds: every sector fortifies",
    NoShowPolicy.REPEAT: "it repeats last turn's orders (those still valid)",
    NoShowPolicy.WAIT_FOR_GM: "the orders wait for the GM",
}
UNREPORTED = {
    UnreportedPolicy.DRAW: "counted as a draw without losses",
    UnreportedPolicy.WAIT_FOR_GM: "resolution waits for the GM",
}
JOINING = {
    JoiningPolicy.APPROVAL: "every new player needs a GM's approval",
    JoiningPolicy.OPEN_THEN_CLOSED: "open until deployment ends, then closed",
    JoiningPolicy.OPEN_THEN_APPROVAL: "open until deployment ends, then with a GM's approval",
}


def _plural(n: int, one: str, many: str) -> str:
    return f"{n} {one if n == 1 else many}"


def _expected(campaign: Campaign) -> list[str]:
    """Every line the settings make the rules say, worded as the English screens word them."""
    game = game_for(campaign)
    ruleset: Ruleset = game.ruleset
    siege = game.settings_of("siege", SiegeSettings)
    contact = game.settings_of("contact", ContactSettings)
    watch = game.settings_of("watch", WatchSettings)
    names = {"red": "Red Legion", "blue": "Синие", "green": "Green Horde"}
    lines = [
        f"each side places {_plural(ruleset.start_armies, 'army', 'armies')} in secret over "
        f"exactly {_plural(ruleset.start_sectors, 'different sector', 'different sectors')},",
        f"one attack for every {_plural(ruleset.armies_per_attack, 'army', 'armies')} (rounded",
        f"one battle per attack, {ruleset.battle_points} points a side.",
        f"a side with {_plural(ruleset.capture_min_armies, 'army', 'armies')} or more in a "
        "sector where no other side has any captures it.",
        f"it gets +{ruleset.replenishment} there.",
        f"gets +{ruleset.reinforcement} in its reinforcement sector",
        f"a side holding {_plural(ruleset.sectors_to_win, 'captured sector', 'captured sectors')}"
        " wins;",
        f"a margin under {campaign.score_margins.solid} is a draw, from "
        f"{campaign.score_margins.solid} a solid victory, from {campaign.score_margins.crushing}"
        f" a crushing one, from {campaign.score_margins.slaughter} a slaughter.",
    ]
    lines += [
        "When a side gives no orders by the deadline, " + NO_SHOW[campaign.no_show_policy] + ".",
        "A battle nobody reports by the deadline: " + UNREPORTED[campaign.unreported_policy],
        "Joining: " + JOINING[campaign.joining] + ".",
    ]
    rows = ruleset.foc_table
    for index, row in enumerate(rows):
        limits = row.limits
        described = (
            f"HQ {limits.hq}, Troops {limits.troops[0]}-{limits.troops[1]}, Elite "
            f"{limits.elite}, Fast Attack {limits.fast_attack}, Heavy Support "
            f"{limits.heavy_support}"
        )
        if index == len(rows) - 1:
            count = f"{_plural(row.armies, 'army', 'armies')} or more"
        elif rows[index + 1].armies - 1 == row.armies:
            count = _plural(row.armies, "army", "armies")
        else:
            count = f"{row.armies}–{rows[index + 1].armies - 1} armies"
        lines.append(f"• {count}: {described}")
    words = {
        Outcome.DRAW: "Draw",
        Outcome.SOLID: "Solid victory",
        Outcome.CRUSHING: "Crushing victory",
        Outcome.SLAUGHTER: "Slaughter",
    }
    for outcome in Outcome:
        lost = ruleset.losses.for_outcome(outcome)
        said = (
            "nobody loses an army"
            if not lost
            else f"the loser loses {_plural(lost, 'army', 'armies')}"
            if outcome.has_winner
            else f"each side loses {_plural(lost, 'army', 'armies')}"
        )
        lines.append(f"• {words.get(outcome, 'Bloody draw')}…: {said}")
    # siege
    lines += [
        f"strength = {siege.strength_per_army} × armies in the sector + a d{siege.die};",
        f"A failed unguarded assault costs {_plural(siege.assault_loss, 'army', 'armies')}.",
        f"a side with armies up to {_plural(siege.guard_range, 'sector', 'sectors')} away may "
        "guard a token.",
        f"divided by {siege.strength_per_army} (rounded up)",
        f"Each side moves it at most {_plural(siege.weather_steps_per_turn, 'step', 'steps')} "
        "a turn",
        "It is steered from " + ", ".join(SECTORS[s] for s in siege.weather_control) + " ("
        if siege.weather_control
        else "No sector steers it: only won assaults move it.",
    ]
    for number, state in enumerate(siege.weather_states):
        lines.append(f"{number}. {state.name}: {state.text}")
    for item in siege.rewards:
        lines.append(f"• {item.price} VP: {item.text}")
    for token in siege.tokens:
        kind = "fortification" if token.kind == "fortification" else "occult token"
        said = f"• {token.id}: {kind} in {SECTORS[token.sector]}, strength {token.strength}"
        if token.kind == "occult":
            said += f", held by «{names[token.owner]}»" if token.owner else ", held by nobody"
        lines.append(said)
    if siege.roles:
        lines.append("Only assault: Red Legion. Only guard: nobody.")
    # contact
    lines += [
        f"Transport: {contact.transports_per_turn} a turn, up to "
        f"{_plural(contact.transport_capacity, 'army', 'armies')}, up to "
        f"{_plural(contact.transport_range, 'sector', 'sectors')} away.",
        f"it wins when {contact.strength_per_army} × its armies reach the card",
        "The deck: " + ", ".join(str(card) for card in contact.zombie_deck) + ".",
        f"VP: {contact.warlord_vp} for each enemy warlord slain, {contact.defences_vp} for "
        "ruining another side's defences.",
        f"A side with {contact.vp_to_win} VP wins."
        if contact.vp_to_win is not None
        else "VP win nothing by themselves in this campaign.",
    ]
    if contact.vp_to_win is not None:
        lines.append(f"Contact: a side with {contact.vp_to_win} VP or more wins")
    for spec in contact.defences:
        kind = "barricade (+1)" if spec.level == 1 else "blockpost (+2)"
        owner = f"{kind} of side «{names[spec.owner]}»" if spec.owner else f"{kind}, neutral"
        lines.append(f"• {SECTORS[spec.sector]}: {owner}")
    # watch
    for hero in watch.heroes:
        line = (
            f"• {hero.name} (side «{names[hero.side]}»), initiative {hero.initiative}, starts in "
            f"{SECTORS[hero.start]}"
        )
        if hero.enters_turn > 1:
            line += f", enters on turn {hero.enters_turn}"
        lines.append(line)
    lines += [
        f"each hero is dealt up to {_plural(watch.hand_size, 'spell', 'spells')} from a fresh "
        "deck: ",
        f"{_plural(watch.wounds_to_kill, 'wound', 'wounds')} kill.",
        "sealed: every hero's spells by one deadline"
        if watch.duel_mode == "sealed"
        else "step by step in initiative order",
        "Victory by heroes: a side whose heroes are the only ones alive wins."
        if watch.hero_victory
        else "Heroes alone do not win the campaign.",
    ]
    if watch.duel_mode == "initiative":
        lines.append(f"A step lasts at most {_plural(watch.duel_step_hours, 'hour', 'hours')};")
    if watch.npc is not None:
        lines.append(f"NPC marker: {watch.npc.name}, starts in {SECTORS[watch.npc.start]};")
    return lines


async def test_the_rules_are_true_to_random_settings(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    rng = random.Random(20260302)
    now = clock.now()
    await store.see_person(GM, "Game Master", None, "en", True, now)
    gm = telegram.user(GM, "Game Master")
    for round_number in range(12):
        chat = GROUP - 10 - round_number
        telegram.group(chat, f"Table {round_number}")
        overrides = _random_settings(rng)
        campaign = await store.create_campaign(
            NewCampaign(
                chat_id=chat,
                title=f"Random {round_number}",
                created_by=GM,
                creator_name="Game Master",
                ruleset_overrides=overrides,
            ),
            now,
        )
        for side_id, name, colour in (
            ("red", "Red Legion", "#cc0000"),
            ("blue", "Синие", "#0044cc"),
            ("green", "Green Horde", "#00aa33"),
        ):
            await store.add_side(
                campaign.id, NewSide(id=side_id, name=name, colour=colour), GM, now
            )
        solid = rng.randint(1, 5)
        crushing = rng.randint(solid, 9)
        campaign = await store.update_settings(
            campaign.id,
            CampaignSettings(
                unreported_policy=rng.choice(list(UnreportedPolicy)),
                joining=rng.choice(list(JoiningPolicy)),
                no_show_policy=rng.choice(list(NoShowPolicy)),
                score_margins=ScoreMargins(
                    solid=solid, crushing=crushing, slaughter=rng.randint(crushing, 20)
                ),
            ),
            GM,
            now,
        )
        game_for(campaign)  # the settings make a game
        pages = await _pages(telegram, gm.id, chat)
        text = "\n".join(page.text for page in pages.values())
        for expected in _expected(campaign):
            if "…" in expected:  # an outcome's line: its name (and a note), then its losses
                start, end = expected.split("…")
                found = any(
                    line.startswith(start) and line.endswith(end) for line in text.splitlines()
                )
                assert found, (round_number, expected, text)
            else:
                assert expected in text, (round_number, expected, text)


async def test_the_deployments_end_is_written_in_the_readers_language(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    # Found by the random campaigns (issue 31, seed 229): in a Russian campaign, an English
    # reader's /rules said «deployment ends вт, 31 марта, 23:59 (Сент-Джонс, UTC-2:30)».
    table = await open_table(telegram, store, clock)
    campaign = table.campaign
    deadline = clock.now() + timedelta(days=6)
    await store.update_settings(
        campaign.id,
        CampaignSettings(
            language="ru",
            time_zone="America/St_Johns",
            schedule=campaign.schedule.model_copy(update={"deployment_deadline": deadline}),
        ),
        GM,
        clock.now(),
    )
    english = (await _pages(telegram, 201, 201))["campaign"].text  # Anna reads English
    [line] = [line for line in english.splitlines() if line.startswith("Schedule")]
    assert "deployment ends Sun 8 Mar, 06:30 (St. John’s, UTC-2:30)" in line, line
    assert not re.search("[А-Яа-яЁё]", line), line
    russian = (await _pages(telegram, 203, 203))["campaign"].text  # Борис reads Russian
    [line] = [line for line in russian.splitlines() if line.startswith("Расписание")]
    assert "Сент-Джонс" in line, line
    group = (await _pages(telegram, GM, GROUP))["campaign"].text  # the group: the campaign's
    assert "Сент-Джонс" in group


async def test_a_groups_rules_and_history_keep_its_language_after_the_campaign(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    """Found by the random campaigns' bench (seed 45175): after a Russian campaign ended, an
    English player's tap on the group's rules page turned it into English for everyone; the
    group reads its last campaign's language, whoever taps."""
    table = await open_table(telegram, store, clock)
    settings = CampaignSettings.model_validate({"language": "ru"})
    campaign = await store.update_settings(table.campaign.id, settings, GM, clock.now())
    russian = await _pages(telegram, GM, GROUP)
    assert russian["campaign"].text.startswith("📖 Правила «Siege» (1 из 4)")
    assert await end_campaign(store, campaign, GM, clock.now(), "конец") is not None
    anna = telegram.users[201]  # English
    data = next(data for _label, data in russian["campaign"].buttons() if ":battles" in data)
    page = await telegram.feed(telegram.press(anna, russian["campaign"], data))
    assert page is not None
    assert page.text.startswith("📖 Правила «Siege» (3 из 4)"), page.text[:80]
    history = await telegram.feed(telegram.message(anna, GROUP, "/history"))
    assert history is not None
    assert history.text.startswith("«Siege»: история кампании."), history.text[:80]
    # In her private chat she still reads English.
    own = await telegram.feed(telegram.message(anna, anna.id, "/history"))
    assert own is not None
    assert own.text.startswith("«Siege»: the history."), own.text[:80]
