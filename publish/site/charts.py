"""Each figure a site's pages show, built once per set of knobs for the site's two columns and kept
as JSON (orjson fragments: serialised once, placed into a page's data as they are)."""

from __future__ import annotations

import orjson
import plotly.graph_objects as go
import plotly.io as pio

from article import Chart
from figures import SPECS, UNITS, Built, Canvas, animated, description

CANVASES = (900, 360)  # px: the site's column on a desktop, on a phone (figures/canvas.py's width classes)
# the charts' shared template, shipped once per page rather than in every figure
SHARED_TEMPLATE = go.Figure(layout=dict(template="kv_atlas")).to_plotly_json()["layout"]["template"]


class Figures:
    """Each figure a site shows in a language, built once per set of knobs for the site's columns:
    as JSON, and its text alternative."""

    def __init__(self, lang: str):
        self.lang = lang
        self.json: list[str] = []  # what a page draws, per canvas, as JSON: a figure that plays, a frame per step
        self.still: list[Built] = []  # the figure on a desktop: its downloads and numbers
        self.text: list[tuple[str, str]] = []  # its title and description (figures/describe.py)
        self.played: dict[int, dict] = {}
        self._at: dict = {}

    def add(self, chart: Chart) -> tuple[int, str, str]:
        """The figure's index, title and description."""
        key = (chart.figure_id, tuple(sorted(chart.knobs.items())))
        if key not in self._at:
            n = self._at[key] = len(self.json)
            shown = {}
            for width in CANVASES:
                column = Canvas(column=width)
                built = SPECS[chart.figure_id].build(chart.knobs, column)
                plays = SPECS[chart.figure_id].play
                played = animated(chart.figure_id, canvas=column, **chart.knobs) if plays else None
                shown[str(width)] = orjson.Fragment(_json(played or built.figure))
                if width == CANVASES[0]:
                    self.still.append(built)
                    if played:
                        self.played[n] = played
            self.json.append(orjson.dumps(shown).decode())
            self.text.append((self.still[n].title, description(self.still[n], self.lang, UNITS.default)))
        n = self._at[key]
        return (n, *self.text[n])

    def subset(self, used) -> dict[str, orjson.Fragment]:
        """The figures a page or a state file ships, by index."""
        return {str(n): orjson.Fragment(self.json[n]) for n in sorted(used)}


def _json(fig: go.Figure | dict) -> str:
    """A figure (or a played one's dict) as JSON, without the template every page ships once
    (site.js puts it back)."""
    plain = fig if isinstance(fig, dict) else fig.to_plotly_json()
    if plain["layout"].get("template") == SHARED_TEMPLATE:
        plain["layout"] = {k: v for k, v in plain["layout"].items() if k != "template"}
    return pio.to_json(plain, validate=False)
