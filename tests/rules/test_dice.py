"""Dice of MODULES.md G4: the test vectors, labels never reused, seeds required, commitments."""

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from rules import (
    Dice,
    DuplicateLabelError,
    Roll,
    SeedMissingError,
    TurnSeeds,
    commitment,
    draw,
    shuffle,
)

K = "9f2c4e7a1b3d5f6081a2c3e4f5061728"


def test_g4_draw_vector() -> None:
    assert draw(K, "t3/siege/assault/F1/red", 6) == 3


def test_g4_shuffle_vector() -> None:
    deck = [2, 3, 3, 4, 4, 5, 5, 6, 6, 7]
    assert shuffle(K, "t4/contact/zombies", deck) == [6, 5, 3, 5, 3, 4, 7, 6, 2, 4]
    assert deck == [2, 3, 3, 4, 4, 5, 5, 6, 6, 7]


def test_draw_reads_the_first_eight_bytes_of_the_digest_big_endian() -> None:
    digest = hashlib.sha256(f"{K}|some/label".encode()).digest()
    assert draw(K, "some/label", 1000) == 1 + int.from_bytes(digest[:8], "big") % 1000
    assert draw(K, "some/label", 1) == 1


def test_draw_uses_the_seed_as_text() -> None:
    assert draw("AB", "x", 10**9) != draw("ab", "x", 10**9)


def test_draw_refuses_an_empty_range() -> None:
    with pytest.raises(ValueError, match="0 values"):
        draw(K, "x", 0)


@given(st.text(min_size=1), st.text(), st.integers(min_value=1, max_value=1000))
def test_draw_stays_in_range(seed: str, label: str, n: int) -> None:
    assert 1 <= draw(seed, label, n) <= n


@given(st.text(min_size=1), st.lists(st.integers(), max_size=12))
def test_shuffle_is_a_permutation(seed: str, items: list[int]) -> None:
    assert sorted(shuffle(seed, "deck", items)) == sorted(items)


def test_shuffle_of_one_item_draws_nothing() -> None:
    dice = Dice(TurnSeeds(roll=K))
    assert dice.shuffle("t1/lots", ["only"]) == ["only"]
    assert dice.rolls == []


def test_dice_record_every_draw_of_a_shuffle_by_label() -> None:
    dice = Dice(TurnSeeds(roll=K))
    deck = [2, 3, 3, 4, 4, 5, 5, 6, 6, 7]
    assert dice.shuffle("t4/contact/zombies", deck) == shuffle(K, "t4/contact/zombies", deck)
    assert [roll.label for roll in dice.rolls] == [
        f"t4/contact/zombies/{i}" for i in range(9, 0, -1)
    ]
    assert [roll.sides for roll in dice.rolls] == list(range(10, 1, -1))
    assert all(roll.verify(K) for roll in dice.rolls)


def test_dice_refuse_a_label_twice_and_keep_earlier_rolls() -> None:
    dice = Dice(TurnSeeds(roll=K), [Roll(label="t1/a", sides=6, value=draw(K, "t1/a", 6))])
    with pytest.raises(DuplicateLabelError, match="t1/a"):
        dice.roll("t1/a", 6)
    assert dice.roll("t1/b", 6) == draw(K, "t1/b", 6)
    assert [roll.label for roll in dice.rolls] == ["t1/a", "t1/b"]


def test_dice_need_the_seed_they_draw_from() -> None:
    dice = Dice(TurnSeeds(roll=K))
    with pytest.raises(SeedMissingError, match="deal"):
        dice.roll("t1/watch/deal", 12, seed="deal")
    with pytest.raises(SeedMissingError, match="roll"):
        Dice().roll("t1/x", 6)
    dealt = Dice(TurnSeeds(deal="d")).roll("t1/watch/deal", 12, seed="deal")
    assert dealt == draw("d", "t1/watch/deal", 12)


def test_roll_json_names_the_seed_only_for_the_deal() -> None:
    assert Roll(label="a", sides=6, value=2).as_json() == {"label": "a", "sides": 6, "value": 2}
    assert Roll(label="a", sides=6, value=2, seed="deal").as_json() == {
        "label": "a",
        "sides": 6,
        "value": 2,
        "seed": "deal",
    }


def test_roll_verifies_against_its_seed() -> None:
    roll = Roll(label="t3/siege/assault/F1/red", sides=6, value=3)
    assert roll.verify(K)
    assert not roll.model_copy(update={"value": 4}).verify(K)


def test_commitment_is_the_sha256_of_the_seed_text() -> None:
    assert commitment(K) == hashlib.sha256(K.encode()).hexdigest()
    assert len(commitment(K)) == 64
