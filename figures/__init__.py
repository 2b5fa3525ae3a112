"""Figures: builders (plotly charts, or diagrams as data the layout pass draws), one typed registry.

`FIGURES` maps each figure id of the catalogue (docs/catalogue.md: "A1" … "A27",
"B1" … "B4") to a `FigureSpec`; calling it with no arguments draws the article's figure,
keyword arguments are its knobs. `EXTRAS` holds the charts the article describes in text
but does not number; `SPECS` both.
"""

from .preload import preload

preload()  # before plotly builds the template: see preload.py

from . import style  # noqa: E402, F401  (registers the shared template)
from .registry import EXTRAS, FIGURES, SPECS, FigureSpec, ordered_ids  # noqa: E402

__all__ = ["EXTRAS", "FIGURES", "SPECS", "FigureSpec", "ordered_ids"]
