"""Security: everyone who is not entitled tries every button and every command of Red's.

The actors: Nina (never joined), Blue's and Green's strategists, Fred (played Red until the GM
removed him, and kept his buttons), Tom (Red's tactician, where a strategist is needed), Rita
(Red's strategist, where a GM is needed) and Otto (the GM of another campaign). Each press of
a button they are not entitled to is refused with a clear alert, changes nothing in the store,
and no request the bot sends because of it carries Red's placement, orders or private map.

The buttons are every button the bot showed Red's players and the GM while they played (the
real callback data), and forged ones for every action of every callback data class, made for
the campaign's current turn and phase (so they are not merely stale), and for another campaign.
The matrix below names every callback prefix and every command the bot registers; a test fails
when one appears that the matrix does not cover.
"""

from __future__ import annotations

import logging
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import cast

import pytest
from aiogram import Router
from aiogram.filters import Command
from aiogram.methods import SendMessage, SendPhoto

import bot.runtime.app  # noqa: F401 - imports every handler module, so every factory is defined
from bot.handlers.group.clock import ClockConfirm, ClockPress
from bot.handlers.group.gm import GroupLanguage
from bot.handlers.group.reopen import ReopenPress
from bot.handlers.group.setup import SetupPress
from bot.handlers.history import HistoryList, HistoryPress
from bot.handlers.joining import JoinChoice
from bot.handlers.private.callbacks import (
    BattleRollButton,
    CampaignButton,
    DeployButton,
    OrdersButton,
    ResultButton,
    VerdictButton,
)
from bot.handlers.private.screens import OUTCOME_CODES
from bot.handlers.private.vacation import VacationPress
from bot.handlers.rules import RulesPress
from bot.modules.siege.callbacks import RewardPick, RewardPress, WeatherPick
from bot.modules.watch.duel_screens import DuelPress
from bot.modules.watch.handlers.duels_gm import DuelGmPress
from bot.modules.watch.handlers.gm import WatchCardPress
from bot.runtime.app import build_dispatcher
from bot.runtime.clock import ManualClock
from bot.screens.callbacks import (
    ChangePress,
    GmEdit,
    GmPress,
    JoinPress,
    JoinVerdict,
    LanguageChoice,
    LatePress,
    SeatPress,
)
from storage import Campaign, Store
from tests.faults.hostile_table import (
    BELLA,
    FRED,
    GM,
    GROUP,
    GUS,
    NINA,
    OTTO,
    RITA,
    START,
    TOM,
    HostileTable,
    Stage,
    answers,
    assert_nothing_leaked,
    callback_factories,
    catalogs,
    hostile_table,
    red_log_secrets,
    red_pictures,
    red_secrets,
    snapshot,
)
from tests.secrecy import assert_log_keeps, logfmt, read_the_log

ACTORS = {
    NINA: "a stranger who never joined",
    BELLA: "Blue's strategist",
    GUS: "Green's strategist",
    FRED: "a former Red player the GM removed",
    TOM: "Red's tactician",
    RITA: "Red's strategist, not a GM",
    OTTO: "the GM of another campaign",
}
EVERYONE = frozenset(ACTORS)


@dataclass(frozen=True)
class Rule:
    """Who must be refused a callback prefix, and where its buttons live."""

    chat: str  # "group" or "private"
    refused: frozenset[int]
    others: str  # why the rest may press it


CALLBACKS: dict[str, Rule] = {
    SetupPress.__prefix__: Rule("group", EVERYONE, "only the GM sets up"),
    GmPress.__prefix__: Rule("group", EVERYONE, "only the GM"),
    ClockPress.__prefix__: Rule("group", EVERYONE, "only the GM"),
    ClockConfirm.__prefix__: Rule("group", EVERYONE, "only a GM answers a GM's proposal"),
    GroupLanguage.__prefix__: Rule("group", EVERYONE, "only the GM"),
    ReopenPress.__prefix__: Rule("group", EVERYONE, "only the GM reopens a side's orders"),
    GmEdit.__prefix__: Rule("private", EVERYONE, "only the GM edits the state"),
    ChangePress.__prefix__: Rule(
        "private", EVERYONE, "only the GM changes the schedule, the deadline or the language"
    ),
    VacationPress.__prefix__: Rule(
        "private",
        frozenset({NINA, FRED, OTTO}),
        "a player sets their own absences (a button naming no person acts on the presser's own; "
        "test_a_player_sets_only_their_own_vacation)",
    ),
    JoinPress.__prefix__: Rule(
        "group",
        frozenset({FRED, BELLA, GUS, TOM, RITA}),
        "anyone in the group may ask to join (test_a_stranger_may_ask_to_join_and_no_more)",
    ),
    JoinChoice.__prefix__: Rule("private", EVERYONE, "only someone who asked to join"),
    LatePress.__prefix__: Rule(
        "private",
        EVERYONE,
        "only a strategist of the side holding the token, between the battle list and the "
        "resolution of a siege (these campaigns have no siege: no card to play)",
    ),
    DuelPress.__prefix__: Rule(
        "private",
        EVERYONE,
        "only a strategist of the hero's side, while its watch duel step is open (these "
        "campaigns have no watch: no step exists; tests/bot/test_watch_duels.py refuses the "
        "other side)",
    ),
    DuelGmPress.__prefix__: Rule(
        "group",
        EVERYONE,
        "only the GM closes a watch duel step (tests/bot/test_watch_duels.py refuses a player)",
    ),
    WatchCardPress.__prefix__: Rule(
        "group",
        EVERYONE,
        "only the GM lowers a laid watch card (tests/bot/test_watch_gm_tools.py refuses a player)",
    ),
    WeatherPick.__prefix__: Rule(
        "private",
        EVERYONE,
        "only the choosing side's strategist or a GM, while a siege waits for its weather "
        "(these campaigns have no siege: nobody has a choice to make)",
    ),
    RewardPress.__prefix__: Rule(
        "private",
        EVERYONE,
        "only a strategist of a side with siege VP, once a siege campaign is over, claims its "
        "rewards (these campaigns have no siege: nobody claims; tests/bot/test_siege_rewards.py "
        "refuses a tactician)",
    ),
    RewardPick.__prefix__: Rule(
        "private",
        EVERYONE,
        "only a GM chooses a claimed reward's variant (tests/bot/test_siege_rewards.py refuses "
        "the side's strategist)",
    ),
    OrdersButton.__prefix__: Rule(
        "private",
        EVERYONE - {RITA},
        "Rita gives Red's orders (a button naming no side acts on the presser's own side)",
    ),
    DeployButton.__prefix__: Rule(
        "private",
        EVERYONE - {RITA},
        "Rita places Red's armies (a button naming no side acts on the presser's own side)",
    ),
    ResultButton.__prefix__: Rule(
        "private",
        frozenset({NINA, GUS, FRED, OTTO}),
        "Red and Blue fight the battles, so their players report them (a back button naming "
        "no battle shows the presser's own list, like /battles)",
    ),
    BattleRollButton.__prefix__: Rule(
        "private",
        frozenset({NINA, GUS, FRED, OTTO}),
        "Red and Blue fight the battles, so their players (and the GM) roll dice for them "
        "(nothing secret: the values go to both sides)",
    ),
    CampaignButton.__prefix__: Rule(
        "private", frozenset({NINA, FRED, OTTO}), "a member may make their campaign current"
    ),
    VerdictButton.__prefix__: Rule("private", EVERYONE, "only a GM decides a battle's result"),
    JoinVerdict.__prefix__: Rule("private", EVERYONE, "only a GM decides who joins"),
    SeatPress.__prefix__: Rule("private", EVERYONE, "only a GM vacates and fills a seat"),
    HistoryPress.__prefix__: Rule(
        "private",
        frozenset({NINA, FRED, OTTO}),
        "a member browses their own campaign's resolved turns, with their own side's orders; "
        "in the group the buttons show what the group was shown",
    ),
    HistoryList.__prefix__: Rule(
        "private",
        frozenset(),
        "a page of the list of campaigns the chat may browse: the presser's own in private, the "
        "group's in the group; dates, turns and winners only, nothing secret",
    ),
    RulesPress.__prefix__: Rule(
        "private",
        frozenset({NINA, FRED, OTTO}),
        "the rules are public in the group; in private a member reads their campaign's rules "
        "(nothing secret: the settings, the schedule, the tokens and heroes at the start)",
    ),
    LanguageChoice.__prefix__: Rule(
        "private",
        frozenset(),
        "a person's own language, nobody else's (test_a_language_button_changes_its_presser_only)",
    ),
}

# Commands: what each one is for whoever is not entitled to more.
GM_ONLY = "only the campaign's GM"
PUBLIC = "public: the phase, the map as public, the battle list once public"
OWN = "about the sender's own side and campaign only"
COMMANDS = {
    "newcampaign": GM_ONLY,  # this group runs Siege: a second one is refused
    "gm": GM_ONLY,
    "advance": GM_ONLY,
    "pause": GM_ONLY,
    "resume": GM_ONLY,
    "extend": GM_ONLY,
    "lang": "in the group: only the GM; in private: the sender's own language",
    "join": "anyone may ask to join (test_a_stranger_may_ask_to_join_and_no_more)",
    "start": "a join needs the sender's own request; otherwise a greeting",
    "status": PUBLIC,
    "map": PUBLIC + "; in private: " + OWN,
    "battles": PUBLIC + "; in private: " + OWN,
    "rules": PUBLIC + "; in private: the rules of the sender's own campaign",
    "help": PUBLIC,
    "orders": OWN,
    "hand": OWN + ": the side's own heroes and hands (the GM: every side's)",
    "deploy": OWN,
    "campaigns": OWN,
    "vacation": OWN,
    "cancel": OWN,
    "calendar": PUBLIC + "; in private: " + OWN,
    "history": "resolved turns only; in private: " + OWN,
    "stats": "battles of resolved turns only",
    "roll": "a member rolls dice at the table (nothing secret); without dice: how to write them",
}
REFUSALS = {
    "newcampaign": "This chat already runs «Siege of Vraks»",
    "gm": "Only this campaign's GM can do that.",
    "advance": "Only this campaign's GM can do that.",
    "pause": "Only this campaign's GM can do that.",
    "resume": "Only this campaign's GM can do that.",
    "extend": "Only this campaign's GM can do that.",
    "lang": "Only the GM sets the language of this campaign's posts.",
}
"""What a non-GM hears in the group, in English (the actors' language)."""


def _routers(router: Router) -> Iterator[Router]:
    yield router
    for child in router.sub_routers:
        yield from _routers(child)


def registered_commands() -> set[str]:
    """Every command some handler of the real dispatcher is filtered on."""
    dispatcher = build_dispatcher(cast(Store, None), ManualClock(START), catalogs())
    found: set[str] = set()
    for router in _routers(dispatcher):
        for observer in router.observers.values():
            for handler in observer.handlers:
                for check in handler.filters or ():
                    if isinstance(check.callback, Command):
                        found.update(str(command) for command in check.callback.commands)
    return found


def test_every_callback_prefix_is_in_the_matrix() -> None:
    prefixes = {factory.__prefix__ for factory in callback_factories()}
    assert prefixes == set(CALLBACKS), "add the new prefix to CALLBACKS and to _forged()"


def test_no_two_callback_classes_share_a_prefix() -> None:
    prefixes = [factory.__prefix__ for factory in callback_factories()]
    assert sorted(prefixes) == sorted(set(prefixes)), "a press would reach the wrong handler"


def test_every_command_is_in_the_matrix() -> None:
    assert registered_commands() == set(COMMANDS), "add the new command to COMMANDS"


# ---- the buttons --------------------------------------------------------------------------


def _action(data: str) -> str:
    """A button's prefix and action (``su:2:tz:UTC`` -> ``su tz``)."""
    factory = next(f for f in callback_factories() if f.__prefix__ == _prefix(data))
    unpacked = factory.unpack(data)
    return f"{factory.__prefix__} {getattr(unpacked, 'a', getattr(unpacked, 'action', ''))}"


def _real_buttons(table: HostileTable, per_action: int = 3) -> list[str]:
    """The callback buttons the bot showed the group, the GM and Red's players: every action
    of each, up to ``per_action`` buttons of one action (nine time zones are one action)."""
    insiders = {GROUP, GM, RITA, TOM, FRED}
    found: dict[str, list[str]] = {}
    for sent in table.log:
        if sent.chat_id in insiders:
            for _text, data in sent.buttons():
                if data.startswith("https://"):
                    continue
                kept = found.setdefault(_action(data), [])
                if data not in kept and len(kept) < per_action:
                    kept.append(data)
    return [data for kept in found.values() for data in kept]


async def _forged(table: HostileTable) -> list[str]:
    """Every action of every callback class, aimed at Red and made for the current turn and
    phase of Siege; and one of each group button for Raid, the other campaign."""
    siege = await table.now()
    sides = {side.name: side.id for side in await table.store.sides(siege.id)}
    red, blue, green = sides["Red"], sides["Blue"], sides["Green"]
    turn, phase = siege.turn, siege.phase.value
    proposals = {
        campaign.id: await table.store.clock_proposals(campaign.id)
        for campaign in (siege, table.other)
    }
    forged: list[str] = [ClockConfirm(i=424242, a="ok").pack()]  # a proposal that never was
    for campaign in (siege, table.other):
        c = campaign.id
        group: list[str] = []
        group += [
            SetupPress(c=c, a=a, v=v).pack()
            for a, v in (
                ("ask", "title"),
                ("ask", "zone"),
                ("ask", "map"),
                ("ask", "side"),
                ("ask", "rules"),
                ("pick", red),
                ("col", f"{red}.vermillion"),
                ("del", red),
                ("go", "zone"),
                ("tz", "UTC"),
                ("map", "planet-5"),
                ("sched", "weekly"),
                ("dep", "3"),
                ("pol", "draw"),
                ("lang", "ru"),
                ("ok", ""),
                ("cancel", ""),
                ("go", "siege"),
                ("sg", "on"),
                ("tok", "f.1"),
                ("tokdel", "F1"),
                ("wc", "1"),
                ("ask", "cards"),
                ("ask", "rewards"),
                ("go", "contact"),
                ("ct", "on"),
                ("cdl", "1"),
                ("cdp", "1"),
                ("cdo", f"1.{red}"),
                ("ctr", "+"),
                ("cvp", "+"),
                ("go", "watch"),
                ("wt", "on"),
                ("whd", "h1"),
                ("whi", "h1.+"),
                ("wdm", "sealed"),
                ("wsh", "+"),
                ("wmap", ""),
                ("ask", "heroes"),
                ("ask", "npc"),
                ("ask", "deck"),
                ("whv", "on"),
                ("wwk", "+"),
                ("whs", "+"),
                ("wdk", "default"),
            )
        ]
        group += [
            GmPress(c=c, t=campaign.turn, p=campaign.phase.value, a=a, v=v).pack()
            for a, v in (
                ("menu", ""),
                ("members", ""),
                ("member", str(RITA)),
                ("side", f"{RITA}.{blue}"),
                ("role", f"{RITA}.tactician"),
                ("role", f"{TOM}.co_gm"),
                ("kick", str(RITA)),
                ("kick!", str(RITA)),
                ("readmit", str(FRED)),
                ("joins", ""),
                ("joinok", str(NINA)),
                ("joinno", str(NINA)),
                ("results", ""),
                ("battle", f"{turn}.1"),
                ("win", f"{turn}.1.{blue}"),
                ("set", f"{turn}.1.crushing.{blue}"),
                ("place", ""),
                ("placeside", green),
                ("placedef", green),
                ("placetype", green),
                ("settings", ""),
                ("upol", "wait_for_gm"),
                ("jpol", "approval"),
                ("nsp", "wait_for_gm"),
                ("renames", ""),
                ("rename", red),
                ("adj", ""),
                ("undo", ""),
                ("undo!", ""),
                ("end", ""),
                ("end!", ""),
            )
        ]
        group += [
            ClockPress(c=c, t=campaign.turn, p=campaign.phase.value, a=a, h=h).pack()
            for a, h in (
                ("ask", 0),
                ("advance", 0),
                ("force", 0),
                ("askforce", 0),
                ("pause", 0),
                ("resume", 0),
                ("extend", 12),
            )
        ]
        group += [
            GmEdit(c=c, t=campaign.turn, p=campaign.phase.value, a=a, v=v).pack()
            for a, v in (
                ("menu", ""),
                ("side", red),
                ("sector", f"{red}.1"),
                ("count", f"{red}.1.7"),
                ("retire", ""),
                ("retire1", red),
                ("add", ""),
                ("def", ""),
                ("def1", "2"),
                ("def2", "2.2.0"),
                ("def3", "2.2.0.0"),
                ("npc", ""),
                ("npc1", "1"),
                ("hero", ""),
                ("undo", ""),
                ("undo!", ""),
            )
        ]
        group += [ClockConfirm(i=p.id, a=a).pack() for p in proposals[c] for a in ("ok", "no")]
        group += [GroupLanguage(c=c, language=code).pack() for code in ("en", "ru")]
        group += [
            ReopenPress(c=c, t=campaign.turn, p=campaign.phase.value, s=s, h=h).pack()
            for s, h in (("", 0), (red, 0), (red, 3), (blue, 12))
        ]
        group += [JoinPress(c=c).pack()]
        group += [
            DuelGmPress(c=c, t=campaign.turn, p=campaign.phase.value, s=s).pack() for s in (0, 1)
        ]
        group += [
            WatchCardPress(c=c, t=campaign.turn, h=h, i=i, n=n).pack()
            for h, i, n in (("", -1, -1), ("h1", 0, -1), ("h1", 0, 1))
        ]
        if campaign is table.other:  # one of each kind shows the campaign is checked
            group = list({_prefix(data): data for data in reversed(group)}.values())
        forged += group
    c = siege.id
    forged += [JoinChoice(c=c, s=red).pack(), JoinChoice(c=c, s=red, r="strategist").pack()]
    forged += [RulesPress(c=c, s=section).pack() for section in ("campaign", "battles")]
    forged += [WeatherPick(c=c, w=w).pack() for w in (2, 99)]
    forged += [LatePress(c=c, t=turn, a=a, k=0).pack() for a in ("p", "x")]
    forged += [
        DuelPress(s=1, v=0, a=a, k="A1", h="hero").pack() for a in ("o", "c", "t", "u", "p", "n")
    ]
    forged += [RewardPress(c=c, a=a, k=k, n="0" * 10).pack() for a, k in (("+", 7), ("-", 0))]
    forged += [RewardPress(c=c, a="ok", n="0000000100").pack()]
    forged += [RewardPick(c=c, s=0, p=p, v=v).pack() for p, v in ((0, 1), (1, -1))]
    forged += [
        OrdersButton(campaign=c, turn=turn, action=action, sector=0, to=1, arg=arg, side=red).pack()
        for action, arg in (
            ("home", -1),
            ("sec", -1),
            ("mv", -1),
            ("to", -1),
            ("n", 1),
            ("at", 1),
            ("fo", -1),
            ("rf", -1),
            ("rs", -1),
            ("rev", -1),
            ("ok", -1),
            ("no", -1),
            ("map", -1),
            ("sg", -1),
            ("sa", 0),
            ("sd", 0),
            ("ss", -1),
            ("sc", 0),
            ("sx", 0),
            ("ct", -1),
            ("cu", 0),
            ("cd", 0),
            ("cx", 0),
            ("cy", -1),
            ("tp", -1),
            ("tq", -1),
            ("tg", 1),
            ("cr", -1),
            ("cg", -1),
            ("cn", 0),
            ("cw", 0),
            ("tp", 1),
            ("ct", 1),
            ("wh", -1),
            ("wm", 0),
            ("wx", 0),
        )
    ]
    forged += [
        DeployButton(campaign=c, action=action, sector=0, side=red).pack()
        for action in ("home", "+", "-", "ok")
    ]
    forged += [
        ResultButton(
            campaign=c, turn=turn, battle=1, action=action, outcome=outcome, winner=0
        ).pack()
        for action, outcome in (
            ("pick", ""),
            ("list", ""),
            ("yes", "c"),
            ("dis", "c"),
            *(("out", code) for code in OUTCOME_CODES),
            *(("win", code) for code in OUTCOME_CODES),
            ("wl", "c.1"),
        )
    ]
    forged += [
        BattleRollButton(campaign=c, turn=turn, battle=b, dice=d).pack()
        for b, d in ((1, 2), (1, 9), (99, 1))
    ]
    forged += [CampaignButton(campaign=c).pack()]
    day = START.date().toordinal()
    forged += [
        VacationPress(c=c, a=a, f=f, d=d).pack()
        for a, f, d in (("new", 0, 0), ("from", day, 0), ("set", day, day + 2), ("ask", 0, 0))
    ]
    forged += [VacationPress(c=c, a="del", d=i).pack() for i in (1, 2)]
    week = "10000323594120001200"
    forged += [
        ChangePress(c=c, a=a, v=v, k=k).pack()
        for a, v, k in (
            ("menu", "", ""),
            ("week", "", ""),
            ("dl", "", ""),
            ("sch", week, ""),
            ("sch", "m", ""),
            ("sch!", week, "00000000"),
            ("dlset", str(int(START.timestamp()) // 60 + 3000), ""),
            ("dl!", str(int(START.timestamp()) // 60 + 3000), "00000000"),
            ("lang", "ru", ""),
            ("askw", "", ""),
            ("askd", "", ""),
        )
    ]
    forged += [
        VerdictButton(
            campaign=c, turn=turn, battle=1, action=action, outcome=outcome, winner=0
        ).pack()
        for action, outcome in (
            ("show", ""),
            ("more", ""),
            ("set", "c"),
            ("set", "d"),
            ("wl", "c.1"),
        )
    ]
    forged += [JoinVerdict(c=c, u=user, a=a).pack() for user in (NINA, FRED) for a in ("y", "n")]
    forged += [
        SeatPress(c=campaign.id, a=a, v=v).pack()
        for campaign in (siege, table.other)
        for a, v in (
            ("list", ""),
            ("vac", str(RITA)),
            ("fill", "1"),
            ("give", f"1.{NINA}"),
            ("wdr", "1"),
            ("wdr!", "1"),
        )
    ]
    forged += [HistoryPress(c=c, t=t).pack() for t in (-2, -1, 0, 1, max(turn - 1, 1))]
    forged += [HistoryList(p=p).pack() for p in (-1, 0, 1, 2**53)]
    assert phase  # the buttons above are for the phase Siege is in
    return forged


def _prefix(data: str) -> str:
    return data.split(":", 1)[0]


def _unexpected_errors(records: list[logging.LogRecord]) -> list[str]:
    return [record.getMessage() for record in records if record.levelno >= logging.ERROR]


@pytest.mark.parametrize("stage", list(Stage))
async def test_red_buttons_are_refused_to_everyone_else(
    tmp_path: Path, stage: Stage, caplog: pytest.LogCaptureFixture
) -> None:
    read_the_log(caplog)
    async with hostile_table(tmp_path, stage) as table:
        buttons = list(dict.fromkeys(_real_buttons(table) + await _forged(table)))
        assert {_prefix(data) for data in buttons} >= set(CALLBACKS) - {"lang"}
        secrets = await red_secrets(table, attacks=stage is not Stage.BATTLES)
        pictures = red_pictures(table)
        assert secrets or stage is Stage.SETUP
        pressed = 0
        for actor, who in ACTORS.items():
            if stage is Stage.SETUP and actor == FRED:
                continue  # there is no GM panel in setup: Fred still plays, nobody removed him
            before = await snapshot(table)
            for data in buttons:
                rule = CALLBACKS[_prefix(data)]
                if actor not in rule.refused:
                    continue
                chat = table.group if rule.chat == "group" else actor
                mark = len(caplog.records)
                sent = await table.press(actor, chat, data)
                pressed += 1
                errors = _unexpected_errors(caplog.records[mark:])
                assert not errors, (actor, data, errors)
                answered = answers(sent)
                assert len(answered) == 1, (actor, data, sent)
                assert answered[0].show_alert, (actor, data, answered[0].text)
                assert answered[0].text, (actor, data)
                assert_nothing_leaked(table, sent, secrets, pictures)
            assert await snapshot(table) == before, who
        assert pressed > 250
        assert_log_keeps(logfmt(caplog.records), await red_log_secrets(table))


# ---- the commands -------------------------------------------------------------------------


def _command_texts(campaign: Campaign) -> Iterator[tuple[str, str]]:
    """(command, text to send) for every command, with arguments where it takes them."""
    for command in sorted(COMMANDS):
        match command:
            case "join":
                continue  # a stranger's /join is a request: test_a_stranger_may_ask_to_join...
            case "start":
                yield command, "/start"
                yield command, f"/start join-{campaign.id}"
            case "extend":
                yield command, "/extend 24"
            case "status":
                yield command, "/status Asia/Omsk"
            case _:
                yield command, f"/{command}"


@pytest.mark.parametrize("stage", [Stage.DEPLOYMENT, Stage.ORDERS, Stage.BATTLES])
async def test_commands_give_everyone_else_refusals_and_nothing_of_red(
    tmp_path: Path, stage: Stage, caplog: pytest.LogCaptureFixture
) -> None:
    read_the_log(caplog)
    async with hostile_table(tmp_path, stage) as table:
        secrets = await red_secrets(table, attacks=stage is not Stage.BATTLES)
        pictures = red_pictures(table)
        texts = list(_command_texts(table.campaign))
        for actor, who in ACTORS.items():
            before = await snapshot(table)
            for chat in (table.group, actor):
                for command, text in texts:
                    mark = len(caplog.records)
                    sent = await table.send(actor, chat, text)
                    where = (who, text, "group" if chat is table.group else "private")
                    errors = _unexpected_errors(caplog.records[mark:])
                    assert not errors, (where, errors)
                    replies = [s for s in sent if isinstance(s.method, SendMessage | SendPhoto)]
                    assert replies, where
                    if chat is table.group and command in REFUSALS:
                        assert REFUSALS[command] in replies[0].text, (where, replies[0].text)
                    assert_nothing_leaked(table, sent, secrets, pictures)
            assert await snapshot(table) == before, who
        assert_log_keeps(logfmt(caplog.records), await red_log_secrets(table))


# ---- the open doors: joining and one's own language ---------------------------------------


async def test_a_stranger_may_ask_to_join_and_no_more(
    tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    read_the_log(caplog)
    async with hostile_table(tmp_path, Stage.ORDERS) as table:
        siege = table.campaign.id
        secrets = await red_secrets(table, attacks=True)
        before = await snapshot(table)
        asked = await table.press(NINA, table.group, JoinPress(c=siege).pack())
        assert answers(asked)[0].url == f"https://t.me/strategium_bot?start=join-{siege}"
        after = await snapshot(table)
        changed = {
            key
            for key, value in before[f"campaign {siege}"].items()
            if after[f"campaign {siege}"][key] != value
        }
        assert changed == {"join requests", "outbox"}
        assert [r.user_id for r in after[f"campaign {siege}"]["join requests"]] == [NINA]
        # A request lets her choose a side; it shows her nothing of any side's plans.
        sides = await table.send(NINA, NINA, f"/start join-{siege}")
        assert [text for text, _data in sides[-1].buttons()] == ["🟥 Red", "🟦 Blue", "🟩 Green"]
        for actor, refusal in (
            (FRED, "The GM removed you from «Siege of Vraks»."),
            (BELLA, "You already play in this campaign."),
            (TOM, "You already play in this campaign."),
        ):
            refused = await table.send(actor, table.group, "/join")
            assert refusal in refused[-1].text
            assert refused[-1].buttons() == []
        everything = await table.send(NINA, NINA, "/orders") + sides
        assert_nothing_leaked(table, everything, secrets, red_pictures(table))
        assert not _unexpected_errors(caplog.records)
        assert_log_keeps(logfmt(caplog.records), await red_log_secrets(table))


async def test_a_language_button_changes_its_presser_only(tmp_path: Path) -> None:
    async with hostile_table(tmp_path, Stage.ORDERS) as table:
        before = await snapshot(table)
        for actor in ACTORS:
            sent = await table.press(actor, actor, LanguageChoice(language="ru").pack())
            assert answers(sent)[0].show_alert is not True
            person = await table.store.person(actor)
            assert person is not None
            assert person.language == "ru"
        after = await snapshot(table)
        assert after["people"][GM] == before["people"][GM]
        del before["people"], after["people"]
        assert after == before
