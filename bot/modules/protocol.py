"""The bot side's extension point (issue 35): :class:`BotModule`, which the shared bot calls at
named points, as the rules core calls :class:`rules.game.RulesModule`.

A module's bot side is one object; each hook returns data or routers that the shared code
places and renders, and every default adds nothing, so a module overrides only what it has.
A hook imports the module's code when it is called: the registry stays importable from
anywhere in the bot (the posts' table, the texts), with no import cycle through the module's
own handlers and services, which import the shared bot.
"""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime, timedelta
from typing import TYPE_CHECKING, Any

from aiogram import Router
from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, Message

if TYPE_CHECKING:
    from lark import Token, Tree
    from pydantic import JsonValue

    from bot.demo.modules import DemoStory
    from bot.handlers.group.gm import GmScreen
    from bot.handlers.group.gm_state import GmStateScreen
    from bot.handlers.private.callbacks import OrdersButton
    from bot.posts import Renderer
    from bot.runtime.clock import Clock
    from bot.services.orders import Desk
    from bot.texts.orders import ParsedLine, Reader, TypedGrammar, TypedNames
    from bot.texts.rules import RulesView
    from rules import (
        Battle,
        BattleResult,
        CampaignMap,
        CampaignState,
        Game,
        ModuleOrder,
        Move,
        Order,
        Outcome,
        Roll,
        SideOrders,
        TurnReport,
    )
    from rules.maps import Feature
    from rules.render import DialView, MapFigures, SectorMark
    from rules.resolution import Arrival
    from storage import Campaign, NewOutboxMessage, Person, Store


WizardButton = Callable[[str, "Campaign", str, str], InlineKeyboardButton]
"""The setup wizard's button factory (text, campaign, action, value): every button a module's
wizard screen shows is one of the wizard's (``su`` callbacks, re-checked for the GM on press)."""
WizardRows = list[list[InlineKeyboardButton]]


Screen = tuple[str, InlineKeyboardMarkup]


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


@dataclass(frozen=True)
class WizardChange:
    """What a press on a module's wizard button does: the ``step`` to show next, with new
    ruleset ``overrides`` (checked by the rules core before they are stored) or a built-in
    ``map`` to switch to (the modules' settings are then fitted to it); neither: only the screen
    changes."""

    step: str
    overrides: dict[str, Any] | None = None
    map: str | None = None


@dataclass(frozen=True)
class AdjustmentWords:
    """A module's adjustment (a GM's change to its state) as the group reads it."""

    reason: str
    lines: Sequence[str]


@dataclass(frozen=True)
class ReportQuestion:
    """A module's question before a battle result is reported or decided
    (:meth:`BotModule.report_question`): its ``text`` and its answers' button labels by code, a
    character or two (the code rides in the button, then :meth:`BotModule.report_data` reads
    it)."""

    text: str
    answers: Mapping[str, str]


@dataclass(frozen=True)
class VictoryFix:
    """A module's fix of a campaign its first resolution can end (the setup wizard's warning,
    ``bot.handlers.group.victory_check``): the button's label and value, what it does, and the
    ruleset overrides after it (the capture goal aside, which the check sets)."""

    value: str
    label: str
    line: str
    overrides: dict[str, Any]


@dataclass(frozen=True)
class OfferedMap:
    """A built-in map a module offers at the setup wizard's map step
    (:meth:`BotModule.wizard_maps`): its ``map`` id (``rules/data/<map>.toml``, listed in the
    module's ``RulesModule.maps``), the ``button``'s text with ``{map}`` where the map's name and
    size go, and the ``phrase`` naming it in the step's sentence after the rules' planet («the
    night map «…» made for …»; in Russian the object of «Возьмите …», so in the accusative)."""

    map: str
    button: str
    phrase: str


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
        """One of the module's orders in words that read back as it (``bot.texts.orders``), for
        ``bot.texts.core.describe_order``; ``None``: not worded here."""
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
        """The line ``/map``'s caption adds for the module (after the shared sentence and the
        lines of the modules before it in the registry); ``None``: none."""
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

    # hooks: hwizard

    def wizard_entry(self) -> str | None:
        """The label of the module's button in the setup summary's modules menu (it opens the
        step named as the module); ``None``: the module has no wizard step."""
        return None

    def wizard_summary_line(self, campaign: Campaign) -> str | None:
        """The setup summary's line on the module (on or off, and its main settings)."""
        return None

    def wizard_owns_step(self, step: str) -> bool:
        """Whether the wizard ``step`` is one of the module's screens: its name, or its name and
        a dot and more (``<name>.<screen>``)."""
        return step == self.name or step.startswith(f"{self.name}.")

    def wizard_screen(
        self,
        campaign: Campaign,
        sides: Sequence[tuple[str, str]],
        step: str,
        button: WizardButton,
    ) -> tuple[str, WizardRows] | None:
        """The module's wizard ``step`` (one it owns) for ``campaign`` with its ``sides`` (id,
        name): its text and buttons, a way back included; ``None``: no such screen."""
        return None

    def wizard_actions(self) -> Collection[str]:
        """The button actions (a wizard callback's ``a``) the module's screens use."""
        return ()

    def wizard_press(
        self, campaign: Campaign, sides: Sequence[str], action: str, value: str
    ) -> WizardChange | None:
        """A press on one of :meth:`wizard_actions` (``sides``: their ids): what it changes and
        the step to show; ``None`` for a button that does not fit any more."""
        return None

    def wizard_fitted(
        self, overrides: dict[str, Any], new_map: CampaignMap, sides: Sequence[str]
    ) -> dict[str, Any]:
        """The ruleset overrides with the module's settings fitted to a new map or to the sides
        left (settings of sectors or sides that are gone dropped)."""
        return overrides

    def wizard_question(
        self, campaign: Campaign, action: str, value: str
    ) -> tuple[str, dict[str, JsonValue]] | None:
        """A press that asks the GM to type an answer (``action`` «ask» or one of the module's):
        the typed field's name without «setup.» and what it is about; ``None``: not one of the
        module's questions, or one that does not fit any more."""
        return None

    def wizard_typed_fields(self) -> Collection[str]:
        """The typed answers (a prompt's field, ``setup.<what>``) the module reads."""
        return ()

    def wizard_ask_text(
        self, what: str, data: Mapping[str, JsonValue], campaign: Campaign, name: str
    ) -> str:
        """The question for the typed ``setup.<what>`` (one of :meth:`wizard_typed_fields`),
        addressed to the GM called ``name``."""
        return ""

    def wizard_typed_setting(
        self,
        campaign: Campaign,
        sides: Sequence[tuple[str, str]],
        field: str,
        data: Mapping[str, JsonValue],
        text: str,
    ) -> tuple[dict[str, Any] | None, str]:
        """The ruleset overrides after the GM typed ``text`` for ``field`` (one of
        :meth:`wizard_typed_fields`), or ``None`` and why not, in the GM's words."""
        return None, ""

    def wizard_reads_owner(self, overrides: Mapping[str, Any], feature: Feature) -> bool:
        """Whether the module, set up as in ``overrides``, reads the map ``feature``'s ``owner``
        as a side (so the campaign cannot start while it names none)."""
        return False

    def wizard_next_step(
        self, campaign: Campaign, field: str, data: Mapping[str, JsonValue]
    ) -> str:
        """The wizard step after a typed answer to ``field`` (one of
        :meth:`wizard_typed_fields`)."""
        return self.name

    # hooks: hgroup

    def gm_state_lines(
        self,
        campaign: Campaign,
        state: CampaignState,
        names: Mapping[str, str],
        language: str,
    ) -> Sequence[str]:
        """Lines the GM's state editor shows under the armies for the module's pieces in the
        turn's start ``state`` (``names``: the playing sides')."""
        return ()

    def gm_state_rows(
        self, campaign: Campaign, state: CampaignState
    ) -> Sequence[list[InlineKeyboardButton]]:
        """Rows of buttons the state editor's menu adds for the module's own edits of
        ``state`` (none when the campaign does not play it)."""
        return ()

    def gm_state_screens(self) -> Mapping[str, GmStateScreen]:
        """The state editor's screens of the module's buttons, by action (each action unique
        among the modules)."""
        return {}

    async def gm_state_reason(
        self,
        message: Message,
        store: Store,
        clock: Clock,
        person: Person,
        campaign: Campaign,
        data: Mapping[str, JsonValue],
        reason: str,
    ) -> bool:
        """The GM typed ``reason`` for the edit waiting in ``data``: true when it is one of the
        module's edits, made (or refused) and answered here."""
        return False

    def describe_edit_problem(
        self, params: Mapping[str, str | int], campaign_map: CampaignMap, language: str
    ) -> str | None:
        """Why the module's rules refuse a GM's edit (a ``MODULE_RULE`` edit problem's
        ``params``), with what to do instead; ``None``: not worded here."""
        return None

    def victory_fix(self, overrides: Mapping[str, Any], sectors: int) -> VictoryFix | None:
        """With the module on in ``overrides``: its own victory, which makes the map's
        ``sectors`` all the capture goal and so lets no first resolution end the campaign;
        ``None`` when the module is off or has no victory of its own."""
        return None

    def gm_panel_edit_rows(self, campaign: Campaign) -> Sequence[list[InlineKeyboardButton]]:
        """Rows the GM panel shows after the state editor's button: the module's own changes
        of the turn's start (none when they do not apply now)."""
        return ()

    def gm_panel_screens(self) -> Mapping[str, GmScreen]:
        """The GM panel's screens of the module's buttons, by action (each action unique among
        the panel's)."""
        return {}

    def gm_answer_routers(self) -> Sequence[Router]:
        """Routers reading a GM's awaited typed answer to one of the module's panel buttons: in
        the group right after the GM panel's own (before the group's commands), in the private
        chat after the shared GM prompts."""
        return ()

    def gm_state_help(self) -> str | None:
        """What the module adds to the state editor, in the GM's ``/help`` (``None``: nothing)."""
        return None

    def gm_help_tools(self) -> Sequence[tuple[str, str]]:
        """The module's own GM tools in the GM's ``/help``, after the state editor: each its
        button's label and what it does."""
        return ()

    def pending_choice_words(self) -> str | None:
        """Why the orders cannot close yet while the module's choice after deployment waits,
        for the GM's «advance now» (``None``: the shared words)."""

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

    def rules_button(self) -> str | None:
        """The label of the button of the module's section of ``/rules`` (``bot.texts.rules``),
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
        module's (a typed claim once the campaign is over, say) and answered."""
        return False

    def late_orders_final(self) -> bool:
        """Whether the module's late orders stay once given (cards played in a closed step lie on
        the table for everyone to see, say), so ``bot.services.late`` refuses to take them back."""
        return False

    # hooks: r2typed
    def typed_grammar(self) -> TypedGrammar | None:
        """The module's part of the typed orders' grammar (``bot.texts.orders``): its rules
        and terminals, which of them are orders, the words that begin them. The same object
        on every call (the parse's cache is keyed by the grammar they make)."""
        return None

    def typed_order(self, tree: Tree[Token], reader: Reader) -> ModuleOrder | None:
        """The order a parse of one of the module's order rules (``tree.data``) gives, names
        looked up through ``reader`` (which raises when one names nothing)."""
        return None

    def typed_vocabulary(self, state: CampaignState) -> Sequence[TypedNames]:
        """The names of the module's pieces a player may type in ``state`` (a turn start)."""
        return ()

    # hooks: r2battles
    def report_question(
        self,
        campaign: Campaign,
        battle: Battle,
        outcome: Outcome,
        winner: str | None,
        names: Mapping[str, str],
    ) -> ReportQuestion | None:
        """The module's question before the result ``outcome``/``winner`` of ``battle`` is
        reported by a side or decided by a GM (was a warlord slain?); ``None``: it asks
        nothing. The first module of the campaign that asks is asked."""
        return None

    def report_data(self, battle: Battle, answer: str) -> JsonValue | None:
        """The module's data stored with a result (under its name) for the ``answer`` (one of
        its question's codes); ``None``: nothing to store."""
        return None

    def report_answer(self, battle: Battle, result: BattleResult) -> str | None:
        """The answer code the module data of a stored ``result`` stands for (the GM's choices
        mark a side's account with it); ``None``: none of the module's."""
        return None

    def entering_order(
        self, orders: SideOrders, order: ModuleOrder
    ) -> tuple[ModuleOrder, SideOrders]:
        """One of the module's orders as entered on ``orders`` (typed, pressed or repeated) and
        the set ready for it, before the rules check it (a transport put at the end of the list,
        a preference replacing the sector's earlier one)."""
        return order, orders

    def repeat_lines(self, orders: SideOrders) -> list[tuple[Order, ...]] | None:
        """The set ``orders`` as lines to enter again, one order a line, when the module orders
        it its own way (groups in their order, yields instead of moves); ``None``:
        the shared lines (moves, attacks, reinforcement)."""
        return None

    # hooks: p35screens
    def typed_problem(
        self, line: ParsedLine, desk: Desk, names: Mapping[str, str], language: str
    ) -> str | None:
        """Why the typed ``line`` gave no order (``line.problem``, ``line.word``), with what to
        type instead, when the problem is the module's to word (a piece of its that nothing is
        called, a place of its that several names begin); ``None``: not the module's. The
        first module that answers is shown, else the shared words."""
        return None

    # hooks: p35store
    def wizard_maps(self, language: str) -> Sequence[OfferedMap]:
        """The built-in maps the module offers at the setup wizard's map step, in ``language``
        (the map's own name in it), listed after the rules' planet and before the upload, in
        the registry's order."""
        return ()

    # hooks: p35last
    async def map_caption_head(
        self, store: Store, campaign: Campaign, state: CampaignState, now: datetime
    ) -> str | None:
        """The sentence that opens ``/map``'s caption in the shared one's place, when the module
        changes what the whole map shows (the first module in the registry that gives one);
        ``None``: the shared sentence."""
        return None

    def orders_desk_lines(self, desk: Desk) -> Sequence[str]:
        """Lines the orders desk's home text adds for the module, after the side's whole set of
        orders (in the registry's order, the desk's language); none when it is not played or
        has nothing to say."""
        return ()

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.name!r})"
