"""A1 as pixels: the rendered bars have the lengths core's numbers give them on the log axes
(a guard for changes to how A1 is drawn, e.g. its labels becoming text traces)."""

import io
import math

import numpy as np
import pytest
from PIL import Image

import core
from figures import FIGURES
from figures.canvas import NATIVE
from figures.style import ROLE_COLOURS
from publish.export import image


def bar_extents(png: bytes) -> list[list[tuple[int, int]]]:
    """Per panel (left, right), each bar's (start, end) pixel column, top row first."""
    pixels = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    colours = [np.array([int(c[i:i + 2], 16) for i in (1, 3, 5)]) for c in
               (ROLE_COLOURS["main_kv"], ROLE_COLOURS["index_key"])]
    bar = np.any([np.abs(pixels - c).sum(-1) < 40 for c in colours], axis=0)
    half = bar.shape[1] // 2
    panels = []
    for part in (bar[:, :half], bar[:, half:]):
        rows = np.flatnonzero(part.sum(1) > 20)
        bars = np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1)
        panels.append([(int(np.flatnonzero(part[b[len(b) // 2]]).min()),
                        int(np.flatnonzero(part[b[len(b) // 2]]).max())) for b in bars])
    return panels


@pytest.mark.parametrize("context", [1 << 17, 1 << 20])
def test_a1_bars_are_as_long_as_their_log_values(context):
    fig = FIGURES["A1"].build(dict(context=context), NATIVE).figure
    png = image(fig, "png", width=1200, height=650)
    rows = [core.summary.summarise(m, context) for m in core.A1_MODELS]
    panels = bar_extents(png)
    for axis, extents, totals in ((fig.layout.xaxis, panels[0], [r.storage.total for r in rows]),
                                  (fig.layout.xaxis2, panels[1], [r.read.total for r in rows])):
        extents = [e for e in extents if e[0] - min(s for s, _ in extents) < 3]  # not the legend's swatches
        assert len(extents) == len(rows)
        lo, hi = axis.range
        where = np.array([(math.log10(total) - lo) / (hi - lo) for total in totals])  # share of the axis
        ends = np.array([end for _, end in extents])
        slope, start = np.polyfit(where, ends, 1)  # a bar ends at axis start + share × axis width
        assert np.abs(ends - (start + slope * where)).max() < 1.5  # px: every bar, one straight line
        assert abs(start - min(s for s, _ in extents)) < 3  # and every bar starts at the axis start
