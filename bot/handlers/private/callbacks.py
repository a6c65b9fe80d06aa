"""Callback data of the private screens. Each carries the campaign, the turn and the phase it
was made for, so a button pressed after the campaign moved on is recognised as stale. Sectors
and sides are indexes (map order; turn-start state order) to stay within Telegram's 64 bytes;
handlers look them up again and never trust them.

Orders and deployment buttons also name the side whose screen they are on: pressed by anyone
not playing that side (a forwarded or forged button), they are refused. A button without a
side (``""``) acts only on the presser's own side, like the buttons on their own screen."""

from __future__ import annotations

from aiogram.filters.callback_data import CallbackData

from bot.screens.callbacks import ButtonInt

ORDERS_PHASE = "o"
DEPLOYMENT_PHASE = "d"
BATTLES_PHASE = "b"


class OrdersButton(CallbackData, prefix="po"):
    """The orders screen. ``action``: ``home``, ``sec`` (a sector), ``mv`` (move: pick a
    destination), ``to`` (move: pick a count), ``n`` (move ``arg`` armies), ``at`` (attack side
    ``arg``), ``fo`` (fortify), ``rf`` (reinforcement list), ``rs`` (reinforce there), ``rev``
    (review), ``ok`` / ``no`` (ready / not ready), ``map``, ``rep`` (repeat last turn's
    orders). ``side``: whose screen it is."""

    campaign: ButtonInt
    turn: ButtonInt
    phase: str = ORDERS_PHASE
    action: str
    sector: ButtonInt = -1
    to: ButtonInt = -1
    arg: ButtonInt = -1
    side: str = ""


class DeployButton(CallbackData, prefix="pd"):
    """The deployment screen: ``+`` / ``-`` one army in ``sector``, ``ok`` confirm, ``home``.
    ``side``: whose screen it is."""

    campaign: ButtonInt
    turn: ButtonInt = 0
    phase: str = DEPLOYMENT_PHASE
    action: str
    sector: ButtonInt = -1
    side: str = ""


class ResultButton(CallbackData, prefix="pr"):
    """A battle's result: ``pick`` (choose an outcome to report), ``dis`` (the same, as the
    disputing side's own account), ``out`` (outcome ``outcome``; for a victory then ``win``
    with ``winner`` 0 attacker / 1 defender), ``yes`` confirm the account
    ``outcome``/``winner`` (the report, or in a dispute the other side's account), ``list``
    back to the battles. ``vs``: for a chain battle, which side defended it when the button
    was made (``bot.services.orders.defender_mark``); a press after that changed is refused."""

    campaign: ButtonInt
    turn: ButtonInt
    phase: str = BATTLES_PHASE
    battle: ButtonInt = 0
    action: str
    outcome: str = ""
    winner: ButtonInt = -1
    vs: ButtonInt = -1


class CampaignButton(CallbackData, prefix="pc"):
    """/campaigns: make ``campaign`` the current one."""

    campaign: ButtonInt


class VerdictButton(CallbackData, prefix="pv"):
    """The GM's decision on a battle's result (final): ``show`` the decision screen, ``more``
    every outcome, ``set`` the result ``outcome``/``winner`` (0 attacker, 1 defender).
    ``dispute`` 1: made to settle an open dispute (refused once it is settled). ``vs``: as
    for :class:`ResultButton`."""

    campaign: ButtonInt
    turn: ButtonInt
    phase: str = BATTLES_PHASE
    battle: ButtonInt
    action: str
    outcome: str = ""
    winner: ButtonInt = -1
    dispute: ButtonInt = 0
    vs: ButtonInt = -1


class BattleRollButton(CallbackData, prefix="rl"):
    """Dice for battle ``battle`` of turn ``turn``, from its screen: ``dice`` six-sided dice."""

    campaign: ButtonInt
    turn: ButtonInt
    phase: str = BATTLES_PHASE
    battle: ButtonInt
    dice: ButtonInt
