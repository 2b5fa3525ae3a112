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
    drawn = draw_alike([spec.made(asked, NATIVE)], NATIVE)[0]  # the builder's own heading, before any fitting
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
