"""The offline demo, run as ``./run`` runs it without a token, plays its campaign to the end."""

import os
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
PNG_SIGNATURE = b"\x89PNG\r\n\x1a\n"


def test_the_demo_plays_a_campaign_to_its_end(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    env = {key: value for key, value in os.environ.items() if key != "BOT_TOKEN"}
    completed = subprocess.run(
        [sys.executable, "-m", "bot.demo", "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:] + completed.stdout[-3000:]
    assert "The campaign finished (turns played: 2;" in completed.stdout

    transcript = (out / "transcript.txt").read_text(encoding="utf-8")
    assert transcript.strip() in completed.stdout
    for seen in (
        "Anna writes in the group «Wargamers»: /newcampaign",
        "Boris taps [🙋 Join] in the group «Wargamers»",
        "Вера writes in Вера's private chat: экватор:3 запад:2 восток=5",
        "Boris taps [⚠ Dispute] in Boris's private chat",
        "Anna taps [Red: crushing victory] in Anna's private chat",
        "Red wins the campaign!",
    ):
        assert seen in transcript

    maps = sorted(out.glob("map-*.png"))
    assert len(maps) >= 3
    assert all(path.read_bytes().startswith(PNG_SIGNATURE) for path in maps)
    private = sorted(path.name for path in out.glob("private-*.png"))
    assert {"private-Boris-01.png", "private-Вера-01.png"} <= set(private)
    assert all((out / name).read_bytes().startswith(PNG_SIGNATURE) for name in private)
    assert "The Mini App of this demo: http://127.0.0.1:" in completed.stdout
    shots = sorted(path.name for path in out.glob("miniapp-*.png"))
    assert shots == ["miniapp-battles.png", "miniapp-orders.png"]
    assert all((out / name).read_bytes().startswith(PNG_SIGNATURE) for name in shots)
    assert {path.name for path in (out / "chats").iterdir()} >= {
        "Wargamers.txt",
        "Boris.txt",
        "Вера.txt",
        "Глеб.txt",
    }
    # Nothing a side ordered reached the group before its turn resolved.
    group = (out / "chats" / "Wargamers.txt").read_text(encoding="utf-8")
    assert "атака red 2" not in group


def _module_demo(tmp_path: Path, module: str, language: str) -> tuple[Path, str]:
    """``./run -- --module <module>``: the output folder and what it printed."""
    out = tmp_path / module
    env = {key: value for key, value in os.environ.items() if key != "BOT_TOKEN"}
    completed = subprocess.run(
        ["./run", "--", "--module", module, "--lang", language, "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=240,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:] + completed.stdout[-3000:]
    assert "The campaign finished (turns played: " in completed.stdout
    maps = sorted(out.glob("map-*.png"))
    assert len(maps) >= 3
    assert all(path.read_bytes().startswith(PNG_SIGNATURE) for path in maps)
    return out, completed.stdout


def test_the_siege_demo_assaults_with_a_roll_and_turns_the_wind_rose(tmp_path: Path) -> None:
    out, printed = _module_demo(tmp_path, "siege", "en")
    assert "The campaign finished (turns played: 2;" in printed
    group = (out / "chats" / "Wargamers.txt").read_text(encoding="utf-8")
    for seen in (
        "Anna taps [🏰 Switch the siege on] in the group «Wargamers»",
        "Anna taps [🌬 Equator] in the group «Wargamers»",
        "🌬 The starting weather is chosen: North.",
        "🏰 Red assaults fortification F1 in 2 West: strength 10 + roll ",
        "🏰 Fortification F1 in 2 West fell to Red: a weather step.",
        "🌬 The weather turned: North → East.",
        "Red wins the campaign!",
    ):
        assert seen in group
    boris = (out / "chats" / "Boris.txt").read_text(encoding="utf-8")
    assert "assault F1 in 2 for weather" in boris
    assert "assault F1 in 2 for weather" not in group  # the orders stayed secret


def test_the_contact_demo_plays_a_chain_with_a_retreat_and_a_ruin_in_russian(
    tmp_path: Path,
) -> None:
    out, printed = _module_demo(tmp_path, "contact", "ru")
    assert "The campaign finished (turns played: 2;" in printed
    group = (out / "chats" / "Wargamers.txt").read_text(encoding="utf-8")
    for seen in (
        "Anna taps [Красные] in the group «Wargamers»",  # the owner picked from the sides
        "⛓ Цепочка в ",
        "↩ Сторона «Синие»: 6 армий отступают из ",
        " разрушены; сторона «Красные» получает 1 ПО.",
        "🏆 Сторона «Красные»: +3 ПО",
        # The core's posts, in Russian as a Russian group reads them (./run -- --lang ru):
        "Ход 1: список боёв.",
        "атакует сторона «Красные», защищается сторона «Синие»",
        "Итоги хода 1 подведены.",
        "Победа в кампании за стороной «Красные»!",
    ):
        assert seen in group, seen
    after_setup = group.split("» началась!", 1)[1]
    assert "Turn 1" not in after_setup
    assert "Battle 1" not in after_setup
    boris = (out / "chats" / "Boris.txt").read_text(encoding="utf-8")
    assert "переместить 5 армий из 4 в 3" in boris
    assert "переместить 5 армий из 4 в 3" not in group  # the orders stayed secret


def test_the_watch_demo_plays_a_duel_step_by_step_to_a_kill(tmp_path: Path) -> None:
    out, printed = _module_demo(tmp_path, "watch", "en")
    assert "The campaign finished (turns played: 1;" in printed
    group = (out / "chats" / "Wargamers.txt").read_text(encoding="utf-8")
    for seen in (
        "⚡ Duel in Metro; steps: Лариса, Андрей, Антон, Завулон.",
        "⚔️ Duel in «Metro», turn 1: Лариса's step.",
        "Next: Андрей's step.",
        "⚔️ Duel in «Metro», turn 1: Завулон's step.",
        " has fallen.",
    ):
        assert seen in group, seen
    # The hands stayed in their sides' private chats until the end.
    assert "hand:" not in group
