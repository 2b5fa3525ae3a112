"""The article as a static site: one page per section (article/) and language, the same blocks the
app draws, written as HTML. The controls work without a server: every state they reach is computed
by core here and shipped as data (assets/site.js swaps texts and redraws charts with Plotly.react).

A state is a context stop and a precision class: the control combinations that give the section's
models the same formats (core.role_layouts). The presets' classes ship in the page; with
`precisions`, every per-component combination is built too, each further class in a file of its own
that the page loads when the reader picks it. The address carries the view with the app's link keys
(figures/knobs.py), so a link opens the state it was copied at.

`python -m publish site --out site/ [--base-url URL] [--images] [--precisions]` is the whole deploy:
it fetches the partial plotly.js when static/ lacks it and renders each page's link-preview image
(its lead figure) where a Chrome or Chromium is; without one it builds the rest and says what it
left out.

By job: states.py (the states and the blocks in each), charts.py (each figure built once, as JSON),
markup.py and templates/ (the HTML, through Jinja2), data.py (what a page hands its script),
pages.py (a section's page), build.py (writing it all, a process per language)."""

from .build import build, preview_png, write_classes, write_files, write_page, write_previews
from .charts import Figures
from .data import address
from .markup import plain
from .pages import Page, lead, page
from .states import COMBOS, PRESET_COMBOS, SiteView, blocks, precision, precision_classes

__all__ = ["COMBOS", "PRESET_COMBOS", "Figures", "Page", "SiteView", "address", "blocks", "build", "lead", "page",
           "plain", "precision", "precision_classes", "preview_png", "write_classes", "write_files", "write_page",
           "write_previews"]
