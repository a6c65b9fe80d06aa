"""``python -m rules render`` as a GM runs it: a turn document in, the PNG of the docs out."""

import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]


def test_render_command_draws_the_worked_example_as_in_the_docs() -> None:
    done = subprocess.run(
        [
            sys.executable,
            "-m",
            "rules",
            "render",
            "--variant",
            "resolved",
            "--title",
            "Worked example",
        ],
        input=(ROOT / "examples" / "worked-example.json").read_bytes(),
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, b"")
    assert done.stdout == (ROOT / "docs" / "img" / "worked-example-map.png").read_bytes()


def test_render_command_refuses_a_bad_document_with_exit_2() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "rules", "render"],
        input=b"{not json",
        capture_output=True,
        cwd=ROOT,
        check=False,
    )
    assert done.returncode == 2
    assert done.stdout == b""
    assert b"Invalid JSON" in done.stderr
