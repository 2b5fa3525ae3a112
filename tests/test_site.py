"""The static site (publish/site.py) and the app draw the same article (article/): each section's
headings, texts, metrics and figures in the same order; on the site every number at every context
stop and preset is core's."""

from __future__ import annotations

import re

import pytest
from streamlit.testing.v1 import AppTest

from article import SECTIONS, Chart, Heading, Metrics, Table, Text, Title
from browser_harness import REPO_ROOT as ROOT
from core import Precision
from core.summary import summarise
from core.units import fmt_bytes, fmt_exact
from figures.knobs import CONTEXT, CONTEXT_STOPS
from publish.site import DEFAULT_STATE, STATES, Figures, Reading, blocks, page
from ui.plot import COMPONENT


def app_elements(at: AppTest) -> list[tuple]:
    """What a page shows, in order: title, headings, texts, metrics, charts and tables."""
    def walk(node):
        kids = getattr(node, "children", None)
        if isinstance(kids, dict):
            for k in sorted(kids):
                yield from walk(kids[k])
        else:
            yield node

    shown = []
    for e in walk(at.main):
        kind = getattr(e, "type", "")
        if kind in ("title", "header", "subheader", "caption", "markdown", "info", "error"):
            shown.append((kind, e.value))
        elif kind == "metric":
            shown.append(("metric", e.label, e.value))
        elif kind == "bidi_component" and e.proto.component_name == COMPONENT:
            shown.append(("chart",))
        elif kind in ("dataframe", "arrow_data_frame"):
            shown.append(("table",))
    return shown


def site_elements(shown: list) -> list[tuple]:
    out = []
    for b in shown:
        match b:
            case Title(text):
                out.append(("title", text))
            case Heading(text, level):
                out.append(("header" if level == 2 else "subheader", text))
            case Text(text, style):
                out.append((style, text))
            case Metrics(items):
                out += [("metric", label, value) for label, value in items]
            case Chart():
                out.append(("chart",))
            case Table():
                out.append(("table",))
    return out


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("slug", SECTIONS)
def test_the_app_and_the_site_show_a_section_alike(slug, lang):
    """At the defaults, the app's page shows the site's blocks — title, headings, texts, metrics,
    figures, tables — in the same order (the app's own tools, e.g. Any model's toggles, besides)."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["lang"] = lang
    at.switch_page(f"pages/{slug}.py")
    at.run()
    assert not at.exception
    app = app_elements(at)
    site = site_elements(blocks(slug, Reading(lang, CONTEXT.default, Precision()), tools=False))
    if slug == "any-model":  # its toggles draw more: the site's blocks in the app's order
        found = iter(app)
        assert all(element in found for element in site), (site, app)
    else:
        assert app == site
    assert site.count(("chart",)) >= 1


@pytest.fixture(scope="module")
def overview_en():
    return page("overview", "en", Figures("en"))


def test_the_site_ships_a_state_for_every_context_stop_and_preset(overview_en):
    assert len(STATES) == len(CONTEXT_STOPS) * 2
    assert STATES[DEFAULT_STATE] == (CONTEXT.default, "deployed")
    assert all(len(d["at"]) == len(STATES) for d in overview_en.dynamic)


def test_every_number_on_the_site_is_cores_at_every_state(overview_en):
    """The Overview's metrics and table cells at each state are what core computes there."""
    metrics = next(d for d in overview_en.dynamic if 'class="metrics"' in d["values"][0])
    table = next(d for d in overview_en.dynamic if "<table>" in d["values"][0])
    for i, (context, preset) in enumerate(STATES):
        rows = [summarise(m, context, Precision(preset)) for m in ("mha", "v2", "v3.2", "v4-flash", "v4.1-flash")]
        shown = metrics["values"][metrics["at"][i]]
        s = rows[-1]
        for value in (fmt_exact(s.storage.total), fmt_bytes(s.cache.total), fmt_bytes(s.read.total)):
            assert f'<div class="value">{value}</div>' in shown, (context, preset, value)
        cells = re.findall(r'<td class="num" data-v="[\d.]+">([\d,.]+)</td>', table["values"][table["at"][i]])
        expected = [f"{x:,}" for r in rows for x in (r.storage.total, r.local_kv, r.cache.total, r.read.kv,
                                                     r.read.index_key, r.read.total)]
        assert cells == expected, (context, preset)


def test_a1_on_the_site_follows_the_context():
    """A1 differs between states: a figure per state, the one at 1M tokens labelled with core's read
    for V4.1-Flash there."""
    figures = Figures("en")
    overview = page("overview", "en", figures)
    a1 = next(d for d in overview.dynamic if d["kind"] == "chart")
    assert len(a1["values"]) == len(STATES)
    at = a1["values"][a1["at"][STATES.index((1 << 20, "deployed"))]]
    read = fmt_bytes(summarise("v4.1-flash", 1 << 20, Precision()).read.total)
    assert read in figures.json[at[0]] and read in at[2]  # the figure and its text alternative
