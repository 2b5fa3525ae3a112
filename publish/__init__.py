"""Figures written out for people: files in every format (SVG/PNG through kaleido, interactive
HTML, the numbers as CSV/JSON), zips, the talk deck, the play control's frames and videos, the
static site, the catalogue, and the command line that makes them (`python -m publish`).
figures/ builds a figure; this package writes it; nothing in figures/ imports it."""

from .deck import DEFAULT_SIZE as DECK_SIZE
from .deck import MIME as DECK_MIME
from .deck import build as make_deck
from .export import (
    BUILD_LOCK,
    FORMATS,
    IMAGE_FORMATS,
    MAX_FILES,
    figure_file,
    files,
    image,
    image_browser,
    write_zip,
)
from .plotly_js import bundle
from .site import SiteView, blocks

# the front door: other rooms (and pages, scripts, benchmarks) import these names from `publish`, never a module
__all__ = ["BUILD_LOCK", "DECK_MIME", "DECK_SIZE", "FORMATS", "IMAGE_FORMATS", "MAX_FILES", "SiteView", "blocks",
           "bundle", "figure_file", "files", "image", "image_browser", "make_deck", "write_zip"]
