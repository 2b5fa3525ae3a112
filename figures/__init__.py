"""Figures: builders (plotly charts, or diagrams as data the layout pass draws), one typed registry.

`FIGURES` maps each figure id of the catalogue (docs/catalogue.md: "A1" … "A27",
"B1" … "B4") to a `FigureSpec`, whose `build(values, canvas)` draws it with those knob values for
a canvas (NATIVE: the figure's own sizes). `EXTRAS` holds the charts the article describes in
text but does not number; `SPECS` both. This module is the room's front door (`__all__`).
"""

from .preload import preload

preload()  # before plotly builds the template: see preload.py

from . import style  # noqa: E402, F401  (registers the shared template)
from .animation import animated, at_step, play_spec, slide_stills, steps, stills  # noqa: E402
from .builders.kv_bars import generation_models  # noqa: E402
from .builders.planner import gpu_of  # noqa: E402
from .builders.reconcile import variant_name  # noqa: E402
from .canvas import (  # noqa: E402
    NATIVE,
    SCREEN_TEXT,
    SCREEN_WIDTHS,
    SLIDE_SIZES,
    Canvas,
    narrow,
    slide_size_of,
    width_class,
)
from .contrast import hex_colour, readable, rgba  # noqa: E402
from .describe import description  # noqa: E402
from .knobs import (  # noqa: E402
    CONTEXT,
    CONTEXT_STOPS,
    FONT_SCALE,
    LANG,
    PRECISION,
    THEME,
    UNITS,
    ChoiceKnob,
    FloatKnob,
    IntKnob,
    Invalid,
    Knob,
    MatrixKnob,
    PrecisionKnob,
    TupleKnob,
    help_fields,
)
from .made import Built, Incompatible  # noqa: E402
from .matrix import Box  # noqa: E402
from .registry import EXTRAS, FIGURES, PLAYS, SPECS, FigureSpec, ordered_ids  # noqa: E402
from .style import BACKGROUNDS, MUTED, TEMPLATE, apply_look, heading_parts, plotly_config  # noqa: E402
from .text import FONT, WIDTHS_FILE, plain, text_px  # noqa: E402

# the front door: other rooms (and pages, scripts, benchmarks) import these names from `figures`, never a module
__all__ = [
    "BACKGROUNDS", "CONTEXT", "CONTEXT_STOPS", "EXTRAS", "FIGURES", "FONT", "FONT_SCALE", "LANG", "MUTED", "NATIVE",
    "PLAYS", "PRECISION", "SCREEN_TEXT", "SCREEN_WIDTHS", "SLIDE_SIZES", "SPECS", "TEMPLATE", "THEME", "UNITS",
    "WIDTHS_FILE", "Box", "Built", "Canvas", "ChoiceKnob", "FigureSpec", "FloatKnob", "Incompatible", "IntKnob",
    "Invalid", "Knob", "MatrixKnob", "PrecisionKnob", "TupleKnob", "animated", "apply_look", "at_step",
    "description", "generation_models", "gpu_of", "heading_parts", "help_fields", "hex_colour", "narrow",
    "ordered_ids", "plain", "play_spec", "plotly_config", "readable", "rgba", "slide_size_of", "slide_stills",
    "steps", "stills", "text_px", "variant_name", "width_class",
]
