"""The bot side's extension point (issue 35): :class:`BotModule`, which the shared bot calls at
named points, as the rules core calls :class:`rules.game.RulesModule`.

A module's bot side is one object; each hook returns data or routers that the shared code
places and renders, and every default adds nothing, so a module overrides only what it has.
A hook imports the module's code when it is called: the registry stays importable from
anywhere in the bot (the posts' table, the texts), with no import cycle through the module's
own handlers and services, which import the shared bot.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from aiogram import Router
from aiogram.types import InlineKeyboardButton

if TYPE_CHECKING:
    from pydantic import JsonValue

    from bot.posts import Renderer
    from rules import (
        Battle,
        CampaignMap,
        CampaignState,
        Game,
        ModuleOrder,
        Move,
        SideOrders,
        TurnReport,
    )
    from rules.render import DialView, MapFigures, SectorMark
    from rules.resolution import Arrival
    from storage import Campaign, NewOutboxMessage, Store


@dataclass(frozen=True)
class AdjustmentWords:
    """A module's adjustment (a GM's change to its state) as the group reads it."""

    reason: str
    lines: Sequence[str]


class BotModule:
    """Base of a rule module's bot side. Subclasses set ``name`` (the rules module's) and
    override the hooks they use; each call builds new routers (a router belongs to one
    dispatcher, and tests build many)."""

    name: str = ""

    def __init__(self, name: str | None = None) -> None:
        if name is not None:
            self.name = name

    def group_routers(self) -> Sequence[Router]:
        """Routers of the module's screens in the group chat, after the shared ones."""
        return ()

    def gm_routers(self) -> Sequence[Router]:
        """Routers of the module's GM tools in the GM's private chat (the group's ``/gm`` sends
        them there), before the players' private screens."""
        return ()

    def private_routers(self) -> Sequence[Router]:
        """Routers of the module's private screens for the players, before plain text is read
        as the phase's input."""
        return ()

    def renderers(self) -> Mapping[str, Renderer]:
        """The module's post kinds and their renderers, joined into :data:`bot.posts.REGISTRY`."""
        return {}

    def describe_order(
        self,
        order: ModuleOrder,
        campaign_map: CampaignMap,
        sides: Mapping[str, str],
        language: str,
    ) -> str | None:
        """One of the module's orders in words that read back as it (``bot.order_text``), for
        ``bot.texts.describe_order``; ``None``: not worded here."""
        return None

    def describe_rejection(
        self,
        params: Mapping[str, str | int],
        campaign_map: CampaignMap,
        sides: Mapping[str, str],
        language: str,
    ) -> str | None:
        """Why the module refused an order (a ``MODULE_RULE`` rejection's ``params``), with
        what to do instead; ``None``: not worded here."""
        return None

    async def status_sections(
        self, store: Store, campaign: Campaign, now: datetime
    ) -> Sequence[str]:
        """Paragraphs the module adds to the group's ``/status`` after the board: what everyone
        may see (no secret)."""
        return ()

    async def map_caption(
        self, store: Store, campaign: Campaign, state: CampaignState, now: datetime
    ) -> str | None:
        """``/map``'s caption when the module changes what the map shows; ``None``: the shared
        one."""
        return None

    def describe_adjustment(
        self,
        adjustment: Mapping[str, JsonValue],
        campaign_map: CampaignMap,
        names: Mapping[str, str],
        language: str,
        *,
        undone: bool,
    ) -> AdjustmentWords | None:
        """A stored state adjustment in the group's words (``undone``: taken back) if it is one
        of this module's changes; ``None`` otherwise."""
        return None

    def names(self, state: CampaignState) -> Mapping[str, str]:
        """Names of the module's pieces in ``state`` (id: name), which the posts use beside the
        sides' names; no secret in them."""
        return {}

    def battle_list_lines(
        self,
        campaign: Campaign,
        plan: JsonValue,
        campaign_map: CampaignMap,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        """The battle list's part for the module's ``plan`` (the turn plan's module data) in
        ``campaign`` (whose settings may name the module's things)."""
        return ()

    def summary_lines(
        self,
        campaign: Campaign,
        data: JsonValue,
        report: TurnReport,
        state: CampaignState,
        campaign_map: CampaignMap,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        """The Monday summary's part for the module's ``data`` in ``report`` (its victory
        included); ``state``: the next turn's start, which the resolution made."""
        return ()

    def orders_open_lines(
        self,
        state: CampaignState,
        turn: int,
        campaign_map: CampaignMap,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        """Lines the orders-open post of ``turn`` adds for the module, from the turn's
        start ``state``."""
        return ()

    async def battle_list_published(
        self, store: Store, campaign_id: int, turn: int, opens_at: datetime, now: datetime
    ) -> None:
        """In the transaction that published ``turn``'s battle list (posted at ``opens_at``): the
        module's own scheduled steps of the turn begin."""

    async def run_steps(self, store: Store, campaign_id: int, now: datetime) -> bool:
        """The scheduler's run, before the phase's own step: the module's steps brought up to
        ``now``; true when it queued posts."""
        return False

    async def next_step_moment(
        self, store: Store, campaign: Campaign, now: datetime
    ) -> datetime | None:
        """The next moment after ``now`` when :meth:`run_steps` has something to do."""
        return None

    async def shift_steps(
        self,
        store: Store,
        campaign: Campaign,
        by: timedelta,
        results: datetime | None,
        now: datetime,
    ) -> None:
        """The results deadline moved ``by`` (now ``results``): the module's steps move too."""

    async def before_resolution(self, store: Store, campaign: Campaign, now: datetime) -> None:
        """Just before the turn resolves: the module's steps still open close."""

    def gm_panel_rows(self, campaign: Campaign) -> Sequence[list[InlineKeyboardButton]]:
        """Rows the GM panel shows for the module's tools now (none when they do not apply)."""
        return ()

    # hooks: hposts
    def map_marks(
        self, campaign: Campaign, state: CampaignState, names: Mapping[str, str]
    ) -> Sequence[SectorMark]:
        """The module's marks on the map of ``state`` (its pieces on the sectors, each with its
        meaning for the legend), in the current language; ``names``: the sides' (id: name)."""
        return ()

    def map_dial(self, campaign: Campaign, state: CampaignState) -> DialView | None:
        """The module's dial on the map of ``state`` (the first module's that has one is
        drawn); ``None``: none."""
        return None

    def map_side_notes(
        self, campaign: Campaign, state: CampaignState, names: Mapping[str, str]
    ) -> Mapping[str, str]:
        """Notes beside the sides' lines in the map's legend (side id: note); ``names``: the
        sides' (id: name), in the campaign's order."""
        return {}

    def map_title(self, state: CampaignState, names: Mapping[str, str]) -> str:
        """What the module adds to the end of the map's title for ``state`` ("" nothing)."""
        return ""

    def map_week_moves(self, plan: JsonValue, notes: JsonValue) -> Sequence[Arrival] | None:
        """The week's arrows on Monday's map when the module moves armies its own way, from its
        part of the turn's battle list (``plan``) and of the resolution's report (``notes``);
        ``None``: the report's moves."""
        return None

    async def map_figures(
        self,
        store: Store,
        campaign: Campaign,
        state: CampaignState,
        *,
        week: bool,
        battles: tuple[Battle, ...] | None,
        now: datetime | None,
    ) -> MapFigures | None:
        """The module's named figures on the map of ``state`` (Monday's with ``week``,
        Friday's with ``battles``; at ``now`` what is public then), only what anyone may see;
        ``None``: none."""
        return None

    def map_label_words(self) -> Mapping[str, str]:
        """Words of the map's legend for the module's figures (fields of
        :class:`rules.render.MapLabels`) in the current language."""
        return {}

    def battle_lines(
        self, battle: Battle, names: Mapping[str, str], language: str
    ) -> Sequence[str]:
        """Lines under one of the module's battles (``battle.module``) where a list shows it
        (the group's battle list, a side's battle notice)."""
        return ()

    def summary_told_battles(self, data: JsonValue) -> Sequence[int]:
        """The unplayed chain battles the module's part of the summary (``data``, its part of
        the report) explains itself, which the shared "not played" lines leave out."""
        return ()

    def state_edit_lines(
        self,
        campaign_map: CampaignMap,
        before: CampaignState,
        after: CampaignState,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        """Lines the post of a GM's state edit adds for what it changed in the module's part of
        the state (``before`` and ``after`` the edit)."""
        return ()

    def ordered_groups(self, orders: SideOrders) -> Sequence[Move | ModuleOrder] | None:
        """A side's moves and the module's orders that move armies, in the order they move, when
        the module moves armies in groups (the orders then read as a list of groups);
        ``None``: it does not."""
        return None

    async def turn_step_posts(
        self,
        store: Store,
        campaign: Campaign,
        turn: int,
        window: str,
        modules: Mapping[str, JsonValue],
        key: str,
    ) -> Sequence[NewOutboxMessage]:
        """Posts the module queues in the transaction that publishes ``turn``'s battle list
        (``window`` "before", ``modules``: the list's module data) or resolves it ("after", the
        report's); ``key`` begins their dedup keys."""
        return ()

    async def campaign_over_posts(
        self, store: Store, campaign: Campaign, state: CampaignState, key: str
    ) -> Sequence[NewOutboxMessage]:
        """Posts the module queues with the step that finishes the campaign (``state``: its
        last); ``key`` begins their dedup keys."""
        return ()

    def late_window(self) -> bool:
        """Whether a side's strategists are offered the module's orders given after the
        battles on the shared late window (the ``late_window`` post) when the list is
        published."""
        return False

    def replay_adjustment(
        self, game: Game, state: CampaignState, data: Mapping[str, JsonValue]
    ) -> CampaignState | None:
        """``state`` with a GM's stored adjustment ``data`` applied again (a correction makes the
        turn's start anew) if it is one of the module's; ``None``: not its. Raises
        ``ValueError`` when it no longer applies."""
        return None

    def pending_choice_alarm(self) -> str | None:
        """The GMs' alarm, in the current language, when the orders deadline passed but the
        module's deployment choice is not made (``{campaign}`` stands for the campaign's
        title); ``None``: the module makes no such choice."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
