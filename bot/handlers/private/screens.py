"""Words and buttons of the private screens, built from the services' views.

Every order button comes from the rules engine's listing (``Desk.change_options``,
``Desk.attack_options``, ``Desk.listing``), so no button offers an order the rules refuse.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from datetime import datetime

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup, WebAppInfo
from aiogram.utils.i18n import get_i18n
from aiogram.utils.i18n import gettext as _

from bot.handlers.private.callbacks import (
    BattleRollButton,
    DeployButton,
    OrdersButton,
    ResultButton,
    VerdictButton,
)
from bot.modules import BOT_MODULES
from bot.screens.map_views import map_labels, side_views
from bot.services.orders import (
    BattleDesk,
    Deployment,
    Desk,
    EntryResult,
    LineOutcome,
    Refusal,
    defender_mark,
)
from bot.texts import core as texts
from bot.texts.core import (
    armies,
    chain_words,
    describe_battle,
    describe_deployment_problem,
    describe_order,
    describe_order_line,
    describe_orders,
    describe_rejection,
    foc_legend,
    full_result_words,
    outcome_label,
)
from bot.texts.limits import BUTTON_ROW
from bot.texts.moments import format_moment
from bot.texts.orders import MAX_LINES, LineProblem, ParsedLine, ParsedPlacement
from bot.texts.sectors import sector_label
from rules import (
    Attack,
    Battle,
    BattleResult,
    CampaignMap,
    CampaignState,
    DeploymentProblem,
    Fortify,
    ModuleOrder,
    Move,
    Order,
    OrderRule,
    Outcome,
    Reinforce,
    SectorOptions,
    SideOrders,
)
from rules.render import MapFigures, MapView, PrivateOrders
from storage import BattleReport, Campaign, CampaignStatus, Phase, Side, UnreportedPolicy

Keyboard = InlineKeyboardMarkup
Names = Mapping[str, str]

OUTCOME_CODES = {
    "d": Outcome.DRAW,
    "b": Outcome.BLOODY_DRAW,
    "s": Outcome.SOLID,
    "c": Outcome.CRUSHING,
    "x": Outcome.SLAUGHTER,
}
CODE_OF_OUTCOME = {outcome: code for code, outcome in OUTCOME_CODES.items()}


def language() -> str:
    """The language of the current update."""
    return get_i18n().current_locale


def button(text: str, data: str) -> InlineKeyboardButton:
    """A button that sends ``data`` back (the modules' screens use it too)."""
    return InlineKeyboardButton(text=text, callback_data=data)


def button_rows(
    buttons: Sequence[InlineKeyboardButton], width: int
) -> list[list[InlineKeyboardButton]]:
    """``buttons`` ``width`` a row, in order."""
    return [list(buttons[i : i + width]) for i in range(0, len(buttons), width)]


def phone_rows(
    buttons: Sequence[InlineKeyboardButton], most: int
) -> list[list[InlineKeyboardButton]]:
    """Up to ``most`` buttons a row, in order, as long as the row's labels fit a phone's
    width (``BUTTON_ROW``); a button that would widen the row past it starts the next."""
    rows: list[list[InlineKeyboardButton]] = []
    for button in buttons:
        row = rows[-1] if rows else None
        if (
            row is not None
            and len(row) < most
            and sum(len(b.text) for b in row) + len(button.text) <= BUTTON_ROW
        ):
            row.append(button)
        else:
            rows.append([button])
    return rows


# ---- refusals and phases --------------------------------------------------------------------


def phase_words(campaign: Campaign) -> str:
    """Where the campaign stands and what a player can do now."""
    match campaign.phase:
        case Phase.SETUP:
            return _("«{title}» has not started yet: the GM is still setting it up.").format(
                title=campaign.title
            )
        case Phase.DEPLOYMENT:
            return _("«{title}» is in deployment: place your starting armies with /deploy.").format(
                title=campaign.title
            )
        case Phase.ORDERS:
            return _("«{title}», turn {turn}: the orders window is open (/orders).").format(
                title=campaign.title, turn=campaign.turn
            )
        case Phase.BATTLES | Phase.RESOLUTION:
            return _(
                "«{title}», turn {turn}: the orders are closed and the battles are on (/battles)."
            ).format(title=campaign.title, turn=campaign.turn)
        case Phase.FINISHED:
            return _("«{title}» is over.").format(title=campaign.title)


def refusal_words(
    refusal: Refusal,
    campaign: Campaign | None,
    button_turn: int | None = None,
    opens_at: datetime | None = None,
) -> str:
    """Why nothing was done, and what to do instead (``button_turn``: the turn a stale button
    was made for; ``opens_at``: when a window not open yet opens)."""
    match refusal:
        case Refusal.NOT_MEMBER:
            return _(
                "You are not in that campaign, so you cannot see or give its orders. "
                "Join it from its group with /join."
            )
        case Refusal.NO_SIDE:
            return _(
                "You play no side in this campaign, so you give no orders. The GM places a "
                "side that did not deploy with the GM tools in the group (/gm)."
            )
        case Refusal.NOT_STRATEGIST:
            return _(
                "Only your side's strategists give its orders; you can view them with /orders. "
                "Ask the GM if you should be a strategist."
            )
        case Refusal.REOPENED_FOR_OTHER:
            return _(
                "The orders window has closed: the GM reopened only another side's orders for a "
                "few hours. Your side's orders stay as they were given."
            )
        case Refusal.WRONG_PHASE:
            if campaign is None:
                return _("That is not possible now.")
            return _("Not now: {where}").format(where=phase_words(campaign))
        case Refusal.STALE:
            if campaign is None:
                return _("That button is not valid any more.")
            if button_turn is None or button_turn == campaign.turn:
                return _(
                    "This button is from an earlier phase; now: {where} Here is the current screen."
                ).format(where=phase_words(campaign))
            return _(
                "This button is from turn {old}; the campaign is at turn {turn} now. Here is "
                "the current screen."
            ).format(old=button_turn, turn=campaign.turn)
        case Refusal.NOT_PARTICIPANT:
            return _("Your side is not in this battle, so it does not report it.")
        case Refusal.NOT_OPPONENT:
            return _(
                "This account is your side's own: the other side (or the GM) confirms or "
                "disputes it."
            )
        case Refusal.SETTLED:
            return _("The GM has decided this battle's result; only a GM changes it now.")
        case Refusal.AGREED:
            return _(
                "Both sides agreed on this result; only a GM changes it now. Ask your GM if "
                "it is wrong."
            )
        case Refusal.DISPUTED:
            return _(
                "This result is disputed: the GM decides. Each side may still accept the "
                "other's account (/battles)."
            )
        case Refusal.NOT_GM:
            return _("Only the campaign's GMs decide results.")
        case Refusal.NO_SUCH_BATTLE:
            return _("There is no such battle on this turn's list (/battles shows them).")
        case Refusal.NOT_PLAYABLE:
            return _(
                "This battle of a chain is not fought now: it waits for the battle "
                "before it, or the chain ended before it (/battles shows why)."
            )
        case Refusal.SIDES_CHANGED:
            return _(
                "The sides of this battle changed since this button was made (the result of "
                "the battle before it came in or changed): /battles shows who plays it now."
            )
        case Refusal.NO_REPORT:
            return _("Nothing is reported for this battle yet.")
        case Refusal.REPORT_CHANGED:
            return _(
                "The result was reported again meanwhile; look at the new one before "
                "confirming (/battles)."
            )
        case Refusal.BAD_WINNER:
            return _("A victory needs a winner from this battle; a draw has none.")
        case Refusal.BAD_WARLORD:
            return _(
                "The rules do not take that warlord mark: only the warlord of a side that "
                "played this battle can be slain, once. Pick again from the buttons (/battles)."
            )
        case Refusal.LIST_NOT_PUBLIC:
            return _("The battle list is not out yet; /battles says when it will be.")
        case Refusal.CHANGED_MEANWHILE:
            return _(
                "Another strategist of your side changed the orders a moment ago, so they are "
                "not confirmed. Look at them again and confirm if they are right."
            )
        case Refusal.BUSY:
            return _(
                "Your side's orders were being changed by someone else at the same moment, so "
                "your change was not saved. Look at them (/orders) and try again."
            )
        case Refusal.NOT_OPEN_YET:
            return not_open_yet_words(campaign, opens_at)
        case Refusal.CAMPAIGN_OVER:
            if campaign is None:
                return _("That campaign is over: nothing can be changed now.")
            return _("«{title}» is over: nothing can be changed now.").format(title=campaign.title)


def not_open_yet_words(campaign: Campaign | None, opens_at: datetime | None) -> str:
    """The orders window of this turn opens later (RULES.md 3.2): when, and what to do now.
    While the campaign is paused the opening has no date yet: it moves later by as long as the
    pause lasts, so the words say that instead of a moment that would not hold."""
    if campaign is not None and campaign.status is CampaignStatus.PAUSED:
        return _(
            "«{title}» is paused: turn {turn}'s orders open after the GM resumes it, later by "
            "as long as the pause lasts; nothing was saved. Until then /orders shows your "
            "armies and /map the map."
        ).format(title=campaign.title, turn=campaign.turn)
    if campaign is None or opens_at is None:
        return _("The orders window is not open yet; /status says when it opens.")
    return _(
        "Orders for turn {turn} open {moment}; nothing was saved. Until then /orders shows "
        "your armies and /map the map."
    ).format(turn=campaign.turn, moment=format_moment(opens_at, campaign.time_zone, language()))


# ---- orders ---------------------------------------------------------------------------------


def orders_button(desk: Desk, action: str, sector: str | None = None, **extra: int) -> str:
    """The data of a desk button: ``action`` on ``sector`` (a map index; ``-1``: none)."""
    index = -1 if sector is None else desk.game.map.order[sector]
    return OrdersButton(
        campaign=desk.campaign.id,
        turn=desk.turn,
        action=action,
        sector=index,
        side=desk.side,
        **extra,
    ).pack()


def status_line(desk: Desk, editor: str | None) -> str:
    """Draft or ready, and who changed it last."""
    status = (
        _("✅ Ready: confirmed. You can still change them until the window closes.")
        if desk.ready
        else _("📝 Draft: not confirmed yet.")
    )
    if editor:
        status += "\n" + _("Last change by {name}.").format(name=editor)
    return status


def module_groups(desk: Desk) -> list[Move | ModuleOrder] | None:
    """The side's groups in the order they move, when a module makes moves groups added to a
    list; ``None`` otherwise."""
    for module in BOT_MODULES.values():
        listed = module.orders_groups(desk)
        if listed is not None:
            return list(listed)
    return None


def orders_lines(desk: Desk, names: Names) -> list[str]:
    """The whole recorded set in words (where a module makes moves groups, in the order they
    move)."""
    return describe_orders(
        desk.orders, desk.holdings, desk.game.map, names, language(), groups=module_groups(desk)
    )


def orders_text(desk: Desk, names: Names, side_name: str, editor: str | None) -> str:
    """The orders screen's words: whose orders, their status and the whole set."""
    header = _("«{title}», turn {turn}: orders of {side}").format(
        title=desk.campaign.title, turn=desk.turn, side=side_name
    )
    return "\n".join([header, status_line(desk, editor), "", *orders_lines(desk, names)])


def orders_home_text(desk: Desk, names: Names, side_name: str, editor: str | None) -> str:
    """The desk's home text: :func:`orders_text`, then the modules' lines
    (``BotModule.orders_desk_lines``) after a blank line, when they have any."""
    lines = [line for module in BOT_MODULES.values() for line in module.orders_desk_lines(desk)]
    text = orders_text(desk, names, side_name, editor)
    return "\n\n".join([text, "\n".join(lines)]) if lines else text


def _short_order(desk: Desk, sector: str, names: Names) -> str:
    moves = [move for move in desk.orders.moves if move.source == sector]
    leaving = len(moves) + sum(
        len(module.orders_leaving(desk, sector)) for module in BOT_MODULES.values()
    )
    if leaving > 1:
        return _("{n} group leaves", "{n} groups leave", leaving).format(n=leaving)
    move = desk.orders.move_from(sector)
    if move is not None:
        return f"→ {move.to} ×{move.count}"
    for module in BOT_MODULES.values():
        short = module.orders_sector_short(desk, sector)
        if short is not None:
            return short
    attacks = desk.orders.attacks_in(sector)
    if attacks:
        targets = ", ".join(dict.fromkeys(names.get(a.target, a.target) for a in attacks))
        return f"⚔ {targets} ×{len(attacks)}"
    return "🛡"


def orders_keyboard(desk: Desk, names: Names) -> Keyboard:
    """Home: a button per held sector, the reinforcement, review and map."""
    map_ = desk.game.map
    sectors = [
        button(
            f"{sector_label(map_, options.sector, language())}: "
            f"{_short_order(desk, options.sector, names)}",
            orders_button(desk, "sec", options.sector),
        )
        for options in desk.listing().sectors
    ]
    rows = button_rows(sectors, 1)
    reinforce = (
        sector_label(map_, desk.orders.reinforce, language())
        if desk.orders.reinforce
        else _("not chosen")
    )
    rows.append(
        [button(_("🛰 Reinforcement: {sector}").format(sector=reinforce), orders_button(desk, "rf"))]
    )
    for module in BOT_MODULES.values():
        rows.extend(module.orders_desk_rows(desk))
    if desk.turn > 1:
        rows.append([button(_("🔁 Repeat last turn's orders"), orders_button(desk, "rep"))])
    rows.append(
        [
            button(_("📋 Review and confirm"), orders_button(desk, "rev")),
            button(_("🗺 Map"), orders_button(desk, "map")),
        ]
    )
    return Keyboard(inline_keyboard=rows)


def with_miniapp_button(keyboard: Keyboard, url: str, campaign_id: int) -> Keyboard:
    """``keyboard`` with a last row that opens the Mini App on this campaign's map."""
    opener = InlineKeyboardButton(
        text=_("🗺 Open the map"), web_app=WebAppInfo(url=miniapp_link(url, campaign_id))
    )
    return Keyboard(inline_keyboard=[*keyboard.inline_keyboard, [opener]])


def miniapp_link(url: str, campaign_id: int) -> str:
    """The Mini App's address opened on ``campaign_id``."""
    return f"{url.rstrip('/')}/?campaign={campaign_id}"


def sector_screen(desk: Desk, sector: str, names: Names) -> tuple[str, Keyboard]:
    """One sector: its order now and every order it may be given instead."""
    map_ = desk.game.map
    label = sector_label(map_, sector, language())
    count = desk.holdings.get(sector, 0)
    lines = [line for line in orders_lines(desk, names) if line.startswith(f"{label} (")]
    text = "\n".join(
        [
            _("{sector}: {armies} at the start of the turn.").format(
                sector=label, armies=armies(count)
            ),
            *lines,
            "",
            _("Choose this sector's order:"),
        ]
    )
    buttons: list[InlineKeyboardButton] = []
    change = desk.change_options(sector)
    if module_groups(desk) is not None:
        adding = desk.listing().for_sector(sector)
        if adding is not None and adding.move is not None:
            buttons.append(button(_("➡ Move a group…"), orders_button(desk, "mv", sector)))
    elif change is not None and change.move is not None:
        buttons.append(button(_("➡ Move armies…"), orders_button(desk, "mv", sector)))
    for module in BOT_MODULES.values():
        buttons.extend(module.orders_sector_buttons(desk, sector))
    adding = desk.attack_options(sector)
    if adding is not None and adding.attack is not None:
        attack = adding.attack
        declared = len(desk.orders.attacks_in(sector))
        for target in attack.targets:
            index = desk.state.sides().index(target)
            word = (
                _("⚔ Attack {side} ({n} of {limit})")
                if declared
                else _("⚔ Attack {side} (limit {limit})")
            )
            buttons.append(
                button(
                    word.format(side=names.get(target, target), n=declared + 1, limit=attack.limit),
                    orders_button(desk, "at", sector, arg=index),
                )
            )
    if not desk.orders.is_fortifying(sector):
        buttons.append(button(_("🛡 Fortify (clear this order)"), orders_button(desk, "fo", sector)))
    rows = button_rows(buttons, 1)
    rows.append([button(_("« All sectors"), orders_button(desk, "home"))])
    return text, Keyboard(inline_keyboard=rows)


def _move_options(desk: Desk, sector: str) -> SectorOptions | None:
    """What a move out of ``sector`` may be: where a module makes moves groups, one more group
    added to the list; otherwise a move replacing the sector's order."""
    if module_groups(desk) is not None:
        return desk.listing().for_sector(sector)
    return desk.change_options(sector)


def move_destination_screen(desk: Desk, sector: str) -> tuple[str, Keyboard] | None:
    """Where armies from ``sector`` may go (``None`` if they may not move)."""
    change = _move_options(desk, sector)
    if change is None or change.move is None:
        return None
    map_ = desk.game.map
    buttons = [
        button(
            sector_label(map_, to, language()),
            orders_button(desk, "to", sector, to=map_.order[to]),
        )
        for to in change.move.destinations
    ]
    rows = button_rows(buttons, 2)
    rows.append([button(_("« Back"), orders_button(desk, "sec", sector))])
    text = _("Move from {sector}: where to?").format(sector=sector_label(map_, sector, language()))
    return text, Keyboard(inline_keyboard=rows)


def move_count_screen(desk: Desk, sector: str, to: str) -> tuple[str, Keyboard] | None:
    """How many armies move (``None`` if this move is not allowed)."""
    change = _move_options(desk, sector)
    if change is None or change.move is None or to not in change.move.destinations:
        return None
    map_ = desk.game.map
    counts = range(change.move.min_count, change.move.max_count + 1)
    buttons = [
        button(str(n), orders_button(desk, "n", sector, to=map_.order[to], arg=n)) for n in counts
    ]
    rows = button_rows(buttons, 5)
    rows.append([button(_("« Back"), orders_button(desk, "mv", sector))])
    text = _("Move from {sector} to {to}: how many armies? (at least one stays)").format(
        sector=sector_label(map_, sector, language()), to=sector_label(map_, to, language())
    )
    return text, Keyboard(inline_keyboard=rows)


def reinforce_screen(desk: Desk) -> tuple[str, Keyboard]:
    """Where the turn's orbital reinforcement may land."""
    map_ = desk.game.map
    buttons = [
        button(
            ("• " if sector == desk.orders.reinforce else "")
            + sector_label(map_, sector, language()),
            orders_button(desk, "rs", sector),
        )
        for sector in desk.listing().reinforce
    ]
    rows = button_rows(buttons, 2)
    rows.append([button(_("« All sectors"), orders_button(desk, "home"))])
    text = _(
        "Orbital reinforcement: +1 army in a sector where you have armies now. Without a "
        "choice it goes to your smallest sector."
    )
    return text, Keyboard(inline_keyboard=rows)


def review_screen(
    desk: Desk, names: Names, side_name: str, editor: str | None
) -> tuple[str, Keyboard]:
    """The whole set in words with Ready / Edit."""
    header = _("Review: «{title}», turn {turn}, orders of {side}").format(
        title=desk.campaign.title, turn=desk.turn, side=side_name
    )
    text = "\n".join(
        [
            header,
            "",
            *orders_lines(desk, names),
            "",
            status_line(desk, editor),
            _("Sectors without an order fortify."),
        ]
    )
    ready = (
        button(_("↩ Not ready (keep editing)"), orders_button(desk, "no"))
        if desk.ready
        else button(_("✅ Ready"), orders_button(desk, "ok", arg=desk.edits))
    )
    rows = [
        [ready, button(_("✏️ Edit"), orders_button(desk, "home"))],
        [button(_("🗺 Map"), orders_button(desk, "map"))],
    ]
    return text, Keyboard(inline_keyboard=rows)


def viewer_text(desk: Desk, names: Names, side_name: str, editor: str | None) -> str:
    """The orders without buttons: for a tactician or the GM, or once the window closed."""
    if desk.campaign.phase is not Phase.ORDERS:
        note = _("The orders window is closed; these are the orders as given for turn {turn}.")
        return orders_text(desk, names, side_name, editor) + "\n\n" + note.format(turn=desk.turn)
    return (
        orders_text(desk, names, side_name, editor)
        + "\n\n"
        + _("You can view these orders; your side's strategists give them.")
    )


def _suggestion(desk: Desk, order: Order, rule: OrderRule, names: Names) -> str | None:
    map_ = desk.game.map
    listing = desk.listing()
    held = ", ".join(sector_label(map_, s.sector, language()) for s in listing.sectors)
    match rule:
        case OrderRule.NO_ARMIES_IN_SECTOR | OrderRule.REINFORCE_WITHOUT_ARMIES:
            return _("Your sectors: {sectors}.").format(sectors=held)
        case OrderRule.MOVE_NOT_ADJACENT if isinstance(order, Move):
            options = desk.change_options(order.source)
            if options is not None and options.move is not None:
                places = ", ".join(
                    sector_label(map_, s, language()) for s in options.move.destinations
                )
                return _("From there you can move to: {sectors}.").format(sectors=places)
        case OrderRule.ATTACK_WITHOUT_OPPONENT | OrderRule.ATTACK_OWN_SIDE if isinstance(
            order, Attack
        ):
            options = desk.attack_options(order.sector)
            if options is not None and options.attack is not None:
                targets = ", ".join(names.get(t, t) for t in options.attack.targets)
                return _("There you can attack: {sides}.").format(sides=targets)
            return _("Nobody else had armies there at the start of the turn.")
        case _:
            return None
    return None


def order_examples(desk: Desk, names: Names) -> tuple[str, str]:
    """Two orders this side could type now, worded as the bot words orders (so they read back):
    a move and an attack where it has them, else a fortification and a reinforcement."""
    map_ = desk.game.map
    listing = desk.listing()
    found: list[Order] = []
    moves = [s for s in listing.sectors if s.move is not None]
    if moves and moves[0].move is not None:
        option = moves[0].move
        found.append(
            Move(source=moves[0].sector, to=option.destinations[0], count=min(2, option.max_count))
        )
    attacks = [s for s in listing.sectors if s.attack is not None]
    if attacks and attacks[0].attack is not None:
        found.append(Attack(sector=attacks[0].sector, target=attacks[0].attack.targets[0]))
    first = listing.sectors[0].sector if listing.sectors else map_.sector_ids()[0]
    found.extend([Fortify(sector=first), Reinforce(sector=first)])
    first_words, second_words = (
        describe_order(order, map_, names, language()) for order in found[:2]
    )
    return first_words, second_words


def parse_problem_words(line: ParsedLine, desk: Desk, names: Names) -> str:
    """Why a typed line was not understood, and what to type instead (a module's words for a
    problem of its own: :meth:`BotModule.typed_problem`)."""
    map_ = desk.game.map
    for module in BOT_MODULES.values():
        words = module.typed_problem(line, desk, names, language())
        if words is not None:
            return words
    match line.problem:
        case LineProblem.UNKNOWN_SECTOR:
            sectors = ", ".join(sector_label(map_, s, language()) for s in map_.sector_ids())
            return _("There is no sector «{word}». Sectors: {sectors}.").format(
                word=line.word, sectors=sectors
            )
        case LineProblem.UNKNOWN_SIDE:
            sides = ", ".join(names.get(s, s) for s in desk.state.sides())
            return _("There is no side «{word}». Sides: {sides}.").format(
                word=line.word, sides=sides
            )
        case LineProblem.MISSING_COUNT:
            return _("How many armies move? Add the count, e.g. 2 -> 1 x2.")
        case LineProblem.BAD_COUNT:
            return _("The count {word} is not possible here.").format(word=line.word)
        case LineProblem.AMBIGUOUS:
            example = order_examples(desk, names)[0]
            return _(
                "This could mean more than one thing; write one order per line, sectors as the "
                "map shows them, e.g. «{example}»."
            ).format(example=example)
        case LineProblem.TOO_LONG:
            return _("The line is too long; one order per line.")
        case LineProblem.TOO_MANY_LINES:
            return _("Too many lines in one message; send the rest separately.")
    first, second = order_examples(desk, names)
    if line.problem is LineProblem.INCOMPLETE and line.word:
        return _(
            "The order stops after «{word}»: something is missing. "
            "Write it whole, e.g. «{first}» or «{second}»."
        ).format(word=line.word, first=first, second=second)
    if line.word:
        return _(
            "I could not read «{word}». One order per line, e.g. «{first}» or «{second}»."
        ).format(word=line.word, first=first, second=second)
    return _("Not understood. One order per line, e.g. «{first}» or «{second}».").format(
        first=first, second=second
    )


MAX_REFUSED_SHOWN = 15
"""Refused lines worded one by one in a reply; the rest are counted."""


def text_results(
    parsed: Sequence[ParsedLine], result: EntryResult, desk: Desk, names: Names
) -> list[str]:
    """Line by line: what was recorded, or why not and what to do instead. At most
    :data:`MAX_REFUSED_SHOWN` refused lines are worded and the others counted; lines past
    the most one message may hold are counted, not read."""
    outcomes = iter(result.lines)
    lines: list[str] = []
    refused = unread = 0
    for line in parsed:
        if line.problem is LineProblem.TOO_MANY_LINES:
            unread += 1
            continue
        outcome = None if line.problem is not None else next(outcomes)
        if outcome is not None and outcome.accepted:
            lines.append(f"✓ {_line_orders(outcome, desk, names)}")
            continue
        refused += 1
        if refused <= MAX_REFUSED_SHOWN:
            lines.append(_refused_line(line, outcome, desk, names))
    if refused > MAX_REFUSED_SHOWN:
        hidden = refused - MAX_REFUSED_SHOWN
        lines.append(
            _(
                "…and {n} more line was not recorded.",
                "…and {n} more lines were not recorded.",
                hidden,
            ).format(n=hidden)
        )
    if unread:
        lines.append(
            _(
                "{n} more line was not read: at most {limit} lines in one message; send the "
                "rest separately.",
                "{n} more lines were not read: at most {limit} lines in one message; send the "
                "rest separately.",
                unread,
            ).format(n=unread, limit=MAX_LINES)
        )
    return lines


def _line_orders(outcome: LineOutcome, desk: Desk, names: Names) -> str:
    return describe_order_line(outcome.orders, desk.game.map, names, language())


def _refused_line(line: ParsedLine, outcome: LineOutcome | None, desk: Desk, names: Names) -> str:
    if outcome is None or outcome.rejection is None:
        return f"✗ «{line.text}»: {parse_problem_words(line, desk, names)}"
    reason = describe_rejection(outcome.rejection, desk.game.map, names, language())
    order = outcome.rejection.order
    hint = (
        _suggestion(desk, order, outcome.rejection.rule, names)
        if isinstance(order, Move | Attack | Fortify | Reinforce)
        else None
    )
    return f"✗ «{line.text}»: {reason}" + (f" {hint}" if hint else "")


def repeat_results(result: EntryResult, desk: Desk, names: Names) -> list[str]:
    """Last turn's orders entered again, one by one: kept, or why it no longer holds."""
    lines = [_("Last turn's orders, checked against this turn:")]
    for outcome in result.lines:
        order = _line_orders(outcome, desk, names)
        if outcome.rejection is None:
            lines.append(f"✓ {order}")
            continue
        reason = describe_rejection(outcome.rejection, desk.game.map, names, language())
        lines.append(f"✗ {order}: {reason}")
    return lines


def change_toast(order: Order, desk: Desk, names: Names) -> str:
    """A short confirmation of one order given by a button."""
    return _("Saved: {order}").format(order=describe_order(order, desk.game.map, names, language()))


def map_view(
    campaign: Campaign,
    map_: CampaignMap,
    state: CampaignState,
    sides: Sequence[Side],
    private: tuple[str, SideOrders] | None,
    figures: MapFigures | None = None,
) -> MapView:
    """The current map in the current language, with one side's orders drawn when ``private``
    is given and the rule modules' ``figures`` (``bot.screens.map_views.module_figures``: the
    public view, where they stand or where this turn's public battle list put them)."""
    return MapView(
        map=map_,
        state=state,
        sides=side_views(sides),
        title=_("«{title}», turn {turn}").format(title=campaign.title, turn=state.turn)[:120],
        language=language(),
        labels=map_labels(),
        private=None if private is None else PrivateOrders(side=private[0], orders=private[1]),
        **(figures or MapFigures()).view_fields(),
    )


# ---- deployment -----------------------------------------------------------------------------


def placement_lines(deployment: Deployment, side_name: str) -> list[str]:
    """The side's placement: the rule, armies per sector and the running total."""
    rules = deployment.game.ruleset
    map_ = deployment.game.map
    campaign = deployment.campaign
    lines = [
        _("«{title}»: deployment of {side}").format(title=campaign.title, side=side_name),
        _(
            "Place {armies} over exactly {n} sector, at least 1 in each.",
            "Place {armies} over exactly {n} sectors, at least 1 in each.",
            rules.start_sectors,
        ).format(armies=armies(rules.start_armies), n=rules.start_sectors),
        "",
    ]
    for sector in map_.sector_ids():
        count = deployment.placement.get(sector, 0)
        if count:
            lines.append(f"{sector_label(map_, sector, language())}: {armies(count)}")
    used = sum(1 for c in deployment.placement.values() if c > 0)
    lines.append(
        _("Placed {total} of {required}; sectors {used} of {sectors}.").format(
            total=deployment.total,
            required=rules.start_armies,
            used=used,
            sectors=rules.start_sectors,
        )
    )
    return lines


def deployment_screen(deployment: Deployment, side_name: str) -> tuple[str, Keyboard]:
    """Buttons per sector with +/- counts, the running total, and Confirm."""
    map_ = deployment.game.map
    campaign = deployment.campaign
    lines = placement_lines(deployment, side_name)
    lines.append(
        _("✅ Confirmed. You can still change it until deployment closes.")
        if deployment.ready
        else _(
            "📝 Draft: not confirmed yet. Or type the whole placement in one line, e.g. "
            "1=4 2=3 4=3: it is saved and confirmed at once."
        )
    )
    rows: list[list[InlineKeyboardButton]] = []
    for index, sector in enumerate(map_.sector_ids()):
        count = deployment.placement.get(sector, 0)

        def data(action: str, at: int = index) -> str:
            return DeployButton(
                campaign=campaign.id, action=action, sector=at, side=deployment.side
            ).pack()

        row = [button(f"{sector_label(map_, sector, language())}: {count}", data("home"))]
        if count > 0:
            row.append(button("−", data("-")))
        room = deployment.room(sector)
        if room > 0:
            row.append(button("+1", data("+")))
        if room > 3:
            row.append(button("+3", data("+3")))
        if room > 1:
            row.append(button(_("+{n} (all)").format(n=room), data("+all")))
        rows.append(row)
    if not deployment.ready and not deployment.problems():
        rows.append(
            [
                button(
                    _("✅ Confirm deployment"),
                    DeployButton(campaign=campaign.id, action="ok", side=deployment.side).pack(),
                )
            ]
        )
    return "\n".join(lines), Keyboard(inline_keyboard=rows)


def deployment_problems(problems: Sequence[DeploymentProblem]) -> list[str]:
    """Every rule a placement breaks."""
    return [f"✗ {describe_deployment_problem(p)}" for p in problems]


def already_placed_words(campaign: Campaign) -> str:
    """A typed placement that is the one the side already confirmed: nothing changed."""
    if campaign.phase is Phase.DEPLOYMENT:
        return _(
            "Your side's deployment is already confirmed exactly like this; nothing changed. "
            "You can still change it with /deploy until deployment closes."
        )
    return _(
        "Your side's armies were already placed exactly like this at deployment; nothing "
        "changed. Now: {where}"
    ).format(where=phase_words(campaign))


def placement_problem_words(parsed: ParsedPlacement) -> str:
    """Why a typed placement was not read."""
    match parsed.problem:
        case LineProblem.UNKNOWN_SECTOR:
            return _("There is no sector «{word}».").format(word=parsed.word)
        case LineProblem.AMBIGUOUS:
            return _("Sector «{word}» is given twice.").format(word=parsed.word)
        case _:
            return _("Type the placement as sector:armies pairs, e.g. 1:4 2:3 4:3")


# ---- battles --------------------------------------------------------------------------------


def side_words(side: str | None, names: Names) -> str:
    """A side named so that no word has to agree with it: «the side «Imperium»»."""
    if side is None:
        return _("the GM")
    return _("side «{side}»").format(side=names.get(side, side))


def report_status(
    report: BattleReport | None,
    names: Names,
    reporter: str | None = None,
    disputer: str | None = None,
    deadline: str | None = None,
) -> str:
    """What is known about a battle's result: who reported what, whether the other side agreed,
    disputed, or is still to answer (a report stands unless disputed by ``deadline``)."""
    if report is not None and report.override is not None:
        return _("Result (GM's decision, final): {result}").format(
            result=full_result_words(report.override, names)
        )
    if report is None or report.reported is None:
        return _("Result: not reported yet.")
    result = full_result_words(report.reported, names)
    if report.disputed and report.counter is not None:
        return _(
            "Result DISPUTED. Report of {reporter}: {result}. Account of {disputer}: {counter}. "
            "The GM decides."
        ).format(
            reporter=side_words(reporter, names),
            result=result,
            disputer=side_words(disputer, names),
            counter=full_result_words(report.counter, names),
        )
    if report.confirmed_by is not None:
        return _("Result: {result} (confirmed by both sides).").format(result=result)
    if reporter is None:
        return _("Result: {result}; it stands unless disputed.").format(result=result)
    if deadline is None:
        return _("Result: {result}, reported by {reporter}; it stands unless disputed.").format(
            result=result, reporter=side_words(reporter, names)
        )
    return _(
        "Result: {result}, reported by {reporter}; it stands unless disputed by {deadline}."
    ).format(result=result, reporter=side_words(reporter, names), deadline=deadline)


def result_words(outcome: Outcome, winner: str | None, names: Names) -> str:
    """ "Red: crushing victory" or "draw"."""
    return texts.result_words(BattleResult(battle=1, outcome=outcome, winner=winner), names)


def policy_words(campaign: Campaign) -> str:
    """What happens to a battle with no result by the deadline (RULES.md 3.4)."""
    if campaign.unreported_policy is UnreportedPolicy.WAIT_FOR_GM:
        return _("A battle with no result by the deadline waits for the GM's decision.")
    return _("A battle with no result by the deadline counts as a draw without losses.")


def result_codes(battle: Battle, result: BattleResult | None) -> tuple[str, int]:
    """A result as a button carries it: the outcome's code and the winner's index (-1: none)."""
    if result is None:
        return "", -1
    winner = -1 if result.winner is None else list(battle.participants()).index(result.winner)
    return CODE_OF_OUTCOME[result.outcome], winner


def _result_button(
    campaign: Campaign, battle: Battle, action: str, result: BattleResult | None = None
) -> str:
    outcome, winner = result_codes(battle, result)
    return ResultButton(
        campaign=campaign.id,
        turn=campaign.turn,
        battle=battle.id,
        action=action,
        outcome=outcome,
        winner=winner,
        vs=defender_mark(battle),
    ).pack()


def roll_buttons(desk: BattleDesk, battle: Battle) -> list[InlineKeyboardButton]:
    """Dice for a dispute at the table in this battle: one die or two, drawn by the bot and
    sent to both sides' players (``/roll`` takes any dice)."""
    campaign = desk.campaign
    return [
        button(
            _("🎲 {dice} · battle {id}").format(dice=f"{count}d6", id=battle.id),
            BattleRollButton(
                campaign=campaign.id, turn=campaign.turn, battle=battle.id, dice=count
            ).pack(),
        )
        for count in (1, 2)
    ]


def battle_buttons(
    desk: BattleDesk, battle: Battle, side: str | None, is_gm: bool, names: Names
) -> list[list[InlineKeyboardButton]]:
    """What the person may do about one battle's result now: report it, change their side's
    report, confirm or dispute the other side's, accept the other account of a dispute; the GM
    decides."""
    campaign = desk.campaign
    report = desk.reports.get(battle.id)
    rows: list[list[InlineKeyboardButton]] = []
    fighting = side if side in battle.participants() and desk.playable(battle) else None
    reported = report.reported if report is not None else None
    if fighting is not None and report is not None and report.override is None:
        reporter = desk.reporters.get(battle.id)
        disputer = desk.disputers.get(battle.id)
        if reported is None:
            label = _("✍ Report battle {id}").format(id=battle.id)
            rows.append([button(label, _result_button(campaign, battle, "pick"))])
        elif report.disputed and report.counter is not None:
            if fighting == disputer:
                accept = _("👍 Accept the report of {side}").format(
                    side=side_words(reporter, names)
                )
                change = _("✍ Change your account")
                rows.append([button(accept, _result_button(campaign, battle, "yes", reported))])
                rows.append([button(change, _result_button(campaign, battle, "dis"))])
            else:
                accept = _("👍 Accept the account of {side}").format(
                    side=side_words(disputer, names)
                )
                rows.append(
                    [button(accept, _result_button(campaign, battle, "yes", report.counter))]
                )
        elif report.confirmed_by is None and fighting == reporter:
            label = _("✍ Change the report of battle {id}").format(id=battle.id)
            rows.append([button(label, _result_button(campaign, battle, "pick"))])
        elif report.confirmed_by is None:
            confirm = _("👍 Confirm battle {id}").format(id=battle.id)
            rows.append(
                [
                    button(confirm, _result_button(campaign, battle, "yes", reported)),
                    button(_("⚠ Dispute"), _result_button(campaign, battle, "dis")),
                ]
            )
    elif fighting is not None and report is None:
        label = _("✍ Report battle {id}").format(id=battle.id)
        rows.append([button(label, _result_button(campaign, battle, "pick"))])
    if is_gm and desk.playable(battle):
        label = _("⚖ Decide battle {id}").format(id=battle.id)
        rows.append([button(label, verdict_button(campaign, battle, "show"))])
    return rows


def chain_status(desk: BattleDesk, battle: Battle, names: Names) -> list[str]:
    """A chain battle not (yet) fought: why; or fought by other sides than a report was
    given for."""
    return chain_words(battle, desk.status.get(battle.id), names, stale=battle.id in desk.stale)


def _module_battle_lines(battle: Battle, names: Names) -> list[str]:
    """The lines its rule module puts under a module's battle (``BotModule.battle_lines``)."""
    module = None if battle.module is None else BOT_MODULES.get(battle.module)
    return [] if module is None else list(module.battle_lines(battle, names, language()))


def battles_screen(
    desk: BattleDesk,
    map_: CampaignMap,
    names: Names,
    side: str | None,
    is_gm: bool,
    deadline: str | None = None,
    dice: bool = True,
) -> tuple[str, Keyboard]:
    """The person's battles this turn, each with its status and result buttons, and (``dice``:
    once the list is public) buttons to roll dice for it."""
    campaign = desk.campaign
    lines = [
        _("«{title}», turn {turn}: your battles").format(title=campaign.title, turn=campaign.turn)
    ]
    rows: list[list[InlineKeyboardButton]] = []
    if not desk.battles:
        lines.append(_("Your side has no battles this turn."))
    for battle in desk.battles:
        lines.append("")
        lines.extend(describe_battle(battle, map_, names, language(), desk.status.get(battle.id)))
        lines.extend(_module_battle_lines(battle, names))
        lines.extend(chain_status(desk, battle, names))
        lines.append(
            report_status(
                desk.reports.get(battle.id),
                names,
                desk.reporters.get(battle.id),
                desk.disputers.get(battle.id),
                deadline,
            )
        )
        rows.extend(battle_buttons(desk, battle, side, is_gm, names))
        if dice and desk.playable(battle) and (is_gm or side in battle.participants()):
            rows.append(roll_buttons(desk, battle))
    legend = foc_legend(battle for battle in desk.battles if desk.playable(battle))
    if legend:
        lines += ["", *legend]
    lines.append("")
    lines.append(policy_words(campaign))
    return "\n".join(lines), Keyboard(inline_keyboard=rows)


# ---- the GM's decisions ---------------------------------------------------------------------


def verdict_button(
    campaign: Campaign,
    battle: Battle,
    action: str,
    result: BattleResult | None = None,
    dispute: bool = False,
) -> str:
    """A GM decision button about ``battle``: ``show`` the decision screen, ``more`` every
    outcome, ``set`` the result ``result`` (final). ``dispute``: made to settle an open
    dispute, so refused once it is settled (another GM, or the sides agreed)."""
    outcome, winner = result_codes(battle, result)
    return VerdictButton(
        campaign=campaign.id,
        turn=campaign.turn,
        battle=battle.id,
        action=action,
        outcome=outcome,
        winner=winner,
        dispute=int(dispute),
        vs=defender_mark(battle),
    ).pack()


def verdict_keyboard(
    desk: BattleDesk, battle: Battle, names: Names, every_outcome: bool = False
) -> Keyboard:
    """One tap to decide: either side's account, a draw, or (``every_outcome``) any outcome."""
    campaign = desk.campaign
    report = desk.reports.get(battle.id)
    disputed = report is not None and report.disputed

    def verdict_data(action: str, result: BattleResult | None = None) -> str:
        return verdict_button(campaign, battle, action, result, disputed)

    rows: list[list[InlineKeyboardButton]] = []
    if every_outcome:
        rows.append(
            [
                button(
                    outcome_label(outcome),
                    verdict_data("set", BattleResult(battle=battle.id, outcome=outcome)),
                )
                for outcome in (Outcome.DRAW, Outcome.BLOODY_DRAW)
            ]
        )
        for outcome in (Outcome.SOLID, Outcome.CRUSHING, Outcome.SLAUGHTER):
            rows.append(
                [
                    button(
                        result_words(outcome, winner, names),
                        verdict_data(
                            "set", BattleResult(battle=battle.id, outcome=outcome, winner=winner)
                        ),
                    )
                    for winner in battle.participants()
                ]
            )
        rows.append([button(_("« Back"), verdict_data("show"))])
        return Keyboard(inline_keyboard=rows)
    accounts: list[tuple[str, BattleResult]] = []
    if report is not None and report.reported is not None and report.override is None:
        reporter = side_words(desk.reporters.get(battle.id), names)
        accounts.append((reporter, report.reported))
        if report.disputed and report.counter is not None:
            accounts.append((side_words(desk.disputers.get(battle.id), names), report.counter))
    for who, result in accounts:
        label = _("As {side} says: {result}").format(
            side=who, result=result_words(result.outcome, result.winner, names)
        )
        rows.append([button(label, verdict_data("set", result))])
    draw = BattleResult(battle=battle.id, outcome=Outcome.DRAW)
    rows.append(
        [
            button(_("Draw without losses"), verdict_data("set", draw)),
            button(_("Another outcome…"), verdict_data("more")),
        ]
    )
    return Keyboard(inline_keyboard=rows)


def verdict_text(desk: BattleDesk, battle: Battle, map_: CampaignMap, names: Names) -> str:
    """A battle as the GM decides it: what it was and both accounts."""
    lines = [
        _("«{title}», turn {turn}: battle {id}").format(
            title=desk.campaign.title, turn=desk.campaign.turn, id=battle.id
        ),
        *describe_battle(battle, map_, names, language(), desk.status.get(battle.id)),
        *chain_status(desk, battle, names),
        report_status(
            desk.reports.get(battle.id),
            names,
            desk.reporters.get(battle.id),
            desk.disputers.get(battle.id),
        ),
        "",
        _("Your decision is final; both sides and the group are told."),
    ]
    return "\n".join(lines)
