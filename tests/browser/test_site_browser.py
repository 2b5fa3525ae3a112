"""The static site (publish/site/), built into a temporary folder and served by `python -m
http.server` on loopback, read in Chromium: every page draws every figure with no console error and
no English interface word on a Korean page, every link resolves, the context and precision controls
move the figures and the numbers to core's values, the address carries the view, the language link
lands on the same section, each page ends with its neighbours and carries its link-preview tags; on
a phone the header and the controls take a quarter of the first screen at most and a deep link
lands below the bar. One build (conftest's `site`, shared with the export test), one server, one
browser."""

from __future__ import annotations

import re
import urllib.request
from contextlib import closing
from urllib.parse import parse_qs, urlsplit

import pytest

from article import SECTIONS
from browser_harness import axe_violations, chart, chart_problems, chart_title, measure
from core import Precision, get
from core.summary import summarise
from core.units import fmt_bytes, fmt_exact
from figures.knobs import CONTEXT, CONTEXT_STOPS, PRECISION
from figures.registry import ALL_MODELS, SPECS
from i18n import LANGS, t

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)"
                             ).expect


PAGES = [f"{lang}/{slug}.html" for lang in LANGS for slug in SECTIONS]
FIGURELESS = {"glossary"}  # sections that draw no figure (a page of words)
PHONE_SCREEN = 664  # px: an iPhone 13's first screen in Chromium (its viewport)
# words of the interface, not of the subject (KV, FP8, top-k, CSV… are terms a Korean page keeps)
INTERFACE_WORDS = ("Sections", "Section", "Menu", "Previous", "Next", "Download", "Context", "Precision", "deployed",
                   "decimal", "binary", "Choose options", "auto", "Copy link", "Link to", "Play", "Pause", "Zoom",
                   "Autoscale", "Reset axes", "Per-component", "Shorter", "Longer", "tokens")
MODEL_NAMES = sorted({get(m).name for m in ALL_MODELS}, key=len, reverse=True)
# what a reader sees or hears of a page: its text, its names for a screen reader, the toolbar's tips,
# a closed menu's items
_SAID_JS = """() => [document.title, document.body.innerText,
  ...Array.from(document.querySelectorAll('[aria-label], [title], [data-title], [alt]'),
                e => ['aria-label', 'title', 'data-title', 'alt'].map(a => e.getAttribute(a) || '').join(' ')),
  ...Array.from(document.querySelectorAll('details'), d => d.textContent)].join('\\n')"""


def opened(browser, url: str, phone=None):
    context = browser.new_context(**(phone or {"viewport": {"width": 1400, "height": 1000}}))
    page = context.new_page()
    errors = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.goto(url)
    return context, page, errors


@pytest.mark.parametrize("path", PAGES)
def test_every_page_draws_every_figure_without_an_error(site, browser, path):
    url, _ = site
    context, page, errors = opened(browser, f"{url}/{path}")
    with closing(context):
        ids = page.locator("figure.chart").evaluate_all("fs => fs.map(f => f.id)")
        assert bool(ids) != (path.split("/")[1].removesuffix(".html") in FIGURELESS)
        for figure_id in ids:
            plot = chart(page, figure_id)  # drawn, or it fails with its title
            # with what its figure holds: traces, or a matrix diagram's shapes and labels
            assert plot.evaluate("d => d.data.length + (d.layout.shapes || d.layout.annotations || []).length"), \
                chart_title(plot)
        assert not errors, errors
        if path.startswith("ko/"):  # every chart drawn: their words are on the page too
            said = page.evaluate(_SAID_JS)
            for name in MODEL_NAMES:  # a model's own name is no interface word ("Qwen3-Next")
                said = said.replace(name, "")
            found = {w for w in INTERFACE_WORDS  # a word, not part of a name (swa_full_tokens_ratio)
                     if re.search(rf"(?<![A-Za-z_]){re.escape(w)}(?![A-Za-z_])", said, re.I)}
            assert not found, f"English interface words on {path}: {sorted(found)}"


def test_every_link_resolves(site):
    url, out = site
    for path in PAGES:
        html = (out / path).read_text(encoding="utf-8")
        base = f"{url}/{path.rsplit('/', 1)[0]}/"
        for href in re.findall(r'(?:href|src)="([^"#:]+)"', html):
            with urllib.request.urlopen(urllib.parse.urljoin(base, href)) as r:
                assert r.status == 200, (path, href)


def test_the_context_control_moves_a1_and_the_numbers_to_cores_values(site, browser):
    url, _ = site
    context, page, errors = opened(browser, f"{url}/en/overview.html")
    with closing(context):
        chart(page, "A1")
        for n in (CONTEXT_STOPS[0], 1 << 20, CONTEXT_STOPS[-1]):
            page.locator("#context").fill(str(CONTEXT_STOPS.index(n)))
            read = fmt_bytes(summarise("v4.1-flash", n, Precision()).read.total)
            page.locator(".metric .value", has_text=read).wait_for()
            page.locator("#context-value", has_text=f"{n:,}").wait_for()
            plot = chart(page, "A1")
            assert plot.locator("text", has_text=read).count(), (n, read)
        page.get_by_label("bf16").check()
        read = fmt_bytes(summarise("v4.1-flash", CONTEXT_STOPS[-1], Precision("bf16")).read.total)
        page.locator(".metric .value", has_text=read).wait_for()
        assert not errors, errors


def test_a_components_precision_moves_the_figure_and_the_numbers_to_cores_values(site, browser):
    """A format chosen for one component loads its state's file, and the page shows core's numbers
    for that precision at every context the slider then reaches; back to auto, the default's."""
    url, _ = site
    context, page_, errors = opened(browser, f"{url}/ko/v2-mla.html")
    with closing(context):
        chart(page_, "A2")
        held = []  # the class's file, held back: until it comes, the page says it is busy
        page_.route("**/states/**", lambda route: held.append(route))
        page_.locator("details.roles summary").click()
        page_.locator('select[name="main_kv"]').select_option("fp4")
        expect(page_.locator("main")).to_have_attribute("aria-busy", "true")
        assert len(held) == 1, held
        held[0].continue_()
        expect(page_.locator("main")).not_to_have_attribute("aria-busy", "true")
        for n in (CONTEXT_STOPS[-1], 1 << 20, None):
            if n:
                page_.locator("#context").fill(str(CONTEXT_STOPS.index(n)))
            n = n or 1 << 20
            s = summarise("v2", n, Precision("deployed", main_kv="fp4"))
            for value in (fmt_exact(s.storage.total), fmt_bytes(s.read.total)):
                page_.locator(".metric .value", has_text=value).wait_for()
            assert chart(page_, "A2").locator("text", has_text=fmt_exact(s.storage.total)).count(), n
        assert len(held) == 1, held  # one file for the class, loaded once
        page_.locator('select[name="main_kv"]').select_option("auto")
        page_.locator(".metric .value", has_text=fmt_exact(summarise("v2", 1 << 20, Precision()).storage.total)
                      ).wait_for()
        assert not errors, errors


def test_the_language_link_lands_on_the_same_section(site, browser):
    url, _ = site
    context, page, _ = opened(browser, f"{url}/ko/v4-flash.html")
    with closing(context):
        # the waiter set before the click: a navigation that commits before a wait begins is not missed
        with page.expect_navigation(url="**/en/v4-flash.html", wait_until="commit"):
            page.locator("header a.lang").click()  # the address; what it shows is awaited next
        assert page.locator("nav.row a[aria-current=page]").get_attribute("href") == "v4-flash.html"


@pytest.mark.parametrize("device", ["iPhone 13", "desktop"])
def test_a_deep_link_lands_with_its_figure_below_the_bar(site, browser, pw, device):
    """The link lands on the figure, its title below the sticky bar (were the bar to show: on a phone
    it steps aside while scrolling down), and the figure stays there while the charts above it draw
    (each plot's height is reserved before it is drawn)."""
    url, _ = site
    device = pw.devices[device] if device != "desktop" else None
    context, page, _ = opened(browser, f"{url}/en/v4-flash.html#A14", device)
    with closing(context):
        # drawn where the link left it, not scrolled to (as chart() would)
        expect(page.locator("figure#A14 > .plot[data-drawn=true]")).to_have_count(1)
        expect(page.locator("figure#A14")).to_be_in_viewport()
        at = page.evaluate("""() => {
          const bar = document.querySelector('.controls'), title = document.querySelector('#A14 .gtitle');
          return {title: title.getBoundingClientRect().top, bar: Math.max(bar.getBoundingClientRect().bottom,
                  bar.offsetHeight), figure: document.querySelector('#A14').getBoundingClientRect().top}; }""")
        assert at["bar"] <= at["figure"] <= at["title"] < page.viewport_size["height"] / 2, at


@pytest.mark.parametrize("path, device", [("en/overview.html", None), ("ko/v4-flash.html", None),
                                          ("ko/v2-mla.html", "iPhone 13")])
def test_a_site_page_has_no_accessibility_violation(site, browser, pw, path, device):
    url, _ = site
    context, page, _ = opened(browser, f"{url}/{path}", pw.devices[device] if device else None)
    with closing(context):
        for figure_id in page.locator("figure.chart").evaluate_all("fs => fs.map(f => f.id)"):
            chart(page, figure_id)
        assert not axe_violations(page)


def test_each_page_carries_its_link_preview_and_shares_one_plotly_js(site):
    """The one build command gives every page a preview: title, description and its lead figure as
    a 1200 × 630 picture (this machine has the Chromium it renders with); the charts load the
    partial plotly.js."""
    from PIL import Image

    from publish.plotly_js import PARTIAL

    _, out = site
    assert (out / "plotly.min.js").read_bytes() == PARTIAL.read_bytes()
    for path in PAGES:
        html = (out / path).read_text(encoding="utf-8")
        assert '<script src="../plotly.min.js"></script>' in html, path
        tags = dict(re.findall(r'<meta (?:property|name)="([^"]+)" content="([^"]*)">', html))
        if path.split("/")[1].removesuffix(".html") in FIGURELESS:  # no lead figure: a card without a picture
            assert tags["og:title"] and tags["twitter:card"] == "summary" and "og:image" not in tags, path
            continue
        assert tags["og:title"] and tags["og:description"] and tags["twitter:card"] == "summary_large_image", path
        assert (tags["og:image:width"], tags["og:image:height"]) == ("1200", "630"), path
        with Image.open(out / path.split("/")[0] / tags["og:image"]) as preview:
            assert (preview.format, preview.size) == ("PNG", (1200, 630)), path


def neighbours(slug: str) -> dict[str, str]:
    order = list(SECTIONS)
    at = order.index(slug)
    return {rel: s for rel, s in (("prev", order[at - 1] if at else None),
                                  ("next", order[at + 1] if at + 1 < len(order) else None)) if s}


def test_each_section_ends_with_links_to_the_one_before_and_after(site):
    """After the article, outside the header: the previous and the next section by name, in the
    page's language (the first lacks a previous, the last a next)."""
    _, out = site
    for path in PAGES:
        lang, slug = path.removesuffix(".html").split("/")
        html = (out / path).read_text(encoding="utf-8")
        pager = re.search(r'</main>\s*<nav class="pager" aria-label="([^"]+)">(.*?)</nav>', html, re.S)
        assert pager and pager[1] == t("site.pager", lang), path
        links = re.findall(r'<a class="\w+" rel="(\w+)" href="([^"]+)" data-view><span class="dir">([^<]+)</span> '
                           r'<span class="name">([^<]+)</span></a>', pager[2])
        assert links == [(rel, f"{s}.html", t(f"site.{rel}", lang), t(SECTIONS[s].title, lang))
                         for rel, s in neighbours(slug).items()], path


ARTICLE = ("overview", "v2-mla", "v3-2-dsa", "v4-flash", "v4-1-flash", "token-axis")  # the sections the articles tell


def test_every_article_section_cites_its_sources(site):
    """A "출처" / "Sources" heading, with at least one link out of the site after it."""
    _, out = site
    missing = []
    for lang, slug in ((lang, slug) for lang in LANGS for slug in ARTICLE):
        main = (out / lang / f"{slug}.html").read_text(encoding="utf-8").split("<main>", 1)[1].split("</main>")[0]
        heading = re.search(rf"<h2>{'출처' if lang == 'ko' else 'Sources'}</h2>", main)
        if not heading or not re.search(r'<a href="https?://', main[heading.end():]):
            missing.append(f"{lang}/{slug}")
    assert not missing, f"no sources heading with a link: {missing}"


def test_on_a_phone_the_header_and_the_controls_take_a_quarter_of_the_first_screen_at_most(site, browser, pw):
    """iPhone 13: the sections in one line (a menu named after the page's section), the controls one
    opaque line under it, both within 25 % of the first screen; the bar steps aside while the reader
    scrolls down and comes back on the way up; the context steps by buttons a finger can hit."""
    url, _ = site
    context, page, errors = opened(browser, f"{url}/ko/v4-flash.html", pw.devices["iPhone 13"])
    with closing(context):
        bar, header = page.locator("form.controls"), page.locator("header")
        got = page.evaluate("""() => {
          const box = (s) => document.querySelector(s).getBoundingClientRect();
          return {header: box('header').height, bar: box('form.controls').height, bottom: box('form.controls').bottom,
                  opaque: getComputedStyle(document.querySelector('form.controls')).backgroundColor,
                  steps: Array.from(document.querySelectorAll('.controls .step'),
                                    b => [b.getBoundingClientRect().width, b.getBoundingClientRect().height])}; }""")
        assert got["bottom"] <= PHONE_SCREEN / 4, got
        assert got["header"] <= 56 and got["bar"] <= 56, got  # one line each
        assert got["opaque"] == "rgb(255, 255, 255)", got
        assert all(w >= 24 and h >= 24 for w, h in got["steps"]) and len(got["steps"]) == 2, got
        expect(header.locator("nav.menu summary")).to_have_text(t(SECTIONS["v4-flash"].title, "ko"))
        expect(header.locator("nav.row")).to_be_hidden()
        header.locator("nav.menu summary").click()
        expect(header.locator("nav.menu ol a")).to_have_count(len(SECTIONS))
        expect(header.locator("nav.menu ol a").first).to_be_visible()
        page.keyboard.press("Escape")
        expect(header.locator("nav.menu ol")).to_be_hidden()
        page.evaluate("window.scrollBy(0, 1500)")
        expect(bar).not_to_be_in_viewport()
        page.evaluate("window.scrollBy(0, -300)")
        expect(bar).to_be_in_viewport(ratio=1)
        assert page.evaluate("document.querySelector('form.controls').getBoundingClientRect().top") == 0
        # the step buttons, named in the page's language, move the context
        page.get_by_role("button", name=t("site.more", "ko")).click()
        expect(page.locator("#context")).to_have_value(str(CONTEXT_STOPS.index(CONTEXT.default) + 1))
        assert not errors, errors


def test_the_address_carries_the_view(site, browser, pw):
    """A context step and a preset write the app's link keys into the address without a reload, the
    links to other pages carry them, and opening that address restores the view: the context shown
    and a number core computes there. A value the site has no state for goes to the nearest stop or
    is left out, without an error."""
    url, _ = site
    phone = pw.devices["iPhone 13"]
    context, page, errors = opened(browser, f"{url}/en/overview.html", phone)
    with closing(context):
        page.evaluate("window.__same = true")  # gone if the page reloads
        page.locator("#context-more").click()
        page.get_by_label("bf16").check()
        n = CONTEXT_STOPS[CONTEXT_STOPS.index(CONTEXT.default) + 1]
        want = {**CONTEXT.dump(n), **PRECISION.dump(Precision("bf16"))}  # as the app writes them
        assert want == {"ctx": "192K", "prec": "bf16"}, want
        expect(page).to_have_url(re.compile(r"overview\.html\?ctx=192K&prec=bf16$"))
        assert page.evaluate("window.__same")
        for link in ("header a.lang", "nav.pager a.next", "nav.menu a[href*='v2-mla.html']"):
            href = page.locator(link).get_attribute("href")
            assert {k: v[0] for k, v in parse_qs(urlsplit(href).query).items()} == want, (link, href)
        address = page.url
        read = fmt_bytes(summarise("v4.1-flash", n, Precision("bf16")).read.total)
        page.locator(".metric .value", has_text=read).wait_for()
    context, page, errors2 = opened(browser, address, phone)
    with closing(context):
        expect(page.locator("#context-value")).to_contain_text(f"{n:,}")
        expect(page.get_by_label("bf16")).to_be_checked()
        page.locator(".metric .value", has_text=read).wait_for()
        with page.expect_navigation(url=re.compile(r"/ko/overview\.html\?ctx=192K&prec=bf16$"), wait_until="commit"):
            page.locator("header a.lang").click()  # the other language, the same view
        expect(page.locator("#context-value")).to_contain_text(f"{n:,}")
        # a length between stops, a preset the site does not know: the nearest stop, the default
        page.goto(f"{url}/ko/overview.html?ctx=100000&prec=fp3&units=si")
        near = min(CONTEXT_STOPS, key=lambda s: abs(s / 100_000 - 1))
        expect(page.locator("#context-value")).to_contain_text(f"{near:,}")
        expect(page).to_have_url(re.compile(rf"\?units=si&ctx={CONTEXT.dump(near)['ctx']}$"))
        page.locator(".metric .value", has_text=fmt_bytes(summarise("v4.1-flash", near, Precision()).read.total)
                     ).wait_for()
        assert not errors + errors2, errors + errors2


def test_a_figure_whose_controls_only_the_app_has_links_to_it_there_at_the_view(site, site_app, browser):
    """The site names such a figure's controls and links to the figure in the app, with the view the
    reader has chosen and the page's language; the header links to the same view of the page."""
    url, _ = site
    context, page, errors = opened(browser, f"{url}/en/v2-mla.html")
    with closing(context):
        line = page.locator(".app-controls", has=page.locator("a[data-figure='A5']"))
        expect(line).to_contain_text(t(SPECS["A5"].knob("seed").label, "en"))
        page.locator("#context-more").click()
        page.get_by_label("bf16").check()
        expect(page).to_have_url(re.compile(r"\?ctx=192K&prec=bf16$"))
        assert line.locator("a").get_attribute("href") == f"{site_app}/v2-mla?ctx=192K&prec=bf16&lang=en#A5"
        assert page.locator("header a.app").get_attribute("href") == f"{site_app}/v2-mla?ctx=192K&prec=bf16&lang=en"
        assert not errors, errors


@pytest.mark.parametrize("lang", LANGS)
def test_the_any_model_page_opens_a_model_id_in_the_app(site, site_app, browser, lang):
    """The site cannot fetch from the Hub: its field sends the id to the app's page, in the page's language."""
    url, _ = site
    context, page, errors = opened(browser, f"{url}/{lang}/any-model.html")
    with closing(context):
        asked = []
        page.route(f"{site_app}/**", lambda route: (asked.append(route.request.url), route.fulfill(body="app")))
        page.get_by_label(t("by.hf", lang)).fill("Qwen/Qwen3-Next-80B-A3B-Instruct")
        page.get_by_role("button", name=t("by.hf.open", lang)).click()
        expect(page).to_have_url(f"{site_app}/any-model?hf=Qwen%2FQwen3-Next-80B-A3B-Instruct&lang={lang}")
        assert asked and not errors, errors


def test_the_overview_table_downloads_as_csv_at_the_state_shown(site, browser):
    url, _ = site
    context, page, _ = opened(browser, f"{url}/en/overview.html")
    with closing(context):
        page.locator("#context").fill(str(CONTEXT_STOPS.index(1 << 20)))
        expect(page.locator("a.csv")).to_have_attribute("download", "kv-atlas-1048576-deployed.csv")
        with page.expect_download() as got:
            page.locator("a.csv").click()
        rows = [line.split('","') for line in open(got.value.path(), encoding="utf-8").read().splitlines()]
        v41 = summarise("v4.1-flash", 1 << 20, Precision())
        assert rows[-1][0] == '"V4.1-Flash' and str(v41.cache.total) in rows[-1], rows[-1]


@pytest.mark.parametrize("lang", LANGS)
def test_on_a_phone_every_page_fits_its_width_and_every_chart_reads(site, browser, pw, lang):
    """iPhone 13: no page wider than the screen (a long link breaks), and every chart laid out for
    the phone's column: none wider, no text under 11 px, none over another or cut."""
    url, _ = site
    problems = []
    context, page, errors = opened(browser, f"{url}/{lang}/overview.html", pw.devices["iPhone 13"])
    with closing(context):
        for slug in SECTIONS:
            page.goto(f"{url}/{lang}/{slug}.html")
            wide = page.evaluate("() => document.documentElement.scrollWidth - innerWidth")
            problems += [f"{slug}: {wide} px wider than the screen"] if wide > 0 else []
            for figure_id in page.locator("figure.chart").evaluate_all("fs => fs.map(f => f.id)"):
                problems += chart_problems(f"{slug} {figure_id}", measure(chart(page, figure_id)))
        assert not errors, errors
    assert not problems, "\n".join(problems)
