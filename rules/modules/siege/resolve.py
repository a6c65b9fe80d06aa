"""The ``siege`` resolution (MODULES.md S5-S6), run around the core losses step.

Before ``losses``: each assault's verdict, in list order, and the failed-assault losses (which
join the battle losses). After ``losses``: fallen fortifications are removed with their
rewards, occult tokens change hands, the weather moves (per side: steers, "before" cards with a
weather effect, weather rewards in list order; steps beyond the cap are not taken and a reward so
lost is +1 VP), "after" cards run in activation order, and every card untaps.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, JsonValue

from rules.modules.siege.orders import PlayCardData, SteerData
from rules.modules.siege.plan import PlannedAssault, PlayedCard, SiegePlan, activation_order
from rules.modules.siege.settings import WEATHER_STATES, SiegeSettings
from rules.modules.siege.state import NAME, SiegeState, Token, load
from rules.modules.siege.validate import settings_of, typed_orders
from rules.resolution import TurnWork
from rules.state import SideId

_MODEL = ConfigDict(frozen=True, extra="forbid")

Verdict = Literal["fell", "taken", "held", "already_fallen"]


class AssaultOutcome(BaseModel):
    """How an assault ended: ``fell`` (a fortification), ``taken`` (an occult token), ``held``,
    or ``already_fallen`` (an earlier assault this turn took the fortification). ``loss`` is the
    failed-assault loss (unguarded assaults only); ``reward`` what the fall gave: ``vp``,
    ``weather``, ``weather_lost`` (beyond the cap: +1 VP instead), or ``None``."""

    model_config = _MODEL

    token: str
    kind: str
    sector: str
    side: SideId
    verdict: Verdict
    loss: int
    battles: tuple[int, ...]
    reward: Literal["vp", "weather", "weather_lost"] | None = None


class CardOutcome(BaseModel):
    """A card played this turn: ``void`` when its token changed hands before it acted (an
    "after" card), ``weather_step`` whether its weather effect was taken (``None``: no effect)."""

    model_config = _MODEL

    token: str
    side: SideId
    window: Literal["before", "after"]
    void: bool = False
    weather_step: bool | None = None


class WeatherChange(BaseModel):
    """The marker before and after the turn and the steps each side took."""

    model_config = _MODEL

    before: int
    after: int
    steps: dict[SideId, int]


class SiegeReport(BaseModel):
    """What ``siege`` did in a resolved turn."""

    model_config = _MODEL

    assaults: tuple[AssaultOutcome, ...]
    cards: tuple[CardOutcome, ...]
    weather: WeatherChange
    vp_gained: dict[SideId, int]
    vp: dict[SideId, int]

    def as_json(self) -> JsonValue:
        """The report as JSON."""
        data: JsonValue = self.model_dump(mode="json")
        return data


def _plan_of(work: TurnWork) -> SiegePlan:
    if work.plan is None:
        raise ValueError("siege: resolution without a battle list")
    return SiegePlan.model_validate(work.plan.modules[NAME])


def _won(work: TurnWork, planned: PlannedAssault) -> bool:
    if not planned.guards:
        return bool(planned.falls)
    return all(
        work.played(link.battle) and work.results[link.battle].winner == planned.side
        for link in planned.guards
    )


def verdicts(work: TurnWork) -> list[AssaultOutcome]:
    """Each listed assault's outcome, in list order (S5.1-S5.2)."""
    settings = settings_of(work.game)
    fallen: set[str] = set()
    outcomes: list[AssaultOutcome] = []
    for planned in _plan_of(work).assaults:
        won = _won(work, planned)
        verdict: Verdict
        if planned.kind == "fortification" and planned.token in fallen:
            verdict = "already_fallen"
        elif won:
            verdict = "fell" if planned.kind == "fortification" else "taken"
            if planned.kind == "fortification":
                fallen.add(planned.token)
        else:
            verdict = "held"
        outcomes.append(
            AssaultOutcome(
                token=planned.token,
                kind=planned.kind,
                sector=planned.sector,
                side=planned.side,
                verdict=verdict,
                loss=settings.assault_loss if verdict == "held" and not planned.guards else 0,
                battles=tuple(link.battle for link in planned.guards),
                reward=_reward(planned) if verdict == "fell" else None,
            )
        )
    return outcomes


def _reward(planned: PlannedAssault) -> Literal["vp", "weather"] | None:
    if planned.kind != "fortification":
        return None
    return "weather" if planned.reward == "weather" else "vp"


def before_losses(work: TurnWork) -> None:
    """The failed-assault losses, applied with the battle losses (S5.1)."""
    for outcome in verdicts(work):
        if outcome.loss:
            work.lose(
                outcome.side,
                outcome.sector,
                outcome.loss,
                f"{NAME}: failed assault on {outcome.token}",
            )


class _Steps:
    """Weather steps taken per side this turn, at most ``cap`` each."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.taken: dict[SideId, int] = {}

    def take(self, side: SideId) -> bool:
        """Take one step for ``side`` if its cap allows; whether it was taken."""
        if self.taken.get(side, 0) >= self.cap:
            return False
        self.taken[side] = self.taken.get(side, 0) + 1
        return True


def after_losses(work: TurnWork) -> None:
    """Tokens, control, rewards, weather, cards and untapping (S5.2-S5.4, S6)."""
    settings = settings_of(work.game)
    siege = load(work.modules.get(NAME))
    if siege.weather is None:
        raise ValueError("siege: the starting weather is not chosen")
    outcomes = verdicts(work)
    tokens = {token.id: token for token in siege.tokens}
    turn_start = dict(tokens)
    for outcome in outcomes:
        if outcome.verdict == "fell":
            tokens.pop(outcome.token, None)
        elif outcome.verdict == "taken":
            tokens[outcome.token] = tokens[outcome.token].model_copy(
                update={"controller": outcome.side, "ready": False}
            )
    steps = _Steps(settings.weather_steps_per_turn)
    for side in work.start.sides():
        for given in typed_orders(work.accepted[side].extra):
            if isinstance(given, SteerData):
                steps.take(side)
    cards = [
        CardOutcome(
            token=card.token,
            side=card.side,
            window="before",
            weather_step=steps.take(card.side) if _effect(settings, card.token) else None,
        )
        for card in _plan_of(work).cards_before
    ]
    vp, gained = dict(siege.vp), dict[SideId, int]()
    final: list[AssaultOutcome] = []
    for outcome in outcomes:
        if outcome.reward == "weather" and not steps.take(outcome.side):
            final.append(outcome.model_copy(update={"reward": "weather_lost"}))
        else:
            final.append(outcome)
        if final[-1].reward in ("vp", "weather_lost"):
            vp[outcome.side] = vp.get(outcome.side, 0) + 1
            gained[outcome.side] = gained.get(outcome.side, 0) + 1
    for card in _after_cards(work, turn_start):
        token = tokens.get(card.token)
        void = token is None or token.controller != card.side
        cards.append(
            CardOutcome(
                token=card.token,
                side=card.side,
                window="after",
                void=void,
                weather_step=steps.take(card.side)
                if not void and _effect(settings, card.token)
                else None,
            )
        )
    weather = (siege.weather + sum(steps.taken.values())) % WEATHER_STATES
    work.modules[NAME] = SiegeState(
        weather=weather,
        tokens=tuple(token.model_copy(update={"ready": True}) for token in tokens.values()),
        vp=vp,
    ).as_json()
    report = SiegeReport(
        assaults=tuple(final),
        cards=tuple(cards),
        weather=WeatherChange(
            before=siege.weather,
            after=weather,
            steps={side: steps.taken[side] for side in work.start.sides() if side in steps.taken},
        ),
        vp_gained=gained,
        vp=vp,
    )
    work.notes[NAME] = report.as_json()
    work.log.append(_log_line(report))


def _effect(settings: SiegeSettings, token_id: str) -> bool:
    card = settings.cards.get(token_id)
    return card is not None and card.effect == "weather_step"


def _after_cards(work: TurnWork, turn_start: dict[str, Token]) -> list[PlayedCard]:
    plays = [
        (side, turn_start[given.token])
        for side in work.start.sides()
        for given in typed_orders(work.late.get(side, ()))
        if isinstance(given, PlayCardData) and given.token in turn_start
    ]
    return activation_order(plays, "after", work.start.turn, work.dice)


def _log_line(report: SiegeReport) -> str:
    parts: list[str] = []
    for outcome in report.assaults:
        what = {
            "fell": "falls to",
            "taken": "is taken by",
            "held": "holds against",
            "already_fallen": "had already fallen when assaulted by",
        }[outcome.verdict]
        line = f"{outcome.token} {what} {outcome.side}"
        if outcome.loss:
            line += f" ({outcome.side} -{outcome.loss} in {outcome.sector})"
        if outcome.reward == "weather_lost":
            line += " (weather step beyond the limit: +1 VP)"
        parts.append(line)
    for card in report.cards:
        state = {
            None: "played",
            True: "played, weather +1",
            False: "played, its weather step beyond the limit",
        }[card.weather_step]
        if card.void:
            state = "void: its token changed hands"
        parts.append(f"{card.side} {card.window}-card {card.token} {state}")
    weather = report.weather
    steps = ", ".join(f"{side} {n}" for side, n in weather.steps.items()) or "no steps"
    parts.append(f"weather {weather.before} -> {weather.after} ({steps})")
    if report.vp_gained:
        parts.append("VP " + ", ".join(f"{side} +{n}" for side, n in report.vp_gained.items()))
    return "Siege: " + "; ".join(parts) + "."
