"""With no rule module enabled, ``python -m rules`` answers exactly as it did before modules.

``compat_answers.json`` holds the exit status, standard output and standard error of both
commands (``battles`` and ``resolve``) on the input of every case file in ``cases/``, made by the
code before the extension point existed (its commit is named in the file). Each answer must
come back byte for byte. The file is never regenerated: a difference is a broken contract.
"""

import io
import json
from pathlib import Path
from typing import Any

import pytest

from rules.cli import main

HERE = Path(__file__).parent
ANSWERS: dict[str, Any] = json.loads((HERE / "compat_answers.json").read_text(encoding="utf-8"))[
    "answers"
]
CASE_FILES = sorted((HERE / "cases").glob("*.json"))


def test_every_top_level_case_has_its_recorded_answers() -> None:
    recorded = {key.rsplit(" ", 1)[0] for key in ANSWERS}
    assert recorded == {path.stem for path in CASE_FILES}


@pytest.mark.parametrize("key", sorted(ANSWERS))
def test_answer_is_byte_identical(key: str) -> None:
    stem, command = key.rsplit(" ", 1)
    case = json.loads((HERE / "cases" / f"{stem}.json").read_text(encoding="utf-8"))
    document = case["input"]
    text = document if isinstance(document, str) else json.dumps(document)
    stdout, stderr = io.StringIO(), io.StringIO()
    code = main([command], stdin=io.StringIO(text), stdout=stdout, stderr=stderr)
    want = ANSWERS[key]
    assert (code, stdout.getvalue(), stderr.getvalue()) == (
        want["exit"],
        want["stdout"],
        want["stderr"],
    )
