"""The bot side's extension point (issue 35): :class:`BotModule`, which the shared bot calls at
named points, as the rules core calls :class:`rules.game.RulesModule`.

A module's bot side is one object; each hook returns data or routers that the shared code
places and renders, and every default adds nothing, so a module overrides only what it has.
A hook imports the module's code when it is called: the registry stays importable from
anywhere in the bot (the posts' table, the texts), with no import cycle through the module's
own handlers and services, which import the shared bot.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING

from aiogram import Router
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, Message

if TYPE_CHECKING:
    from pydantic import JsonValue

    from bot.handlers.private.callbacks import OrdersButton
    from bot.posts import Renderer
    from bot.services.orders import Desk
    from rules import CampaignMap, CampaignState, ModuleOrder, Move, Order, SideOrders, TurnReport
    from storage import Campaign, Person, Store


@dataclass(frozen=True)
class AdjustmentWords:
    """A module's adjustment (a GM's change to its state) as the group reads it."""

    reason: str
    lines: Sequence[str]


Screen = tuple[str, InlineKeyboardMarkup]
"""A private screen: its words and its buttons."""


@dataclass(frozen=True)
class DeskPress:
    """What one of a module's buttons on the orders desk asks for, which the shared handler
    (``bot.handlers.private.orders``) carries out; nothing set: the button no longer fits the
    set (nothing is done, the player is told)."""

    give: ModuleOrder | None = None
    """Give this order (the rules check it as any other); the screen after it comes from
    :meth:`BotModule.orders_desk_after`."""
    show: Screen | None = None
    """Show this screen of the module's."""
    home: bool = False
    """Show the desk's home screen (the screen asked for does not apply any more)."""
    drop: int | None = None
    """Take back the set's module order at this index, then show ``then``."""
    rewrite: Callable[[Desk], SideOrders | None] | None = None
    """Rewrite the set as this does with the desk as saved (``None``: it no longer fits), then
    show ``then``."""
    stale: bool = False
    """The set changed since the screen was drawn: nothing is done, the player is told and
    shown ``then``."""
    then: Callable[[Desk, Mapping[str, str]], Screen] | None = None
    """The module's screen after a ``drop``, ``rewrite`` or ``stale`` press, from the desk as
    saved and the names."""


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
        self, plan: JsonValue, campaign_map: CampaignMap, names: Mapping[str, str], language: str
    ) -> Sequence[str]:
        """The battle list's part for the module's ``plan`` (the turn plan's module data)."""
        return ()

    def summary_lines(
        self,
        data: JsonValue,
        report: TurnReport,
        campaign_map: CampaignMap,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        """The Monday summary's part for the module's ``data`` in ``report`` (its victory
        included)."""
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

    # hooks: horders

    def orders_desk_rows(self, desk: Desk) -> Sequence[list[InlineKeyboardButton]]:
        """Rows the orders desk's home screen adds for the module (buttons to its own screens),
        below the reinforcement; none when it is not played or has nothing to offer."""
        return ()

    def orders_desk_press(
        self, desk: Desk, data: OrdersButton, names: Mapping[str, str]
    ) -> DeskPress | None:
        """What the desk's button ``data`` asks for if it is one of the module's; ``None``
        otherwise."""
        return None

    def orders_desk_after(
        self, before: Desk, after: Desk, order: Order | ModuleOrder, names: Mapping[str, str]
    ) -> Screen | None:
        """The module's screen to show once ``order`` was given or taken back on ``before``
        (``after``: the desk now); ``None``: not the module's to show."""
        return None

    def orders_groups(self, desk: Desk) -> Sequence[Move | ModuleOrder] | None:
        """The side's groups in the order they move, when the module makes moves groups added
        to a list (a sector sends several) instead of the sector's one order; ``None``
        otherwise."""
        return None

    def orders_sector_buttons(self, desk: Desk, sector: str) -> Sequence[InlineKeyboardButton]:
        """Buttons the desk's screen of ``sector`` adds for the module's orders there, after the
        move's."""
        return ()

    def orders_sector_short(self, desk: Desk, sector: str) -> str | None:
        """``sector``'s order in a few characters on its home-screen button when it is one of
        the module's; ``None`` otherwise."""
        return None

    def orders_leaving(self, desk: Desk, sector: str) -> Sequence[ModuleOrder]:
        """The module's orders that send a group out of ``sector`` besides moves (counted on
        the sector's button)."""
        return ()

    async def read_typed(self, message: Message, store: Store, person: Person) -> bool:
        """Plain text in private, before the campaign's phase reads it: true when it was the
        module's (siege: a typed reward claim once its campaign is over) and answered."""
        return False

    def late_orders_final(self) -> bool:
        """Whether the module's late orders stay once given (a watch duel step is closed and its
        cards are on the table), so ``bot.services.late`` refuses to take them back."""
        return False

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
