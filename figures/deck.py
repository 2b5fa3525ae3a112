"""A talk deck: a 16:9 PowerPoint file with a title slide, then one slide per figure in article
order — the figure as a slide-size PNG in the chosen look, its title and subtitle as text, a
credit line, and speaker notes with what the figure shows and its numbers.

Every word comes from the figure itself (its title, subtitle and captions, which its builder
filled from core) or from i18n; the bar charts' notes read the numbers their builder attached.
"""

from __future__ import annotations

import html
import io
import math
import re
import unicodedata
from collections.abc import Callable, Iterable
from dataclasses import dataclass

import plotly.graph_objects as go
from PIL import ImageColor
from pptx import Presentation
from pptx.dml.color import RGBColor
from pptx.enum.text import MSO_AUTO_SIZE
from pptx.util import Emu, Inches, Pt

from core import A1_MODELS, get, storage_per_token
from core.units import fmt_bytes, fmt_exact
from i18n import model_name, t

from .export import NO_BROWSER, SLIDE_SIZES, ImagesUnavailable, image, image_browser, styled
from .knobs import LANG
from .registry import FIGURES, ordered_ids
from .style import MUTED, TEMPLATE, apply_look

DEFAULT_SIZE = "1080p"
WIDTH = Inches(40 / 3)  # PowerPoint's 16:9 slide, 13⅓ × 7.5 in
MARGIN = Inches(0.45)
INSET = Inches(0.05)  # a text box's padding above and below its text
LINE = 1.25  # line height, in font sizes
MIME = "application/vnd.openxmlformats-officedocument.presentationml.presentation"


@dataclass(frozen=True)
class Colours:
    """A slide's colours in the chosen look: the background (None: the slide's own, for a
    transparent look), text and muted text."""

    background: RGBColor | None
    text: RGBColor
    muted: RGBColor

    @classmethod
    def of(cls, theme: str) -> Colours:
        """Taken from what apply_look gives an empty figure, so slides and figures match."""
        fig = apply_look(go.Figure(layout=dict(template="kv_atlas")), theme)
        paper = ImageColor.getrgb(fig.layout.paper_bgcolor or TEMPLATE.layout.paper_bgcolor)
        text = ImageColor.getrgb(fig.layout.font.color or TEMPLATE.layout.font.color)
        opaque = len(paper) < 4 or paper[3] > 0
        return cls(RGBColor(*paper[:3]) if opaque else None, RGBColor(*text[:3]), RGBColor(*ImageColor.getrgb(MUTED)))


def plain(text: str) -> str:
    """A plotly label as plain text: line breaks kept, sub/superscripts as _x/^x, tags dropped."""
    text = re.sub(r"<br\s*/?>", "\n", text or "")
    text = re.sub(r"<sub>(.*?)</sub>", r"_\1", text)
    text = re.sub(r"<sup>(.*?)</sup>", r"^\1", text)
    return html.unescape(re.sub(r"<[^>]+>", "", text)).strip()


def title_parts(fig: go.Figure) -> tuple[str, str]:
    """The figure's title and subtitle (the `<br><sup>…</sup>` after it) as plain text."""
    head, _, rest = (fig.layout.title.text or "").partition("<br>")
    rest = re.sub(r"^<sup>(.*)</sup>$", r"\1", rest.strip(), flags=re.S)
    return plain(head), plain(rest)


def notes(fig: go.Figure, lang: str, units: str = "decimal") -> str:
    """What the figure shows and its numbers: title, subtitle, captions, and for the bar charts
    each model's storage per token and read per generated token."""
    meta = fig.layout.meta if isinstance(fig.layout.meta, dict) else {}
    lines = [*title_parts(fig), *map(plain, meta.get("captions", ()))]
    rows = [r for r in meta.get("numbers", ()) if "storage_per_token" in r]
    if rows:
        names = [model_name(r["model"], get(r["model"]).name, lang) for r in rows]
        stored = " · ".join(f"{n} {fmt_exact(r['storage_per_token'])}" for n, r in zip(names, rows))
        read = " · ".join(f"{n} {fmt_bytes(r['read_total'], units)}" for n, r in zip(names, rows))
        context = f"{rows[0]['context']:,}"
        lines += [f"{t('a1.storage', lang)}: {stored}", f"{t('a1.read', lang, n=context)}: {read}"]
    return "\n".join(line for line in lines if line)


def article_title(lang: str) -> str:
    """The article's title, its two sizes from core (as the Overview page states it)."""
    first, last = (storage_per_token(m).total for m in (A1_MODELS[0], A1_MODELS[-1]))
    return t("ov.title", lang, first=fmt_bytes(first, sig=2), last=fmt_exact(last))


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
    chosen = set(ids or ordered_ids())
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
            failed.append(f"{fid}: {e}")
        if progress:
            progress(n, fid)
    out = io.BytesIO()
    prs.save(out)
    return out.getvalue(), failed


def _figure_slide(prs, fid: str, colours: Colours, *, lang, theme, font_scale, params, size) -> None:
    spec = FIGURES[fid]
    values = spec.read(params)[0]
    fig = styled(fid, lang=lang, theme=theme, font_scale=font_scale, params=params)
    # the title is the slide's text; the picture keeps the rest of the figure
    png = image(go.Figure(fig).update_layout(title_text=""), "png", width=size[0], height=size[1])
    slide = _blank(prs, colours)
    title, subtitle = title_parts(fig)
    top = _text(slide, title, MARGIN // 2, Pt(28), colours.text, bold=True)
    top = _text(slide, subtitle, top, Pt(15), colours.muted)
    credit = t("deck.credit", lang, fid=fid)
    extra = settings(spec.dump(values))
    credit_h = Pt(11) * 2
    bottom = prs.slide_height - MARGIN // 2 - credit_h
    _picture(slide, png, size, top, bottom - top, prs.slide_width)
    _text(slide, credit + (f" · {extra}" if extra else ""), bottom, Pt(11), colours.muted)
    slide.notes_slide.notes_text_frame.text = notes(fig, lang, values.get("units", "decimal"))


def _title_slide(prs, colours: Colours, lang: str, subtitle: str) -> None:
    slide = _blank(prs, colours)
    top = _text(slide, t("app.title", lang), prs.slide_height // 3, Pt(24), colours.muted, bold=True)
    top = _text(slide, article_title(lang), top, Pt(40), colours.text, bold=True)
    _text(slide, subtitle, top + Pt(12), Pt(20), colours.muted)


def _blank(prs, colours: Colours):
    slide = prs.slides.add_slide(next(lo for lo in prs.slide_layouts if lo.name == "Blank"))
    if colours.background is not None:
        slide.background.fill.solid()
        slide.background.fill.fore_color.rgb = colours.background
    return slide


def _text(slide, text: str, top: int, size: Pt, colour: RGBColor, *, bold: bool = False) -> int:
    """A full-width text box at `top`, one paragraph per line of `text`, tall enough for its
    wrapped lines (so the picture below cannot cover them); returns where the next goes."""
    if not text:
        return top
    width = slide.part.package.presentation_part.presentation.slide_width - 2 * MARGIN
    lines = sum(max(1, math.ceil(_ems(line) * size / width)) for line in text.split("\n"))
    height = Emu(int(lines * size * LINE)) + 2 * INSET
    frame = slide.shapes.add_textbox(MARGIN, top, width, height).text_frame
    frame.word_wrap, frame.auto_size = True, MSO_AUTO_SIZE.NONE
    frame.margin_top = frame.margin_bottom = INSET
    for i, line in enumerate(text.split("\n")):
        para = frame.paragraphs[0] if i == 0 else frame.add_paragraph()
        para.text = line
        para.font.size, para.font.bold, para.font.color.rgb = size, bold, colour
    return top + height


def _ems(line: str) -> float:
    """A line's width in font sizes, roughly: Hangul and other wide characters are a square."""
    return sum(1.0 if unicodedata.east_asian_width(c) in "WF" else 0.6 for c in line)


def _picture(slide, png: bytes, size: tuple[int, int], top: int, height: int, slide_width: int) -> None:
    """The figure as large as fits between `top` and `top + height`, centred."""
    w, h = size
    scale = min((slide_width - 2 * MARGIN) / w, height / h)
    pw, ph = int(w * scale), int(h * scale)
    slide.shapes.add_picture(io.BytesIO(png), (slide_width - pw) // 2, top + (height - ph) // 2, pw, ph)
