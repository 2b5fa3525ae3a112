"""The static site (publish/site/) and the app draw the same article (article/): each section's
headings, texts, metrics and figures in the same order; on the site every number at every context
stop and precision is core's, and the control combinations it counts as one state show one thing."""

from __future__ import annotations

import re
from dataclasses import replace

import plotly.io as pio
import pytest
from PIL import Image
from streamlit.testing.v1 import AppTest

from article import SECTIONS, Chart, Heading, Metrics, Table, Text, Title
from browser_harness import REPO_ROOT as ROOT
from core import Precision
from core.cost import LAYOUT_PRECISIONS
from core.summary import summarise
from core.units import fmt_bytes, fmt_exact
from figures import SPECS
from figures.canvas import NATIVE
from figures.knobs import CONTEXT, CONTEXT_STOPS, PRECISION
from i18n import LANGS
from publish.site import (
    COMBOS,
    PRESET_COMBOS,
    Figures,
    SiteView,
    address,
    blocks,
    lead,
    page,
    precision,
    precision_classes,
    write_files,
    write_page,
    write_previews,
)
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
            shown.append((kind, re.sub(r"\]\(([\w.-]+)\?[^)]*\)", lambda m: f"]({'overview' if m[1] == '.' else m[1]})",
                                       e.value).replace("&lt;", "<")))  # in the app a section link carries the view,
            # and prose is drawn with HTML on, its '<' escaped (article.prose.notation)
        elif kind == "metric":
            shown.append(("metric", e.label, e.value))
        elif kind == "bidi_component" and e.proto.component_name == COMPONENT:
            shown.append(("chart",))
        elif kind in ("dataframe", "arrow_data_frame", "table", "arrow_table"):  # a grid, or a table wrapped whole
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
                out.append(("markdown" if style == "prose" else style, text))  # prose: st.markdown
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
    site = site_elements(blocks(slug, SiteView(lang, CONTEXT.default, Precision()), app=True))
    if slug == "any-model":  # its toggles draw more: the site's blocks in the app's order
        found = iter(app)
        assert all(element in found for element in site), (site, app)
    else:
        assert app == site
    assert site.count(("chart",)) >= (slug != "glossary")  # every section but the glossary draws a figure


@pytest.fixture(scope="module")
def overview_en():
    return page("overview", "en", Figures("en"))


def shown(p, el: str, k: int, stop: int):
    """What a page's block shows in precision class `k` at a context stop (as site.js applies it)."""
    if el in p.classes[k]:
        d = p.classes[k][el]
        return d["values"][d["at"][stop]]
    return re.fullmatch(f'<div id="{el}">(.*)</div>', p.html[int(el[1:])], re.S)[1]


def test_the_site_ships_every_context_stop_of_both_presets(overview_en):
    assert [overview_en.combos["|".join(c)] for c in PRESET_COMBOS] == [0, 1] and overview_en.inline == {0, 1}
    assert all(len(d["at"]) == len(CONTEXT_STOPS) for c in overview_en.classes for d in c.values())
    assert len(COMBOS) == 2 * (1 + len(LAYOUT_PRECISIONS)) ** 3  # each component: auto or a format


def test_every_number_on_the_site_is_cores_at_every_state(overview_en):
    """The Overview's metrics and table cells at each stop of each preset are what core computes there."""
    metrics, table = (next(f"b{i}" for i, h in enumerate(overview_en.html) if mark in h)
                      for mark in ('class="metrics"', 'class="table"'))  # not the prose's tables
    for preset in ("deployed", "bf16"):
        k = overview_en.combos[f"{preset}|auto|auto|auto"]
        for stop, context in enumerate(CONTEXT_STOPS):
            rows = [summarise(m, context, Precision(preset)) for m in ("mha", "v2", "v3.2", "v4-flash", "v4.1-flash")]
            s = rows[-1]
            for value in (fmt_exact(s.storage.total), fmt_bytes(s.cache.total), fmt_bytes(s.read.total)):
                assert f'<div class="value">{value}</div>' in shown(overview_en, metrics, k, stop), (context, value)
            cells = re.findall(r'<td class="num" data-v="[\d.]+">([\d,.]+)</td>', shown(overview_en, table, k, stop))
            expected = [f"{x:,}" for r in rows for x in (r.storage.total, r.local_kv, r.cache.total, r.read.kv,
                                                         r.read.index_key, r.read.total)]
            assert cells == expected, (context, preset)


def test_a1_on_the_site_follows_the_context():
    """A1 differs between states: a figure per stop, the one at 1M tokens labelled with core's read
    for V4.1-Flash there."""
    figures = Figures("en")
    overview = page("overview", "en", figures)
    el = next(c["el"] for c in overview.charts if c["id"] == "A1")
    assert len(overview.classes[0][el]["values"]) == len(CONTEXT_STOPS)
    at = shown(overview, el, 0, CONTEXT_STOPS.index(1 << 20))
    read = fmt_bytes(summarise("v4.1-flash", 1 << 20, Precision()).read.total)
    assert read in figures.json[at[0]] and read in at[2]  # the figure and its text alternative


@pytest.mark.parametrize("slug", SECTIONS)
def test_the_combinations_a_page_counts_as_one_state_show_one_thing(slug):
    """Every per-component combination in a precision class shows the class's texts, numbers and
    figures (a model the section prices but does not declare would fail here), and combinations
    in two classes differ."""
    combos, reps = precision_classes(slug, every=True)
    members = {}
    for combo in COMBOS:
        members.setdefault(combos["|".join(combo)], []).append(precision(combo))
    assert sorted(members) == list(range(len(reps)))

    def texts(p: Precision) -> list:  # a table's file name says the preset: one name per class is right
        return [replace(b, download=None) if isinstance(b, Table) else b
                for b in blocks(slug, SiteView("en", 1 << 20, p)) if not isinstance(b, Chart)]

    def seen(p: Precision) -> list:
        shown = blocks(slug, SiteView("en", 1 << 20, p))
        return texts(p) + [pio.to_json(SPECS[b.figure_id].build(b.knobs, NATIVE).figure, validate=False)
                           for b in shown if isinstance(b, Chart) and "precision" in b.knobs]

    looks = [seen(reps[k]) for k in sorted(members)]
    for k, ps in members.items():
        assert all(texts(p) == texts(reps[k]) for p in ps), (slug, k)
        assert seen(ps[-1]) == looks[k], (slug, k, ps[-1])
    if len(looks) > 1:
        assert len({repr(x) for x in looks}) == len(looks), slug


def test_a_shared_link_shows_the_pages_lead_figure(tmp_path):
    """Built with --images and --base-url: the page's preview tags point at its lead figure as a
    1200 × 630 PNG, by an absolute URL under the base, beside its canonical link; each figure's SVG
    and PNG are there to download."""
    figures = Figures("en")
    p = page("v3-2-dsa", "en", figures, images=True)
    write_page(tmp_path, p, figures, "https://example.org/kv/", preview=True)
    write_files(tmp_path, p, figures, images=True)
    write_previews(tmp_path, ["v3-2-dsa"], ["en"])
    html = (tmp_path / "en" / "v3-2-dsa.html").read_text(encoding="utf-8")
    tags = dict(re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">', html))
    assert tags["og:image"] == tags["twitter:image"] == "https://example.org/kv/en/files/v3-2-dsa/preview.png"
    assert (tags["og:image:width"], tags["og:image:height"], tags["twitter:card"]) == ("1200", "630",
                                                                                       "summary_large_image")
    assert tags["og:url"] == "https://example.org/kv/en/v3-2-dsa.html"
    assert '<link rel="canonical" href="https://example.org/kv/en/v3-2-dsa.html">' in html
    with Image.open(tmp_path / "en" / "files" / "v3-2-dsa" / "preview.png") as preview:
        assert (preview.format, preview.size) == ("PNG", (1200, 630))
    assert lead("v3-2-dsa", "en").figure_id == p.charts[0]["id"] == "A7"
    for c in p.charts:
        for fmt in ("svg", "png", "csv", "html"):
            assert (tmp_path / "en" / "files" / "v3-2-dsa" / f"kv-atlas-{c['id']}.{fmt}").stat().st_size, (c, fmt)


@pytest.mark.parametrize("lang", LANGS)
def test_the_address_is_written_and_read_as_the_apps_links_are(lang):
    """What site.js writes for each context stop and each precision choice is Knob.dump's (nothing
    for a default), and what it reads back for every form Knob.read takes is that choice."""
    said = address(lang)
    assert said["ctx"]["at"] == [CONTEXT.dump(n, lang).get("ctx") for n in CONTEXT_STOPS]
    assert said["ctx"]["at"][CONTEXT_STOPS.index(CONTEXT.default)] is None and "1M" in said["ctx"]["at"]
    assert [p["keys"][0] for p in said["parts"]] == ["prec", "main", "ikey", "local"]
    for i, part in enumerate(said["parts"]):
        knob = PRECISION.parts[i]
        for choice, text in part["write"].items():
            combo = [k.default for k in PRECISION.parts]
            combo[i] = choice
            assert text == PRECISION.dump(precision(tuple(combo)), lang).get(knob.key), (knob.key, choice)
            for form in {choice, *(knob.display(choice, lg) for lg in LANGS)}:
                assert part["read"][form.lower()] == choice
                assert knob.read({knob.key: form})[0] == choice  # the app reads it alike


def test_a_link_previews_description_is_plain_text_that_the_head_escapes_once():
    from publish.site import plain

    said = plain(Text('The "deployed" format & **FP8** <sub>x</sub>', style="prose"))
    assert said == 'The "deployed" format & FP8 x'  # markdown-it's entities undone: the template escapes once


def test_every_text_the_templates_write_is_escaped_once():
    from publish.site import markup

    hostile = '<script>"x" & y</script>'
    table = Table({hostile: [hostile], "n": [1234]}, numbers=("n",), download=(hostile, f'{hostile}.csv'),
                  name=hostile)
    for block in (Title(hostile), Heading(hostile, 2), Text(hostile, "caption"), Metrics(((hostile, hostile),)),
                  table):
        written = markup.block(block, "en")
        assert "<script>" not in written and "&lt;script&gt;" in written, block
        assert "&amp;lt;" not in written  # not twice
    assert '<td class="num" data-v="1234">1,234</td>' in markup.block(table, "en")
    # a link in a caption is a link, its text escaped
    assert markup.block(Text("see https://example.org/a?b=1&c=2", "caption"), "en") == (
        '<p class="caption">see <a href="https://example.org/a?b=1&amp;c=2">https://example.org/a?b=1&amp;c=2</a></p>')


def test_the_site_names_the_controls_only_the_app_has_and_links_to_their_figure_there():
    """Every control a section asks for that the site lacks becomes a line naming it, before the figure
    it moves; with the app's address that line links to the figure there, without it says no more."""
    from publish.site.markup import app_controls
    from publish.site.states import AppControls

    site = blocks("v2-mla", SiteView("en", CONTEXT.default, Precision()))
    lines = [b for b in site if isinstance(b, AppControls)]
    assert lines and all(b.figure_id in SPECS for b in lines)
    a5 = next(b for b in lines if b.figure_id == "A5")
    assert {k.name for k in a5.knobs} >= {"seed", "tokens"}
    at = site.index(a5)
    assert next(b for b in site[at:] if isinstance(b, Chart)).figure_id == "A5"  # the figure right after it
    linked = app_controls(a5, "v2-mla", "en", "https://app.example/kv/")
    assert 'href="https://app.example/kv/v2-mla"' in linked and 'data-figure="A5"' in linked
    assert "href" not in app_controls(a5, "v2-mla", "en", None)
    assert 'href="https://app.example/"' in app_controls(a5, "overview", "en", "https://app.example")  # the app's home
    assert not [b for b in blocks("v2-mla", SiteView("en", CONTEXT.default, Precision()), app=True)
                if isinstance(b, AppControls)]  # the app draws the controls themselves


def test_a_prose_link_to_a_section_is_the_sites_page_carrying_the_view():
    from publish.site.markup import block

    said = "See [V2 · MLA](v2-mla), [a source](https://example.org/v2-mla) and [x](nowhere)."
    html = block(Text(said, "prose"), "en")
    assert '<a href="v2-mla.html" data-view>V2 · MLA</a>' in html
    assert 'href="https://example.org/v2-mla"' in html and 'href="nowhere"' in html



@pytest.mark.parametrize("lang", LANGS)
def test_the_glossary_is_a_list_of_terms_on_the_site(lang):
    from article.glossary import terms
    from publish.site.markup import block

    html = "".join(block(b, lang) for b in blocks("glossary", SiteView(lang, CONTEXT.default, Precision()))
                   if isinstance(b, Text))
    assert html.count("<li><strong>") == len(terms()) and "**" not in html
