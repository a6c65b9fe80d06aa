"""The siege's reward screens (MODULES.md S8): the strategist's claim with +/- buttons, the GM's
one-tap choices where an item says "or", and the group's announcement of a side's claim."""

from __future__ import annotations

import string
from collections.abc import Sequence

from aiogram.types import InlineKeyboardButton, InlineKeyboardMarkup
from aiogram.utils.i18n import gettext as _

from bot.modules.siege.callbacks import RewardPick, RewardPress
from rules.modules.siege import CHOSEN_WITHOUT_VARIANTS, RewardItem, SiegeSettings
from storage import Campaign, RewardClaimRecord

DIGITS = string.digits + string.ascii_lowercase
MAX_COUNT = len(DIGITS) - 1
"""The most of one item a claim screen counts (one base-36 digit in the button)."""
LABEL = 28


def pack_counts(counts: Sequence[int]) -> str:
    """The counts as button data: one base-36 digit per item."""
    return "".join(DIGITS[count] for count in counts)


def unpack_counts(packed: str, items: int) -> list[int] | None:
    """The counts in button data for a list of ``items`` items; ``None`` if they do not fit it
    (the GM changed the list since, or the button is forged)."""
    if len(packed) != items or any(ch not in DIGITS for ch in packed):
        return None
    return [DIGITS.index(ch) for ch in packed]


def item_text(item: RewardItem, language: str) -> str:
    """An item's text in ``language`` (the GM's, or the seed's), without its closing full stop
    (a price or a note follows it)."""
    return item.texts.get(language, item.text).rstrip().removesuffix(".")


def _short(text: str) -> str:
    return text if len(text) <= LABEL else text[: LABEL - 1].rstrip() + "…"


def claimed_items(settings: SiegeSettings, counts: Sequence[int]) -> list[str]:
    """The claim's item ids, each repeated as often as picked, in price-list order."""
    return [
        item.id
        for item, count in zip(settings.rewards, counts, strict=True)
        for _copy in range(count)
    ]


def claim_screen(
    campaign: Campaign,
    settings: SiegeSettings,
    side_name: str,
    vp: int,
    counts: Sequence[int],
    language: str,
) -> tuple[str, InlineKeyboardMarkup]:
    """The strategist's claim: the price list with what is picked, the VP left, a ➕ for every
    item that still fits, a ➖ for every item picked, and the button that sends the claim."""
    total = sum(item.price * count for item, count in zip(settings.rewards, counts, strict=True))
    left = vp - total
    lines = [
        _("🎁 «{title}» is over. Side «{side}»: {vp} siege VP to spend on rewards.").format(
            title=campaign.title, side=side_name, vp=vp
        ),
        "",
    ]
    rows: list[list[InlineKeyboardButton]] = []
    for index, (item, count) in enumerate(zip(settings.rewards, counts, strict=True)):
        number = index + 1
        line = _("{n}. {text} — {price} VP").format(
            n=number, text=item_text(item, language), price=item.price
        )
        lines.append(f"{line} ×{count}" if count else line)
        row = []
        if item.price <= left and count < MAX_COUNT:
            row.append(
                InlineKeyboardButton(
                    text=f"➕ {number}. {_short(item_text(item, language))}",
                    callback_data=RewardPress(
                        c=campaign.id, a="+", k=index, n=pack_counts(counts)
                    ).pack(),
                )
            )
        if count:
            row.append(
                InlineKeyboardButton(
                    text=f"➖ {number} (×{count})",
                    callback_data=RewardPress(
                        c=campaign.id, a="-", k=index, n=pack_counts(counts)
                    ).pack(),
                )
            )
        if row:
            rows.append(row)
    lines += [
        "",
        _("Picked: {total} of {vp} VP, {left} left. VP not spent lapse.").format(
            total=total, vp=vp, left=left
        ),
        _(
            "An item may be taken more than once. The claim is sent once and is final; where "
            "an item says «or», the GM chooses. You may also type the items' numbers: «claim "
            "8 4 2»."
        ),
    ]
    if total:
        rows.append(
            [
                InlineKeyboardButton(
                    text=_("✅ Claim these rewards ({total} VP)").format(total=total),
                    callback_data=RewardPress(c=campaign.id, a="ok", n=pack_counts(counts)).pack(),
                )
            ]
        )
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)


def claim_lines(
    settings: SiegeSettings,
    claim: RewardClaimRecord,
    language: str,
    pending: str = "",
    numbered: bool = False,
) -> list[str]:
    """The claimed items one a line (``numbered`` as the GM's buttons name them): the GM's
    choice where made, ``pending`` after the item where the GM still chooses."""
    by_id = {item.id: item for item in settings.rewards}
    lines = []
    for place, item_id in enumerate(claim.items):
        item = by_id.get(item_id)
        mark = f"{place + 1}." if numbered else "•"
        if item is None:  # the GM's list changed since the claim
            lines.append(f"{mark} {item_id}")
            continue
        text = item_text(item, language)
        chosen = claim.choices.get(place)
        if chosen is not None and 0 <= chosen < len(item.variants):
            variant = item.variants[chosen]
            text = _("{variant} (the GM's choice)").format(
                variant=variant.texts.get(language, variant.text)
            )
        elif chosen == CHOSEN_WITHOUT_VARIANTS:
            text = _("{item} (chosen by the GM)").format(item=text)
        elif item.chosen_by_gm and pending:
            text = f"{text} {pending}"
        lines.append(_("{mark} {text} — {price} VP").format(mark=mark, text=text, price=item.price))
    return lines


def choice_screen(
    campaign: Campaign,
    settings: SiegeSettings,
    side_index: int,
    side_name: str,
    claim: RewardClaimRecord,
    pending: Sequence[int],
    language: str,
) -> tuple[str, InlineKeyboardMarkup]:
    """The GMs' screen of a side's claim: what it took and, for each place still to choose, a
    button per variant (or one to say the curator's choice is made)."""
    lines = [
        _("🎁 «{title}»: side «{side}» claims rewards for {total} of {vp} VP.").format(
            title=campaign.title, side=side_name, total=claim.total, vp=claim.vp
        ),
        *claim_lines(settings, claim, language, _("(your choice)"), numbered=True),
        "",
    ]
    rows: list[list[InlineKeyboardButton]] = []
    by_id = {item.id: item for item in settings.rewards}
    for place in pending:
        item = by_id[claim.items[place]]
        number = place + 1
        if item.variants:
            for variant_index, variant in enumerate(item.variants):
                rows.append(
                    [
                        InlineKeyboardButton(
                            text=f"{number}. {_short(variant.texts.get(language, variant.text))}",
                            callback_data=RewardPick(
                                c=campaign.id, s=side_index, p=place, v=variant_index
                            ).pack(),
                        )
                    ]
                )
        else:
            rows.append(
                [
                    InlineKeyboardButton(
                        text=_("{n}. ✅ Chosen in the character sheet").format(n=number),
                        callback_data=RewardPick(
                            c=campaign.id, s=side_index, p=place, v=CHOSEN_WITHOUT_VARIANTS
                        ).pack(),
                    )
                ]
            )
    if pending:
        lines.append(
            _(
                "Choose where an item says «or» (the curator's choice, not agreed with the "
                "side): one tap each, final. The group hears of the claim when all is chosen."
            )
        )
    else:
        lines.append(_("Everything is chosen; the group has been told."))
    return "\n".join(lines), InlineKeyboardMarkup(inline_keyboard=rows)


def claim_announcement(
    settings: SiegeSettings, side_name: str, claim: RewardClaimRecord, language: str
) -> str:
    """The group's post of a side's claim, with the GM's choices."""
    lines = [
        _("🎁 Side «{side}»: rewards for {total} of {vp} siege VP.").format(
            side=side_name, total=claim.total, vp=claim.vp
        ),
        *claim_lines(settings, claim, language),
    ]
    left = claim.vp - claim.total
    if left:
        lines.append(_("{left} VP lapse.").format(left=left))
    return "\n".join(lines)
