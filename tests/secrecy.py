"""What the secrecy scans look for in the bot's log, besides the requests it sends.

A side's orders and placement, a hero's hand and a laid spell must never reach a log line
(README: "orders are never written to the log"), worded or as code would print them: a model's
``repr``, its JSON as stored, a dict, a list. The scans in ``tests/bot``, ``tests/faults`` and
``tests/e2e`` give these to :func:`assert_log_keeps`, with the words they already look for in
requests. ``bench/secrecy_mutants.py`` proves they bite.
"""

from __future__ import annotations

import json
import logging
from collections.abc import Iterable, Mapping, Sequence

import pytest
from pydantic import BaseModel

from bot.runtime.logs import LogfmtFormatter, NoStatements
from rules import Attack, Move, Reinforce
from rules.cli import load_turn_document


def read_the_log(caplog: pytest.LogCaptureFixture) -> None:
    """From now on capture every line the bot would write with ``LOG_LEVEL=DEBUG``, through
    the same filter (``bot.runtime.logs.NoStatements``)."""
    caplog.set_level(logging.DEBUG)
    caplog.handler.addFilter(NoStatements())


def printed_forms(
    orders: Iterable[Move | Attack | Reinforce], placements: Iterable[Mapping[str, int]] = ()
) -> set[str]:
    """Each order and placement as code prints it: ``repr``, JSON (as storage keeps it, and as
    ``model_dump_json`` writes it) and ``str`` of its dict. A reinforcement is a bare sector in
    a set of orders, so it is looked for as that field."""
    forms: set[str] = set()
    for order in orders:
        if isinstance(order, Reinforce):
            forms |= {f'"reinforce":"{order.sector}"', f"reinforce='{order.sector}'"}
        else:
            forms |= {repr(order), order.model_dump_json(), str(order.model_dump())}
    for placement in placements:
        forms |= {json.dumps(dict(placement), separators=(",", ":")), str(dict(placement))}
    return forms


def hand_forms(hand: Sequence[str]) -> set[str]:
    """A hero's hand (spell codes, ``A3``) as code prints it: a list or tuple's ``repr``, JSON
    (spaced and compact, as storage keeps it). A hand of one card is a single card: its
    ``repr`` in a list is looked for, not the bare code, which names no hero."""
    cards = list(hand)
    return {
        repr(cards),
        repr(tuple(cards)),
        json.dumps(cards),
        json.dumps(cards, separators=(",", ":")),
    }


def play_forms(plays: Iterable[BaseModel]) -> set[str]:
    """Laid spells (``storage.DuelPlay``: a card on a hero) as code prints them: ``repr``,
    JSON and ``str`` of the dict."""
    forms: set[str] = set()
    for play in plays:
        forms |= {repr(play), play.model_dump_json(), str(play.model_dump())}
    return forms


def turn_order_forms(document: Mapping[str, object]) -> set[str]:
    """Every side's orders of an exported turn document (``python -m rules``'s format), the
    modules' included (a siege's assault or card, a contact retreat), as code prints them."""
    turn = load_turn_document(json.dumps(document))
    forms: set[str] = set()
    for orders in turn.orders.values():
        every: list[BaseModel] = [*orders.moves, *orders.attacks, *orders.extra]
        forms |= {repr(order) for order in every} | {o.model_dump_json() for o in every}
        forms |= {str(order.model_dump()) for order in every}
    return forms


def logfmt(records: Iterable[logging.LogRecord]) -> str:
    """Captured records as the bot writes them (``bot.runtime.logs``): one logfmt line each, with
    the traceback of an exception."""
    formatter = LogfmtFormatter()
    return "\n".join(formatter.format(record) for record in records)


def assert_log_keeps(log: str, secrets: Iterable[str]) -> None:
    """No secret in ``log`` (read as written and with logfmt's quoting undone). An empty log
    fails: a scan of nothing proves nothing."""
    assert log.strip(), "no log line was captured: the scan would prove nothing"
    readable = log + "\n" + log.replace('\\"', '"').replace("\\\\", "\\")
    leaked = sorted({secret for secret in secrets if secret and secret in readable})
    assert not leaked, leaked
