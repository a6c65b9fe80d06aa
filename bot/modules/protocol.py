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

    from bot.demo_modules import DemoStory
    from bot.posts import Renderer
    from bot.rules_text import RulesView
    from rules import CampaignMap, CampaignState, ModuleOrder, Roll, TurnReport
    from storage import Campaign, Store


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

    # hooks: htexts

    def rules_button(self) -> str | None:
        """The label of the button of the module's section of ``/rules`` (``bot.rules_text``),
        in the reader's language; ``None``: the module has no section there."""
        return None

    def rules_lines(self, view: RulesView) -> Sequence[str]:
        """The module's section of ``/rules``, with the campaign's numbers (``view``: the
        campaign as stored, the module enabled)."""
        return ()

    def rules_victory_lines(self, view: RulesView) -> Sequence[str]:
        """Lines ``/rules``' Monday section adds on how the module wins the campaign, when it
        is enabled."""
        return ()

    def describe_sector_taken(self, sector: str) -> str | None:
        """Why a sector where the side keeps one of the module's orders this turn takes no other
        (``sector``: its label), with what to do instead; ``None``: the shared words."""
        return None

    def result_notes(self, data: JsonValue, sides: Mapping[str, str]) -> Sequence[str]:
        """What a battle result's module ``data`` adds to the result in words, each a phrase
        after it («warlord slain: Blue»); ``sides``: the sides' names by id."""
        return ()

    def roll_words(
        self,
        label: Sequence[str],
        roll: Roll,
        campaign_map: CampaignMap,
        sides: Mapping[str, str],
        language: str,
    ) -> str | None:
        """One of the module's rolls of a turn in words, a line by itself on the battle list
        and the Monday post (``label``: the roll's label after the turn and the module's
        name); ``None``: a draw of a shuffle, counted by :meth:`shuffle_words`."""
        return None

    def shuffle_words(self, label: Sequence[str], rolls: int) -> str | None:
        """The line of one of the module's shuffles (``label`` as for :meth:`roll_words`, the
        draw's index left off) and its count of ``rolls``; ``None``: the shared words."""
        return None

    def demo_story(self) -> DemoStory | None:
        """The module's offline demo (``python -m bot.demo --module NAME``); ``None``: none."""
        return None

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
