"""The Midnight Siege's typed orders (``bot.texts.orders``; tokens by id or name)::

штурм F1 в 2 за ПО / за погоду      assault F1 in 2 for VP / for weather
охрана F1 из 1                      guard F1 from 1
поворот погоды из 1                 steer weather from 1
сыграть карту O1 до боёв / после    play card O1 before battles / after battles
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from lark import Token, Tree

from bot.texts.orders import END, Reader, TypedGrammar, TypedNames, normalise
from rules import ModuleOrder
from rules.modules import siege

ASSAULT = r"assault\w*|storm\w*|штурм\w*"
GUARD = r"guard\w*|охран\w*|сторож\w*"
STEER = r"steer\w*|поворот\w*|поверн\w*|поворач\w*"
WEATHER = r"weather|погод\w*"
CARD = r"cards?|карт[аыуео]\w*"
PLAY = r"play\w*|сыгра\w*|разыгра\w*|игра\w*"

GRAMMAR = TypedGrammar(
    rules=rf"""
assault: ASSAULT token (IN | ON)? place reward?
       | ASSAULT (IN | ON)? place token reward?
guard: GUARD token FROM place
steer: STEER WEATHER? (FROM | IN)? place
     | WEATHER (FROM | IN) place
card: PLAY? CARD token WINDOW BATTLES?
reward: FOR (VP | WEATHER)
token: name

ASSAULT: /({ASSAULT}){END}/i
GUARD: /({GUARD}){END}/i
STEER: /({STEER}){END}/i
WEATHER: /({WEATHER}){END}/i
CARD: /({CARD}){END}/i
PLAY: /({PLAY}){END}/i
WINDOW: /(before|after|до|после){END}/i
BATTLES: /(battles?|бо[её]в|боя|битв\w*){END}/i
FOR: /(for|за){END}/i
VP: /(vp|points?|victory\s+points|по|очк\w*|победн\w*\s+очк\w*){END}/i
""",
    orders=("assault", "guard", "steer", "card"),
    order_words=(ASSAULT, GUARD, STEER, WEATHER, CARD, PLAY),
)

TOKEN = "token"
"""The kind of piece a token is in the vocabulary."""


def siege_tokens(state_modules: Mapping[str, object]) -> dict[str, list[str]]:
    """The siege tokens of a turn-start state's modules (``CampaignState.modules``) with their
    names in every language; none without a siege."""
    raw = state_modules.get(siege.NAME)
    if raw is None:
        return {}
    found = siege.load(raw)  # type: ignore[arg-type]
    return {
        token.id: [name for name in (token.name, *token.names.values()) if name]
        for token in found.tokens
    }


def token_names(tokens: Mapping[str, Iterable[str]]) -> TypedNames:
    """Tokens' ids, names and "id name" labels for a vocabulary (``tokens``: id -> names); a
    token stands where a side's name may, so its names count in an order's length."""
    return TypedNames(kind=TOKEN, names=tokens, labels=True, sized=True)


def order(tree: Tree[Token], reader: Reader) -> ModuleOrder:
    """An assault, guard, steer or card order."""
    places = reader.subtrees(tree, "place")
    tokens = reader.subtrees(tree, "token")

    def token(at: int) -> str:
        return reader.piece(tokens[at], TOKEN)

    match tree.data:
        case "assault":
            rewards = reader.subtrees(tree, "reward")
            weather = bool(rewards) and any(
                token.type == "WEATHER" for token in reader.tokens(rewards[0])
            )
            return siege.assault(reader.sector(places[0]), token(0), "weather" if weather else "vp")
        case "guard":
            return siege.guard(token(0), reader.sector(places[0]))
        case "steer":
            return siege.steer(reader.sector(places[0]))
        case _:
            window = next(t for t in reader.tokens(tree) if t.type == "WINDOW")
            after = normalise(str(window)) in ("after", "после")
            return siege.play_card(token(0), "after" if after else "before")
