"""The proxy drill (issue 22): the real ``deploy/Caddyfile`` in front of three ``python -m bot``
replicas on one PostgreSQL, Telegram played by the local Bot API emulator, one replica
SIGKILLed while players give their orders. Prints figures; not a test (CI has no Caddy).

    .venv/bin/python -m bench.proxy_drill [KILL_AFTER [KILLED]]

- Caddy 2 (``caddy`` on the PATH, Debian's 2.6.2 here) runs ``deploy/Caddyfile`` as it is:
  adapted to JSON with ``DOMAIN=http://127.0.0.1:<free port>`` (no TLS), the only addition
  being its admin endpoint on a free loopback port (its default, localhost:2019, may be taken).
  ``dynamic a bot 8080`` resolves ``bot`` from ``/etc/hosts``: Caddy runs in a mount namespace
  of its own (``unshare -m``, root) where ``/etc/hosts`` is a file naming ``bot`` three times,
  127.0.0.11, .12 and .13; the machine's own ``/etc/hosts`` is never touched.
- Three replicas in production settings (the real clock, the shared send windows, the 6 s
  outbox lease), each with ``WEBHOOK_HOST`` one of those addresses and ``WEBHOOK_PORT=8080``,
  ``WEBHOOK_URL`` and ``MINIAPP_URL`` Caddy's address, one throwaway PostgreSQL
  (:mod:`tests.postgres_server`).
- The emulator (:mod:`tests.e2e.harness`) delivers every update to Caddy with the secret token
  and, as Telegram does, sends a failed delivery again every second
  (``BOT_API_EMULATOR_WEBHOOK_RETRY``); it keeps every attempt.
- A GM sets up a campaign in manual mode through the group (:mod:`tests.e2e.scenario`), three
  players join and deploy, then give their orders at once, line by line, and mark them ready.
  After KILL_AFTER (default 6) webhook deliveries of the orders, replica KILLED (default 1, the
  one on 127.0.0.12) is SIGKILLed. Once the players are done and Caddy's ``fail_duration``
  (30 s) has run out, each player opens /orders once more (Caddy tries the dead address again).

Figures: deliveries by answer, requests that failed at the proxy, updates delivered more than
once or never, ``seen_updates`` rows not done, orders stored against those given, callback
presses against answers, delivery times before and after the kill (how long Caddy took to pass
over the dead replica), each replica's share, and the Mini App's ``/miniapp/`` through Caddy.
"""

from __future__ import annotations

import asyncio
import json
import os
import shutil
import signal
import socket
import statistics
import subprocess
import sys
import tempfile
import time
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import aiohttp
import asyncpg

from rules import SideOrders
from storage import PostgresCampaignStore
from tests.e2e.harness import Chat, ScriptedTelegram, User, install_emulator, run_emulator
from tests.e2e.scenario import (
    ClockClient,
    Player,
    Table,
    create_campaign,
    deploy_typed,
    gm_advance,
    join,
    mark_ready,
)
from tests.postgres_server import PostgresServer

ROOT = Path(__file__).resolve().parents[1]
CADDYFILE = ROOT / "deploy" / "Caddyfile"
REPLICA_HOSTS = ("127.0.0.11", "127.0.0.12", "127.0.0.13")
REPLICA_PORT = 8080  # the Caddyfile's ``dynamic a bot 8080``
WEBHOOK_SECRET = "proxy-drill-secret-5b1e"
RETRY_SECONDS = 1.0
FAIL_DURATION = 30.0  # the Caddyfile's ``fail_duration``
START_TIMEOUT = 90.0
ANSWER_TIMEOUT = 120.0  # an update its replica died with waits out its 30 s lease first

GROUP = Chat(id=-1004100, type="supergroup", title="Drill Wargamers")
GM = Player(User(id=4100, first_name="Marta"))
ANNA = Player(User(id=4201, first_name="Anna"))
VERA = Player(User(id=4301, first_name="Vera"))
DORA = Player(User(id=4401, first_name="Dora"))
RED, BLUE, GREEN = "Red", "Blue", "Green"
# planet-5: 1 Equator, 2 West, 3 East, 4 North Pole, 5 South Pole.
PLAYS = (
    (ANNA, RED, "1:4 2:3 4:3", ("attack blue in 1", "4 -> 1 x2", "reinforce 4")),
    (VERA, BLUE, "1:3 3:5 5:2", ("5 -> 3 x1", "attack green in 3", "reinforce 3")),
    (DORA, GREEN, "2:4 3:3 5:3", ("attack red in 2", "attack blue in 5", "reinforce 2")),
)


def free_port(host: str = "127.0.0.1") -> int:
    with socket.socket() as probe:
        probe.bind((host, 0))
        return int(probe.getsockname()[1])


def check_machine() -> None:
    """Caddy, root (for the mount namespace) and port 8080 free on the three addresses."""
    if shutil.which("caddy") is None:
        raise SystemExit("caddy is not on the PATH (Debian: apt-get install caddy)")
    if os.geteuid() != 0 or shutil.which("unshare") is None:
        raise SystemExit("the drill runs Caddy in its own mount namespace: run it as root")
    for host in REPLICA_HOSTS:
        with socket.socket() as probe:
            probe.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)  # as aiohttp binds
            try:
                probe.bind((host, REPLICA_PORT))
            except OSError as error:
                raise SystemExit(f"{host}:{REPLICA_PORT} is taken ({error})") from None


@dataclass
class Drill:
    """What runs, and what was seen."""

    workdir: Path
    caddy_port: int = 0
    admin_port: int = 0
    caddy: subprocess.Popen[bytes] | None = None
    replicas: list[subprocess.Popen[bytes]] = field(default_factory=list)
    killed: int | None = None
    kill_at: float | None = None  # Unix time
    orders_from: int = 0  # deliveries before the orders began
    upstreams_after_kill: list[Any] = field(default_factory=list)
    miniapp: list[tuple[str, int, str]] = field(default_factory=list)

    @property
    def caddy_url(self) -> str:
        return f"http://127.0.0.1:{self.caddy_port}"

    def replica_log(self, number: int) -> Path:
        return self.workdir / f"replica-{number}.log"


def start_caddy(drill: Drill) -> None:
    """``deploy/Caddyfile`` adapted with ``DOMAIN``, its admin endpoint moved; run with
    ``bot`` naming the three replica addresses in its own ``/etc/hosts``."""
    drill.caddy_port, drill.admin_port = free_port(), free_port()
    env = {
        **os.environ,
        "DOMAIN": drill.caddy_url,
        "XDG_DATA_HOME": str(drill.workdir / "caddy-data"),
        "XDG_CONFIG_HOME": str(drill.workdir / "caddy-config"),
    }
    adapted = subprocess.run(
        ["caddy", "adapt", "--config", str(CADDYFILE), "--adapter", "caddyfile"],
        capture_output=True,
        text=True,
        env=env,
        check=True,
    )
    config = json.loads(adapted.stdout)
    config["admin"] = {"listen": f"127.0.0.1:{drill.admin_port}"}
    config_path = drill.workdir / "caddy.json"
    config_path.write_text(json.dumps(config, indent=1))
    hosts = drill.workdir / "hosts"
    hosts.write_text("127.0.0.1 localhost\n" + "".join(f"{host} bot\n" for host in REPLICA_HOSTS))
    with (drill.workdir / "caddy.log").open("wb") as log:
        drill.caddy = subprocess.Popen(
            [
                "unshare",
                "-m",
                "--propagation",
                "private",
                "sh",
                "-c",
                f'mount --bind "{hosts}" /etc/hosts && exec caddy run --config "{config_path}"',
            ],
            env=env,
            stdin=subprocess.DEVNULL,
            stdout=log,
            stderr=subprocess.STDOUT,
        )


def start_replicas(drill: Drill, telegram: ScriptedTelegram, database_url: str) -> None:
    inherited = ("BOT_", "WEBHOOK_", "MINIAPP_", "TEST_", "DATABASE_", "LOG_LEVEL", "MAP_")
    base = {key: value for key, value in os.environ.items() if not key.startswith(inherited)}
    for number, host in enumerate(REPLICA_HOSTS):
        folder = drill.workdir / f"replica-{number}"
        folder.mkdir()
        env = base | {
            "BOT_TOKEN": telegram.token,
            "BOT_API_BASE": telegram.base_url,
            "DATABASE_URL": database_url,
            "HEARTBEAT_PATH": str(folder / "heartbeat"),
            "WEBHOOK_URL": drill.caddy_url,
            "WEBHOOK_HOST": host,
            "WEBHOOK_PORT": str(REPLICA_PORT),
            "WEBHOOK_SECRET": WEBHOOK_SECRET,
            "MINIAPP_URL": f"{drill.caddy_url}/miniapp/",
            "MAP_WORKERS": "0",
            "LOG_LEVEL": "INFO",
        }
        with drill.replica_log(number).open("wb") as log:
            drill.replicas.append(
                subprocess.Popen(
                    [sys.executable, "-m", "bot"],
                    cwd=ROOT,
                    env=env,
                    stdin=subprocess.DEVNULL,
                    stdout=log,
                    stderr=subprocess.STDOUT,
                )
            )


async def wait_serving(drill: Drill, telegram: ScriptedTelegram) -> None:
    """Every replica set the webhook (to Caddy) and Caddy answers."""
    deadline = time.time() + START_TIMEOUT
    while (await telegram.request_counts()).get("setWebhook", 0) < len(REPLICA_HOSTS):
        for number, process in enumerate(drill.replicas):
            if process.poll() is not None:
                tail = drill.replica_log(number).read_text(errors="replace")[-3000:]
                raise SystemExit(f"replica {number} exited:\n{tail}")
        if drill.caddy is not None and drill.caddy.poll() is not None:
            tail = (drill.workdir / "caddy.log").read_text(errors="replace")[-3000:]
            raise SystemExit(f"caddy exited:\n{tail}")
        if time.time() > deadline:
            raise SystemExit(f"the replicas did not start in {START_TIMEOUT:.0f} s")
        await asyncio.sleep(0.2)


def stop(process: subprocess.Popen[bytes] | None) -> None:
    if process is None or process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(10)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


# ---- the campaign ---------------------------------------------------------------------------


async def kill_when(drill: Drill, telegram: ScriptedTelegram, after: int, number: int) -> None:
    """SIGKILL replica ``number`` once ``after`` deliveries of the orders were attempted."""
    while len(await telegram.webhook_deliveries()) < drill.orders_from + after:
        await asyncio.sleep(0.05)
    drill.replicas[number].send_signal(signal.SIGKILL)
    drill.killed, drill.kill_at = number, time.time()
    drill.replicas[number].wait()
    await asyncio.sleep(1.0)
    drill.upstreams_after_kill = await upstreams(drill)


async def upstreams(drill: Drill) -> list[Any]:
    async with (
        aiohttp.ClientSession() as session,
        session.get(f"http://127.0.0.1:{drill.admin_port}/reverse_proxy/upstreams") as answer,
    ):
        return list(await answer.json())


async def give_orders(table: Table, player: Player, lines: tuple[str, ...]) -> None:
    for line in lines:
        await table.say(player, line)
    await mark_ready(table, player)


async def check_miniapp(drill: Drill, when: str) -> None:
    """The Mini App's page and its API (unsigned: the app's own 401) through Caddy, and a path
    Caddy does not forward (its own empty 404)."""
    async with aiohttp.ClientSession() as session:
        for path in ("/miniapp/", "/miniapp/api/campaigns", "/elsewhere"):
            async with session.get(drill.caddy_url + path) as answer:
                body = await answer.text()
            if path == "/miniapp/":
                seen = "the app's page" if "telegram-web-app.js" in body else f"{body[:60]!r}"
            else:
                seen = f"{body[:40]!r}"
            drill.miniapp.append((f"{when} {path}", answer.status, seen))


async def play(drill: Drill, telegram: ScriptedTelegram, kill_after: int, killed: int) -> Table:
    async with aiohttp.ClientSession() as session:
        unused_clock = ClockClient("http://127.0.0.1:9/clock", session)  # real time: never set
        table = Table(telegram, unused_clock, GROUP, GM, settle=False, timeout=ANSWER_TIMEOUT)
        await check_miniapp(drill, "before")
        await table.command(GM, "/start")
        await create_campaign(table, "Proxy Drill", [RED, BLUE, GREEN], schedule="Manual")
        for player, side, _, _ in PLAYS:
            await join(table, player, side)
        await asyncio.gather(*(deploy_typed(table, p, line) for p, _, line, _ in PLAYS))
        await gm_advance(table)  # manual mode: the GM ends the deployment
        await table.wait_for_message(GROUP.id, lambda m: m.photo is not None, what="first map")
        drill.orders_from = len(await telegram.webhook_deliveries())
        killer = asyncio.create_task(kill_when(drill, telegram, kill_after, killed))
        await asyncio.gather(*(give_orders(table, p, lines) for p, _, _, lines in PLAYS))
        await killer
        await check_miniapp(drill, "after the kill")
        assert drill.kill_at is not None
        await asyncio.sleep(max(0.0, drill.kill_at + FAIL_DURATION + 1 - time.time()))
        await asyncio.gather(*(table.command(p, "/orders") for p, _, _, _ in PLAYS))
        await check_miniapp(drill, f"after {FAIL_DURATION:.0f} s")
    return table


# ---- the figures ------------------------------------------------------------------------------


async def stored_orders(url: str) -> tuple[dict[str, tuple[SideOrders, bool, int]], list[Any]]:
    """Each side's stored orders of turn 1 (by name), ready, saves; and ``seen_updates``."""
    store = await PostgresCampaignStore.open(url)
    try:
        campaigns = await store.unfinished_campaigns()
        result = {}
        for campaign in campaigns:
            names = {side.id: side.name for side in await store.sides(campaign.id)}
            for side, record in (await store.orders_for_turn(campaign.id, 1)).items():
                result[names[side]] = (record.orders, record.ready, record.edits)
    finally:
        await store.close()
    conn = await asyncpg.connect(url)
    try:
        seen = list(await conn.fetch("SELECT update_id, done_at FROM seen_updates"))
    finally:
        await conn.close()
    return result, seen


def ms_line(values: list[float]) -> str:
    if not values:
        return "none"
    ordered = sorted(values)
    p95 = ordered[int(0.95 * (len(ordered) - 1))]
    return (
        f"{len(values)}: median {statistics.median(values):.0f} ms, p95 {p95:.0f} ms,"
        f" max {ordered[-1]:.0f} ms"
    )


def report(
    drill: Drill,
    deliveries: list[dict[str, Any]],
    counts: dict[str, int],
    table: Table,
    orders: dict[str, tuple[SideOrders, bool, int]],
    seen: list[Any],
) -> bool:
    kill_ms = (drill.kill_at or 0.0) * 1000
    statuses = Counter(str(d["status"] or "unreachable") for d in deliveries)
    updates = {int(d["update_id"]) for d in deliveries}
    delivered = Counter(int(d["update_id"]) for d in deliveries if 200 <= d["status"] < 300)
    never = sorted(updates - set(delivered))
    twice = sorted(update for update, n in delivered.items() if n > 1)
    at_proxy = [d for d in deliveries if d["status"] in (0, 502, 504)]
    held = [d for d in deliveries if d["status"] == 503]
    done = {int(row["update_id"]) for row in seen if row["done_at"] is not None}
    not_done = sorted(updates - done)
    ok_ms = [(d["started_ms"], d["ms"]) for d in deliveries if 200 <= d["status"] < 300]
    before = [ms for started, ms in ok_ms if started < kill_ms]
    after = [ms for started, ms in ok_ms if kill_ms <= started < kill_ms + FAIL_DURATION * 1000]
    later = [ms for started, ms in ok_ms if started >= kill_ms + FAIL_DURATION * 1000]
    taps = sum(1 for seen_step in table.transcript if seen_step.action == "taps")
    answers = counts.get("answerCallbackQuery", 0)
    shares = [
        drill.replica_log(n).read_text(errors="replace").count("/telegram/webhook 200")
        for n in range(len(REPLICA_HOSTS))
    ]
    print(f"caddy {drill.caddy_url} -> bot:8080 = {', '.join(REPLICA_HOSTS)}")
    print(
        f"replica {drill.killed} ({REPLICA_HOSTS[drill.killed or 0]}) SIGKILLed after"
        f" {len([d for d in deliveries[drill.orders_from :] if d['started_ms'] < kill_ms])}"
        " deliveries of the orders"
    )
    print(
        f"updates: {len(updates)}; delivery attempts {len(deliveries)} by answer"
        f" {dict(sorted(statuses.items()))}"
    )
    print(
        f"failed at the proxy: {len(at_proxy)}"
        + "".join(
            f"; update {d['update_id']} {d['status'] or 'unreachable'}"
            f" {(d['started_ms'] - kill_ms) / 1000:+.2f} s from the kill: {d['error']}"
            for d in at_proxy
        )
    )
    print(f"answered 503 (held by another replica, sent again): {len(held)}")
    if at_proxy or held:
        retried = {int(d["update_id"]) for d in at_proxy + held}
        finals = [
            (d["started_ms"] + d["ms"] - kill_ms) / 1000
            for d in deliveries
            if int(d["update_id"]) in retried and 200 <= d["status"] < 300
        ]
        print(f"  those updates handled {', '.join(f'{s:.1f}' for s in finals)} s after the kill")
    print(f"never delivered: {never or 0}; delivered 2xx more than once: {twice or 0}")
    print(f"seen_updates: {len(seen)} rows, {len(not_done)} of the updates not done {not_done}")
    print(f"callback presses {taps}, answerCallbackQuery {answers}")
    print(f"delivery time before the kill {ms_line(before)}")
    print(f"  in the {FAIL_DURATION:.0f} s after the kill {ms_line(after)}")
    print(f"  later (Caddy tries the dead address again) {ms_line(later)}")
    print(f"webhook requests answered 200 by each replica: {shares}")
    print(f"caddy's upstreams 1 s after the kill: {json.dumps(drill.upstreams_after_kill)}")
    for what, status, seen_text in drill.miniapp:
        print(f"  {what}: {status} {seen_text}")
    orders_ok = True
    for _, side, _, lines in PLAYS:
        stored = orders.get(side)
        if stored is None:
            print(f"orders of {side}: NONE stored")
            orders_ok = False
            continue
        given, ready, edits = stored
        count = len(given.moves) + len(given.attacks) + (given.reinforce is not None)
        kept = count == len(lines) and ready
        orders_ok = orders_ok and kept
        print(
            f"orders of {side}: {count} of {len(lines)} stored, ready {ready}, {edits} saves"
            + ("" if kept else " LOST")
        )
    miniapp_ok = all(
        status == (200 if what.endswith("/miniapp/") else 401 if "api" in what else 404)
        for what, status, _ in drill.miniapp
    )
    return not (never or twice or not_done) and orders_ok and miniapp_ok and answers == taps


async def run(kill_after: int = 6, killed: int = 1) -> int:
    check_machine()
    install_emulator()
    server = PostgresServer.start()
    workdir = Path(tempfile.mkdtemp(prefix="strategium-proxy-drill-"))
    drill = Drill(workdir)
    try:
        server.create_database("strategium")
        url = server.database_url("strategium")
        with run_emulator(workdir / "emulator.log", webhook_retry_seconds=RETRY_SECONDS) as emu:
            async with aiohttp.ClientSession() as session:
                telegram = emu.scripted(session)
                start_caddy(drill)
                start_replicas(drill, telegram, url)
                try:
                    await wait_serving(drill, telegram)
                    table = await play(drill, telegram, kill_after, killed)
                    deliveries = await telegram.webhook_deliveries()
                    counts = await telegram.request_counts()
                finally:
                    for process in drill.replicas:
                        stop(process)
                    stop(drill.caddy)
        orders, seen = await stored_orders(url)
        ok = report(drill, deliveries, counts, table, orders, seen)
    finally:
        server.stop()
    print(f"logs: {workdir}")
    print("OK" if ok else "FAULT")
    return 0 if ok else 1


if __name__ == "__main__":
    arguments = [int(argument) for argument in sys.argv[1:]]
    sys.exit(asyncio.run(run(*arguments)))
