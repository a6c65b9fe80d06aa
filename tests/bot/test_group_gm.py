"""GM tools from the ``/gm`` panel: each one works, is audited and announced; each is refused to a
non-member, a player and a GM of another campaign; stale buttons change nothing."""

from datetime import timedelta

import pytest
from aiogram.methods import AnswerCallbackQuery, EditMessageText
from aiogram.types import Chat, User
from aiogram.utils.i18n import I18n

from bot.runtime.clock import ManualClock
from bot.screens.callbacks import GmPress
from bot.services.campaigns import join_side
from bot.services.clockwork import advance
from rules import BattleResult, Game, Outcome, Ruleset, builtin_map, default_deployment
from storage import (
    AuditAction,
    Campaign,
    CampaignStatus,
    JoiningPolicy,
    Phase,
    Role,
    Store,
    UnreportedPolicy,
)
from tests.bot.group_helpers import (
    RED_PLACEMENT,
    button,
    notices,
    say,
    set_up_campaign,
    tap,
    to_battles,
    to_orders,
)
from tests.bot.private_campaign import rendered_outbox
from tests.bot.telegram import FakeTelegram, Sent

ACTIONS = (
    ("menu", ""),
    ("members", ""),
    ("member", "2"),
    ("side", "2.s2"),
    ("role", "2.co_gm"),
    ("role", "2.tactician"),
    ("kick", "2"),
    ("kick!", "2"),
    ("readmit", "2"),
    ("results", ""),
    ("battle", "1.1"),
    ("win", "1.1.s1"),
    ("set", "1.1.crushing.s1"),
    ("place", ""),
    ("placeside", "s2"),
    ("placedef", "s2"),
    ("placetype", "s2"),
    ("settings", ""),
    ("upol", "wait_for_gm"),
    ("jpol", "approval"),
    ("nsp", "repeat"),
    ("renames", ""),
    ("rename", "s1"),
    ("undo", ""),
    ("undo!", ""),
    ("end", ""),
    ("end!", ""),
)
"""Every GM panel action, with a plausible value."""


class Table:
    """A campaign in a group with its GM Anna, player Boris (Red) and onlooker Vera."""

    def __init__(self, telegram: FakeTelegram) -> None:
        self.telegram = telegram
        self.anna = telegram.user(1, "Anna")
        self.boris = telegram.user(2, "Boris")
        self.vera = telegram.user(3, "Vera")
        self.group = telegram.group(-100, "Wargamers")

    async def start(self, store: Store, clock: ManualClock) -> Campaign:
        campaign = await set_up_campaign(self.telegram, store, self.anna, self.group)
        await say(self.telegram, self.boris, self.boris.id, "/start")
        await store.request_join(campaign.id, 2, "Boris", clock.now())
        await join_side(store, campaign, 2, "Boris", "s1", Role.STRATEGIST, clock.now())
        return campaign

    async def panel(self, user: User | None = None) -> Sent:
        """The GM panel as ``user`` (Anna) opens it: ``/gm`` in their private chat."""
        who = user or self.anna
        sent = await say(self.telegram, who, who.id, "/gm")
        assert sent is not None
        return sent


def _alert(sent: list[Sent]) -> str:
    answers = [s.method for s in sent if isinstance(s.method, AnswerCallbackQuery)]
    assert len(answers) == 1
    assert answers[0].show_alert
    return answers[0].text or ""


@pytest.mark.parametrize("who", ["non_member", "player", "other_gm"])
async def test_every_gm_tool_is_refused_to_anyone_but_this_campaigns_gm(
    telegram: FakeTelegram, store: Store, clock: ManualClock, who: str
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    gleb = telegram.user(4, "Gleb")
    other_group = telegram.group(-200, "Elsewhere")
    await set_up_campaign(telegram, store, gleb, other_group, title="Other war")
    presser = {"non_member": table.vera, "player": table.boris, "other_gm": gleb}[who]
    refused = await say(telegram, presser, table.group, "/gm")
    assert refused is not None
    assert "Only this campaign's GM" in refused.text
    mine = await table.panel(presser)  # in private: the panel of no campaign of theirs here
    assert f"«{campaign.title}»" not in mine.text
    audit_before = await store.audit_log(campaign.id)
    outbox_before = await store.outbox_messages(campaign.id)
    telegram.take()
    for action, value in ACTIONS:
        data = GmPress(c=campaign.id, t=0, p="deployment", a=action, v=value).pack()
        await telegram.feed(telegram.forged_press(presser, table.group, data))
        sent = telegram.take()
        assert "Only this campaign's GM" in _alert(sent)
        assert all(s.chat_id is None for s in sent), "nothing is posted to any chat"
        # The same button in the presser's private chat, where GMs have their panel.
        await telegram.feed(telegram.forged_press(presser, presser.id, data))
        sent = telegram.take()
        assert "not valid any more" in _alert(sent)
        assert all(s.chat_id is None for s in sent), "nothing is posted to any chat"
    assert await store.audit_log(campaign.id) == audit_before
    assert await store.outbox_messages(campaign.id) == outbox_before
    await telegram.feed(telegram.forged_press(presser, table.group, f"gl:{campaign.id}:ru"))
    assert "Only this campaign's GM" in _alert(telegram.take())
    lang = await say(telegram, presser, table.group, "/lang")
    assert lang is not None
    assert "Only the GM sets the language" in lang.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.language == "en"
    assert await store.prompt(-100, presser.id) is None


async def test_a_gm_of_another_campaign_cannot_use_its_buttons_here(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    gleb = telegram.user(4, "Gleb")
    other_group = telegram.group(-200, "Elsewhere")
    other = await set_up_campaign(telegram, store, gleb, other_group, title="Other war")
    telegram.take()
    # Gleb's own campaign id, pressed in Anna's group: the button does not belong to this chat.
    data = GmPress(c=other.id, t=0, p="deployment", a="end!").pack()
    await telegram.feed(telegram.forged_press(gleb, table.group, data))
    assert "not valid any more" in _alert(telegram.take())
    for stored in (await store.campaign(campaign.id), await store.campaign(other.id)):
        assert stored is not None
        assert stored.status is CampaignStatus.DEPLOYMENT


async def test_the_gm_moves_names_a_co_gm_and_removes_members(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    panel = await table.panel()
    assert "GM tools: «Siege of Vraks»" in panel.text
    members = await tap(telegram, table.anna, panel, "Members")
    boris = await tap(telegram, table.anna, members, "Boris")
    assert boris is not None
    assert boris.text.startswith("Boris: side «Red»; strategist.\n")
    telegram.take()
    await tap(telegram, table.anna, boris, "Blue")
    sent = telegram.take()
    assert [type(s.method) for s in sent] == [AnswerCallbackQuery, EditMessageText]
    assert sent[1].text.startswith("GM tools")
    assert await notices(store, campaign.id) == ["GM Anna moved Boris to Blue."]
    member = await store.member(campaign.id, 2)
    assert member is not None
    assert member.side_id == "s2"
    panel = await table.panel()
    boris = await tap(
        telegram, table.anna, await tap(telegram, table.anna, panel, "Members"), "Boris"
    )
    await tap(telegram, table.anna, boris, "co-GM")
    assert (await notices(store, campaign.id))[-1] == (
        "GM Anna changed Boris's roles: co-GM, strategist."
    )
    co_gm_panel = await table.panel(table.boris)
    assert "GM tools" in co_gm_panel.text
    panel = await table.panel()
    boris = await tap(
        telegram, table.anna, await tap(telegram, table.anna, panel, "Members"), "Boris"
    )
    confirm = await tap(telegram, table.anna, boris, "Remove")
    await tap(telegram, table.anna, confirm, "Yes, remove Boris")
    assert (await notices(store, campaign.id))[-1] == "GM Anna removed Boris from the campaign."
    assert await store.member(campaign.id, 2) is None
    actions = [entry.action for entry in await store.audit_log(campaign.id)]
    assert actions.count(AuditAction.MEMBER_SET) >= 3
    assert AuditAction.MEMBER_REMOVED in actions


async def test_the_gm_places_a_side_that_did_not_deploy(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await store.save_placement(campaign.id, "s1", RED_PLACEMENT, True, 2, clock.now())
    panel = await table.panel()
    sides = await tap(telegram, table.anna, panel, "Place a side")
    assert sides is not None
    assert next(t for t, _ in sides.buttons()).endswith("Blue")
    telegram.take()
    await tap(telegram, table.anna, sides, "Blue")
    sent = telegram.take()
    game = Game.create(builtin_map("planet-5"), Ruleset())
    expected = default_deployment(game, {"s1": RED_PLACEMENT})
    shown = " ".join(f"{s}:{n}" for s, n in expected.items())
    assert _alert(sent) == f"Default for Blue (sector:armies): {shown}"
    edited = sent[-1]
    assert shown not in edited.text, "the proposal is shown to the GM only"
    telegram.take()
    await tap(telegram, table.anna, edited, "Use the default placement")
    assert await notices(store, campaign.id) == ["GM Anna placed Blue, which had not deployed."]
    placements = await store.placements(campaign.id)
    assert placements["s2"].placement == expected
    audit = [
        e for e in await store.audit_log(campaign.id) if e.action is AuditAction.PLACEMENT_SET_BY_GM
    ]
    assert len(audit) == 1
    result = await advance(store, campaign.id, 0, Phase.DEPLOYMENT, 1, clock.now())
    assert result.advanced


async def test_a_side_with_only_a_draft_placement_is_one_the_gm_can_place(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await store.save_placement(campaign.id, "s1", RED_PLACEMENT, True, 2, clock.now())
    await store.save_placement(campaign.id, "s2", {"3": 1}, False, 2, clock.now())  # a +/- draft
    blocked = await advance(store, campaign.id, 0, Phase.DEPLOYMENT, 1, clock.now())
    assert not blocked.advanced
    panel = await table.panel()
    sides = await tap(telegram, table.anna, panel, "Place a side")
    assert sides is not None
    assert "choose one to place it" in sides.text
    choice = await tap(telegram, table.anna, sides, "Blue")
    await tap(telegram, table.anna, choice, "Use the default placement")
    assert await notices(store, campaign.id) == ["GM Anna placed Blue, which had not deployed."]
    assert (await store.placements(campaign.id))["s2"].ready
    result = await advance(store, campaign.id, 0, Phase.DEPLOYMENT, 1, clock.now())
    assert result.advanced


async def test_the_gm_types_a_placement_in_private_checked_by_the_rules(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    panel = await table.panel()
    sides = await tap(telegram, table.anna, panel, "Place a side")
    choice = await tap(telegram, table.anna, sides, "Red")
    telegram.take()
    await tap(telegram, table.anna, choice, "Type a placement")
    sent = telegram.take()
    assert _alert(sent) == "I asked you in our private chat: type Red's placement there."
    [question] = [s for s in sent if s.chat_id is not None]
    assert question.chat_id == table.anna.id
    assert "type Red's placement here" in question.text
    assert "e.g. «1:4 2:3 4:3» (10 armies in 3 sectors)" in question.text
    in_group = await say(telegram, table.anna, table.group, "1:4 2:3 4:3")
    assert in_group is None, "the group is no place for a secret placement"
    unreadable = await say(telegram, table.anna, table.anna.id, "four in the north")
    assert unreadable is not None
    assert unreadable.chat_id == table.anna.id
    assert "sector:armies pairs" in unreadable.text
    wrong = await say(telegram, table.anna, table.anna.id, "1:4 2:3")
    assert wrong is not None
    assert wrong.chat_id == table.anna.id
    assert "Place exactly 10 armies in all (now 7)." in wrong.text
    assert "Use exactly 3 different sectors (now 2)." in wrong.text
    assert "s1" not in await store.placements(campaign.id)
    telegram.take()
    placed = await say(telegram, table.anna, table.anna.id, "1:4 2:3 4:3")
    assert placed is not None
    assert placed.chat_id == table.anna.id
    assert placed.text == (
        "Saved: Red at 1:4 2:3 4:3. The group is told that you placed it, not where."
    )
    assert await notices(store, campaign.id) == ["GM Anna placed Red, which had not deployed."]
    record = (await store.placements(campaign.id))["s1"]
    assert (record.placement, record.ready) == ({"1": 4, "2": 3, "4": 3}, True)
    assert await store.prompt(table.anna.id, table.anna.id) is None
    group_words = [s.text for s in telegram.sent if s.chat_id == table.group.id]
    group_words += [str(m.payload) for m in await store.outbox_messages(campaign.id)]
    assert not any("1:4" in words for words in group_words)


async def test_the_gm_can_stop_a_private_placement_question(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await say(telegram, table.anna, table.anna.id, "/start")
    panel = await table.panel()
    choice = await tap(
        telegram, table.anna, await tap(telegram, table.anna, panel, "Place a side"), "Blue"
    )
    await tap(telegram, table.anna, choice, "Type a placement")
    stopped = await say(telegram, table.anna, table.anna.id, "/cancel")
    assert stopped is not None
    assert "Stopped; nothing was changed." in stopped.text
    assert await store.prompt(table.anna.id, table.anna.id) is None
    assert "s2" not in await store.placements(campaign.id)


async def test_the_gm_lists_and_sets_battle_results(
    telegram: FakeTelegram, store: Store, clock: ManualClock, i18n: I18n
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    campaign = await to_battles(store, campaign, clock.now())
    reported = BattleResult(battle=2, outcome=Outcome.SOLID, winner="s2")
    await store.report_result(campaign.id, 1, reported, 2, clock.now())
    panel = await table.panel()
    results = await tap(telegram, table.anna, panel, "Battle results")
    assert results is not None
    assert "Battle 1: Red vs Blue in 1" in results.text
    assert "no result" in results.text
    assert (
        "Blue: solid victory (reported, not answered yet: it stands unless disputed)"
        in results.text
    )
    counter = BattleResult(battle=2, outcome=Outcome.DRAW)
    await store.dispute_result(campaign.id, 1, reported, counter, 1, clock.now())
    results = await tap(telegram, table.anna, await table.panel(), "Battle results")
    assert results is not None
    assert "no result (⚠️ disputed: Blue: solid victory or draw)" in results.text
    battle = await tap(telegram, table.anna, results, "Battle 1")
    winner = await tap(telegram, table.anna, battle, "Red won")
    assert winner is not None
    assert winner.text == "Battle 1: Red vs Blue in 1 Equator. Red won: by how much?"
    assert [label for label, _data in winner.buttons()] == [
        "Solid victory",
        "Crushing victory",
        "Slaughter",
        "◀ Back",
    ]
    done = await tap(telegram, table.anna, winner, "Crushing victory")
    assert done is not None
    # One announcement, the GM's decision, as /battles «Decide» makes it (sides told too).
    assert await notices(store, campaign.id) == []
    with i18n.context(), i18n.use_locale("en"):
        decided = [
            text
            for message, text in await rendered_outbox(store, i18n, campaign.id)
            if message.kind == "result_decided"
        ]
    assert decided == [
        "Battle 1 of turn 1, the GM's decision (Anna): Red: crushing victory. It is final."
    ]
    reports = await store.battle_reports(campaign.id, 1)
    assert reports[0].effective() == BattleResult(battle=1, outcome=Outcome.CRUSHING, winner="s1")
    assert AuditAction.RESULT_OVERRIDDEN in [e.action for e in await store.audit_log(campaign.id)]


async def test_the_results_tool_names_sectors_in_the_gms_language(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    # Found by the random campaigns (seed 1069): a Russian GM of an English campaign read
    # «Бой 2, сектор Hairdresser's»: the sectors were named in the campaign's language.
    table = Table(telegram)
    campaign = await table.start(store, clock)
    campaign = await to_battles(store, campaign, clock.now())
    await store.set_language(table.anna.id, "ru", clock.now())
    results = await tap(telegram, table.anna, await table.panel(), "Результаты боёв")
    assert results is not None
    assert "Бой 1, сектор 1 «Экватор»: «Red» — «Blue»" in results.text, results.text
    assert "Equator" not in results.text


async def test_the_gm_corrects_a_resolved_turn(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    campaign = await to_battles(store, campaign, clock.now())
    resolved = await advance(store, campaign.id, 1, Phase.BATTLES, 1, clock.now())
    assert resolved.advanced
    results = await tap(telegram, table.anna, await table.panel(), "Battle results")
    assert results is not None
    assert "Turn 1 (resolved)" in results.text
    battle = await tap(telegram, table.anna, results, "Battle 2")
    await tap(
        telegram, table.anna, await tap(telegram, table.anna, battle, "Blue won"), "Slaughter"
    )
    assert (
        "corrected battle 2 of turn 1: Blue: slaughter" in (await notices(store, campaign.id))[-1]
    )
    current = await store.resolutions(campaign.id, 1)
    assert current[-1].revision == 2
    assert BattleResult(battle=2, outcome=Outcome.SLAUGHTER, winner="s2") in current[-1].results


async def test_the_gm_undoes_the_last_step(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await to_orders(store, campaign, clock.now())
    confirm = await tap(telegram, table.anna, await table.panel(), "Undo the last step")
    assert confirm is not None
    assert "«Siege of Vraks»\nTurn 1: orders\nUndo the last step?" in confirm.text
    await tap(telegram, table.anna, confirm, "Yes, undo")
    kinds = [m.kind for m in await store.outbox_messages(campaign.id)]
    assert kinds.count("undo_notice") == 1
    assert await notices(store, campaign.id) == []  # announced once, by the undo itself
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert (stored.turn, stored.phase) == (0, Phase.DEPLOYMENT)
    assert AuditAction.UNDONE in [e.action for e in await store.audit_log(campaign.id)]


async def test_the_gm_ends_the_campaign_after_confirming(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    confirm = await tap(telegram, table.anna, await table.panel(), "End the campaign")
    assert confirm is not None
    assert "cannot be resumed" in confirm.text
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.status is CampaignStatus.DEPLOYMENT
    asked = await tap(telegram, table.anna, confirm, "Yes, end it: type the reason")
    assert asked is not None
    assert "why does the campaign end?" in asked.text
    placement = await say(telegram, table.anna, table.anna.id, "1:4 2:3 3:3")
    assert placement is not None  # not a reason: the group and the players would read it
    assert placement.text.startswith("That reads like orders or a placement")
    ended = await say(telegram, table.anna, table.anna.id, "too few players")
    assert ended is not None
    assert ended.text == (
        "«Siege of Vraks» is over and archived (/history). The group and the players are told why."
    )
    assert await notices(store, campaign.id) == [
        "GM Anna ended «Siege of Vraks». Reason: too few players. It is in the archive now "
        "(/history). Thank you for playing! A GM starts the next campaign with /newcampaign."
    ]
    [entry] = [e for e in await store.audit_log(campaign.id) if e.action == "status_changed"][-1:]
    assert (entry.actor, entry.reason) == (table.anna.id, "too few players")
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.status is CampaignStatus.FINISHED
    assert await store.active_campaign(-100) is None


async def test_a_panel_from_an_earlier_phase_is_stale(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    old_panel = await table.panel()
    end = await tap(telegram, table.anna, old_panel, "End the campaign")
    assert end is not None
    await to_orders(store, campaign, clock.now())
    telegram.take()
    for sent, label in ((old_panel, "Members"), (end, "Yes, end it")):
        await telegram.feed(telegram.press(table.anna, sent, button(sent, label)))
        assert "out of date" in _alert(telegram.take())
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.status is CampaignStatus.RUNNING


async def test_the_gm_sets_the_group_language(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    menu = await say(telegram, table.anna, table.group, "/lang")
    chosen = await tap(telegram, table.anna, menu, "Русский")
    assert chosen is not None
    assert chosen.text == "Язык постов кампании здесь: русский."
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.language == "ru"
    status = await say(telegram, table.vera, table.group, "/status")
    assert status is not None
    assert "Расстановка" in status.text


async def test_gm_commands_need_a_campaign_and_a_group(
    telegram: FakeTelegram, store: Store
) -> None:
    anna = telegram.user(1, "Anna")
    empty = telegram.group(-300, "Empty")
    for command in ("/gm", "/status", "/map", "/rules", "/battles", "/lang"):
        reply = await say(telegram, anna, empty, command)
        assert reply is not None
        assert "A GM starts one with /newcampaign" in reply.text, command
    private = await say(telegram, anna, Chat(id=1, type="private").id, "/gm")
    assert private is not None
    assert "You are not the GM of a running campaign" in private.text


async def test_a_result_button_from_before_the_resolution_is_stale(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    campaign = await to_battles(store, campaign, clock.now())
    results = await tap(telegram, table.anna, await table.panel(), "Battle results")
    battle = await tap(telegram, table.anna, results, "Battle 1")
    winner = await tap(telegram, table.anna, battle, "Red won")
    assert winner is not None
    resolved = await advance(store, campaign.id, 1, Phase.BATTLES, 1, clock.now())
    assert resolved.advanced
    before = await store.resolutions(campaign.id, 1)
    for sent, label in ((winner, "Slaughter"), (winner, "Back")):
        telegram.take()
        await telegram.feed(telegram.press(table.anna, sent, button(sent, label)))
        assert "out of date" in _alert(telegram.take())
    assert await store.resolutions(campaign.id, 1) == before
    assert await notices(store, campaign.id) == []


async def test_gm_in_the_group_sends_the_panel_to_the_gms_private_chat_only(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await say(telegram, table.anna, table.anna.id, "/start")
    telegram.take()
    await say(telegram, table.anna, table.group, "/gm")
    sent = telegram.take()
    [told] = [s for s in sent if s.chat_id == table.group.id]
    assert told.text == "Anna, the GM tools are in our private chat now."
    assert told.buttons() == [], "the group sees no GM buttons"
    [panel] = [s for s in sent if s.chat_id == table.anna.id]
    assert panel.text.startswith(f"GM tools: «{campaign.title}»")
    assert ("👥 Members", GmPress(c=campaign.id, t=0, p="deployment", a="members").pack()) in (
        panel.buttons()
    )
    # A GM who never opened the private chat is told to open it; nothing is sent there.
    await store.put_member(
        campaign.id, 5, "Dmitri", frozenset({Role.CO_GM}), None, table.anna.id, clock.now()
    )
    dmitri = telegram.user(5, "Dmitri")
    await say(telegram, dmitri, table.group, "/gm")
    sent = telegram.take()
    assert [s.chat_id for s in sent] == [table.group.id]
    assert "Open it (tap my name, then «Start») and send /gm there." in sent[0].text


async def test_what_the_gm_does_in_private_is_announced_in_the_campaigns_language(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    await say(telegram, table.anna, table.group, "/lang")
    await telegram.feed(telegram.forged_press(table.anna, table.group, f"gl:{campaign.id}:ru"))
    members = await tap(telegram, table.anna, await table.panel(), "Members")
    boris = await tap(telegram, table.anna, members, "Boris")
    sure = await tap(telegram, table.anna, boris, "Remove")
    telegram.take()
    await tap(telegram, table.anna, sure, "Yes, remove")
    # Anna reads her panel in English; the group's notice is in the campaign's Russian.
    [answer] = [s.method for s in telegram.take() if isinstance(s.method, AnswerCallbackQuery)]
    assert answer.text == "GM Anna removed Boris from the campaign."
    [notice] = [text for text in await notices(store, campaign.id) if "Boris" in text]
    assert "Anna" in notice
    assert "removed" not in notice
    assert "исключил" in notice


async def test_help_lists_the_gm_commands_to_a_gm_only(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    await table.start(store, clock)
    for user in (table.anna, table.boris):
        shown = await say(telegram, user, user.id, "/help")
        assert shown is not None
        gm_part = "For you as a GM:\n/gm: the GM tools, here in our private chat"
        assert (gm_part in shown.text) is (user is table.anna), user.first_name
        assert "/history" in shown.text


async def test_the_gm_changes_a_running_campaigns_policies_and_renames_a_side(
    telegram: FakeTelegram, store: Store, clock: ManualClock
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    settings = await tap(telegram, table.anna, await table.panel(), "Settings and sides")
    assert settings is not None
    assert "A battle without a result at the deadline: counted as a draw" in settings.text
    unreported = await tap(telegram, table.anna, settings, "A battle without a result")
    assert unreported is not None
    assert "• counted as a draw without losses" in unreported.text
    waits = await tap(telegram, table.anna, unreported, "The GM decides")
    assert waits is not None
    joining = await tap(
        telegram,
        table.anna,
        await tap(telegram, table.anna, waits, "Settings and sides"),
        "Joining",
    )
    closed = await tap(telegram, table.anna, joining, "Open, then closed")
    assert closed is not None
    changed = await store.campaign(campaign.id)
    assert changed is not None
    assert changed.unreported_policy is UnreportedPolicy.WAIT_FOR_GM
    assert changed.joining is JoiningPolicy.OPEN_THEN_CLOSED
    said = await notices(store, campaign.id)
    assert (
        "GM Anna changed what happens to a battle without a result: resolution waits" in (said[-2])
    )
    assert said[-1] == "GM Anna changed who may join: open until deployment ends, then closed."
    audit = [e for e in await store.audit_log(campaign.id) if e.action == "settings_changed"]
    assert [e.actor for e in audit[-2:]] == [table.anna.id, table.anna.id]
    # Renaming: asked in private, checked, stored and announced; the side keeps its id.
    sides = await tap(
        telegram,
        table.anna,
        await tap(telegram, table.anna, await table.panel(), "Settings and sides"),
        "Rename a side",
    )
    telegram.take()
    await tap(telegram, table.anna, sides, "Red")
    [question] = [s for s in telegram.take() if s.chat_id == table.anna.id]
    assert "type the new name of side «Red»" in question.text
    taken = await say(telegram, table.anna, table.anna.id, "blue")
    assert taken is not None
    assert "Another side has that name" in taken.text
    placement = await say(telegram, table.anna, table.anna.id, "1:4 2:3 3:3")
    assert placement is not None  # a placement is no name: the group would read it
    assert placement.text.startswith("That reads like orders or a placement")
    done = await say(telegram, table.anna, table.anna.id, "  Red   Legion ")
    assert done is not None
    assert done.text.startswith("Renamed: «Red» is now «Red Legion».")
    renamed = {side.id: side.name for side in await store.sides(campaign.id)}
    assert renamed["s1"] == "Red Legion"
    assert (await notices(store, campaign.id))[-1] == (
        "GM Anna renamed side «Red»: it is now «Red Legion»."
    )
    member = await store.member(campaign.id, table.boris.id)
    assert member is not None
    assert member.side_id == "s1"
    # A player cannot open the settings, even with a forged button.
    data = GmPress(c=campaign.id, t=0, p="deployment", a="upol", v="draw").pack()
    await telegram.feed(telegram.forged_press(table.boris, table.group, data))
    assert "Only this campaign's GM" in _alert(telegram.take())
    still = await store.campaign(campaign.id)
    assert still is not None
    assert still.unreported_policy is UnreportedPolicy.WAIT_FOR_GM


ASKED = {
    "rename": {
        "en": "type the new name of side «Red»",
        "ru": "напишите новое название стороны «Red»",
    },
    "end": {"en": "why does the campaign end?", "ru": "почему кампания завершается?"},
}


@pytest.mark.parametrize("language", ["en", "ru"])
@pytest.mark.parametrize("question", ["rename", "end"])
async def test_a_gm_question_left_open_ends_with_the_gms_next_command(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: str, question: str
) -> None:
    # Found by the random campaigns (issue 31, seed 58): a co-GM who also gave orders asked to
    # rename a side, left the question, used /advance hours later, then typed the side's
    # orders: they became the other side's name, and the group read them in the notice.
    table = Table(telegram)
    campaign = await table.start(store, clock)
    # The GM reads the bot in this language.
    await store.set_language(table.anna.id, "ru" if language == "ru" else "en", clock.now())
    action, value = ("rename", "s1") if question == "rename" else ("end!", "")
    press = GmPress(c=campaign.id, t=0, p="deployment", a=action, v=value).pack()
    asked = await telegram.feed(telegram.forged_press(table.anna, table.anna.id, press))
    assert asked is not None
    assert ASKED[question][language] in asked.text
    await say(telegram, table.anna, table.anna.id, "/status")
    await say(telegram, table.anna, table.anna.id, "attack Blue in 1")
    assert {side.id: side.name for side in await store.sides(campaign.id)} == {
        "s1": "Red",
        "s2": "Blue",
    }
    stored = await store.campaign(campaign.id)
    assert stored is not None
    assert stored.status is CampaignStatus.DEPLOYMENT
    assert not any("attack Blue" in notice for notice in await notices(store, campaign.id))
    assert await store.prompt(table.anna.id, table.anna.id) is None
    # Asked again, the question is answered as before.
    await telegram.feed(telegram.forged_press(table.anna, table.anna.id, press))
    done = await say(telegram, table.anna, table.anna.id, "Red Legion")
    assert done is not None
    if question == "rename":
        assert (await store.sides(campaign.id))[0].name == "Red Legion"
    else:
        ended = await store.campaign(campaign.id)
        assert ended is not None
        assert ended.status is CampaignStatus.FINISHED


@pytest.mark.parametrize("language", ["en", "ru"])
async def test_a_gm_question_lapses_when_the_campaign_moves_on(
    telegram: FakeTelegram, store: Store, clock: ManualClock, language: str
) -> None:
    table = Table(telegram)
    campaign = await table.start(store, clock)
    # The GM reads the bot in this language.
    await store.set_language(table.anna.id, "ru" if language == "ru" else "en", clock.now())
    press = GmPress(c=campaign.id, t=0, p="deployment", a="rename", v="s1").pack()
    asked = await telegram.feed(telegram.forged_press(table.anna, table.anna.id, press))
    assert asked is not None
    assert ASKED["rename"][language] in asked.text
    clock.advance(timedelta(hours=8))
    campaign = await to_orders(store, campaign, clock.now())
    # Turn 1's orders are open: the text is not the name the deployment's question waited for.
    await say(telegram, table.anna, table.anna.id, "Red Legion")
    assert (await store.sides(campaign.id))[0].name == "Red"
    assert not any("Red Legion" in notice for notice in await notices(store, campaign.id))
    assert await store.prompt(table.anna.id, table.anna.id) is None
    # Asked in this phase, it is answered.
    press = GmPress(c=campaign.id, t=1, p="orders", a="rename", v="s1").pack()
    await telegram.feed(telegram.forged_press(table.anna, table.anna.id, press))
    await say(telegram, table.anna, table.anna.id, "Red Legion")
    assert (await store.sides(campaign.id))[0].name == "Red Legion"
