"""The start of a ``watch`` turn (MODULES.md W1, W4): heroes enter, hands are dealt.

Heroes whose ``enters_turn`` is the turn come into play at their start sector (where the state
already holds them). Then, if any living hero in play holds fewer than ``hand_size`` cards, the
deck (``spell_deck`` repeated ceil(missing / its length) times) is shuffled from the turn's
deal seed under ``t<T>/watch/deal`` and the heroes, in initiative order, each take cards from
the top until they hold ``hand_size`` (one fills up, then the next). Cards not dealt are set
aside. When nobody is missing a card nothing is shuffled, so no deal seed is needed. A turn
begins once: for a state whose turn has begun already (``begun``) nothing changes.
"""

from __future__ import annotations

import math

from rules.dice import Dice
from rules.game import Game
from rules.modules.watch.state import NAME, WatchState, load
from rules.modules.watch.validate import settings_of
from rules.state import CampaignState


def deal_label(turn: int) -> str:
    """The label of turn ``turn``'s deal (G4)."""
    return f"t{turn}/{NAME}/deal"


def begin_turn(game: Game, state: CampaignState, dice: Dice) -> WatchState:
    """The watch state when turn ``state.turn``'s orders window opens."""
    settings = settings_of(game)
    watch = load(state.modules.get(NAME))
    turn = state.turn
    if turn <= watch.begun:
        return watch
    heroes = watch.in_play(turn)
    missing = sum(max(0, settings.hand_size - len(hero.hand)) for hero in heroes)
    if missing == 0:
        return watch.model_copy(update={"begun": turn})
    copies = max(1, math.ceil(missing / len(settings.spell_deck)))
    deck = dice.shuffle(deal_label(turn), list(settings.spell_deck) * copies, seed="deal")
    dealt = []
    top = 0
    for hero in heroes:
        wanted = max(0, settings.hand_size - len(hero.hand))
        dealt.append(hero.model_copy(update={"hand": (*hero.hand, *deck[top : top + wanted])}))
        top += wanted
    return watch.replace(*dealt).model_copy(update={"begun": turn})
