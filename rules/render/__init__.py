"""The campaign map as a PNG picture: what the group sees every Friday and Monday (``docs/map.md``).

:func:`render_map` draws a :class:`MapView` (map, state, sides, title, language, labels, the
sectors each side holds, and optionally the Friday battles, last turn's :class:`WeekView` or
one side's secret orders) with Pillow and returns PNG bytes. The picture is a pure function of
the view: no clock, no randomness, no system fonts (PT Sans is shipped in ``rules/data/fonts``),
text laid out by FreeType alone (no Raqm), and the PNG written with fixed settings and no
metadata, so the same view always gives the same bytes.

Speed: what does not change from one turn to the next (the background, the lines between
sectors, the sectors' outlines and names) is drawn once per map and kept (:func:`compute_layout`); a
picture copies it and draws the rest. Pictures are palette images (one byte a pixel) and
every text's glyph mask is kept once drawn, so a planet-5 map takes a few milliseconds.

Side colours come from the Okabe-Ito palette, which people with colour-blindness can tell
apart (:mod:`rules.colours`); each side is drawn in the one colour its view gives. Every
mark also carries the side's tag (its initial by default) or a shape as a second cue, and the
legend explains every mark the picture shows. Rule modules put their own marks on sectors
through :class:`SectorMark`, their dial through :class:`DialView` and their named figures through
:class:`HeroMark` and :class:`NpcMark`; which ones a picture shows is each module's to say
(``rules/modules/<name>/figures.py``), the drawing here knows no module.

The package is split by what it draws; this file re-exports the public names, so callers
import from :mod:`rules.render`:

- :mod:`~rules.render.view`: what a picture shows, as data (:class:`MapView` and its parts);
- :mod:`~rules.render.primitives`: sizes, colours, fonts, the canvas, stamps, boxes, the sides'
  styles, the inline rows of text, icons and chips, the PNG writer;
- :mod:`~rules.render.geometry`: sectors in pixels, their titles, the curve of an arrow;
- :mod:`~rules.render.layout`: what a map's pictures share, kept once per map (lines between
  sectors, hub rings, the static layer);
- :mod:`~rules.render.sectors`: a sector's area, title, badge rows and contents;
- :mod:`~rules.render.chips`: the armies' chips;
- :mod:`~rules.render.arrows`: move arrows and their labels;
- :mod:`~rules.render.figures`: rule modules' named figures (heroes, an NPC);
- :mod:`~rules.render.dials`: a rule module's dial;
- :mod:`~rules.render.legend`: the header, the final banner and the legend;
- :mod:`~rules.render.picture`: :func:`render_image` and :func:`render_map`;
- :mod:`~rules.render.command`: ``python -m rules render``.
"""

from rules.render.arrows import BENDS, Arrow, label_box, label_point, place_labels
from rules.render.command import render_main, view_of_document
from rules.render.dials import DIAL_HEIGHT, DIAL_LABEL, DIAL_RADIUS, DIAL_WIDTH
from rules.render.figures import (
    FIGURE_ROW,
    NPC_FILL,
    FigurePlace,
    HeroChip,
    HeroParts,
    NpcChip,
    hero_label,
    hero_parts,
    place_figures,
)
from rules.render.geometry import Shape, sector_sizes, title_box
from rules.render.layout import (
    HUB_RINGS,
    HUB_TAG,
    KEY_ROWS_RESERVED,
    Layout,
    compute_layout,
    hub_ring,
)
from rules.render.picture import move_label_boxes, render_image, render_map
from rules.render.primitives import (
    BACKGROUND,
    CONNECTOR,
    FONT_FILES,
    HEADER_HEIGHT,
    INK,
    LEGEND_KEY_ROW,
    LEGEND_SIDE_ROW,
    MARGIN,
    MAX_HEIGHT,
    MUTED,
    NEUTRAL,
    PNG_COMPRESS_LEVEL,
    SECTOR_FILL,
    WHITE,
    WIDTH,
    Box,
    Marker,
    Style,
    png_bytes,
    side_styles,
    tint,
)
from rules.render.view import (
    RUSSIAN_LABELS,
    BattleMark,
    DialView,
    HeroMark,
    HeroMove,
    MapFigures,
    MapLabels,
    MapView,
    NpcMark,
    PrivateOrders,
    SectorMark,
    SideView,
    WeekView,
    default_palette,
    held_sectors,
    plural_index,
    side_tags,
    week_of,
)

__all__ = [
    "BACKGROUND",
    "BENDS",
    "CONNECTOR",
    "DIAL_HEIGHT",
    "DIAL_LABEL",
    "DIAL_RADIUS",
    "DIAL_WIDTH",
    "FIGURE_ROW",
    "FONT_FILES",
    "HEADER_HEIGHT",
    "HUB_RINGS",
    "HUB_TAG",
    "INK",
    "KEY_ROWS_RESERVED",
    "LEGEND_KEY_ROW",
    "LEGEND_SIDE_ROW",
    "MARGIN",
    "MAX_HEIGHT",
    "MUTED",
    "NEUTRAL",
    "NPC_FILL",
    "PNG_COMPRESS_LEVEL",
    "RUSSIAN_LABELS",
    "SECTOR_FILL",
    "WHITE",
    "WIDTH",
    "Arrow",
    "BattleMark",
    "Box",
    "DialView",
    "FigurePlace",
    "HeroChip",
    "HeroMark",
    "HeroMove",
    "HeroParts",
    "Layout",
    "MapFigures",
    "MapLabels",
    "MapView",
    "Marker",
    "NpcChip",
    "NpcMark",
    "PrivateOrders",
    "SectorMark",
    "Shape",
    "SideView",
    "Style",
    "WeekView",
    "compute_layout",
    "default_palette",
    "held_sectors",
    "hero_label",
    "hero_parts",
    "hub_ring",
    "label_box",
    "label_point",
    "move_label_boxes",
    "place_figures",
    "place_labels",
    "plural_index",
    "png_bytes",
    "render_image",
    "render_main",
    "render_map",
    "sector_sizes",
    "side_styles",
    "side_tags",
    "tint",
    "title_box",
    "view_of_document",
    "week_of",
]
