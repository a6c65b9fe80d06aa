"""The map renderer: golden images, determinism, every state of a played campaign, the command.

Golden PNGs live in ``tests/render/golden``. After an intended change of the picture, rewrite
them with ``UPDATE_GOLDEN=1 .venv/bin/pytest tests/render``: that run rewrites the files and
fails on purpose, so that a rewrite never passes silently; look at the new PNGs, then run the
tests again.
"""

from __future__ import annotations

import io
import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest
from PIL import Image, ImageDraw

from rules import CampaignState
from rules.colours import OKABE_ITO
from rules.render import (
    MapView,
    PrivateOrders,
    SideView,
    default_palette,
    render_image,
    render_main,
    render_map,
    side_tags,
)
from rules.render.primitives import _font
from tests.render.views import (
    WORKED_EXAMPLE,
    campaign_views,
    custom_map_view,
    grid_view,
    russian_custom_view,
    siege_view,
    watch_view,
    worked_example,
)

GOLDEN = Path(__file__).resolve().parent / "golden"
ROOT = Path(__file__).resolve().parents[2]

GOLDEN_VIEWS: dict[str, Callable[[], MapView]] = {
    "worked-example-public": lambda: worked_example("public"),
    "worked-example-friday": lambda: worked_example("friday"),
    "worked-example-private-red": lambda: worked_example("private", "red"),
    "worked-example-resolved": lambda: worked_example("resolved"),
    "worked-example-resolved-ru": lambda: worked_example("resolved", language="ru"),
    "custom-map": custom_map_view,
    "custom-map-ru": russian_custom_view,
    "siege-rose": siege_view,
    "siege-rose-ru": lambda: siege_view("ru"),
    "watch-night-demo": watch_view,
    "watch-night-demo-ru": lambda: watch_view("ru"),
}


def png_chunks(data: bytes) -> list[bytes]:
    """The chunk types of a PNG file, in order."""
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    chunks, offset = [], 8
    while offset < len(data):
        length = int.from_bytes(data[offset : offset + 4], "big")
        chunks.append(data[offset + 4 : offset + 8])
        offset += 12 + length
    return chunks


@pytest.mark.parametrize("name", sorted(GOLDEN_VIEWS))
def test_golden_image(name: str) -> None:
    data = render_map(GOLDEN_VIEWS[name]())
    path = GOLDEN / f"{name}.png"
    if os.environ.get("UPDATE_GOLDEN"):
        path.write_bytes(data)
        pytest.fail(f"rewrote {path.name}: look at it, then run the tests without UPDATE_GOLDEN")
    assert path.exists(), (
        f"no golden {path.name}: run UPDATE_GOLDEN=1 .venv/bin/pytest tests/render"
    )
    assert data == path.read_bytes(), (
        f"{name} differs from {path.name}; if the change is intended, regenerate the goldens "
        "with UPDATE_GOLDEN=1 .venv/bin/pytest tests/render and look at them"
    )


def test_same_view_gives_same_bytes_twice() -> None:
    view = worked_example("friday")
    assert render_map(view) == render_map(view)
    assert render_map(view) == render_map(worked_example("friday"))


def test_another_process_gives_the_same_bytes() -> None:
    command = [sys.executable, "-c", RENDER_IN_CHILD, "--variant", "resolved"]
    child = subprocess.run(
        command,
        input=WORKED_EXAMPLE.read_bytes(),
        capture_output=True,
        check=True,
        cwd=ROOT,
        env={**os.environ, "PYTHONHASHSEED": "12345"},
    )
    assert child.stdout == render_map(worked_example("resolved"))


RENDER_IN_CHILD = (
    "import sys; from rules.render import render_main; "
    "sys.exit(render_main(sys.argv[1:] + ['--title', 'Worked example'], sys.stdin, "
    "sys.stdout.buffer, sys.stderr))"
)


def test_png_decodes_with_expected_size_and_no_metadata() -> None:
    data = render_map(worked_example("public"))
    image = Image.open(io.BytesIO(data))
    assert (image.format, image.mode, image.width) == ("PNG", "P", 1280)
    assert 800 < image.height <= 1280
    chunks = png_chunks(data)
    assert chunks == [b"IHDR", b"PLTE", *[b"IDAT"] * (len(chunks) - 3), b"IEND"]


def test_wide_map_is_less_tall_and_fits_telegram() -> None:
    image = Image.open(io.BytesIO(render_map(grid_view())))
    assert image.width == 1280
    assert 800 < image.height <= 1280


def test_different_states_give_different_bytes() -> None:
    view = worked_example("public")
    moved = view.state.armies | {"red": {**view.state.armies["red"], "4": 4}}
    other = view.model_copy(update={"state": CampaignState(turn=3, armies=moved)})
    next_turn = view.model_copy(update={"state": CampaignState(turn=4, armies=view.state.armies)})
    pictures = {render_map(v) for v in (view, other, next_turn)}
    assert len(pictures) == 3


def test_variants_differ_from_the_public_map() -> None:
    public = render_map(worked_example("public"))
    assert render_map(worked_example("private", "red")) != public
    assert render_map(worked_example("private", "blue")) != public
    assert render_map(worked_example("friday")) != public
    assert render_map(worked_example("private", "red")) != render_map(
        worked_example("private", "blue")
    )


def test_every_cyrillic_letter_has_a_glyph() -> None:
    def drawn(text: str, bold: bool) -> bytes:
        image = Image.new("L", (60, 60))
        ImageDraw.Draw(image).text((8, 8), text, font=_font(32, bold), fill=255)
        assert image.getbbox() is not None, f"{text!r} draws nothing"
        return image.tobytes()

    for bold in (False, True):
        missing = drawn("\ue000", bold)  # a private-use code point: the font's "no glyph" box
        letters = "АБВГДЕЁЖЗИЙКЛМНОПРСТУФХЦЧШЩЪЫЬЭЮЯабвгдеёжзийклмнопрстуфхцчшщъыьэюя№"
        assert [ch for ch in letters if drawn(ch, bold) == missing] == []


def test_cyrillic_titles_draw_their_own_letters() -> None:
    view = worked_example("public", language="ru")
    first = render_image(view.model_copy(update={"title": "Жук"})).convert("RGB")
    second = render_image(view.model_copy(update={"title": "Щит"})).convert("RGB")
    header = (0, 0, 600, 70)
    assert first.crop(header).tobytes() != second.crop(header).tobytes()
    assert first.crop(header).getextrema() != ((233, 233), (230, 230), (223, 223))


def test_every_map_of_a_played_campaign_renders() -> None:
    seen: dict[bytes, str] = {}
    names = []
    for name, view in campaign_views(turns=4):
        data = render_map(view)
        width, height = Image.open(io.BytesIO(data)).size
        assert (width, height <= 1280) == (1280, True), name
        assert data not in seen, f"{name} looks exactly like {seen.get(data)}"
        seen[data] = name
        names.append(name)
    assert names[0] == "deployment"
    assert sum(name.endswith("monday") for name in names) == 4


def test_sixty_sector_map_renders() -> None:
    image = Image.open(io.BytesIO(render_map(grid_view())))
    assert (image.mode, image.width) == ("P", 1280)


def test_view_refuses_sides_and_sectors_it_does_not_know() -> None:
    view = worked_example("public")
    with pytest.raises(ValueError, match="not listed in sides"):
        MapView(map=view.map, state=view.state, sides=view.sides[:1], title="t")
    with pytest.raises(ValueError, match="not on map"):
        MapView(
            map=view.map, state=view.state, sides=view.sides, title="t", captured={"red": ("9",)}
        )
    with pytest.raises(ValueError, match="twice"):
        MapView(map=view.map, state=view.state, sides=view.sides * 2, title="t")
    with pytest.raises(ValueError, match="rrggbb"):
        SideView(id="x", name="X", colour="red")
    orders = worked_example("private", "red").private
    assert orders is not None
    bad = PrivateOrders(side="green", orders=orders.orders)
    with pytest.raises(ValueError, match="green"):
        MapView(map=view.map, state=view.state, sides=view.sides, title="t", private=bad)


def test_tags_are_initials_made_unique() -> None:
    sides = [
        SideView(id="a", name="Blood Angels"),
        SideView(id="b", name="black templars"),
        SideView(id="c", name="Bl"),
        SideView(id="d", name="Орки"),
        SideView(id="e", name="Custodes", tag="AC"),
    ]
    assert side_tags(sides) == {"a": "B", "b": "Bl", "c": "Bl2", "d": "О", "e": "AC"}


def test_colour_words_pick_their_palette_colour() -> None:
    palette = default_palette(["blue", "necrons", "red", "orange", "red2"])
    assert palette == {"blue": 4, "necrons": 1, "red": 5, "orange": 0, "red2": 2}
    assert OKABE_ITO[palette["red"]][0] == "vermillion"
    # A document written in Russian names its sides in Russian: the same colours.
    assert default_palette(["синие", "некроны", "красные", "Зелёные"]) == {
        "синие": 4,
        "некроны": 0,
        "красные": 5,
        "Зелёные": 2,
    }


def run_render(argv: list[str], document: str) -> tuple[int, bytes, str]:
    stdout, stderr = io.BytesIO(), io.StringIO()
    status = render_main(argv, io.StringIO(document), stdout, stderr)
    return status, stdout.getvalue(), stderr.getvalue()


def test_command_writes_the_png() -> None:
    document = WORKED_EXAMPLE.read_text(encoding="utf-8")
    status, png, errors = run_render(["--title", "Worked example", "--variant", "friday"], document)
    assert (status, errors) == (0, "")
    assert png == render_map(worked_example("friday"))


@pytest.mark.parametrize(
    ("argv", "document", "message"),
    [
        ([], "{", "malformed turn document"),
        ([], '{"state": {"turn": 1, "armies": {"red": {"9": 1}}}}', "not on the map"),
        (["--variant", "weekly"], "{}", "invalid choice"),
        (["--variant", "private"], "{}", "needs --side"),
        (["--variant", "private", "--side", "green"], None, "no armies"),
        (["--lang", "de"], "{}", "invalid choice"),
    ],
)
def test_command_refuses_bad_input(argv: list[str], document: str | None, message: str) -> None:
    text = WORKED_EXAMPLE.read_text(encoding="utf-8") if document is None else document
    status, png, errors = run_render(argv, text)
    assert (status, png) == (2, b"")
    assert message in errors
