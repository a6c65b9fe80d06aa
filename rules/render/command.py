"""``python -m rules render``: a turn document on standard input, its map as PNG on standard
output (:func:`render_main`), and the view a document makes (:func:`view_of_document`).
"""

from __future__ import annotations

import argparse
from dataclasses import replace
from typing import IO, Any, NoReturn

from pydantic import ValidationError

from rules.battles import plan_battles
from rules.cli import DocumentError, _results, load_turn_document
from rules.game import ModuleStateError, StateOffMapError, UnknownModuleError
from rules.render.picture import render_map
from rules.render.view import (
    RUSSIAN_LABELS,
    MapLabels,
    MapView,
    PrivateOrders,
    SideView,
    default_palette,
    held_sectors,
    week_of,
)
from rules.resolution import ResultsError, resolve_turn


class _UsageError(Exception):
    """Bad command-line arguments."""


class _Parser(argparse.ArgumentParser):
    def error(self, message: str) -> NoReturn:
        raise _UsageError(message)


def _parser() -> _Parser:
    parser = _Parser(
        prog="python -m rules render",
        description=(
            "Draw the map of a turn document (the one battles and resolve read) from standard "
            "input; write the PNG on standard output."
        ),
        add_help=False,
    )
    parser.add_argument(
        "--variant",
        choices=("public", "friday", "private", "resolved"),
        default="public",
        help=(
            "public: the state as it is; friday: with the battles its orders make; private: "
            "with --side's orders; resolved: the state after resolving the turn, with captures"
        ),
    )
    parser.add_argument("--side", help="the side whose orders the private variant shows")
    parser.add_argument("--title", default="Strategium", help="the campaign's name")
    parser.add_argument("--lang", choices=("en", "ru"), default="en", help="language of names")
    parser.add_argument("-h", "--help", action="store_true", help="show this help")
    return parser


def view_of_document(
    text: str, variant: str, side: str | None, title: str, language: str
) -> MapView:
    """The map view of a turn document; raises :class:`DocumentError` if it cannot be drawn.

    A document whose modules draw dice but that gives no seeds is drawn with the core's
    battles only (the modules' battles cannot be known without the dice).
    """
    turn = load_turn_document(text)
    game, state, orders = turn.game, turn.state, turn.orders
    side_ids = [*state.sides(), *(s for s in orders if s not in state.armies)]
    palette = default_palette(side_ids)
    sides = tuple(SideView(id=s, name=s[:1].upper() + s[1:], colour=palette[s]) for s in side_ids)
    labels = RUSSIAN_LABELS if language == "ru" else MapLabels()
    base: dict[str, Any] = {
        "map": game.map,
        "sides": sides,
        "title": title,
        "language": language,
        "labels": labels,
        "sectors_to_win": game.ruleset.sectors_to_win,
    }
    held = held_sectors(state, game.ruleset.capture_min_armies)
    if variant == "public":
        return MapView(state=state, captured=held, **base)
    seeded = turn.seeds is not None and turn.seeds.roll is not None
    planner = game if seeded or not game.uses_dice() else replace(game, modules=())
    try:
        plan = plan_battles(planner, state, orders, turn.seeds if seeded else None)
    except (ModuleStateError, StateOffMapError) as error:
        raise DocumentError(f"state: {error}") from error
    if variant == "friday":
        return MapView(state=state, battles=plan.battles, captured=held, **base)
    if variant == "private":
        if side is None or side not in plan.accepted:
            known = ", ".join(plan.accepted) or "none"
            raise DocumentError(f"side {side!r} has no armies in state (sides: {known})")
        private = PrivateOrders(side=side, orders=plan.accepted[side])
        return MapView(state=state, private=private, captured=held, **base)
    if variant == "resolved":
        if game.uses_dice() and not seeded:
            raise DocumentError("the resolved variant of this ruleset needs seeds.roll")
        try:
            resolution = resolve_turn(
                game, state, orders, _results(turn.results), turn.seeds, turn.late
            )
        except ResultsError as error:
            raise DocumentError(f"results: {error}") from error
        except (ModuleStateError, StateOffMapError) as error:
            raise DocumentError(f"state: {error}") from error
        report = resolution.report
        week = week_of(report, game.ruleset.losses, held)
        captured = dict(report.captured)
        return MapView(state=resolution.state, captured=captured, week=week, **base)
    raise DocumentError(f"unknown variant {variant!r}")


def render_main(argv: list[str], stdin: IO[str], stdout: IO[bytes], stderr: IO[str]) -> int:
    """``python -m rules render``: a turn document on ``stdin``, its map as PNG on ``stdout``.

    Exit status 0 with the PNG written, 2 with a message on ``stderr`` for bad arguments or a
    document that cannot be drawn.
    """
    parser = _parser()
    try:
        args = parser.parse_args(argv)
    except _UsageError as error:
        print(f"{parser.prog}: {error}\n{parser.format_usage()}", file=stderr, end="")
        return 2
    if args.help:
        print(parser.format_help(), file=stderr, end="")
        return 0
    if args.variant == "private" and args.side is None:
        print(f"{parser.prog}: the private variant needs --side", file=stderr)
        return 2
    try:
        view = view_of_document(stdin.read(), args.variant, args.side, args.title, args.lang)
    except (DocumentError, UnknownModuleError) as error:
        print(f"{parser.prog}: malformed turn document: {error}", file=stderr)
        return 2
    except UnicodeDecodeError as error:
        print(f"{parser.prog}: input is not UTF-8 text: {error}", file=stderr)
        return 2
    except ValidationError as error:
        print(f"{parser.prog}: cannot draw this document: {error}", file=stderr)
        return 2
    stdout.write(render_map(view))
    stdout.flush()
    return 0
