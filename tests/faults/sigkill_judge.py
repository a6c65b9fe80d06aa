"""The parent side of the SIGKILL week: plays the week in bot processes, kills them where a
plan says, restarts them until the week ends, and compares what Telegram received and what the
database holds with an undisturbed week.

Bot processes are forked from a fork server that has the bot loaded
(:mod:`tests.faults.sigkill_preload`), so a restart costs milliseconds, not the seconds of
importing aiogram. ``python -m tests.faults.sigkill_judge`` plays seeds, one targeted kill, or
one kill at every point of the week (:data:`USAGE`), and prints the figures, the kills, what
was allowed and every difference found.

What must be equal, and the only differences allowed (each allowed one is listed in the
verdict, so a reader sees what happened):

- **Posts** (the outbox), per chat, in order, request by request: texts, buttons, photos, and
  the message an edit or a pin is for (named by the post or step that sent it). Allowed: a post
  whose delivery the kill cut before ``mark_sent`` committed goes out again when the dead
  process's lease runs out, worded then: a second time if Telegram had already accepted it
  (the Bot API has no idempotency key; docs/storage.md, «Outbox: what "once" means»), else
  late, and the chat's later posts wait behind it.
- **The status board** is a state, not a stream: refreshes held behind a dead process's lease
  collapse into one edit (``render_status_board``) and are worded when they go out, so its
  intermediate texts may differ. The last board must be the same and be the pinned message; it
  may be posted anew only as the re-delivery above.
- **Direct answers** to each step's update: equal, unless the kill cut the handling of that
  update. Then the update comes again (:mod:`tests.faults.sigkill_week` says why) and is
  handled again; both handlings' answers are listed (the second one meets what the first
  saved: "nothing changed", "already confirmed"). An edit of the message whose button the
  person pressed counts as the same whichever copy or older screen they pressed.
- **The database**: every table, row by row (as multisets, without row ids), except the
  columns that say when a post went out or which Telegram message shows something
  (:data:`VOLATILE`) and the random part of outbox keys. Allowed extra: the history rows of an
  update handled twice (:data:`HISTORY`: it did come twice) and the board refresh it queued.

Anything else is a difference, and fails the test.
"""

from __future__ import annotations

import difflib
import json
import multiprocessing
import random
import re
import signal
import sqlite3
import sys
import tempfile
import time
from collections import Counter
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from multiprocessing.context import ForkServerContext
from pathlib import Path
from typing import Any

from storage.sql import ts
from tests.faults.sigkill_week import (
    DATABASE,
    JOURNAL,
    KILLS,
    PROGRESS,
    STUCK,
    STUCK_FILE,
    TRACE,
    WEEK,
    run_incarnation,
    where_to_resume,
)
from tests.faults.sigkill_world import KINDS, KillPlan, delivery_key, origin_name, read_lines

MAX_PROCESSES = 8
LOST_EXIT = 255  # what multiprocessing reports when the fork server's answer is lost
PROCESS_TIMEOUT = 120.0
BOARD = "status_board"
UUID = re.compile(r"[0-9a-f]{32}")
# An outbox key naming another outbox row by its id (the board refresh after a battle list,
# bot/posts/turns.py): ids move when an allowed extra row comes first.
ROW_ID_IN_KEY = re.compile(r"(?<=:battle_list:)\d+(?=:board)")

VOLATILE = {
    "outbox": {"attempts", "lease_until", "claim_token", "telegram_message_id", "sent_at"},
    "campaigns": {"status_message_id"},
    "ui_messages": {"message_id"},
    "prompts": {"message_id"},
    # A set's edit count and an edit's number follow from its edits, which are compared.
    "order_sets": {"edits"},
    "order_edits": {"seq"},
}
# Tables that record each action as it came, and the column saying when.
HISTORY = {"audit_log": "at", "battle_report_events": "at", "order_edits": "edited_at"}

Plans = Callable[[int, int], KillPlan | None]
"""The kill plan of a process: (its number, the step it starts at) -> a plan, or none."""
Point = tuple[int, str, str]
"""A point of the undisturbed week: (step, kind, on whose behalf)."""


def fork_server() -> ForkServerContext:
    """The fork server context, preloaded with the bot."""
    context = multiprocessing.get_context("forkserver")
    # "__main__": the parent's main script (pytest's) is imported once there too, instead of
    # again in every process.
    context.set_forkserver_preload(["__main__", "tests.faults.sigkill_preload"])
    return context


# ---- playing ------------------------------------------------------------------------------


@dataclass
class Week:
    """One played week: its directory, the kills it took, how many processes it needed."""

    workdir: Path
    kills: list[dict[str, Any]] = field(default_factory=list)
    processes: int = 0
    seconds: float = 0.0
    stuck: str | None = None

    def journal(self) -> list[dict[str, Any]]:
        """What Telegram received."""
        return read_lines(self.workdir / JOURNAL)

    def pressed(self) -> dict[int, tuple[int, int]]:
        """Per step, the message whose button the person pressed (the last time it was sent)."""
        found = {}
        for line in read_lines(self.workdir / PROGRESS):
            update = json.loads(line["update"]) if "update" in line else {}
            message = (update.get("callback_query") or {}).get("message")
            if message is not None:
                found[int(line["step"])] = (message["chat"]["id"], message["message_id"])
        return found

    def claimed_again(self) -> list[str]:
        """The posts claimed more than once (a kill took the first claim's lease with it)."""
        connection = sqlite3.connect(f"file:{self.workdir / DATABASE}?mode=ro", uri=True)
        try:
            rows = connection.execute("SELECT dedup_key FROM outbox WHERE attempts > 1")
            return [_stable(f"o:{row[0]}") for row in rows]
        finally:
            connection.close()

    def points(self) -> list[Point]:
        """Every point the first process passed (when it was asked to trace them)."""
        raw = json.loads((self.workdir / TRACE).read_text(encoding="utf-8"))
        return [(int(step), str(kind), str(origin)) for step, kind, origin in raw]


def play(context: ForkServerContext, workdir: Path, plans: Plans, *, trace: bool = False) -> Week:
    """Play the week in ``workdir``: a process, then a new one after each kill, to the end."""
    workdir.mkdir(parents=True, exist_ok=True)
    week = Week(workdir)
    started = time.perf_counter()
    for number in range(MAX_PROCESSES):
        plan = plans(number, where_to_resume(workdir).step)
        process = context.Process(
            target=run_incarnation,
            args=(str(workdir), plan.__dict__ if plan else None, trace and number == 0),
        )
        process.start()
        process.join(PROCESS_TIMEOUT)
        week.processes += 1
        if process.exitcode is None:
            process.kill()
            process.join()
            raise RuntimeError(f"{workdir}: process {number} did not end in time")
        kills = read_lines(workdir / KILLS)
        killed = len(kills) == len(week.kills) + 1
        code = process.exitcode
        if code == LOST_EXIT:
            code = _exit_from_files(workdir, killed)
        if code in (0, STUCK):
            week.kills = kills
            week.seconds = time.perf_counter() - started
            if code == STUCK:
                week.stuck = json.loads((workdir / STUCK_FILE).read_text(encoding="utf-8"))
            return week
        if code != -signal.SIGKILL or not killed:
            raise RuntimeError(f"{workdir}: process {number} failed (exit {process.exitcode})")
        week.kills = kills
    raise RuntimeError(f"{workdir}: the week did not end in {MAX_PROCESSES} processes")


def _exit_from_files(workdir: Path, killed: bool) -> int:
    """How a process ended whose exit status the fork server did not pass on (under load
    multiprocessing sometimes answers 255), from what it left: the kill it noted just before
    SIGKILLing itself, the reason it got stuck, or the week done."""
    if killed:
        return -signal.SIGKILL
    if (workdir / STUCK_FILE).exists():
        return STUCK
    done = read_lines(workdir / PROGRESS)[-1:]
    if done and done[0].get("done") and done[0]["step"] == len(WEEK) - 1:
        return 0
    return LOST_EXIT


def seeded_plans(seed: int, points: list[Point]) -> Plans:
    """1 to 3 kills at points a seed picks: a kind (each as likely), then one of that kind's
    points of the undisturbed week from the step the process starts at. A restarted process
    counts from its own start, so later kills land near, not exactly on, the picked point."""
    rng = random.Random(seed)
    kills = rng.choice((1, 2, 3))

    def plan(number: int, first: int) -> KillPlan | None:
        if number >= kills:
            return None
        ahead = [kind for step, kind, _origin in points if step >= first]
        kinds = [kind for kind in KINDS if kind in ahead]
        if not kinds:
            return None
        kind = rng.choice(kinds)
        return KillPlan(kind, rng.randint(1, ahead.count(kind)))

    return plan


def _first_process(plan: KillPlan) -> Plans:
    return lambda number, _first: plan if number == 0 else None


def targeted_plan(points: list[Point], kind: str, origin: str, later: int = 0) -> Plans:
    """One kill, at the ``later``-th (from 0) point of ``kind`` made on behalf of ``origin``
    (``u<step>``, or ``o:<outbox key>`` with ``*`` for its random part) in the undisturbed
    week."""
    of_kind = [point_origin for _step, point_kind, point_origin in points if point_kind == kind]
    numbers = [nth for nth, named in enumerate(of_kind, start=1) if _stable(named) == origin]
    if len(numbers) <= later:
        raise LookupError(f"no {kind} point #{later} for {origin}")
    plan = KillPlan(kind, numbers[later])
    return lambda number, _first: plan if number == 0 else None


# ---- what Telegram received ---------------------------------------------------------------

Request = tuple[Any, ...]


def _stable(text: str) -> str:
    return ROW_ID_IN_KEY.sub("#", UUID.sub("*", text))


def _name(origin: dict[str, Any] | None) -> str:
    return _stable(origin_name(origin))


def _requests(
    journal: list[dict[str, Any]], pressed: dict[int, tuple[int, int]]
) -> list[tuple[dict[str, Any], Request]]:
    """Each journal line with its comparable form: method, chat, text, buttons, photo, and for
    an edit or a pin the message it is for, named by the post or step that sent it, or "the
    pressed message" when the step's person pressed a button under it (``pressed``: step ->
    (chat, message id)); a person presses what they see, which after a kill may be another
    copy or an older screen."""
    names: dict[tuple[int, int], str] = {}
    made: Counter[str] = Counter()
    found = []
    for line in journal:
        origin = line.get("origin")
        target = None
        if line["method"] in ("SendMessage", "SendPhoto"):
            attempt = delivery_key(origin) if origin else "-"
            names[(line["chat_id"], line["message_id"])] = f"{_name(origin)}#{made[attempt]}"
            made[attempt] += 1
        elif line.get("message_id") is not None:
            key = (line["chat_id"], line["message_id"])
            step = (origin or {}).get("update", -1)
            target = "the pressed message" if pressed.get(step) == key else names.get(key, "?")
        buttons = tuple(tuple(button) for button in line["buttons"])
        request = (line["method"], line["chat_id"], line["text"], buttons, line.get("photo"))
        found.append((line, (*request, target)))
    return found


@dataclass
class Delivery:
    """The requests of one delivery attempt: an outbox claim, or one handling of an update."""

    attempt: str
    name: str
    kind: str
    requests: list[Request]


def _deliveries(week: Week, outbox: bool) -> dict[Any, list[Delivery]]:
    """Outbox deliveries by chat, or update handlings by step, in journal order."""
    grouped: dict[Any, list[Delivery]] = {}
    for line, request in _requests(week.journal(), week.pressed()):
        origin = line.get("origin")
        if origin is None or ("outbox" in origin) != outbox:
            continue
        key = line["chat_id"] if outbox else origin["update"]
        attempt = delivery_key(origin)
        deliveries = grouped.setdefault(key, [])
        if not deliveries or deliveries[-1].attempt != attempt:
            deliveries.append(Delivery(attempt, _name(origin), origin.get("kind", ""), []))
        deliveries[-1].requests.append(request)
    return grouped


def _show(request: Request) -> str:
    method, chat, text, buttons, photo, target = request
    on = f" on {target}" if target else ""
    keys = f" {[label for label, _data in buttons]}" if buttons else ""
    picture = f" [photo {photo}]" if photo else ""
    return f"{method} to {chat}{on}: {_one_line(text)[:70]!r}{keys}{picture}"


def _shows(requests: list[Request]) -> str:
    return " // ".join(_show(request) for request in requests) or "nothing"


def _one_line(text: str) -> str:
    return text.replace("\n", " | ")


@dataclass(frozen=True)
class Difference:
    """Something the killed week has (``extra``) or lacks (``missing``) against the calm one,
    in one ``area``: ``posts <chat>``, ``board <chat>``, ``answers <step>``, ``table <name>``,
    ``week``."""

    area: str
    missing: tuple[str, ...] = ()
    extra: tuple[str, ...] = ()
    note: str = ""

    def __str__(self) -> str:
        parts = [self.area + (f": {self.note}" if self.note else "")]
        parts += [f"    - {item[:400]}" for item in self.missing[:5]]
        parts += [f"    + {item[:400]}" for item in self.extra[:5]]
        return "\n".join(parts)


def _multiset_difference(area: str, want: list[str], have: list[str]) -> Difference | None:
    missing = tuple((Counter(want) - Counter(have)).elements())
    extra = tuple((Counter(have) - Counter(want)).elements())
    if missing or extra:
        return Difference(area, missing, extra)
    if want != have:
        diff = difflib.unified_diff(want, have, "undisturbed", "killed", lineterm="", n=1)
        return Difference(area, note="the same posts in another order:\n" + "\n".join(diff))
    return None


def post_differences(calm: Week, week: Week) -> tuple[list[Difference], list[str]]:
    """Per chat, the posts of ``week`` against ``calm`` (the board apart). A post whose
    delivery a kill cut before ``mark_sent`` committed is left out of the comparison and
    listed as allowed: sent again, or sent late (its lease had to run out), worded then."""
    cut = {delivery_key(kill["origin"]): kill for kill in week.kills if kill.get("origin")}
    held = {
        _name(kill["origin"]): kill
        for kill in week.kills
        if "outbox" in (kill.get("origin") or {}) and not kill["after_mark_sent"]
    }
    claims = [kill for kill in week.kills if kill.get("transaction") == "claim_due"]
    for name in week.claimed_again():
        # Leased by a claim whose process died before the delivery began (no origin yet).
        held.setdefault(name, claims[-1] if claims else {"kind": "?", "step": "?"})
    differences: list[Difference] = []
    allowed: list[str] = []
    expected, got = _deliveries(calm, outbox=True), _deliveries(week, outbox=True)
    for chat in sorted(set(expected) | set(got)):
        calm_posts = [d for d in expected.get(chat, []) if d.kind != BOARD]
        posts = [d for d in got.get(chat, []) if d.kind != BOARD]
        names = {d.name for d in calm_posts} | {d.name for d in posts}
        for name, kill in held.items():
            if name not in names:
                continue
            sent = [d for d in posts if d.name == name]
            first = next((d.requests for d in calm_posts if d.name == name), [])
            how = (
                "went out again"
                if len(sent) > 1 and sent[0].attempt in cut
                else "went out late (after the lease)"
            )
            if how == "went out again" and first[: len(sent[0].requests)] != sent[0].requests:
                continue  # the cut copy is not what the calm week sent: compared below
            allowed.append(
                f"chat {chat}: {name} {how} after the kill ({kill['kind']} at step"
                f" {kill['step']}, before mark_sent committed), worded when it went out: "
                + " ==> ".join(_shows(d.requests) for d in sent)
            )
            calm_posts = [d for d in calm_posts if d.name != name]
            posts = [d for d in posts if d.name != name]
        found = _multiset_difference(
            f"posts {chat}",
            [f"{d.name}: {_shows(d.requests)}" for d in calm_posts],
            [f"{d.name}: {_shows(d.requests)}" for d in posts],
        )
        if found is not None:
            differences.append(found)
        board, board_allowed = board_differences(
            chat,
            [d for d in expected.get(chat, []) if d.kind == BOARD],
            [d for d in got.get(chat, []) if d.kind == BOARD],
            cut,
        )
        differences += board
        allowed += board_allowed
    return differences, allowed


def board_differences(
    chat: int, calm: list[Delivery], week: list[Delivery], cut: dict[str, dict[str, Any]]
) -> tuple[list[Difference], list[str]]:
    """The status board: the same last text, on the pinned board message, posted anew only
    to replace a board post cut before ``mark_sent`` (whose message id the bot never learnt)."""

    def shown(deliveries: list[Delivery]) -> tuple[list[str], str | None, list[Delivery]]:
        texts: list[str] = []
        pinned = None
        posted = []
        for delivery in deliveries:
            for method, _chat, text, _buttons, _photo, target in delivery.requests:
                if method == "PinChatMessage":
                    pinned = target
                    continue
                if not texts or texts[-1] != text:
                    texts.append(text)
                if method == "SendMessage" and delivery not in posted:
                    posted.append(delivery)
        return texts, pinned, posted

    want, want_pin, want_posted = shown(calm)
    have, have_pin, have_posted = shown(week)
    differences: list[Difference] = []
    allowed: list[str] = []
    area = f"board {chat}"
    if have[-1:] != want[-1:]:
        differences.append(Difference(area, tuple(want[-1:]), tuple(have[-1:]), "last board"))
    if (want_pin is None) != (have_pin is None) or (
        have_pin is not None and have_pin != f"{have_posted[-1].name}#0"
    ):
        differences.append(
            Difference(area, (str(want_pin),), (str(have_pin),), "the last board is not pinned")
        )
    replaced = [
        d for d in have_posted if d.attempt in cut and not cut[d.attempt]["after_mark_sent"]
    ]
    if len(have_posted) > len(want_posted) + len(replaced):
        differences.append(
            Difference(
                area,
                tuple(d.name for d in want_posted),
                tuple(d.name for d in have_posted),
                "the board was posted as a new message",
            )
        )
    elif len(have_posted) > len(want_posted):
        allowed.append(
            f"chat {chat}: the board was posted anew: its post was cut before mark_sent"
            f" ({', '.join(d.name for d in replaced)})"
        )
    if [text for text in have if text not in want]:
        allowed.append(
            f"chat {chat}: the board showed a moment the undisturbed week did not post"
            " (a refresh held by the kill is worded when it goes out)"
        )
    elif len(have) < len(want):
        allowed.append(f"chat {chat}: {len(want) - len(have)} board refresh(es) collapsed")
    return differences, allowed


def answer_differences(calm: Week, week: Week) -> tuple[list[Difference], list[str]]:
    """Per step, the bot's direct answers of ``week`` against ``calm``; a step whose handling a
    kill cut was handled again, and its answers are listed as allowed."""
    cut_steps = {kill["step"] for kill in week.kills if "update" in (kill.get("origin") or {})}
    differences: list[Difference] = []
    allowed: list[str] = []
    expected, got = _deliveries(calm, outbox=False), _deliveries(week, outbox=False)
    for step in sorted(set(expected) | set(got)):
        handlings = got.get(step, [])
        want = expected[step][0].requests if step in expected else []
        have = handlings[-1].requests if handlings else []
        if step in cut_steps:
            same = "the undisturbed answers" if have == want else "other answers"
            allowed.append(
                f"step {step} ({_one_line(WEEK[step].what)}) cut by a kill, handled again,"
                f" {same}: "
                + (" ==> ".join(_shows(h.requests) for h in handlings) or "no answer at all")
            )
            continue
        area = f"answers {step} ({_one_line(WEEK[step].what)})"
        if len(handlings) > 1:
            differences.append(Difference(area, note=f"handled {len(handlings)} times"))
        found = _multiset_difference(area, [_show(r) for r in want], [_show(r) for r in have])
        if found is not None:
            differences.append(found)
    return differences, allowed


# ---- what the database holds --------------------------------------------------------------


def database_rows(path: Path) -> dict[str, list[str]]:
    """Every table's rows as JSON texts, without row ids and the :data:`VOLATILE` columns."""
    connection = sqlite3.connect(f"file:{path}?mode=ro", uri=True)
    try:
        connection.row_factory = sqlite3.Row
        tables = [
            str(row[0])
            for row in connection.execute(
                "SELECT name FROM sqlite_master WHERE type = 'table'"
                " AND name NOT LIKE 'sqlite_%' ORDER BY name"
            )
        ]
        found: dict[str, list[str]] = {}
        for table in tables:
            dropped = VOLATILE.get(table, set()) | {"id"}
            found[table] = [
                json.dumps(
                    {
                        key: _stable(value) if isinstance(value, str) else value
                        for key, value in dict(row).items()
                        if key not in dropped
                    },
                    ensure_ascii=False,
                    sort_keys=True,
                )
                for row in connection.execute(f"SELECT * FROM {table}")
            ]
        return found
    finally:
        connection.close()


def database_differences(
    calm: Path, week: Path, repeated: set[str]
) -> tuple[list[Difference], list[str]]:
    """Tables whose rows differ. Extra rows recording an update handled twice (``repeated``:
    the stored moments of those steps) are allowed: its history rows and board refresh."""
    expected, got = database_rows(calm), database_rows(week)
    differences: list[Difference] = []
    allowed: list[str] = []
    for table in sorted(set(expected) | set(got)):
        found = _multiset_difference(f"table {table}", expected.get(table, []), got.get(table, []))
        if found is None:
            continue
        extra = []
        for row in found.extra:
            if _records_a_repeat(table, json.loads(row), repeated):
                allowed.append(f"table {table}: the repeated update is recorded too: {row[:240]}")
            else:
                extra.append(row)
        if found.missing or extra:
            differences.append(Difference(found.area, found.missing, tuple(extra)))
    return differences, allowed


def _records_a_repeat(table: str, row: dict[str, Any], repeated: set[str]) -> bool:
    if table in HISTORY:
        return row[HISTORY[table]] in repeated
    return table == "outbox" and row["kind"] == BOARD and row["created_at"] in repeated


# ---- a week, judged -----------------------------------------------------------------------


@dataclass
class Verdict:
    """What one killed week did, what it was allowed, what differed."""

    name: str
    week: Week
    differences: list[Difference]
    allowed: list[str]

    def kills(self) -> list[str]:
        return [
            f"{kill['kind']} #{kill['nth']} at step {kill['step']}"
            f" ({kill.get('transaction') or kill.get('method') or ''}"
            f" for {_name(kill.get('origin'))})"
            for kill in self.week.kills
        ]

    def report(self) -> str:
        lines = [
            f"{self.name}: {len(self.week.kills)} kill(s), {self.week.processes} processes,"
            f" {self.week.seconds:.1f} s: " + "; ".join(self.kills())
        ]
        lines += [f"  allowed: {line}" for line in self.allowed]
        lines += [f"  DIFFERENCE: {difference}" for difference in self.differences]
        return "\n".join(lines)


def compare(name: str, calm: Week, week: Week) -> Verdict:
    """``week`` against the undisturbed ``calm``."""
    if week.stuck is not None:
        stuck = Difference("week", note=f"the week could not go on: {week.stuck}")
        return Verdict(name, week, [stuck], [])
    differences, allowed = post_differences(calm, week)
    answers, answers_allowed = answer_differences(calm, week)
    repeated = {
        ts(WEEK[kill["step"]].at) for kill in week.kills if "update" in (kill.get("origin") or {})
    }
    tables, tables_allowed = database_differences(
        calm.workdir / DATABASE, week.workdir / DATABASE, repeated
    )
    differences += answers + tables
    if read_lines(week.workdir / PROGRESS)[-1] != read_lines(calm.workdir / PROGRESS)[-1]:
        differences.append(Difference("week", note="it did not end where the calm one did"))
    return Verdict(name, week, differences, allowed + answers_allowed + tables_allowed)


@dataclass
class Bench:
    """The undisturbed week and its points, and the fork server to play more weeks."""

    context: ForkServerContext
    root: Path
    calm: Week
    points: list[Point]

    @classmethod
    def start(cls, root: Path) -> Bench:
        context = fork_server()
        calm = play(context, root / "undisturbed", lambda _number, _first: None, trace=True)
        return cls(context, root, calm, calm.points())

    def judge(self, name: str, plans: Plans) -> Verdict:
        """Play a week with ``plans``'s kills and compare it with the undisturbed one (a bot
        process that fails otherwise than by the kill is a difference too)."""
        try:
            week = play(self.context, self.root / name, plans)
        except RuntimeError as error:
            failed = Week(self.root / name, read_lines(self.root / name / KILLS))
            return Verdict(name, failed, [Difference("week", note=str(error))], [])
        return compare(name, self.calm, week)

    def judge_all(self, plans: dict[str, Plans], workers: int = 2) -> dict[str, Verdict]:
        """Each named week, ``workers`` at a time (the bot processes use the CPU; this one
        waits)."""
        with ThreadPoolExecutor(workers) as pool:
            verdicts = pool.map(lambda name: self.judge(name, plans[name]), list(plans))
            return {verdict.name: verdict for verdict in verdicts}

    def seeds(self, seeds: range) -> dict[str, Plans]:
        """The plans of ``seeds``, named ``seed-<n>``."""
        return {f"seed-{seed}": seeded_plans(seed, self.points) for seed in seeds}


USAGE = """usage: python -m tests.faults.sigkill_judge [SEEDS [FIRST]]
       python -m tests.faults.sigkill_judge kill KIND ORIGIN [LATER]
       python -m tests.faults.sigkill_judge every

The first form plays SEEDS seeds (default 20) from FIRST (default 0). The second kills once, at
the LATER-th (default 0) point of KIND (commit, committed, send, sent) made on behalf of
ORIGIN: u<step> (a person's update, steps numbered from 0 as in WEEK) or o:<outbox key>. The
third plays one week per point of the undisturbed week, killed there (minutes), and prints
only the weeks that differed."""


def main(argv: list[str]) -> int:
    """Play seeds, one targeted kill, or every point, and print what the weeks did; exit
    status 1 if any week differed."""
    every = argv == ["every"]
    targets: dict[str, int | tuple[str, str, int]] = {}
    if every:
        pass
    elif argv[:1] == ["kill"] and len(argv) in (3, 4):
        targets = {"kill": (argv[1], argv[2], int(argv[3]) if len(argv) == 4 else 0)}
    elif len(argv) <= 2 and all(arg.isdigit() for arg in argv):
        count, first = (int(argv[0]) if argv else 20), (int(argv[1]) if len(argv) > 1 else 0)
        targets = {f"seed-{seed}": seed for seed in range(first, first + count)}
    else:
        print(USAGE, file=sys.stderr)
        return 2
    shm = Path("/dev/shm")
    with tempfile.TemporaryDirectory(dir=shm if shm.is_dir() else None) as directory:
        started = time.perf_counter()
        bench = Bench.start(Path(directory))
        print(
            f"undisturbed week: {len(WEEK)} steps, {len(bench.points)} points,"
            f" {len(bench.calm.journal())} requests; fork server and week"
            f" {time.perf_counter() - started:.1f} s"
        )
        started = time.perf_counter()
        plans = {
            name: seeded_plans(target, bench.points)
            if isinstance(target, int)
            else targeted_plan(bench.points, *target)
            for name, target in targets.items()
        }
        if every:
            plans = {
                f"{kind}-{nth}": _first_process(KillPlan(kind, nth))
                for kind in KINDS
                for nth in range(1, 1 + sum(point[1] == kind for point in bench.points))
            }
        verdicts = bench.judge_all(plans).values()
        for verdict in verdicts:
            if not every or verdict.differences:
                print(verdict.report(), flush=True)
        differed = sum(bool(verdict.differences) for verdict in verdicts)
        print(f"{len(plans)} week(s) in {time.perf_counter() - started:.1f} s: {differed} differed")
    return 1 if differed else 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
