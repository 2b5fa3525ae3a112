"""A talk deck: a 16:9 PowerPoint file with a title slide, then one slide per figure in article
order — the figure's slide-size PNG export in the chosen look (its title on it), a credit line,
the title in the slide's title placeholder, and speaker notes with what the figure shows and
its numbers.

Every word comes from the figure itself (its title, subtitle and captions, which its builder
filled from core) or from i18n; the bar charts' notes read the records their build gives.
"""

from __future__ import annotations

import io
import math
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import plotly.graph_objects as go
from PIL import ImageColor
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.text import MSO_AUTO_SIZE, PP_ALIGN
from pptx.util import Emu, Inches, Pt

from article import article_title
from figures import (
    BACKGROUNDS,
    FIGURES,
    LANG,
    MUTED,
    SLIDE_SIZES,
    TEMPLATE,
    apply_look,
    description,
    hex_colour,
    ordered_ids,
    readable,
    rgba,
    text_px,
)
from i18n import t

from .export import NO_BROWSER, ImagesUnavailable, figure, image, image_browser, read_values

DEFAULT_SIZE = "1080p"
WIDTH = Inches(40 / 3)  # PowerPoint's 16:9 slide, 13⅓ × 7.5 in
MARGIN = Inches(0.45)
INSET = Inches(0.05)  # a text box's padding above and below its text
LINE = 1.25  # line height, in font sizes
DECK_WIDER = 1.1  # how much wider than the figures' font a text box's theme font may run
TITLE_PT, CREDIT_PT = Pt(28), Pt(11)
MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"


@dataclass(frozen=True)
class Colours:
    """A slide's colours in the chosen look: the background (None: the slide's own, for a
    transparent look), text and muted text, both reading at 4.5:1 on what the look's text may
    sit on (style.BACKGROUNDS: white and black alike for a transparent look)."""

    background: RGBColor | None
    text: RGBColor
    muted: RGBColor

    @classmethod
    def of(cls, theme: str) -> Colours:
        """Taken from what apply_look gives an empty figure, so slides and figures match."""
        fig = apply_look(go.Figure(layout=dict(template="kv_atlas")), theme)
        paper = ImageColor.getrgb(fig.layout.paper_bgcolor or TEMPLATE.layout.paper_bgcolor)
        opaque = len(paper) < 4 or paper[3] > 0
        ink = [readable(c, BACKGROUNDS[theme]) for c in (fig.layout.font.color or TEMPLATE.layout.font.color, MUTED)]
        text, muted = (RGBColor.from_string(hex_colour(rgba(c))[1:]) for c in ink)
        return cls(RGBColor(*paper[:3]) if opaque else None, text, muted)


def settings(dumped: dict) -> str:
    """Link-like knob values ('ctx=1M, prec=bf16'), the language left out (the deck has one)."""
    return ", ".join(f"{k}={','.join(v) if isinstance(v, list) else v}"
                     for k, v in dumped.items() if k != LANG.key)


def build(ids: Iterable[str] | None = None, *, lang: str = "ko", theme: str = "light", font_scale: float = 1.0,
          params: dict | None = None, size: str = DEFAULT_SIZE,
          progress: Callable[[int, str], None] | None = None) -> tuple[bytes, list[str]]:
    """The .pptx as bytes and the figures that failed ('A14: …'; the others still get slides).
    Figures come in article order whatever order `ids` lists them in. ImagesUnavailable
    without a browser to render the pictures."""
    if not image_browser():  # every slide's picture would fail alike: say it once
        raise ImagesUnavailable(NO_BROWSER)
    chosen = set(ordered_ids() if ids is None else ids)
    ids = [fid for fid in ordered_ids() if fid in chosen]
    prs = Presentation()
    w, h = SLIDE_SIZES[size]
    prs.slide_width, prs.slide_height = WIDTH, Emu(WIDTH * h // w)
    colours = Colours.of(theme)
    extra = settings(params or {})
    _title_slide(prs, colours, lang, t("deck.sub", lang, n=len(ids)) + (f" · {extra}" if extra else ""))
    failed = []
    for n, fid in enumerate(ids, 1):
        try:
            _figure_slide(prs, fid, colours, lang=lang, theme=theme, font_scale=font_scale, params=params or {},
                          size=(w, h))
        except Exception as e:  # noqa: BLE001 — one figure failing must not stop the deck
            failed.append(f"{fid}: {' '.join(str(e).split()) or type(e).__name__}")  # one line each
        if progress:
            progress(n, fid)
    out = io.BytesIO()
    prs.save(out)
    return out.getvalue(), failed


def _figure_slide(prs, fid: str, colours: Colours, *, lang, theme, font_scale, params, size) -> None:
    """The picture is the figure's slide-size PNG export (its own title on it, laid out as that
    export lays out a slide), above a credit line. The slide's title placeholder holds the same
    title just above the visible area: PowerPoint's outline and screen readers read it. The
    figure is built once: the picture, the title and the notes all come from it."""
    w, h = size
    built = figure(fid, read_values(fid, lang, params), theme=theme, font_scale=font_scale,
                   size={"width": w, "height": h})
    png = image(built.figure, "png", width=w, height=h)
    spec = FIGURES[fid]
    values = spec.read(params)[0]
    slide = _slide(prs, colours, "Title Only")
    height = _place(slide.shapes.title, built.title, 0, TITLE_PT, colours.text, bold=True)
    slide.shapes.title.top = -height
    extra = settings(spec.dump(values))
    credit = t("deck.credit", lang, fid=fid) + (f" · {extra}" if extra else "")
    strip = _height(credit, CREDIT_PT, _text_width(prs))
    _picture(slide, png, size, prs.slide_height - strip, prs.slide_width)
    _place(slide.shapes.add_textbox(0, 0, 0, 0), credit, prs.slide_height - strip, CREDIT_PT, colours.muted)
    slide.notes_slide.notes_text_frame.text = description(built, lang, values.get("units", "decimal"))


def _title_slide(prs, colours: Colours, lang: str, subtitle: str) -> None:
    slide = _slide(prs, colours, "Title Slide")
    top = prs.slide_height // 3
    top += _place(slide.shapes.title, article_title(lang), top, Pt(40), colours.text, bold=True)
    _place(slide.placeholders[1], subtitle, top + Pt(12), Pt(20), colours.muted)


def _slide(prs, colours: Colours, layout: str):
    slide = prs.slides.add_slide(next(lo for lo in prs.slide_layouts if lo.name == layout))
    if colours.background is not None:
        slide.background.fill.solid()
        slide.background.fill.fore_color.rgb = colours.background
    return slide


def _place(shape, text: str, top: int, size: Pt, colour: RGBColor, *, bold: bool = False) -> int:
    """`text` left-aligned in `shape`, one paragraph per line, the shape moved to `top` across the
    slide and made tall enough for its wrapped lines; returns that height."""
    width = _text_width(shape.part.package.presentation_part.presentation)
    shape.left, shape.top, shape.width = MARGIN, top, width
    shape.height = height = _height(text, size, width)
    frame = shape.text_frame
    frame.word_wrap, frame.auto_size = True, MSO_AUTO_SIZE.NONE
    frame.margin_top = frame.margin_bottom = INSET
    frame.text = text
    for para in frame.paragraphs:
        para.alignment = PP_ALIGN.LEFT
        for run in para.runs:  # on the runs: PowerPoint takes a paragraph's defaults as a hint only
            run.font.size, run.font.bold, run.font.color.rgb = size, bold, colour
    return height


def _text_width(prs) -> int:
    """Across the slide inside the margins."""
    return prs.slide_width - 2 * MARGIN


def _height(text: str, size: Pt, width: int) -> int:
    """A text box's height for `text` wrapped at `width`, roughly: the lines measured in the figures'
    font (figures.text), DECK_WIDER as wide (the boxes name no font: PowerPoint's theme font draws them)."""
    widths = [DECK_WIDER * text_px(line, size) for line in text.split("\n")]
    lines = sum(max(1, math.ceil(w / width)) for w in widths)
    return Emu(int(lines * size * LINE)) + 2 * INSET


def _picture(slide, png: bytes, size: tuple[int, int], height: int, slide_width: int) -> None:
    """The picture as large as fits above `height`, centred across (the sides are the slide's
    background, the look's paper colour)."""
    w, h = size
    scale = min(slide_width / w, height / h)
    pw, ph = int(w * scale), int(h * scale)
    slide.shapes.add_picture(io.BytesIO(png), (slide_width - pw) // 2, 0, pw, ph)
