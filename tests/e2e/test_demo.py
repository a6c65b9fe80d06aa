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


def test_the_demo_plays_the_group_in_russian(tmp_path: Path) -> None:
    out = tmp_path / "demo"
    env = {key: value for key, value in os.environ.items() if key != "BOT_TOKEN"}
    completed = subprocess.run(
        ["./run", "--", "--lang", "ru", "--quiet", "--out", str(out)],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=180,
        check=False,
    )
    assert completed.returncode == 0, completed.stderr[-3000:] + completed.stdout[-3000:]
    group = (out / "chats" / "Wargamers.txt").read_text(encoding="utf-8")
    for seen in (
        "Ход 1: список боёв.",
        "атакует сторона «Красные», защищается сторона «Синие»",
        "Итоги хода 1 подведены.",
        "Победа в кампании за стороной «Красные»!",
    ):
        assert seen in group
    after_setup = group.split("Кампания «Siege of Vraks» началась!", 1)[1]
    assert "Turn 1" not in after_setup
    assert "Battle 1" not in after_setup
    boris = (out / "chats" / "Boris.txt").read_text(encoding="utf-8")
    assert "атака на синих в 1" in boris
    assert sorted(out.glob("private-Boris-*.png"))
