"""The matrix-diagram renderer shared by every mechanism figure.

A diagram is data (`model`): lanes of boxes (matrices) and operator glyphs, read left to right,
computed from a mechanism run by the figure's builder. Conventions of the article: activations
have rows = tokens, columns = features; weights are [input, output]; a box's width shows only
the *order* of its column size among the diagram's boxes (not proportional); learned weights are
purple; cached boxes are marked. A box may carry its values, drawn as a heatmap with the numbers
inside.

`geometry` measures a diagram's parts for a text size (pure functions); `drawing` draws them with
plotly; `fit` chooses, for a canvas (figures/canvas.py), the text size and the packing of lane
groups: natively one column of lanes at fixed sizes; on a page column text at least 11 px and
lanes that fit the column; on a slide text larger relative to the boxes, cells as wide as their
numbers, lane groups packed in rows so that the diagram fills the slide with every text at least
the slide's minimum times its font scale. `render_alike` lays several diagrams out as one (an
animation's steps on one canvas).
"""

from .fit import render_alike
from .geometry import shape_label, text_width
from .model import Box, Diagram, Op

__all__ = ["Box", "Diagram", "Op", "render_alike", "shape_label", "text_width"]
