"""The static site (publish/site.py), built into a temporary folder and served by `python -m
http.server` on loopback, read in Chromium: every page draws every figure with no console error,
every link resolves, the context and precision controls move the figures and the numbers to core's
values, the language link lands on the same section, and each page carries its link-preview tags."""

from __future__ import annotations

import re
import subprocess
import sys
import urllib.request
from contextlib import closing

import pytest

from article import SECTIONS
from browser_harness import REPO_ROOT, axe_violations, chart, chart_problems, chart_title, measure, static_server
from core import Precision
from core.summary import summarise
from core.units import fmt_bytes, fmt_exact
from figures.knobs import CONTEXT_STOPS
from i18n import LANGS
from publish.site import Figures, page, write_classes, write_page

expect = pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)"
                             ).expect


@pytest.fixture(scope="module")
def site(tmp_path_factory):
    """The site's URL and folder, served from a fresh build."""
    out = tmp_path_factory.mktemp("site")
    # as a reader's build runs: the command, in a process of its own (the build's language processes
    # start from a clean __main__, which a test process that ran AppTest's scripts is not)
    done = subprocess.run([sys.executable, "-m", "publish", "site", "--out", str(out)], cwd=REPO_ROOT,
                          capture_output=True, text=True, timeout=600)
    assert done.returncode == 0, done.stderr[-3000:]
    # V2 · MLA again, with every per-component precision (as --precisions builds every page)
    figures = Figures("en")
    v2 = page("v2-mla", "en", figures, every=True)
    write_page(out, v2, figures, None, False)
    write_classes(out, v2, figures)
    with static_server(out, tmp_path_factory.mktemp("server") / "http.log") as url:
        yield url, out


PAGES = [f"{lang}/{slug}.html" for lang in LANGS for slug in SECTIONS]


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
        assert ids
        for figure_id in ids:
            plot = chart(page, figure_id)  # drawn, or it fails with its title
            # with what its figure holds: traces, or a matrix diagram's shapes and labels
            assert plot.evaluate("d => d.data.length + (d.layout.shapes || d.layout.annotations || []).length"), \
                chart_title(plot)
        assert not errors, errors


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
    context, page_, errors = opened(browser, f"{url}/en/v2-mla.html")
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
        page.locator("header a.lang").click()
        page.wait_for_url("**/en/v4-flash.html")
        assert page.locator("nav a[aria-current=page]").get_attribute("href") == "v4-flash.html"


def test_a_figure_has_a_deep_link(site, browser):
    """The link lands on the figure, and the figure stays there while the charts above it draw (each
    plot's height is reserved before it is drawn)."""

    url, _ = site
    context, page, _ = opened(browser, f"{url}/en/v4-flash.html#A14")
    with closing(context):
        # drawn where the link left it, not scrolled to (as chart() would): the charts near it drew too
        expect(page.locator("figure#A14 > .plot[data-drawn=true]")).to_have_count(1)
        expect(page.locator("figure#A13 > .plot[data-drawn=true]")).to_have_count(1)
        expect(page.locator("figure#A14")).to_be_in_viewport()


@pytest.mark.parametrize("path", ["en/overview.html", "ko/v4-flash.html"])
def test_a_site_page_has_no_accessibility_violation(site, browser, path):
    url, _ = site
    context, page, _ = opened(browser, f"{url}/{path}")
    with closing(context):
        for figure_id in page.locator("figure.chart").evaluate_all("fs => fs.map(f => f.id)"):
            chart(page, figure_id)
        assert not axe_violations(page)


def test_each_page_carries_its_link_preview_tags_and_shares_one_plotly_js(site):
    _, out = site
    for path in PAGES:
        html = (out / path).read_text(encoding="utf-8")
        assert '<script src="../plotly.min.js"></script>' in html, path
        for tag in ("og:title", "og:description", "og:type", "twitter:card"):
            assert f'property="{tag}"' in html or f'name="{tag}"' in html, (path, tag)


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
