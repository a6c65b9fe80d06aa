"""The words of ``/roll`` (MODULES.md "002"), in the group and in private: how to write dice,
why a roll was refused, and the values with their labels; and the rules' own rolls of a turn,
as the battle list and the Monday post list them."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from aiogram.utils.i18n import gettext as _

from bot.modules import BOT_MODULES
from bot.services.dice import RollDone, RollRefusal
from rules import CampaignMap, Roll
from rules.table import DiceExpression, DiceExpressionError, DiceProblemCode


def dice_problem(error: DiceExpressionError) -> str:
    """Why the dice cannot be rolled, and how to write them."""
    how = _("Write the dice as /roll 2d6 (or 2д6, 2к6): up to 20 dice of 2 to 100 faces.")
    match error.code:
        case DiceProblemCode.TOO_MANY_DICE:
            head = _("At most {max} dice at once.").format(max=error.params.get("max"))
        case DiceProblemCode.TOO_FEW_FACES:
            head = _("A die has at least {min} faces.").format(min=error.params.get("min"))
        case DiceProblemCode.TOO_MANY_FACES:
            head = _("A die has at most {max} faces.").format(max=error.params.get("max"))
        case DiceProblemCode.NO_DICE:
            head = _("Roll at least one die.")
        case _:
            head = _("Those are not dice I can roll.")
    return f"{head} {how}"


def roll_refusal(refusal: RollRefusal | None, battle: int | None = None) -> str:
    """Why nothing was rolled, and what to do instead."""
    match refusal:
        case RollRefusal.CAMPAIGN_OVER:
            return _("The campaign is over: its seeds are public now.")
        case RollRefusal.NO_SUCH_BATTLE:
            return _(
                "Battle {battle} is not one of your battles on this turn's battle list: see "
                "/battles. Only its sides' players and the GMs roll for a battle."
            ).format(battle=battle)
        case RollRefusal.LIST_NOT_PUBLIC:
            return _("The battle list is not out yet: dice for its battles are rolled once it is.")
        case RollRefusal.NOT_MEMBER:
            return _("Only the campaign's players and GMs roll dice here.")
    return _("Many dice at once: roll again in a moment.")


def roll_reply(expression: DiceExpression, done: RollDone, battle: int | None = None) -> str:
    """The values rolled, how they were drawn, and the seed's SHA-256 if it is new."""
    if done.roll is None:
        return roll_refusal(done.refusal, battle)
    values = ", ".join(str(die.value) for die in done.roll.dice)
    head = (
        _("🎲 {expression}: {values} (total {total}).")
        if battle is None
        else _("🎲 Battle {battle}, {expression}: {values} (total {total}).")
    )
    lines = [
        head.format(expression=expression, values=values, total=done.roll.total, battle=battle),
        _(
            "Drawn from turn {turn}'s roll seed as {label}…; it is revealed in the turn's summary."
        ).format(turn=done.turn, label=done.roll.dice[0].label.rsplit("/", 1)[0]),
    ]
    if battle is not None:
        lines.append(_("The players of both sides get the values too."))
    if done.fresh_seeds:
        lines.append(_("SHA-256 of the roll seed: {hash}").format(hash=done.roll_commitment))
    return "\n".join(lines)


def split_battle(args: str) -> tuple[str, int | None]:
    """``/roll``'s arguments as the dice and a battle's number, if one follows them
    («2d6 3», «2d6 #3», «2к6 №3»)."""
    words = args.split()
    if len(words) >= 2:
        number = words[-1].lstrip("#№")
        if number.isdigit() and len(number) <= 6:
            return " ".join(words[:-1]), int(number)
    return args.strip(), None


def describe_rolls(
    rolls: Sequence[Roll],
    campaign_map: CampaignMap,
    sides: Mapping[str, str],
    language: str,
) -> list[str]:
    """The rules' rolls in words, in the order drawn: a roll a module words by itself (an
    assault's die by its token and side, :meth:`bot.modules.BotModule.roll_words`); a shuffle
    on one line with its count of rolls. The export lists each roll by its label, to check
    against the seed revealed on Monday."""
    lines: list[str] = []
    shuffle: str | None = None
    drawn: list[int] = []  # the open shuffle's draws

    def close_shuffle() -> None:
        if shuffle is not None:
            lines.append(_shuffle_words(shuffle, len(drawn)))

    for roll in rolls:
        parts = roll.label.split("/")  # the turn, the module, what the module rolled
        module = BOT_MODULES.get(parts[1]) if len(parts) > 2 else None
        words = (
            None
            if module is None
            else module.roll_words(parts[2:], roll, campaign_map, sides, language)
        )
        if words is not None:
            close_shuffle()
            shuffle, drawn = None, []
            lines.append(words)
            continue
        prefix = "/".join(parts[:-1])  # a shuffle's draw: the shuffle's label, then /i
        if prefix != shuffle:
            close_shuffle()
            shuffle, drawn = prefix, []
        drawn.append(roll.value)
    close_shuffle()
    return lines


def _shuffle_words(label: str, rolls: int) -> str:
    """The line of a shuffle labelled ``label``: what it shuffled and how many rolls it took
    (its draws are not the order it made, so the export has them, by label)."""
    parts = label.split("/")
    module = BOT_MODULES.get(parts[1]) if len(parts) > 2 else None
    text = None if module is None else module.shuffle_words(parts[2:], rolls)
    if text is None:
        text = _("🎲 {n} roll, in the export", "🎲 {n} rolls, in the export", rolls).format(n=rolls)
    return text
