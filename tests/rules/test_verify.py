"""``python -m rules verify-rolls``: every roll of an exported campaign re-derived (G4).

``exports/siege-campaign.json`` is a hand-made export in the shape docs/rules.md gives: turn 3
is MODULES.md S9 (with two dice asked for in the group and one in battle 2's context), turn 5
is S10 under another roll seed (with a roll from the deal seed, not revealed yet), turn 6 is
not resolved (no document; its roll seed is not revealed yet).
"""

from __future__ import annotations

import copy
import io
import json
from pathlib import Path
from typing import Any

import pytest

from rules.cli import main

EXPORT: dict[str, Any] = json.loads(
    (Path(__file__).parent / "exports" / "siege-campaign.json").read_text(encoding="utf-8")
)


def verify(export: Any) -> tuple[int, dict[str, Any] | None, str]:
    stdout, stderr = io.StringIO(), io.StringIO()
    text = export if isinstance(export, str) else json.dumps(export)
    code = main(["verify-rolls"], stdin=io.StringIO(text), stdout=stdout, stderr=stderr)
    return code, json.loads(stdout.getvalue()) if stdout.getvalue() else None, stderr.getvalue()


def test_an_honest_export_verifies() -> None:
    code, answer, err = verify(EXPORT)
    assert (code, err) == (0, "")
    assert answer == {
        "verified": 9,
        "unverifiable": [
            {"turn": 5, "label": "t5/watch/deal/11", "seed": "deal"},
            {"turn": 6, "label": "t6/roll/group/1/1", "seed": "roll"},
        ],
        "failed": [],
        "turns": [
            {"turn": 3, "rolls": 7, "verified": 7, "failed": 0, "replayed": True},
            {"turn": 5, "rolls": 3, "verified": 2, "failed": 0, "replayed": True},
            {
                "turn": 6,
                "rolls": 1,
                "verified": 0,
                "failed": 0,
                "replayed": False,
                "not_replayed": "no turn document (the turn is not resolved)",
            },
        ],
    }


def test_a_changed_value_fails_twice() -> None:
    export = copy.deepcopy(EXPORT)
    roll = export["turns"][0]["rolls"][2]
    assert roll["label"] == "t3/siege/assault/F1/red"
    roll["value"] = 6
    code, answer, _ = verify(export)
    assert code == 1
    assert answer is not None
    assert answer["failed"] == [
        {
            "turn": 3,
            "label": "t3/siege/assault/F1/red",
            "reason": "the roll seed does not give this value",
        },
        {
            "turn": 3,
            "label": "t3/siege/assault/F1/red",
            "reason": "recorded d6 = 6, the engine draws d6 = 3",
        },
    ]


def test_a_table_roll_that_does_not_verify_fails() -> None:
    export = copy.deepcopy(EXPORT)
    roll = export["turns"][0]["rolls"][6]
    roll["value"] = roll["value"] % 20 + 1
    code, answer, _ = verify(export)
    assert code == 1
    assert answer is not None
    assert [(f["label"], f["reason"]) for f in answer["failed"]] == [
        ("t3/roll/2/1/1", "the roll seed does not give this value")
    ]


def test_a_roll_the_engine_made_must_be_recorded() -> None:
    export = copy.deepcopy(EXPORT)
    del export["turns"][1]["rolls"][1]
    code, answer, _ = verify(export)
    assert code == 1
    assert answer is not None
    assert answer["failed"] == [
        {
            "turn": 5,
            "label": "t5/siege/lots/before/8/1",
            "reason": "the engine draws it; not recorded",
        }
    ]


def test_a_seed_must_match_its_commitment() -> None:
    export = copy.deepcopy(EXPORT)
    export["turns"][0]["commitments"]["roll"] = "0" * 64
    code, answer, _ = verify(export)
    assert code == 1
    assert answer is not None
    assert answer["failed"] == [
        {"turn": 3, "reason": "the roll seed does not match its commitment"}
    ]


def test_a_label_recorded_twice_fails() -> None:
    export = copy.deepcopy(EXPORT)
    export["turns"][0]["rolls"].append(export["turns"][0]["rolls"][0])
    code, answer, _ = verify(export)
    assert code == 1
    assert answer is not None
    assert answer["failed"] == [
        {"turn": 3, "label": "t3/roll/group/1/1", "reason": "label used twice"}
    ]


def test_rolls_of_a_seed_not_revealed_are_unverifiable_not_failed() -> None:
    export = copy.deepcopy(EXPORT)
    export["turns"][1]["seeds"]["roll"] = None
    code, answer, _ = verify(export)
    assert code == 0
    assert answer is not None
    assert answer["failed"] == []
    assert [u["label"] for u in answer["unverifiable"] if u["turn"] == 5] == [
        "t5/siege/assault/O1/red",
        "t5/siege/lots/before/8/1",
        "t5/watch/deal/11",
    ]
    turn = answer["turns"][1]
    assert turn["replayed"] is False
    assert turn["not_replayed"].startswith("a seed is not revealed yet")


def test_the_deal_seed_verifies_once_revealed() -> None:
    export = copy.deepcopy(EXPORT)
    export["turns"][1]["seeds"]["deal"] = "c0ffee00c0ffee00c0ffee00c0ffee00"
    code, answer, _ = verify(export)
    assert code == 0
    assert answer is not None
    assert answer["verified"] == 10
    assert [u["turn"] for u in answer["unverifiable"]] == [6]


@pytest.mark.parametrize(
    ("export", "expected"),
    [
        ("{", "malformed export"),
        ({"turns": [{"turn": 1, "rolls": [{"label": "x", "sides": 0, "value": 1}]}]}, "sides"),
        ({"campaign": {}}, "turns"),
    ],
)
def test_a_malformed_export_exits_2(export: Any, expected: str) -> None:
    code, answer, err = verify(export)
    assert (code, answer) == (2, None)
    assert err.startswith("python -m rules verify-rolls: malformed export: ")
    assert expected in err


def test_a_turn_document_must_be_of_its_turn() -> None:
    export = copy.deepcopy(EXPORT)
    export["turns"][0]["turn"] = 4
    code, _, err = verify(export)
    assert code == 2
    assert "turns[0].document: state.turn is 3, not 4" in err
    broken = copy.deepcopy(EXPORT)
    broken["turns"][0]["document"]["state"]["armies"]["red"]["1"] = "3"
    code, _, err = verify(broken)
    assert code == 2
    assert "turns[0].document: " in err
