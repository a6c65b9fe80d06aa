"""The Monday map's week (moves, battles, captures, the winner), module marks, plural words,
one colour per side, and documents of rule modules drawn by the command."""

from __future__ import annotations

import io
import json
from pathlib import Path

import pytest
from PIL import Image

from rules import Game, Outcome, builtin_map, resolve_turn
from rules.colours import OKABE_ITO
from rules.render import (
    DIAL_HEIGHT,
    MARGIN,
    RUSSIAN_LABELS,
    DialView,
    MapLabels,
    MapView,
    SectorMark,
    SideView,
    WeekView,
    render_image,
    render_main,
    render_map,
    side_styles,
    week_of,
)
from rules.render.primitives import _Chip, _Icon, _Text
from rules.render.sectors import _badge_rows, _result_segments
from tests.render.views import custom_map_view, grid_view, siege_view, worked_example

SIEGE_CASES = Path(__file__).resolve().parents[1] / "rules" / "cases" / "modules" / "siege"
RED = OKABE_ITO[5][1]  # the command draws side "red" in vermillion
ORANGE = OKABE_ITO[0][1]


def test_a_sector_held_before_is_not_new() -> None:
    game = Game(map=builtin_map("planet-5"))
    report = resolve_turn(game, worked_example("friday").state, {}).report
    assert report.captured["red"]
    held_before = {"red": report.captured["red"][:1]}
    week = week_of(report, game.ruleset.losses, held_before)
    assert week.new.get("red", ()) == report.captured["red"][1:]
    everything = week_of(report, game.ruleset.losses, None)
    assert everything.new == {side: held for side, held in report.captured.items() if held}


def test_the_worked_examples_week_has_its_moves_battles_and_losses() -> None:
    view = worked_example("resolved")
    week = view.week
    assert week is not None
    assert week.turn == 3
    assert [(m.side, m.source, m.to, m.count) for m in week.moves] == [
        ("red", "2", "1", 2),
        ("blue", "3", "2", 3),
    ]
    assert [(b.id, b.outcome, b.winner, b.losses) for b in week.battles] == [
        (1, Outcome.CRUSHING, "red", {"blue": 2}),
        (2, Outcome.BLOODY_DRAW, None, {"red": 1, "blue": 1}),
    ]
    assert week.new == {"red": ("1",)}  # North Pole (4) was held at turn start already
    assert not week.game_over


def test_a_battle_without_result_is_marked_as_such() -> None:
    view = worked_example("resolved")
    assert view.week is not None
    unreported = view.week.model_copy(
        update={"battles": (view.week.battles[0].model_copy(update={"outcome": None}),)}
    )
    assert render_map(view.model_copy(update={"week": unreported})) != render_map(view)


def test_russian_numbers_take_their_plural_forms() -> None:
    words = [RUSSIAN_LABELS.armies_of(n) for n in (1, 2, 5, 11, 21, 22, 25, 111)]
    assert words == [
        "1 армия",
        "2 армии",
        "5 армий",
        "11 армий",
        "21 армия",
        "22 армии",
        "25 армий",
        "111 армий",
    ]
    assert RUSSIAN_LABELS.progress_of(2, 3) == "2 из 3 секторов"
    assert RUSSIAN_LABELS.progress_of(0, 1) == "0 из 1 сектора"
    english = MapLabels()
    assert [english.armies_of(n) for n in (0, 1, 2)] == ["0 armies", "1 army", "2 armies"]
    assert english.progress_of(1, 1) == "1 of 1 sector"


def test_a_side_is_drawn_in_the_colour_its_view_gives_whatever_its_name() -> None:
    """One colour per side: the one chosen when the side was made (the bot stores it), never a
    second one read from its name."""
    sides = (
        SideView(id="a", name="Red", colour=0),  # the palette's orange, as stored by the bot
        SideView(id="b", name="Синие", colour="#e69f00"),
        SideView(id="c", name="Orks", colour=2),
    )
    styles = side_styles(sides)
    assert (styles["a"].colour, styles["b"].colour) == (ORANGE, ORANGE)
    assert styles["c"].colour == (0x00, 0x9E, 0x73)


def _pixels_of(
    image: Image.Image, colour: tuple[int, int, int], box: tuple[int, int, int, int]
) -> int:
    counts = image.convert("RGB").crop(box).getcolors(1 << 20) or []
    return sum(count for count, seen in counts if seen == colour)


def test_the_final_map_carries_the_winners_banner() -> None:
    view = worked_example("resolved")
    assert view.week is not None
    final = view.model_copy(
        update={"week": view.week.model_copy(update={"game_over": True, "winner": "red"})}
    )
    banner = (0, 66, 1280, 108)
    assert _pixels_of(render_image(view), RED, banner) == 0
    assert _pixels_of(render_image(final), RED, banner) > 1280 * 30
    draw = final.model_copy(
        update={"week": view.week.model_copy(update={"game_over": True, "winner": None})}
    )
    assert _pixels_of(render_image(draw), (0x5F, 0x63, 0x68), banner) > 1280 * 30


def test_the_legend_grows_with_the_marks_it_explains() -> None:
    public = render_image(worked_example("public"))
    monday = render_image(worked_example("resolved"))
    assert public.height < monday.height <= 1280


def test_a_modules_marks_are_drawn_and_checked() -> None:
    view = worked_example("public")
    mark = SectorMark(sector="1", text="S2", side="red", meaning="siege tokens")
    marked = view.model_copy(update={"marks": (mark,)})
    assert render_map(MapView.model_validate(marked.model_dump())) != render_map(view)
    with pytest.raises(ValueError, match="not on map"):
        MapView.model_validate(
            {**view.model_dump(), "marks": [{**mark.model_dump(), "sector": "9"}]}
        )
    with pytest.raises(ValueError, match="not listed in sides"):
        MapView.model_validate(
            {**view.model_dump(), "marks": [{**mark.model_dump(), "side": "green"}]}
        )


def test_a_dial_goes_in_a_free_corner_or_under_the_legend() -> None:
    """The wind rose fits a corner of planet-5 (the picture keeps its height); the grid has
    sectors in every corner, so the dial goes under its legend and the picture grows."""
    siege = siege_view()
    assert siege.dial is not None
    plain = siege.model_copy(update={"dial": None})
    assert render_image(siege).size == render_image(plain).size
    assert render_map(siege) != render_map(plain)
    moved = siege.model_copy(
        update={"dial": DialView(title="W", states=siege.dial.states, current=5)}
    )
    assert render_map(moved) != render_map(siege)
    grid = grid_view()
    dialled = grid.model_copy(update={"dial": siege.dial})
    assert render_image(dialled).height == render_image(grid).height + DIAL_HEIGHT + MARGIN
    unchosen = siege.model_copy(update={"dial": DialView(title="W", states=("a", "b"))})
    assert render_map(unchosen).startswith(b"\x89PNG")


def test_a_dial_and_side_notes_are_checked() -> None:
    with pytest.raises(ValueError, match="is not one of 8 states"):
        DialView(title="Weather", states=tuple("abcdefgh"), current=8)
    with pytest.raises(ValueError, match="1 to 40 characters"):
        DialView(title="Weather", states=("a", " "))
    view = siege_view()
    with pytest.raises(ValueError, match="not listed in sides"):
        MapView.model_validate({**view.model_dump(), "side_notes": {"green": "1 VP"}})
    with pytest.raises(ValueError, match="1 to 40 characters"):
        MapView.model_validate({**view.model_dump(), "side_notes": {"red": ""}})


def test_a_week_naming_unknown_sides_is_refused() -> None:
    view = worked_example("resolved")
    with pytest.raises(ValueError, match="not listed in sides"):
        MapView.model_validate(
            {**view.model_dump(), "week": WeekView(turn=1, winner="green").model_dump()}
        )


def test_kept_layers_never_leak_from_one_map_to_another() -> None:
    first = render_map(worked_example("resolved"))
    render_map(grid_view())
    render_map(custom_map_view())
    render_map(worked_example("resolved", language="ru"))
    assert render_map(worked_example("resolved")) == first


def _run(argv: list[str], document: str) -> tuple[int, bytes, str]:
    stdout, stderr = io.BytesIO(), io.StringIO()
    status = render_main(argv, io.StringIO(document), stdout, stderr)
    return status, stdout.getvalue(), stderr.getvalue()


def _case(name: str) -> str:
    return json.dumps(json.loads((SIEGE_CASES / f"{name}.json").read_text())["input"])


@pytest.mark.parametrize("variant", ["public", "friday", "private"])
def test_a_siege_document_without_seeds_is_drawn_with_the_cores_battles(variant: str) -> None:
    document = _case("roll-seed-missing")
    status, png, errors = _run(["--variant", variant, "--side", "red"], document)
    assert (status, errors) == (0, "")
    assert Image.open(io.BytesIO(png)).width == 1280


def test_a_siege_document_without_seeds_cannot_be_resolved() -> None:
    status, png, errors = _run(["--variant", "resolved"], _case("roll-seed-missing"))
    assert (status, png) == (2, b"")
    assert "needs seeds.roll" in errors


def test_a_siege_document_with_seeds_is_resolved() -> None:
    status, png, errors = _run(["--variant", "resolved"], _case("s9-example-a"))
    assert (status, errors) == (0, "")
    assert png


def test_a_state_waiting_for_a_choice_is_refused_not_crashed() -> None:
    status, png, errors = _run(["--variant", "friday"], _case("weather-not-chosen"))
    assert (status, png) == (2, b"")
    assert "waiting for a deployment choice" in errors


def test_a_held_sector_shows_its_holder_and_new_at_every_size() -> None:
    """Colour is never the only cue: a held sector carries a flag and its holder's tag, and one
    taken this turn also "new", however small the sector and however many battles it lists
    (those shrink or go first)."""
    view = worked_example("resolved")
    assert view.week is not None
    assert view.week.new == {"red": ("1",)}
    styles = side_styles(view.sides)
    battles = view.week.battles * 6
    crowded = view.model_copy(update={"week": view.week.model_copy(update={"battles": battles})})
    for size, width, height in ((28, 400.0, 400.0), (14, 120.0, 80.0), (12, 60.0, 40.0)):
        rows = _badge_rows(crowded, styles, "1", "red", True, [], size, width, height)
        first = rows[0]
        assert [type(segment) for segment in first] == [_Icon, _Chip, _Text]
        assert [getattr(segment, "kind", getattr(segment, "text", "")) for segment in first] == [
            "flag",
            "R",
            "new",
        ]
        held = _badge_rows(crowded, styles, "4", "red", False, [], size, width, height)
        assert [type(segment) for segment in held[0]] == [_Icon, _Chip]


def test_a_loss_is_written_in_the_losers_chip() -> None:
    view = worked_example("resolved")
    assert view.week is not None
    styles = side_styles(view.sides)
    crushing = view.week.battles[0]
    segments = _result_segments(crushing, styles, 20, 17)
    texts = [getattr(segment, "text", getattr(segment, "kind", "")) for segment in segments]
    assert texts == ["star", "R", "B −2"]
