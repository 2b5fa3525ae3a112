"""Every figure built for a phone's column, a desktop's column and a slide, at each text size: what `Built` says
beside the drawing — its title, the text alternative and the CSV — comes from its fields alone (what the builder
made), is the same on every canvas, and agrees with what the drawing shows."""

from __future__ import annotations

import io

import pandas as pd
import pytest

from figures import EXTRAS, FIGURES
from figures.canvas import NATIVE, SLIDE_SIZES, Canvas
from figures.describe import description
from figures.knobs import FONT_SCALE
from figures.layout import draw_alike, one_line
from figures.style import heading_parts
from publish.export import numbers, to_bytes

SPECS = {**FIGURES, **EXTRAS}
CANVASES = {"phone": lambda s: Canvas(column=360, font_scale=s), "desktop": lambda s: Canvas(column=900, font_scale=s),
            "slide": lambda s: Canvas(slide=SLIDE_SIZES["1080p"], font_scale=s)}


def values(fid: str) -> dict:
    spec = SPECS[fid]
    return {**spec.defaults, "lang": "en"} if "lang" in spec.defaults else spec.defaults


@pytest.mark.parametrize("fid", list(SPECS))
def test_builts_fields_alone_give_the_title_the_text_alternative_and_the_csv(fid):
    spec, asked = SPECS[fid], values(fid)
    native = spec.build(asked, NATIVE)
    drawn = draw_alike([spec.made(asked)], NATIVE)[0].figure  # the builder's own heading, before any fitting
    title, subtitle = (one_line(part) for part in heading_parts(drawn.layout.title.text))
    assert native.title == title and subtitle in native.subtitle  # a corner's note may be said there too
    assert native.title and native.numbers and native.columns
    for name, canvas in CANVASES.items():
        for scale in FONT_SCALE.choices:
            built = spec.build(asked, canvas(scale))
            said = (built.title, built.subtitle, built.captions, built.columns)
            assert said == (native.title, native.subtitle, native.captions, native.columns), (name, scale)
            assert pd.DataFrame(built.numbers).equals(pd.DataFrame(native.numbers)), (name, scale)  # NaN as NaN
            assert description(built, "en").startswith(built.title)
            table = pd.read_csv(io.BytesIO(to_bytes(built, "csv")))
            assert tuple(table.columns) == built.columns and len(table) == len(built.numbers)
            assert numbers(built).shape == (len(built.numbers), len(built.columns))


ON_FILLS = ["A1", "A3", "A13", "A24", "A27"]  # a value in its bar, boxes' names, badges, cells, layers' modes


@pytest.mark.parametrize("fid", ON_FILLS)
@pytest.mark.parametrize("theme", ["dark", "transparent"])
def test_text_on_a_fill_keeps_its_drawers_colour_in_every_look_and_page_text_takes_the_looks(fid, theme):
    """The drawer says which texts sit on a fill (figures.style.OnFill, by index): a look leaves exactly those
    alone, and recolours the others for its page."""
    spec, asked = SPECS[fid], values(fid)
    on_fill = draw_alike([spec.made(asked)], NATIVE)[0].on_fill
    light, looked = (spec.build(asked, Canvas(theme=look)).figure for look in ("light", theme))
    notes = list(zip(light.layout.annotations, looked.layout.annotations))
    assert on_fill.annotations or on_fill.traces
    assert all(notes[i][0].font.color == notes[i][1].font.color for i in on_fill.annotations)
    assert all(light.data[i].textfont.color == looked.data[i].textfont.color for i in on_fill.traces)
    assert on_fill.traces or "heatmap" not in {tr.type for tr in light.data}
    page = [(a.font.color, b.font.color) for i, (a, b) in enumerate(notes) if i not in on_fill.annotations] + \
        [(str(a.textfont.color), str(b.textfont.color)) for i, (a, b) in enumerate(zip(light.data, looked.data))
         if "textfont" in a and i not in on_fill.traces]
    assert any(before != after for before, after in page)  # the muted labels took the look's colour
    assert all(b.bgcolor is None for i, (_, b) in enumerate(notes) if i not in on_fill.annotations)
