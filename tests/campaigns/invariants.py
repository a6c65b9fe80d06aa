"""What must hold after every step of a random campaign: each invariant has a name, and a
broken one says where (step, time, chat) and what it saw.

1. ``secrets``: no side's orders, placement or hand reaches the group, another side's chat or
   the log before it is public; each new secret a person made shows in their own chat (so the
   scan is not looking for words the bot never writes).
2. ``who may report``: a result is reported, confirmed or disputed only by the sides the
   battle has now (a chain battle's defender is battle k's winner, MODULES.md C6), a decision
   only by a GM (a report an undo carries to the republished list is checked once, when
   made); a /battles screen offers result buttons only for its reader's battles.
3. ``numbers in posts``: every map drawn shows the stored armies and held sectors of its turn;
   the end summary and its chart count what the Monday posts counted; the board's deadline is
   the stored one, in the campaign's zone and language.
4. ``phases``: a phase passes only at its deadline (or when everyone is ready, where the
   schedule says so) or by a GM's confirmation that named the phase it ends; a phase the GM's
   undo came back to ends only at its deadline or by the GM; an orders window the clock closed
   was open the schedule's least length; a step is noted late (an overdue alarm, «ran late»)
   only if its deadline passed while the bot was down; the status agrees with the phase (a
   setup is never paused, a deployment never «running»).
5. ``posts``: each post goes out once, none is left behind, and each chat reads them in the
   story's order (a turn's opening, its list, its Monday; an undo starts the story again).
6. ``replay``: every resolved turn replays through ``python -m rules`` (its ``resolve``, and at
   the end ``start`` and ``verify-rolls``) to the stored state; a turn whose duel steps played
   spells from hands the export still hides (until the campaign finishes) only at the end.
7. ``no error in the log``: no line at ERROR, no traceback, no request Telegram refuses
   (other than an edit that changes nothing).
8. ``colours and words``: a side's colour is the stored one on every map and chart; a Russian
   message holds no English word outside names and quotes, and the reverse.
"""

from __future__ import annotations

import itertools
import json
import logging
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any, cast
from zoneinfo import ZoneInfo

from aiogram.utils.i18n import gettext as _

from bot.handlers.private.callbacks import DeployButton, OrdersButton, ResultButton
from bot.modules.watch.texts import hero_names, spell_words
from bot.screens.charts import ChartSide
from bot.services.deadlines import orders_length, orders_window
from bot.services.turns import game_for
from bot.texts.core import describe_order
from bot.texts.moments import format_moment
from rules import (
    Battle,
    BattleResult,
    BattleStatus,
    CampaignMap,
    Fortify,
    Game,
    Reinforce,
    battle_sides,
)
from rules.cli import resolve_answer, start_answer, verify_rolls_answer
from rules.modules.watch.state import public_view
from storage import Campaign, CampaignStatus, ClockNoteKind, ClockState, OutboxState, Phase
from storage.models import BattleReport, Member, PhaseEntry, Side
from tests.campaigns.script import Script
from tests.campaigns.world import LogLines, Request, World
from tests.secrecy import printed_forms

if TYPE_CHECKING:
    from tests.campaigns.player import Player


@dataclass
class ChainFigures:
    """How far a campaign took the contact chains (MODULES.md C6), so a run shows whether the
    chain rule was put to the test at all: chains of 2+ battles listed, chain battles whose
    earlier battle had a result that counts (the rule checked against it), and of those the
    ones where that result handed the battle to another side than the list planned (only
    there does a ``battle_sides`` that keeps the planned defender show)."""

    chains: set[tuple[int, int]] = field(default_factory=set)  # (turn, first battle)
    checked: set[tuple[int, int]] = field(default_factory=set)  # (turn, battle k+1)
    handed: set[tuple[int, int]] = field(default_factory=set)

    def as_dict(self) -> dict[str, int]:
        """The three counts by name."""
        return {
            "chains": len(self.chains),
            "chain battles checked": len(self.checked),
            "handed to the winner": len(self.handed),
        }


@dataclass
class Broken(Exception):  # noqa: N818 (raised, but a finding of the player, not an error)
    """An invariant broken: its name, the step, the time, the chat and what was seen."""

    name: str
    step: int
    at: datetime
    chat: str
    message: str

    def __str__(self) -> str:
        return f"{self.name} (step {self.step}, chat {self.chat}): {self.message}"


@dataclass(frozen=True)
class Secret:
    """Something only ``side`` (and the GMs) may read yet: any one of ``forms`` gives it away
    (``together``: a reader must see all of them in one message)."""

    side: str
    what: str
    forms: frozenset[str]
    log_forms: frozenset[str] = frozenset()
    together: bool = False

    def found_in(self, text: str) -> str | None:
        """The form of this secret ``text`` holds, if any."""
        if self.together:
            return " / ".join(sorted(self.forms)) if all(f in text for f in self.forms) else None
        return next((form for form in self.forms if form in text), None)


def _words_beside_own_desk(request: Request, sides: set[str | None]) -> str:
    """What ``request`` shows its reader (text and button labels), less the labels of the
    reader's own orders or deployment desk (``po``/``pd`` buttons of one of ``sides``): an order
    the reader's side may give reads like another side's given one, and is no leak."""
    labels = []
    for label, data in request.sent.buttons():
        prefix = data.split(":", 1)[0]
        if prefix in (OrdersButton.__prefix__, DeployButton.__prefix__):
            try:
                side = (OrdersButton if prefix == "po" else DeployButton).unpack(data).side
            except (ValueError, TypeError):
                side = ""
            if side and side in sides:
                continue
        labels.append(label)
    return "\n".join([request.text, *labels])


PHASE_WORDS = {
    Phase.DEPLOYMENT: ("deploy", "расстанов"),
    Phase.ORDERS: ("order", "приказ"),
    Phase.BATTLES: ("battle", "бои", "боёв", "боев"),
    Phase.RESOLUTION: ("resol", "итог", "подвед"),
}
CONFIRMING = ("advance", "force", "ok", "undo!", "end!", "yes", "y")
STORY_KINDS = {
    "phase_notice",
    "private_phase_notice",
    "seeds_committed",
    "battle_list",
    "battle_notice",
    "map",
    "turn_result",
}
RESTARTS = {"undo_notice", "corrected_map"}
# A help text's examples («move 2 armies from 2 West to 1 Equator») are made from the map, not
# from anyone's orders: the same words as a side's order there are no leak.
EXAMPLES = re.compile(
    r"(?:e\.g\.|например,?)\s*«[^»]*»(?:,?\s*(?:or|или)\s*«[^»]*»)*|Примеры: [^;\n]*; [^\n]*"
)
OUTBOX_EVERY = 8  # steps between two reads of the whole outbox within one phase
TOLERATED_REFUSALS = ("message is not modified", "query is too old")
LATIN = re.compile(r"(?<![\w/@.#-])[A-Za-z]{3,}(?![\w.@-])")
CYRILLIC = re.compile(r"[А-Яа-яЁё]{3,}")
QUOTED = re.compile(r"«[^«»]*(?:«[^«»]*»[^«»]*)*»|\"[^\"]*\"|'[^']*'")
ALLOWED_LATIN = {
    "UTC",
    "NPC",
    "VP",
    "TOML",
    "IANA",
    "SHA",
    "GMT",
    "Strategium",
    "Telegram",
    # the force organisation chart's slots, kept in English in Russian as players say them
    "HQ",
    "Troops",
    "Elite",
    "Fast",
    "Attack",
    "Heavy",
    "Support",
    # the battle outcomes, said in English with the Russian beside (docs/glossary.md)
    "FOC",  # the force organisation chart, as the Russian catalogue keeps it
    "Draw",
    "Solid",
    "Crushing",
    "Slaughter",
    "victory",
    "strategium",
    "bot",
    "ics",
    "png",
    "toml",
}


class Checks:
    """Every invariant, checked after each step (:meth:`after_step`) and at the end."""

    def __init__(self, world: World, log: LogLines, script: Script) -> None:
        self.world = world
        self.log = log
        self.script = script
        self.count = 0
        self.screens: set[str] = set()
        self.finished = False
        self.resolved_turns = 0
        self.phases: list[tuple[int, int, str, str]] = []
        self._log_seen = 0
        self._requests_seen = 0
        self._maps_seen = 0
        self._entries_seen = 0
        self._secrets: list[Secret] = []
        self._secrets_before: list[Secret] = []
        self._public_turns: set[int] = set()
        self._placements_public = False
        self._reports: dict[int, BattleReport] = {}
        self._oracle: dict[int, Any] = {}
        # (turn, battle, what, user, when) of every report action checked: an undo and
        # republish copies a report to the identical battle with its old stamps.
        self._acted: set[tuple[int, int, str, int, datetime]] = set()
        self._public_forms: set[str] = set()  # the words of orders of turns now public
        self._side_names: dict[str, str] = {}  # as they were at the last step
        self._schedule_changed: datetime | None = None  # the last time a GM changed it
        self._before: Campaign | None = None
        self._clock_before: Any = None
        self._story: dict[int, tuple[int, int]] = {}
        self._replayed: set[tuple[int, int]] = set()
        self._deferred: set[tuple[int, int]] = set()  # replayed once the hands are exported
        self.charts: list[tuple[int, list[ChartSide]]] = []
        self.names: set[str] = set()
        self._languages: dict[int, str | None] = {}
        self._typed: list[str] = []
        self._gms_before: set[int] = set()
        self._step_started: datetime | None = None
        self._sides_before: dict[int, str | None] = {}
        self._changed_language: set[int] = set()
        self._game: tuple[tuple[Any, Any], Game] | None = None
        self._outbox_read_at: tuple[int, Phase, CampaignStatus] | None = None
        self._wordings: dict[tuple[Any, ...], tuple[CampaignMap, object]] = {}
        self.chain = ChainFigures()
        self._turn = 0

    def _game_of(self, campaign: Campaign) -> Game:
        """``game_for(campaign)``, made again only when the campaign's map or rules changed
        (making a game copies the map and the modules: a fifth of the checks' time when each
        check made its own)."""
        key = (campaign.map, campaign.ruleset_overrides)
        if self._game is None or self._game[0] != key:
            self._game = (key, game_for(campaign))
        return self._game[1]

    def fail(self, name: str, message: str, chat: str = "-") -> None:
        """Raise :class:`Broken` for ``name``."""
        raise Broken(name, self.world.step, self.world.clock.now(), chat, message)

    def chat_name(self, chat_id: int | None) -> str:
        """A chat as the transcript names it."""
        return self.world._chat_name(chat_id)

    # ---- the step ------------------------------------------------------------------------------

    async def after_step(self, kind: str, player: Player) -> None:
        """Every invariant, after one step."""
        self.world.take_requests()
        requests = self.world.session.requests[self._requests_seen :]
        self._requests_seen = len(self.world.session.requests)
        for request in requests:
            self.screens.add(_screen_name(request.sent.buttons(), request.text))
        self.no_error_in_the_log(requests)
        if player.campaign_id is None:
            return
        store = self.world.store
        campaign = await store.campaign(player.campaign_id)
        if campaign is None:
            return
        where = (campaign.turn, campaign.phase.value, campaign.status.value)
        if not self.phases or self.phases[-1][1:] != where:
            self.phases.append((self.world.step, *where))
        self.finished = campaign.status is CampaignStatus.FINISHED
        members = await store.members(campaign.id)
        sides = await store.sides(campaign.id)
        self._changed_language = set()
        people = await store.people(list(self.world.telegram.users))
        for user in self.world.telegram.users:
            person = people.get(user)
            language = None if person is None else person.language or person.telegram_language
            if user in self._languages and self._languages[user] != language:
                self._changed_language.add(user)
            self._languages[user] = language
        self.names |= {side.name for side in sides} | {m.display_name for m in members}
        resolved = 0
        revisions: dict[int, int] = {}  # each resolved turn's current revision
        for turn in range(1, campaign.turn + 1):
            if resolutions := await store.resolutions(campaign.id, turn):
                resolved = turn
                self._public_turns.add(turn)
                revisions[turn] = resolutions[-1].revision
        self.resolved_turns = resolved
        if campaign.turn >= 1:
            self._placements_public = True
        await self.secrets(campaign, members, sides, requests, kind)
        await self.who_may_report(campaign, members, requests)
        await self.numbers_in_posts(campaign, requests)
        await self.phases_pass_rightly(campaign)
        await self.late_only_when_down(campaign, requests)
        await self.posts_once_in_order(campaign, requests)
        await self.replay(campaign, revisions=revisions)
        self.colours_and_words(campaign, sides, requests)
        if self._before is not None and self._before.schedule != campaign.schedule:
            self._schedule_changed = self.world.clock.now()
        self._before = campaign
        self._clock_before = await store.clock_state(campaign.id)
        self._step_started = self.world.clock.now()

    async def at_the_end(self, player: Player) -> None:
        """What is checked once the campaign is over: the end summary against the Mondays,
        every turn's start and every roll through ``python -m rules``."""
        if player.campaign_id is None:
            return
        campaign = await self.world.store.campaign(player.campaign_id)
        if campaign is None:
            return
        await self.replay(campaign, final=True)
        await self.posts_once_in_order(campaign, [], final=True)
        await self.end_summary(campaign)

    # ---- 1. secrets ----------------------------------------------------------------------------

    async def _current_secrets(self, campaign: Campaign, sides: list[Side]) -> list[Secret]:
        store = self.world.store
        names = {side.id: side.name for side in sides}
        game = self._game_of(campaign)
        found: list[Secret] = []
        if not self._placements_public and campaign.phase in (Phase.SETUP, Phase.DEPLOYMENT):
            for side, record in (await store.placements(campaign.id)).items():
                if not record.placement:
                    continue
                worded = self._worded_placement(game.map, record.placement)
                for language, lines in worded.items():
                    found.append(
                        Secret(
                            side,
                            f"placement ({language})",
                            frozenset(lines),
                            frozenset(printed_forms((), [record.placement])),
                            together=True,
                        )
                    )
        turn = campaign.turn
        state = await store.turn_start(campaign.id, turn) if turn >= 1 else None
        if state is not None and "watch" in state.modules:
            names = {**names, **hero_names(state.modules["watch"])}  # a hero's move names it
        if turn >= 1 and turn not in self._public_turns and campaign.phase is not Phase.FINISHED:
            for side in {side.id for side in sides}:
                given = await store.orders(campaign.id, turn, side)
                if given is None:
                    continue
                orders = given.orders
                every = [*orders.moves, *orders.attacks, *orders.extra]
                if orders.reinforce is not None:
                    every.append(Reinforce(sector=orders.reinforce))
                for order in every:
                    if isinstance(order, Fortify):
                        continue
                    forms = {
                        self._worded(order, game.map, names, language) for language in ("en", "ru")
                    }
                    core = [o for o in (order,) if not hasattr(o, "module")]
                    found.append(
                        Secret(
                            side,
                            f"order of turn {turn}",
                            frozenset(f for f in forms if f),
                            frozenset(printed_forms(cast(list[Any], core))),
                        )
                    )
        if state is not None and "watch" in state.modules:
            watch = state.modules["watch"]
            heroes = cast(list[Any], watch.get("heroes", []) if isinstance(watch, dict) else [])
            for hero in heroes:
                if not isinstance(hero, dict) or not hero.get("hand"):
                    continue
                hand = [str(card) for card in cast(list[Any], hero["hand"])]
                forms = set()
                for language in ("en", "ru"):
                    with self.world.i18n.context(), self.world.i18n.use_locale(language):
                        cards = ", ".join(spell_words(card) for card in hand)
                        forms.add(_("hand: {cards}").format(cards=cards))
                logged = {json.dumps(hand), json.dumps(hand, separators=(",", ":")), repr(hand)}
                logged.add(repr(tuple(hand)))
                found.append(
                    Secret(
                        str(hero.get("side")),
                        f"hand of {hero.get('name', hero.get('id'))}",
                        frozenset(forms),
                        frozenset(logged),
                    )
                )
        return found

    def _worded(
        self, order: Any, campaign_map: CampaignMap, names: Mapping[str, str], language: str
    ) -> str:
        """The order as the bot words it in ``language`` (kept per order, map, names and
        language: the same orders are worded again at every step while they are secret)."""
        try:
            key = (id(campaign_map), order, tuple(sorted(names.items())), language)
            kept = self._wordings.get(key)
        except TypeError:  # a module's order is not hashable: worded every time
            key, kept = None, None
        if kept is not None and kept[0] is campaign_map:
            return cast(str, kept[1])
        with self.world.i18n.context(), self.world.i18n.use_locale(language):
            try:
                worded = describe_order(order, campaign_map, names, language)
            except (KeyError, ValueError, TypeError):
                worded = ""
        if key is not None:
            self._wordings[key] = (campaign_map, worded)
        return worded

    def _worded_placement(
        self, campaign_map: CampaignMap, placement: Mapping[str, int]
    ) -> dict[str, list[str]]:
        """The placement's lines in each language (kept per map and placement, as orders)."""
        key = (id(campaign_map), tuple(placement.items()))
        kept = self._wordings.get(key)
        if kept is not None and kept[0] is campaign_map:
            return cast(dict[str, list[str]], kept[1])
        worded = self._word_placement(campaign_map, placement)
        self._wordings[key] = (campaign_map, worded)
        return worded

    def _word_placement(
        self, campaign_map: CampaignMap, placement: Mapping[str, int]
    ) -> dict[str, list[str]]:
        from bot.texts.core import armies  # noqa: PLC0415
        from bot.texts.sectors import sector_label  # noqa: PLC0415

        worded: dict[str, list[str]] = {}
        for language in ("en", "ru"):
            with self.world.i18n.context(), self.world.i18n.use_locale(language):
                worded[language] = [
                    f"{sector_label(campaign_map, sector, language)}: {armies(count)}"
                    for sector, count in placement.items()
                    if count
                ]
        return worded

    async def secrets(
        self,
        campaign: Campaign,
        members: list[Member],
        sides: list[Side],
        requests: list[Request],
        kind: str,
    ) -> None:
        """1: no secret where its side cannot read; each new one shows in its maker's chat."""
        self.count += 1
        before = self._secrets
        now = await self._current_secrets(campaign, sides)
        self._secrets, self._secrets_before = now, before
        in_force = []
        for secret in {*before, *now}:
            if (
                secret.what.startswith("order of turn")
                and int(secret.what.rsplit(" ", 1)[-1]) in self._public_turns
            ):
                # Public now (the turn's summary, /history): a later turn's order in the same
                # words is read there, not leaked.
                self._public_forms |= secret.forms
                continue
            in_force.append(secret)
        in_force = [
            s if s.together else replace(s, forms=s.forms - self._public_forms) for s in in_force
        ]
        gms = {m.user_id for m in members if m.is_gm} | self._gms_before
        side_of = {m.user_id: m.side_id for m in members}
        sides_of = {user: {side, self._sides_before.get(user)} for user, side in side_of.items()}
        for user, side in self._sides_before.items():
            sides_of.setdefault(user, set()).add(side)
        self._gms_before = {m.user_id for m in members if m.is_gm}
        self._sides_before = dict(side_of)
        own = await self._own_forms(
            campaign, sides, {side for ss in sides_of.values() for side in ss}
        )
        # What each person typed in this step: the bot reads it back to them (a refused line
        # quoted), and the same words as another side's order are their own.
        typed: dict[int, str] = {}
        for step, user_id, _chat, text in self.world.inputs:
            if step == self.world.step:
                typed[user_id] = typed.get(user_id, "") + "\n" + text
        for request in requests:
            if request.refused:
                continue
            reader = request.chat_id
            desk = sides_of.get(reader, set()) if reader is not None else set()
            words = EXAMPLES.sub("«…»", _words_beside_own_desk(request, desk))
            for secret in in_force:
                if (
                    reader is not None
                    and reader > 0
                    and (reader in gms or secret.side in sides_of.get(reader, set()))
                ):
                    continue
                if (
                    reader is not None
                    and reader > 0
                    and any(
                        secret.forms <= own.get(side, set())
                        if secret.together
                        else secret.forms & own.get(side, set())
                        for side in sides_of.get(reader, ())
                        if side is not None
                    )
                ):
                    continue
                form = secret.found_in(words)
                if form is not None and reader is not None and form in typed.get(reader, ""):
                    continue
                if form is not None:
                    self.fail(
                        "secrets",
                        f"{secret.what} of side {secret.side} ({form!r}) reached"
                        f" {self.chat_name(reader)}: {request.text[:300]!r}",
                        self.chat_name(reader),
                    )
        for step, _record, line in self._new_log_lines():
            readable = line + "\n" + line.replace('\\"', '"').replace("\\\\", "\\")
            for secret in in_force:
                for form in secret.log_forms | (secret.forms if not secret.together else set()):
                    if form and form in readable:
                        self.fail(
                            "secrets",
                            f"{secret.what} of side {secret.side} ({form!r}) is in the log at"
                            f" step {step}: {line[:300]}",
                            "log",
                        )
        names = {side.id: side.name for side in sides}
        renamed = any(self._side_names.get(side, name) != name for side, name in names.items())
        self._side_names = names
        if not renamed:  # a rename words every order naming the side anew: none was made
            await self._secrets_are_seen(before, now, requests, side_of, gms)

    async def _own_forms(
        self, campaign: Campaign, every_side: list[Side], sides: set[str | None]
    ) -> dict[str, set[str]]:
        """Every form of what each side itself had in this step (its orders or placement now,
        and each state it saved during the step): two sides may give the same order, or place
        armies alike, and each may read its own."""
        store = self.world.store
        game = self._game_of(campaign)
        names = {side.id: side.name for side in every_side}
        own: dict[str, set[str]] = {}
        since = self._step_started
        for side in sides:
            if side is None:
                continue
            forms = own.setdefault(side, set())
            for secret in [*self._secrets, *self._secrets_before]:
                if secret.side == side:
                    forms |= secret.forms
            # The step that ends deployment starts turn 1: a placement made in it is turn 0's.
            turns = {0: (0,), 1: (0, 1)}.get(campaign.turn, (campaign.turn,))
            for turn in turns:
                for edit in await store.order_edits(campaign.id, turn, side):
                    if since is not None and edit.edited_at < since:
                        continue
                    if edit.placement:
                        for lines in self._worded_placement(game.map, edit.placement).values():
                            forms |= set(lines)
                    if edit.orders is not None:
                        every = [*edit.orders.moves, *edit.orders.attacks, *edit.orders.extra]
                        if edit.orders.reinforce is not None:
                            every.append(Reinforce(sector=edit.orders.reinforce))
                        for order in every:
                            for language in ("en", "ru"):
                                forms.add(self._worded(order, game.map, names, language))
        return own

    def _shared(self, secret: Secret, reader_side: str | None, in_force: list[Secret]) -> bool:
        """The reader's own side has a secret with the same words (two sides may give the same
        order): it is theirs to read."""
        if reader_side is None:
            return False
        return any(
            other.side == reader_side
            and (other.forms >= secret.forms if secret.together else other.forms & secret.forms)
            for other in in_force
            if other is not secret
        )

    async def _secrets_are_seen(
        self,
        before: list[Secret],
        now: list[Secret],
        requests: list[Request],
        side_of: Mapping[int, str | None],
        gms: set[int],
    ) -> None:
        """A secret a person made in this step shows (in one of its forms) in that person's
        own chat in this step: the scan looks for words the bot really writes."""
        known = {(s.side, s.forms) for s in before}
        made = [s for s in now if (s.side, s.forms) not in known and not s.together]
        if not made:
            return
        makers = {
            user
            for _step, user, chat, _text in self.world.inputs
            if _step == self.world.step and chat == user
        } | {p.user_id for p in self.world.presses if p.step == self.world.step}
        for secret in made:
            readers = [u for u in makers if side_of.get(u) == secret.side]
            if not readers:
                continue
            shown = "\n".join(r.words() for r in requests if r.chat_id in readers and not r.refused)
            if shown and not any(form in shown for form in secret.forms):
                if secret.what.startswith("hand"):
                    continue  # a hand is dealt, not made by a press
                self.fail(
                    "secrets",
                    f"the scan is blind: {secret.what} of side {secret.side} was made in this"
                    f" step but none of its forms {sorted(secret.forms)} shows in its maker's"
                    " chat",
                    self.chat_name(readers[0]),
                )

    def _new_log_lines(self) -> list[tuple[int, logging.LogRecord, str]]:
        return self.log.records[self._log_seen :]

    # ---- 2. who may report -------------------------------------------------------------------

    async def who_may_report(
        self, campaign: Campaign, members: list[Member], requests: list[Request]
    ) -> None:
        """2: results written by the battle's current sides (or a GM) only; result buttons only
        for one's own battles."""
        self.count += 1
        store = self.world.store
        listed = await store.battle_list(campaign.id, campaign.turn)
        if listed is None or campaign.phase not in (Phase.BATTLES, Phase.RESOLUTION):
            self._reports, self._oracle = {}, {}
            return
        reports = {r.battle: r for r in await store.battle_reports(campaign.id, campaign.turn)}
        gms = {m.user_id for m in members if m.is_gm}
        side_of = {m.user_id: m.side_id for m in members}
        fresh = _sides_now(listed.battles, reports)
        oracle = self._oracle or fresh
        for battle_id, report in reports.items():
            old = self._reports.get(battle_id)
            sides = oracle.get(battle_id)
            for what, user, stamp, old_stamp in (
                (
                    "reported",
                    report.reported_by,
                    report.reported_at,
                    old.reported_at if old else None,
                ),
                (
                    "confirmed",
                    report.confirmed_by,
                    report.confirmed_at,
                    old.confirmed_at if old else None,
                ),
                (
                    "disputed",
                    report.disputed_by,
                    report.disputed_at,
                    old.disputed_at if old else None,
                ),
                (
                    "decided",
                    report.override_by,
                    report.override_at,
                    old.override_at if old else None,
                ),
            ):
                if user is None or stamp is None or stamp == old_stamp:
                    continue
                acted = (campaign.turn, battle_id, what, user, stamp)
                if acted in self._acted:
                    continue  # carried over from the undone list, checked when it was made
                if (
                    what == "reported"
                    and old is not None
                    and (old.disputed_by, old.disputed_at) == (user, stamp)
                ):
                    # The other side accepted the disputing account: it becomes the report,
                    # its author's and time kept, judged when it was given (bench seed 60061:
                    # its author had left the side since).
                    continue
                self._acted.add(acted)
                if user in gms:
                    continue
                if what == "decided":
                    self.fail(
                        "who may report",
                        f"battle {battle_id} was decided by {user}, who is not a GM",
                        self.chat_name(user),
                    )
                side = side_of.get(user)
                # By the sides before this step, or after its results: a chain's next battle,
                # handed on by a result given earlier in the step, may be reported in it too.
                allowed = {
                    participant
                    for now in (sides, fresh.get(battle_id))
                    if now is not None and now.status is BattleStatus.PLAYABLE
                    for participant in now.participants()
                }
                if side not in allowed:
                    self.fail(
                        "who may report",
                        f"battle {battle_id} was {what} by {self.chat_name(user)} of side"
                        f" {side}, but its sides now are {sorted(allowed)} (status"
                        f" {sides.status.value if sides else '?'})",
                        self.chat_name(user),
                    )
        for request in requests:
            reader = request.chat_id
            if reader is None or reader <= 0 or reader in gms or request.refused:
                continue
            side = side_of.get(reader)
            for _label, data in request.sent.buttons():
                if not data.startswith(f"{ResultButton.__prefix__}:"):
                    continue
                try:
                    button = ResultButton.unpack(data)
                except (ValueError, TypeError):
                    continue
                if button.turn != campaign.turn or button.action == "list":
                    continue
                # A screen made after this step's result (a chain's next battle, handed to
                # battle k's winner) offers the buttons of the sides as they are now.
                concerned = {
                    concern
                    for sides in (oracle.get(button.battle), fresh.get(button.battle))
                    if sides is not None
                    for concern in sides.concerns()
                }
                if side not in concerned:
                    self.fail(
                        "who may report",
                        f"{self.chat_name(reader)} of side {side} is offered «{_label}» for"
                        f" battle {button.battle}, whose sides now are {sorted(concerned)}",
                        self.chat_name(reader),
                    )
        self._reports = reports
        self._oracle = fresh
        self._turn = campaign.turn
        self._chain_rule(listed.battles, reports, self._oracle)

    def _chain_rule(
        self,
        battles: Iterable[Battle],
        reports: Mapping[int, BattleReport],
        sides: Mapping[int, Any],
    ) -> None:
        """2, the chain rule read from MODULES.md C6 on its own: the defender of battle k+1 is
        battle k's winner, or battle k's defender on a draw. The sides above come from
        ``rules.battle_sides``, the function the bot itself asks; this reads its answer against
        the rule's text, so a wrong ``battle_sides`` (the bot and the check agreeing on the
        wrong sides) is caught too. Checked for every listed battle after every step of the
        battles, so a result that hands a chain to another side is checked at once."""
        self.count += 1
        for battle in battles:
            earlier_id = battle.defender_from
            if earlier_id is None or battle.after is not None:
                continue
            self.chain.chains.add((self._turn, _chain_start(battles, battle)))
            earlier, now = sides.get(earlier_id), sides.get(battle.id)
            report = reports.get(earlier_id)
            result = report.effective() if report is not None else None
            if (
                earlier is None
                or now is None
                or result is None
                or earlier.status is not BattleStatus.PLAYABLE
                or earlier.stale
                or earlier.defender is None
            ):
                continue
            made_for = report.effective_against() if report is not None else None
            if made_for is not None and made_for != earlier.defender:
                continue  # given against an earlier defender: it does not count (stale)
            expected = result.winner if result.winner is not None else earlier.defender
            self.chain.checked.add((self._turn, battle.id))
            if expected != battle.defender:
                self.chain.handed.add((self._turn, battle.id))
            if now.defender != expected:
                self.fail(
                    "who may report",
                    f"battle {battle.id} takes its defender from battle {earlier_id}, whose"
                    f" result counts ({result.outcome.value}, winner {result.winner}, against"
                    f" {earlier.defender}): by MODULES.md C6 battle {battle.id} is defended by"
                    f" {expected}, but its sides now are {list(now.concerns())} (status"
                    f" {now.status.value})",
                )

    # ---- 3. numbers in posts ----------------------------------------------------------------

    async def numbers_in_posts(self, campaign: Campaign, requests: list[Request]) -> None:
        """3: every map drawn shows its turn's stored armies and held sectors; the board's
        deadline is the stored one."""
        self.count += 1
        store = self.world.store
        drawn = self.world.maps.drawn[self._maps_seen :]
        self._maps_seen = len(self.world.maps.drawn)
        sides = {side.id: side for side in await store.sides(campaign.id)}
        for map_drawn in drawn:
            view = map_drawn.view
            for shown in view.sides:
                stored = sides.get(shown.id)
                if stored is not None and stored.colour.lower() != str(shown.colour).lower():
                    self.fail(
                        "colours and words",
                        f"side {stored.name} is drawn in {shown.colour}, stored {stored.colour}"
                        f" («{view.title}»)",
                    )
            turn = view.state.turn
            allowed: list[tuple[dict[str, dict[str, int]], dict[str, tuple[str, ...]] | None]] = []
            start = await store.turn_start(campaign.id, turn) if turn >= 1 else None
            earlier = await store.resolutions(campaign.id, turn - 1) if turn >= 2 else []
            last_captured = earlier[-1].report.captured if earlier else None
            if start is not None:
                allowed.append((_armies(start.armies), last_captured))
            for resolution in earlier:
                allowed.append((_armies(resolution.state_after.armies), resolution.report.captured))
            if not allowed:
                continue
            armies = _armies(view.state.armies)
            if not any(armies == a for a, _ in allowed):
                self.fail(
                    "numbers in posts",
                    f"the map «{view.title}» shows armies {armies}; turn {turn} stored"
                    f" {[a for a, _ in allowed]}",
                )
            if view.captured is None and view.sectors_to_win is None:
                continue  # a map that shows no holdings (a side's private map)
            captured = _held(view.captured)
            if not any(armies == a and captured == _held(c) for a, c in allowed):
                self.fail(
                    "numbers in posts",
                    f"the map «{view.title}» shows held sectors {captured}; the resolution"
                    f" before turn {turn} counted {[_held(c) for a, c in allowed if a == armies]}",
                )
        await self._board_deadline(campaign, requests)
        await self._no_passed_deadline_ahead(campaign, requests)

    async def _board_deadline(self, campaign: Campaign, requests: list[Request]) -> None:
        boards = [
            r
            for r in requests
            if r.post is not None and r.post.kind == "status_board" and not r.refused and r.text
        ]
        if not boards or (
            campaign.status is not CampaignStatus.RUNNING
            and campaign.phase not in (Phase.DEPLOYMENT,)
        ):
            return
        clock = await self.world.store.clock_state(campaign.id)
        if clock is None or clock.deadline is None or clock.paused_at is not None:
            return
        history = await self.world.store.phase_history(campaign.id)
        live = [entry for entry in history if entry.undone_at is None]
        if not live or live[-1].seq != clock.entry_seq:
            return  # the clock row is brought up to date by the next sweep
        board = boards[-1]
        with self.world.i18n.context(), self.world.i18n.use_locale(campaign.language):
            prefix = _("Deadline: {moment}.").split("{moment}")[0]
            expected = _("Deadline: {moment}.").format(
                moment=format_moment(clock.deadline, campaign.time_zone, campaign.language)
            )
        for line in board.text.splitlines():
            if line.startswith(prefix) and not line.startswith(expected.rstrip(".")):
                self.fail(
                    "numbers in posts",
                    f"the board says «{line}»; the stored deadline is «{expected}»",
                    "group",
                )

    async def _no_passed_deadline_ahead(self, campaign: Campaign, requests: list[Request]) -> None:
        """3: the sweep runs a deadline's step within the minute; a deadline shown after that
        has passed (its step waits), and no screen or post shows it as still ahead («Deadline:
        …»: the board, /status, /rules, in either language)."""
        clock = await self.world.store.clock_state(campaign.id)
        if clock is None or clock.deadline is None or clock.paused_at is not None:
            return
        deadline = clock.deadline
        late = [
            r
            for r in requests
            if not r.refused and r.text and r.at is not None and deadline < r.at - _SWEEP
        ]
        if not late:
            return
        self.count += 1
        shown = []
        for language in ("en", "ru"):
            with self.world.i18n.context(), self.world.i18n.use_locale(language):
                moment = format_moment(deadline, campaign.time_zone, language)
                shown.append(_("Deadline: {moment}.").format(moment=moment).rstrip("."))
        for request in late:
            for line in request.text.splitlines():
                if any(line.startswith(ahead) for ahead in shown):
                    self.fail(
                        "numbers in posts",
                        f"«{line}» is shown at {request.at:%a %d %b %H:%M} UTC, a deadline that"
                        " has passed, as if it were still ahead",
                        self.chat_name(request.chat_id),
                    )

    async def end_summary(self, campaign: Campaign) -> None:
        """3: the end summary's counts and its chart are the sum of the Mondays."""
        self.count += 1
        if campaign.status is not CampaignStatus.FINISHED:
            return
        summaries = [
            r
            for r in self.world.session.requests
            if r.post is not None and r.post.kind == "campaign_summary" and not r.refused
        ]
        if not summaries:
            return
        store = self.world.store
        sides = await store.sides(campaign.id)
        tallies = {side.id: [0, 0, 0] for side in sides}
        held: dict[str, list[int]] = {side.id: [0] for side in sides}
        silent: dict[str, int] = {}
        played = 0
        for turn in range(1, campaign.turn + 1):
            resolutions = await store.resolutions(campaign.id, turn)
            if not resolutions:
                continue
            report = resolutions[-1].report
            results = {result.battle: result for result in report.results}
            for battle in report.fought_battles():
                if battle.id in report.unplayed:
                    continue
                played += 1
                result = results.get(battle.id)
                for side in (battle.attacker, battle.defender):
                    tally = tallies.setdefault(side, [0, 0, 0])
                    if result is None or battle.id in report.unreported:
                        silent[side] = silent.get(side, 0) + 1
                    if result is None or result.winner is None:
                        tally[1] += 1
                    elif result.winner == side:
                        tally[0] += 1
                    else:
                        tally[2] += 1
            for side, counts in held.items():
                counts.append(len(report.captured.get(side, ())))
        # A summary longer than a photo's caption goes out as the caption and the rest in
        # messages after it: the post is all of them.
        last = summaries[-1].post
        assert last is not None
        text = "\n".join(r.text for r in summaries if r.post is not None and r.post.id == last.id)
        lines = text.splitlines()
        counted = [int(n) for n in re.findall(r"\d+", lines[1])] if len(lines) > 1 else []
        if counted and counted[0] != played:
            self.fail(
                "numbers in posts",
                f"the end summary says {lines[1]!r}; the Mondays counted {played} battles played",
                "group",
            )
        for listed in sides:
            line = next((x for x in lines if x.startswith(f"• «{listed.name}»")), None)
            if line is None:
                continue
            words = line.split("»:", 1)[-1]
            without = re.findall(r"\(([^)]*)\)", words)
            words = re.sub(r"\([^)]*\)|(?:of|из) \d+", " ", words)
            numbers = [int(n) for n in re.findall(r"\d+", words)]
            expected = [*tallies.get(listed.id, [0, 0, 0]), held[listed.id][-1]]
            unsettled = [int(n) for n in re.findall(r"\d+", " ".join(without))]
            if (unsettled[0] if unsettled else 0) != silent.get(listed.id, 0):
                self.fail(
                    "numbers in posts",
                    f"the end summary says {line!r}; the Mondays counted"
                    f" {silent.get(listed.id, 0)} of its battles without a result",
                    "group",
                )
            if numbers[:4] != expected:
                self.fail(
                    "numbers in posts",
                    f"the end summary says {line!r}; the Mondays make it {expected[0]} wins,"
                    f" {expected[1]} draws, {expected[2]} losses, {expected[3]} sectors held",
                    "group",
                )
        for _step, chart in self.charts[-1:]:
            for row in chart:
                drawn = next((s for s in sides if s.name == row.name), None)
                if drawn is None:
                    continue
                if drawn.colour.lower() != row.colour.lower():
                    self.fail(
                        "colours and words",
                        f"the chart draws «{drawn.name}» in {row.colour}, stored {drawn.colour}",
                    )
                if list(row.held) != held[drawn.id][: len(row.held)] or len(row.held) != len(
                    held[drawn.id]
                ):
                    self.fail(
                        "numbers in posts",
                        f"the chart draws «{drawn.name}» holding {list(row.held)}; the Mondays"
                        f" held {held[drawn.id]}",
                        "group",
                    )

    # ---- 4. phases ---------------------------------------------------------------------------

    async def phases_pass_rightly(self, campaign: Campaign) -> None:
        """4: a phase passes by its deadline, everyone ready, or a GM's confirmation naming it;
        and the campaign's status agrees with its phase."""
        self.count += 1
        self._status_fits_phase(campaign)
        history = await self.world.store.phase_history(campaign.id)
        fresh = history[self._entries_seen :]
        earlier = history[self._entries_seen - 1] if self._entries_seen else None
        self._entries_seen = len(history)
        if earlier is None:
            return
        before_clock = self._clock_before
        for entry in fresh:
            left = earlier
            earlier = entry
            if entry.phase is Phase.FINISHED or left.phase is Phase.SETUP:
                continue
            forward = (entry.turn, _rank(entry.phase)) > (left.turn, _rank(left.phase))
            if not forward or entry.undone_at is not None:
                continue
            if entry.actor is None:
                await self._not_ended_by_itself_after_undo(
                    campaign, history, left, entry, before_clock
                )
                due = before_clock is not None and (
                    before_clock.entry_seq != left.seq
                    or before_clock.deadline is None
                    or before_clock.deadline <= entry.entered_at
                )
                if (
                    before_clock is not None
                    and before_clock.entry_seq == left.seq
                    and not due
                    and not await self._ready_early(campaign, left.turn, left.phase)
                ):
                    self.fail(
                        "phases",
                        f"turn {left.turn} {left.phase.value} passed at"
                        f" {entry.entered_at:%a %d %b %H:%M} UTC by the clock, before its"
                        f" deadline {before_clock.deadline:%a %d %b %H:%M} UTC, with"
                        f" not every side ready ({entry.reason!r})",
                    )
                if left.phase is Phase.ORDERS and due:
                    await self._whole_orders_window(campaign, left, entry.entered_at)
                before_clock = None
                continue
            presses = [
                p
                for p in self.world.presses
                if p.step == self.world.step and p.user_id == entry.actor and not p.forged
            ]
            confirming = [
                p
                for p in presses
                if p.data.rsplit(":", 2)[-2:][0] in CONFIRMING
                or any(f":{c}" in p.data for c in CONFIRMING)
            ]
            words = PHASE_WORDS.get(left.phase, ())
            # The question itself (its first line) or the button pressed names the phase: a
            # phase word further down («Orders given: 1 of 2») does not make it a question
            # about that phase.
            named = any(
                any(w in (_first_line(p.text) + " " + p.label).lower() for w in words)
                for p in confirming
            )
            if not named:
                self.fail(
                    "phases",
                    f"turn {left.turn} {left.phase.value} was ended by GM {entry.actor} with a"
                    f" confirmation that did not name it: "
                    f"{[(p.text[:120], p.label) for p in confirming] or presses[-1:]}",
                    self.chat_name(entry.actor),
                )
            before_clock = None

    async def _not_ended_by_itself_after_undo(
        self,
        campaign: Campaign,
        history: list[PhaseEntry],
        left: PhaseEntry,
        entry: PhaseEntry,
        before_clock: ClockState | None,
    ) -> None:
        """A phase the GM's undo came back to ends at its deadline or by the GM, never early by
        itself: the placements, orders or results still stored would end it at once, every
        post of the step sent again and the undo for nothing (bench seed 40242). A side the GM
        reopened with the last undo may still close the orders."""
        back = [
            e.undone_at
            for e in history
            if left.seq < e.seq < entry.seq
            and e.undone_at is not None
            and e.undone_at <= entry.entered_at
        ]
        if not back:
            return
        deadline_passed = (
            before_clock is not None
            and before_clock.entry_seq == left.seq
            and before_clock.deadline is not None
            and before_clock.deadline <= entry.entered_at
        )
        reopening = (
            await self.world.store.orders_reopening(campaign.id, left.seq)
            if left.phase is Phase.ORDERS
            else None
        )
        # A reopening is itself an undo back to the orders; one made before a later undo came
        # back again is over (bench seed 60033).
        reopened = reopening is not None and reopening.reopened_at >= max(back)
        if not deadline_passed and not reopened:
            self.fail(
                "phases",
                f"turn {left.turn} {left.phase.value}, which the GM's undo came back to at"
                f" {max(back):%a %d %b %H:%M} UTC, ended by itself at"
                f" {entry.entered_at:%a %d %b %H:%M} UTC before its deadline"
                f" ({entry.reason!r}): it waits for its deadline or the GM",
            )

    def _status_fits_phase(self, campaign: Campaign) -> None:
        """A campaign being set up is neither paused nor running, one in deployment is not
        running, and one in a turn is not in deployment: the status a GM pauses, resumes and
        undoes agrees with the phase (a finished campaign keeps the phase it ended in)."""
        status, phase = campaign.status, campaign.phase
        if status is CampaignStatus.FINISHED:
            return
        fits = {
            Phase.SETUP: {CampaignStatus.SETUP},
            Phase.DEPLOYMENT: {CampaignStatus.DEPLOYMENT, CampaignStatus.PAUSED},
            Phase.FINISHED: set(),
        }.get(phase, {CampaignStatus.RUNNING, CampaignStatus.PAUSED})
        if status not in fits:
            self.fail(
                "phases",
                f"turn {campaign.turn} {phase.value} has the status {status.value}: the GM's"
                " pause, resume and undo left it where no screen offers a way on",
            )

    async def _whole_orders_window(
        self, campaign: Campaign, entry: PhaseEntry, closed: datetime
    ) -> None:
        """4: an orders window the clock closed was open at least the schedule's least length
        (``orders_length``, less an hour for a DST night), unless the GM made it shorter (set
        the deadline, changed the schedule, reopened one side's orders) or the bot was down."""
        store = self.world.store
        zone = ZoneInfo(campaign.time_zone)
        opening = orders_window(entry.entered_at, campaign.schedule, zone)[0]
        opened = max(entry.entered_at, opening or entry.entered_at)
        least = orders_length(campaign.schedule)
        if closed - opened >= least - timedelta(hours=1):
            return
        if any(opened <= b and a <= closed for a, b in self.world.stalls):
            return
        if self._schedule_changed is not None and entry.entered_at <= self._schedule_changed:
            return
        if await store.orders_reopening(campaign.id, entry.seq) is not None:
            return
        gm_set = (ClockNoteKind.DEADLINE_SET, ClockNoteKind.ADVANCED)
        if any(
            note.kind in gm_set and (note.turn, note.phase) == (entry.turn, entry.phase)
            for note in await store.clock_log(campaign.id)
        ):
            return
        self.fail(
            "phases",
            f"turn {entry.turn}'s orders were open {closed - opened} (from"
            f" {opened:%a %d %b %H:%M} to {closed:%a %d %b %H:%M} UTC), less than the schedule's"
            f" {least}, and no GM shortened them",
        )

    async def late_only_when_down(self, campaign: Campaign, requests: list[Request]) -> None:
        """4: a step is noted late (the GMs' overdue alarm, the group's «ran late») only when
        its deadline passed while the bot was down: the sweep runs at every moment it planned,
        and a step that waited for the sides was blocked, not late."""
        if not any(r.post is not None and r.post.kind in _LATE_POSTS for r in requests):
            return
        self.count += 1
        for note in await self.world.store.clock_log(campaign.id):
            if note.kind not in (ClockNoteKind.OVERDUE, ClockNoteKind.RAN_LATE):
                continue
            deadline = note.deadline
            if deadline is not None and any(a <= deadline <= b for a, b in self.world.stalls):
                continue
            due = "?" if deadline is None else f"{deadline:%a %d %b %H:%M}"
            self.fail(
                "phases",
                f"turn {note.turn} {note.phase.value} is noted {note.kind.value} (due"
                f" {due} UTC, ran {note.at:%a %d %b %H:%M} UTC), but the bot"
                f" was up and swept at its deadline; it was down only over"
                f" {[(f'{a:%d %b %H:%M}', f'{b:%d %b %H:%M}') for a, b in self.world.stalls]}",
            )

    async def _ready_early(self, campaign: Campaign, turn: int, phase: Phase) -> bool:
        store = self.world.store
        sides = [s.id for s in await store.sides(campaign.id)]
        if phase is Phase.DEPLOYMENT:
            placed = await store.placements(campaign.id)
            return all(placed.get(side) is not None and placed[side].ready for side in sides)
        if phase is Phase.ORDERS:
            state = await store.turn_start(campaign.id, turn)
            playing = set(state.sides()) if state is not None else set(sides)
            for side in playing:
                record = await store.orders(campaign.id, turn, side)
                if record is None or not record.ready:
                    return False
            return True
        return False

    # ---- 5. posts ---------------------------------------------------------------------------

    async def posts_once_in_order(
        self, campaign: Campaign, requests: list[Request], *, final: bool = False
    ) -> None:
        """5: no post sent twice, none left behind, each chat's story in order."""
        self.count += 1
        doubled = [post for post, times in self.world.sender.sent_posts.items() if times > 1]
        if doubled:
            self.fail("posts", f"outbox posts {doubled} were sent more than once")
        where = (campaign.turn, campaign.phase, campaign.status)
        if not final and where == self._outbox_read_at and self.world.step % OUTBOX_EVERY:
            messages = []
        else:
            # A post given up or left behind stays so (the sender claims by the same rule
            # every time), so reading the whole outbox at every change of phase, every
            # OUTBOX_EVERY steps and at the end finds each; reading it after every step was a
            # sixth of the checks' time.
            self._outbox_read_at = where
            messages = await self.world.store.outbox_messages(campaign.id)
        now = self.world.clock.now()
        for message in messages:
            if message.state is OutboxState.DEAD:
                self.fail(
                    "posts",
                    f"post {message.id} ({message.kind}) to {self.chat_name(message.chat_id)}"
                    f" was given up: {message.last_error}",
                    self.chat_name(message.chat_id),
                )
            if message.state in (OutboxState.PENDING, OutboxState.SENDING) and (
                message.not_before <= now and message.attempts == 0
            ):
                self.fail(
                    "posts",
                    f"post {message.id} ({message.kind}) to {self.chat_name(message.chat_id)}"
                    " is due and was not sent",
                    self.chat_name(message.chat_id),
                )
        if any(r.post is not None and r.post.kind in RESTARTS for r in requests):
            self._story.clear()  # an undo or a correction tells the story again from there
        for request in requests:
            post = request.post
            if post is None or request.refused or request.chat_id is None:
                continue
            stage = _story_stage(post.kind, post.payload)
            if stage is None:
                continue
            last = self._story.get(request.chat_id)
            if last is not None and stage < last:
                self.fail(
                    "posts",
                    f"{self.chat_name(request.chat_id)} got {post.kind} {dict(post.payload)}"
                    f" (turn {stage[0]}, {_STAGES[stage[1]]}) after a post of turn {last[0]},"
                    f" {_STAGES[last[1]]}",
                    self.chat_name(request.chat_id),
                )
            self._story[request.chat_id] = max(stage, last or stage)

    # ---- 6. replay ------------------------------------------------------------------------------

    async def replay(
        self,
        campaign: Campaign,
        *,
        final: bool = False,
        revisions: dict[int, int] | None = None,
    ) -> None:
        """6: each resolved turn (each revision) replays to its stored state; at the end each
        turn's start and every roll too. ``revisions``: each resolved turn's current revision,
        as the step's checks read them (``None``: read them now)."""
        self.count += 1
        store = self.world.store
        current = revisions
        if current is None:
            current = {
                turn: resolutions[-1].revision
                for turn in range(1, campaign.turn + 1)
                if (resolutions := await store.resolutions(campaign.id, turn))
            }
        done = self._replayed | self._deferred
        if not final and all((t, r) in done for t, r in current.items()):
            return
        exported: dict[str, Any] = json.loads(json.dumps(await store.export_campaign(campaign.id)))
        for turn in exported["turns"]:
            document = turn.get("document")
            if document is None:
                continue
            key = (int(turn["turn"]), int(turn["revision"]))
            if key in done and not final:
                continue
            if _plays_hidden_spells(document):
                # Until the campaign finishes, the export leaves the heroes' hands out (they
                # are dealt from the deal seed, revealed only then), so the rules would refuse
                # every spell played as "not in hand": such a turn replays once they are out.
                self._deferred.add(key)
                continue
            self._replayed.add(key)
            answer = resolve_answer(json.dumps(document))
            if (
                _bare(answer["state"]) != _bare(turn["state_after"])
                or answer.get("winner") != turn["winner"]
            ):
                self.fail(
                    "replay",
                    f"turn {key[0]} (revision {key[1]}) replays through python -m rules resolve"
                    f" to {answer['state']} (winner {answer.get('winner')}), stored"
                    f" {turn['state_after']} (winner {turn['winner']})",
                )
        if not final or exported["campaign"]["status"] != "finished":
            return
        verified = verify_rolls_answer(json.dumps(exported))
        if verified.get("failed"):
            self.fail("replay", f"python -m rules verify-rolls: {verified['failed'][:3]}")
        edited = {
            entry.turn
            for entry in await store.audit_log(campaign.id)
            if entry.action.value in ("state_edited", "state_adjusted", "state_edit_undone")
        }
        turns = [t for t in exported["turns"] if t.get("document") is not None]
        for earlier, later in itertools.pairwise(turns):
            if int(later["turn"]) != int(earlier["turn"]) + 1 or int(later["turn"]) in edited:
                continue
            if not later.get("seeds", {}).get("deal") and "watch" in json.dumps(
                exported["ruleset"]
            ):
                continue
            document = {
                "map": exported["map"],
                "ruleset": exported["ruleset"],
                "state": earlier["state_after"],
            }
            seeds = {k: v for k, v in (later.get("seeds") or {}).items() if v}
            if seeds and exported["ruleset"].get("modules"):
                document["seeds"] = seeds
            try:
                started = start_answer(json.dumps(document))
            except (ValueError, KeyError) as error:
                self.fail("replay", f"python -m rules start refused turn {later['turn']}: {error}")
                return
            if _bare(started["state"]) != _bare(later["state"]):
                self.fail(
                    "replay",
                    f"turn {later['turn']} starts through python -m rules start as"
                    f" {started['state']}, stored {later['state']}",
                )

    # ---- 7. the log -------------------------------------------------------------------------

    def no_error_in_the_log(self, requests: Iterable[Request] = ()) -> None:
        """7: no line at ERROR or above, no traceback, no request Telegram refused (but an
        edit that changes nothing, which Telegram refuses and the bot shrugs off)."""
        self.count += 1
        for step, record, line in self.log.records[self._log_seen :]:
            if record.levelno >= logging.ERROR or record.exc_info:
                self.fail("no error in the log", f"at step {step}: {line[:2000]}")
        self._log_seen = len(self.log.records)
        for request in requests:
            if request.refused and not any(t in request.error for t in TOLERATED_REFUSALS):
                self.fail(
                    "no error in the log",
                    f"Telegram refused {type(request.sent.method).__name__} to"
                    f" {self.chat_name(request.chat_id)}: {request.error}",
                    self.chat_name(request.chat_id),
                )

    # ---- 8. colours and words -----------------------------------------------------------------

    def colours_and_words(
        self, campaign: Campaign, sides: list[Any], requests: list[Request]
    ) -> None:
        """8: one colour per side; no English in a Russian message (names and quotes aside),
        no Russian in an English one."""
        self.count += 1
        colours = [side.colour.lower() for side in sides]
        if len(set(colours)) != len(colours):
            self.fail("colours and words", f"two sides share a colour: {colours}")
        people = {user.first_name for user in self.world.telegram.users.values()}
        names = sorted(self.names | people | self._map_names(campaign), key=len, reverse=True)
        changed = self._changed_language | {
            p.user_id for p in self.world.presses if p.step == self.world.step and "lang" in p.data
        }
        group_language_moved = any(
            p.step == self.world.step and ":lang" in p.data for p in self.world.presses
        )
        self._typed = sorted(
            {
                line.strip()
                for *_, text in self.world.inputs
                for line in text.splitlines()
                if len(line.strip()) >= 4
            },
            key=len,
            reverse=True,
        )
        for request in requests:
            reader = request.chat_id
            if reader is None or request.refused or not request.words().strip():
                continue
            chat = request.pressed_in if request.pressed_in is not None else reader
            language = self._languages.get(chat)
            if chat < 0:
                language = campaign.language
                if (
                    self._before is None
                    or self._before.language != campaign.language
                    or group_language_moved
                ):
                    continue  # set up, or changed, in this step
            if chat in changed:
                continue  # the reader changed their language in this step
            if language not in ("en", "ru"):
                continue
            labels = [
                label for label, data in request.sent.buttons() if not data.startswith("lang:")
            ]
            text = QUOTED.sub(" ", "\n".join([request.text, *labels]))
            text = re.sub(r"\b[0-9a-f]{8,}\b|python -m rules \S+", " ", text)
            for typed in self._typed:
                text = text.replace(typed, " ")
            # A refusal quotes a piece of what the reader typed in this step, in their words.
            echoed = {
                word
                for step, _user, chat, typed_text in self.world.inputs
                if step == self.world.step and chat == reader
                for word in re.findall(r"\w+", typed_text)
            }
            if echoed:
                text = "".join(" " if w in echoed else w for w in re.split(r"(\W+)", text))
            for name in names:
                if name:
                    text = text.replace(name, " ")
            # A name cut short to fit a button («(was Гле…», «seat of «Кровавые Ангел…»): the
            # words before the cut that start a known name.
            text = re.sub(r"((?:\w+ )*\w+)…", lambda cut: _uncut(cut, names), text)
            text = re.sub(r"\S*/\S*|#\w+|\b[0-9a-f]{8,}\b|\S+@\S+", " ", text)
            text = text.replace("Русский", " ").replace("English", " ")
            if language == "ru":
                stray = set(LATIN.findall(text)) - ALLOWED_LATIN
                what = "English"
            else:
                stray = set(CYRILLIC.findall(text))
                what = "Russian"
            if stray:
                self.fail(
                    "colours and words",
                    f"a {language} message to {self.chat_name(reader)} holds {what} words"
                    f" {sorted(stray)[:8]}: {request.text[:300]!r}",
                    self.chat_name(reader),
                )

    def _map_names(self, campaign: Campaign) -> set[str]:
        found: set[str] = {campaign.title}
        try:
            game = self._game_of(campaign)
        except (ValueError, KeyError):
            return found
        for sector in game.map.sectors:
            found.add(sector.name)
            found |= set(sector.names.values())
            found.add(sector.id)
        for feature in game.map.features:
            if feature.name:
                found.add(feature.name)
            found |= set((feature.names or {}).values())
        watch = game.ruleset.module_settings.get("watch", {})
        if isinstance(watch, dict):
            for hero in cast(list[Any], watch.get("heroes", []) or []):
                if isinstance(hero, dict):
                    found.add(str(hero.get("name", "")))
            npc = watch.get("npc")
            if isinstance(npc, dict):
                found.add(str(npc.get("name", "")))
        return found


_SWEEP = timedelta(minutes=1)  # the bot's sweep runs a due step within it
_LATE_POSTS = ("overdue_alarm", "ran_late")  # a step noted late: to the GMs, to the group
_STAGES = ("deployment", "opening", "battle list", "Monday", "end")


def _story_stage(kind: str, payload: Mapping[str, Any]) -> tuple[int, int] | None:
    """Where a post stands in the story: (turn, 0 deployment / 1 opening / 2 list / 3
    Monday), or ``None`` for a post that tells no step of it."""
    if kind not in STORY_KINDS:
        return None
    turn = payload.get("turn")
    if not isinstance(turn, int):
        return None
    if kind in ("phase_notice", "private_phase_notice"):
        phase = payload.get("phase")
        if phase == "deployment":
            return (0, 0)
        if phase == "orders":
            return (turn, 1)
        return None
    if kind == "seeds_committed":
        return (turn, 1)
    if kind in ("battle_list", "battle_notice"):
        return (turn, 2)
    if kind == "map":
        return (turn - 1, 3)
    return (turn, 3)  # turn_result


def _uncut(cut: re.Match[str], names: Iterable[str]) -> str:
    """``cut`` (words before a «…») without its last words that start one of ``names``: a name
    cut short to fit a button; ``cut`` as it is when none do."""
    words = cut[1].split(" ")
    for start in range(len(words)):
        if any(name.startswith(" ".join(words[start:])) for name in names):
            return " ".join(words[:start]) + " "
    return cut[0]


def _first_line(text: str) -> str:
    return text.split("\n", 1)[0]


def _plays_hidden_spells(document: Mapping[str, Any]) -> bool:
    """Whether a turn's exported document has a duel step that plays a spell while its state
    shows no hero's hand (the export of a campaign not finished yet)."""
    watch = document["state"].get("modules", {}).get("watch")
    if not watch or any("hand" in hero for hero in watch.get("heroes", ())):
        return False
    return any(
        order.get("module") == "watch" and order["data"].get("plays")
        for given in document["orders"].values()
        for order in given.get("late", ())
    )


def _bare(state: Mapping[str, Any]) -> dict[str, Any]:
    """A state as JSON as the export writes it: no empty ``modules``, no watch hands (the
    export shows every state through watch's ``public_view``, which removes them)."""
    bare = {k: v for k, v in state.items() if not (k == "modules" and not v)}
    modules = bare.get("modules")
    if isinstance(modules, dict) and "watch" in modules:
        bare["modules"] = {**modules, "watch": public_view(modules["watch"], None)}
    return bare


def _rank(phase: Phase) -> int:
    return {
        Phase.SETUP: 0,
        Phase.DEPLOYMENT: 1,
        Phase.ORDERS: 2,
        Phase.BATTLES: 3,
        Phase.RESOLUTION: 4,
        Phase.FINISHED: 5,
    }[phase]


def _armies(armies: Mapping[str, Mapping[str, int]]) -> dict[str, dict[str, int]]:
    return {
        side: {sector: n for sector, n in sectors.items() if n}
        for side, sectors in armies.items()
        if any(sectors.values())
    }


def _held(captured: Mapping[str, Iterable[str]] | None) -> dict[str, list[str]]:
    if not captured:
        return {}
    return {side: sorted(sectors) for side, sectors in captured.items() if sectors}


def _sides_now(battles: Iterable[Battle], reports: Mapping[int, BattleReport]) -> dict[int, Any]:
    """Each battle's sides given the results that count (the chain rule, MODULES.md C6)."""
    results: dict[int, BattleResult] = {}
    against: dict[int, str] = {}
    for battle_id, report in reports.items():
        result = report.effective()
        if result is not None:
            results[battle_id] = result
            made_for = report.effective_against()
            if made_for is not None:
                against[battle_id] = made_for
    return battle_sides(battles, results, against=against)


def _chain_start(battles: Iterable[Battle], battle: Battle) -> int:
    """The first battle of ``battle``'s chain (following ``defender_from`` back)."""
    by_id = {b.id: b for b in battles}
    first = battle
    while first.defender_from is not None and first.defender_from in by_id:
        first = by_id[first.defender_from]
    return first.id


def _screen_name(buttons: list[tuple[str, str]], text: str) -> str:
    """A screen's kind: the kinds of its buttons (callback prefix and the words among its
    fields), else its first words without numbers."""
    kinds = set()
    for _label, data in buttons:
        fields = data.split(":")
        words = [f for f in fields[1:] if f.isalpha() and len(f) > 1][:2]
        kinds.add(":".join([fields[0], *words]))
    if kinds:
        return " ".join(sorted(kinds))
    return " ".join(re.sub(r"\d+", "#", w) for w in text.split()[:3])
