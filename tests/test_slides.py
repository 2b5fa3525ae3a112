"""Slides (issue 14): every figure exported at 1920×1080 in every look, read back from the
SVG itself — text sizes, margins, how much of the safe area the drawing fills, text that
overlaps text, and the contrast of every text against what is painted behind it."""

from __future__ import annotations

import time

import pytest
from svg_slide import Slide, clashes, drawn, outside_margins, read, shown

from figures import ordered_ids
from figures.canvas import NATIVE, SAFE, SLIDE_SIZES, SLIDE_TEXT, SLIDE_TITLE
from figures.contrast import READABLE, VISIBLE, contrast, over, rgba
from figures.style import THEMES
from publish.export import files, image_browser

W, H = SLIDE_SIZES["1080p"]
PAGES = {"light": ("#ffffff",), "dark": ("#0f172a",), "transparent": ("#ffffff", "#000000")}

pytestmark = pytest.mark.skipif(not image_browser(), reason="SVG export needs Chromium")


# every look in English; Korean (the default, wider) in one of them
LOOKS = [(theme, "en") for theme in THEMES] + [("light", "ko")]


@pytest.fixture(scope="module", params=LOOKS, ids=[f"{t}-{lang}" for t, lang in LOOKS])
def look(request) -> tuple[str, dict[str, Slide], float]:
    """Every figure as a 1080p SVG in one look and language, exported once for all the checks."""
    theme, lang = request.param
    t0 = time.perf_counter()
    slides = {}
    for fid, _, data in files(ordered_ids(), ["svg"], lang=lang, theme=theme, size={"width": W, "height": H}):
        assert not isinstance(data, Exception), f"{fid}: {data}"
        slides[fid] = read(data.decode())
    return theme, slides, time.perf_counter() - t0


# The densest diagrams hold more numbers than a 1080p slide can show at 20 px (A15: about 300
# cells in five lanes): their slide layout gives the largest smallest text it can, measured here.
DENSE = {"A6": 16, "A15": 16, "A17": 17}


def test_every_text_is_large_enough(look):
    _, slides, _ = look
    small = []
    for fid, s in slides.items():
        floor = DENSE.get(fid, SLIDE_TEXT)
        for _, t in shown(s):
            smallest = min(r.size for r in t.runs if r.text.strip())
            if smallest < floor - 0.01 or t.title and t.runs[0].size < SLIDE_TITLE:
                small.append(f"{fid} {t.plain[:30]!r} {smallest:.1f}px")
    assert not small, f"{len(small)} texts too small: {small[:12]}"


def test_each_dense_allowance_is_still_needed(look):
    """The allowances above, each still under the slide minimum (else it should go): exactly the
    dense diagrams stay under it, every one at its measured floor or at most 1 px above."""
    _, slides, _ = look
    smallest = {fid: min(r.size for _, t in shown(s) for r in t.runs if r.text.strip()) for fid, s in slides.items()}
    assert {fid for fid, px in smallest.items() if px < SLIDE_TEXT - 0.01} == set(DENSE)
    assert all(DENSE[fid] - 0.01 <= smallest[fid] <= DENSE[fid] + 1 for fid in DENSE), {f: smallest[f] for f in DENSE}


def test_everything_stays_inside_the_margins(look):
    _, slides, _ = look
    out = [f"{fid} {box}" for fid, s in slides.items() if (box := outside_margins(s))]
    assert not out, out


def fill(s: Slide) -> tuple[float, float]:
    """How much of the drawing area (the safe area under the title) the drawing spans, across and down."""
    boxes = [t.box for _, t in shown(s) if not t.title] + [p.box for _, p in s.paints if drawn(p, s)]
    top = min(b[1] for b in boxes)
    area_w, area_h = W - 2 * SAFE, H - SAFE - top
    return ((max(b[2] for b in boxes) - min(b[0] for b in boxes)) / area_w,
            (max(b[3] for b in boxes) - top) / area_h)


def test_the_drawing_fills_the_safe_area(look):
    theme, slides, _ = look
    poor = {}
    for fid, s in slides.items():
        across, down = fill(s)
        if max(across, down) < 0.9 or min(across, down) < 0.5:
            poor[fid] = f"{across:.0%} × {down:.0%}"
    assert not poor, poor


def test_a24_and_b2_fill_the_slide(look):
    _, slides, _ = look
    for fid in ("A24", "B2"):
        across, down = fill(slides[fid])
        assert max(across, down) >= 0.95 and min(across, down) >= 0.65, (fid, across, down)


def test_no_text_overlaps_another(look):
    _, slides, _ = look
    found = [f"{fid}: {clash}" for fid, s in slides.items() for clash in clashes(s)]
    assert not found, f"{len(found)}: {found[:10]}"


def test_every_text_reads_against_what_is_behind_it(look):
    theme, slides, _ = look
    faint = []
    for fid, s in slides.items():
        for page in PAGES[theme]:
            for i, t in shown(s):
                ratio = s.contrast(i, page)
                if ratio < READABLE:
                    faint.append(f"{fid} on {page}: {t.plain[:24]!r} {ratio:.2f}")
    assert not faint, f"{len(faint)} texts under {READABLE}:1: {faint[:12]}"


def test_a24_divider_is_visible(look):
    theme, slides, _ = look
    s = slides["A24"]
    dashed = [p for _, p in s.paints if p.dashed and p.stroke is not None]
    assert len(dashed) == 1
    for page in PAGES[theme]:  # the divider runs over the page, between the layers
        assert contrast(over(dashed[0].stroke, rgba(page)), rgba(page)) >= VISIBLE, page


def test_titles_sit_at_the_safe_margin(look):
    _, slides, _ = look
    for fid, s in slides.items():
        assert _title_at_margin(s), fid


def _title_at_margin(s: Slide) -> bool:
    """The title starts at the safe area's top-left corner (its letters' top a tenth of its size under it at most)."""
    title = [t for t in s.texts if t.title]
    return bool(title) and abs(title[0].box[0] - SAFE) < 1 and \
        SAFE - 1 <= title[0].box[1] <= SAFE + 0.1 * title[0].runs[0].size


def test_export_time_is_reported(look):
    theme, _, seconds = look
    print(f"\n1080p SVG export and reading of {len(ordered_ids())} figures, {theme}: {seconds:.1f} s")
    assert seconds < 120  # slides of 31 figures are a batch, not an afternoon


@pytest.mark.parametrize("figure_id", ["A15", "A24"])
def test_a_chart_s_slide_png_download_is_the_slide_the_export_draws(figure_id):
    """The ⤓ PNG 1920×1080 button draws the slide layout, not the screen figure stretched."""
    import io

    import numpy as np
    from PIL import Image

    from figures import FIGURES
    from publish.export import figure, read_values, to_bytes
    from ui.charts import file_bytes

    size = dict(zip(("width", "height"), SLIDE_SIZES["1080p"]))
    pixels = [np.asarray(Image.open(io.BytesIO(png)).convert("RGB")) for png in (
        file_bytes(FIGURES[figure_id].build({"lang": "en"}, NATIVE), figure_id, {"lang": "en"}, "png", size, "dark",
                   1.0),
        to_bytes(figure(figure_id, read_values(figure_id, "en"), theme="dark", size=size), "png", **size))]
    assert pixels[0].shape == (size["height"], size["width"], 3)
    assert np.array_equal(*pixels)


# --- font scales: the slide's sizes times the scale, set before margins and the drawing's room -----

SCALED = ["A1", "A14", "A24", "B2"]  # bars with a legend and labels beside them; a play; layer cells; a diagram
SCALES = (1.5, 2.0)


@pytest.fixture(scope="module")
def scaled() -> dict[tuple[str, float], Slide]:
    """Those figures as 1080p SVGs at each font scale (English, light)."""
    out = {}
    for scale in SCALES:
        for fid, _, data in files(SCALED, ["svg"], lang="en", font_scale=scale, size={"width": W, "height": H}):
            assert not isinstance(data, Exception), f"{fid}: {data}"
            out[fid, scale] = read(data.decode())
    return out


@pytest.mark.parametrize("scale", SCALES)
def test_a_font_scale_keeps_the_margins_the_title_and_text_apart(scaled, scale):
    for fid in SCALED:
        s = scaled[fid, scale]
        assert not outside_margins(s), (fid, outside_margins(s))
        assert not clashes(s), (fid, clashes(s))
        assert _title_at_margin(s), fid


@pytest.mark.parametrize("scale", SCALES)
def test_a_font_scale_makes_the_text_larger(scaled, scale):
    """Each text at least 1.15 × the slide's minimum, the title 1.15 × its size: a chart's labels
    grow as far as they fit (A24's to 1.2 ×, A1's to 1.25 ×), a diagram as far as the slide holds it."""
    for fid in SCALED:
        s = scaled[fid, scale]
        smallest = min(r.size for _, t in shown(s) for r in t.runs if r.text.strip())
        title = next(t for t in s.texts if t.title)
        assert smallest >= 1.15 * SLIDE_TEXT and title.runs[0].size >= 1.15 * SLIDE_TITLE, (fid, smallest)


@pytest.mark.parametrize("figure_id", ["A1", "A14"])
def test_nothing_is_drawn_in_the_margins_at_font_scale_2(figure_id):
    """The pixels themselves: no title cut at the top, no label past an edge."""
    import io

    import numpy as np
    from PIL import Image

    from publish.export import figure, read_values, to_bytes

    size = {"width": W, "height": H}
    png = to_bytes(figure(figure_id, read_values(figure_id, "en"), font_scale=2.0, size=size), "png", **size)
    ink = np.abs(np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int) - 255).sum(axis=2) > 30
    edge = SAFE - 1  # a letter's anti-aliased edge may reach a pixel over
    assert not (ink[:edge].any() or ink[-edge:].any() or ink[:, :edge].any() or ink[:, -edge:].any())


# --- colours a look reads ------------------------------------------------------------------------

def test_any_plotly_colour_is_read_with_its_alpha():
    assert rgba("grey") == (128, 128, 128, 1.0) and rgba("DarkSlateGray")[:3] == (47, 79, 79)
    assert rgba("#11223380") == pytest.approx((17, 34, 51, 128 / 255))  # 8-digit hex: its alpha kept
    assert rgba("rgba(1, 2, 3, 0.5)") == (1, 2, 3, 0.5) and rgba("transparent")[3] == 0
    with pytest.raises(ValueError, match="not a colour"):
        rgba("no-such-colour")


@pytest.mark.parametrize("theme", ["dark", "transparent"])
def test_a_look_recolours_named_and_inline_text_colours_but_not_backgrounds(theme):
    import plotly.graph_objects as go

    from figures.style import BACKGROUNDS, apply_look

    fig = go.Figure(layout=dict(template="kv_atlas", annotations=[
        dict(text="named", font_color="grey", showarrow=False),
        dict(text="<span style='background-color:#111111; color:#222222'>inline</span>", showarrow=False)]))
    named, inline = apply_look(fig, theme).layout.annotations
    assert min(contrast(named.font.color, page) for page in BACKGROUNDS[theme]) >= READABLE
    assert "background-color:#111111" in inline.text  # a background is not a text colour
    shown = inline.text.split("; color:")[1].split("'")[0]
    assert shown != "#222222" and min(contrast(shown, page) for page in BACKGROUNDS[theme]) >= READABLE
