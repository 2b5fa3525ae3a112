"""Writing the site: the pages, the states they load later, each chart's downloads, the link
previews and the shared assets; the two languages built side by side, a process each."""

from __future__ import annotations

import os
import shutil
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from itertools import product
from multiprocessing import get_context
from pathlib import Path

from article import SECTIONS, Chart
from figures import SPECS, Canvas
from i18n import DEFAULT_LANG, LANGS

from .. import export, plotly_js
from . import markup
from .charts import Figures
from .data import page_data, script
from .pages import Page, lead, page
from .states import PRESET_COMBOS

ASSETS = Path(__file__).resolve().parent / "assets"  # site.css, site.js


def write_page(out: Path, p: Page, figures: Figures, base_url: str | None, preview: bool) -> Path:
    """The page itself, with the precision classes it ships and the figures they show."""
    used = {c["fig"] for c in p.charts} | p.figures(sorted(p.inline))
    text = markup.page(p, p.html, script(page_data(p, figures)), script(figures.subset(used)), base_url, preview,
                           controls=any(p.classes), every=len(p.combos) > len(PRESET_COMBOS))
    path = out / p.lang / f"{p.slug}.html"
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def write_classes(out: Path, p: Page, figures: Figures) -> None:
    """Each class the page does not ship, in a script of its own that hands it to the page (a
    script, not JSON: a page opened from a folder may load scripts but not fetch files)."""
    shipped = {c["fig"] for c in p.charts} | p.figures(p.inline)
    for k, states in enumerate(p.classes):
        if k not in p.inline:
            path = out / p.lang / "states" / p.slug / f"{k}.js"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_text(f"KV.loaded({k},{script(states)},{script(figures.subset(p.figures([k]) - shipped))});\n",
                            encoding="utf-8")


def write_files(out: Path, p: Page, figures: Figures, images: bool) -> None:
    """Each chart's downloads at the default state: its numbers (CSV) and interactive HTML (and,
    with `images`, SVG and PNG)."""
    files = out / p.lang / "files" / p.slug  # a figure may show on two pages, with other knobs
    files.mkdir(parents=True, exist_ok=True)
    for c in p.charts:
        shown = figures.still[c["fig"]]
        (files / f"kv-atlas-{c['id']}.csv").write_text(export.numbers(shown).to_csv(index=False), encoding="utf-8")
        (files / f"kv-atlas-{c['id']}.html").write_text(
            export.html(figures.played.get(c["fig"], shown.figure), cdn=True), encoding="utf-8")
        if images:
            for fmt in ("svg", "png"):
                (files / f"kv-atlas-{c['id']}.{fmt}").write_bytes(export.image(shown.figure, fmt))


def preview_png(chart: Chart) -> bytes:
    """A shared link's picture: the figure laid out for a PREVIEW-sized canvas, as a PNG."""
    width, height = markup.PREVIEW
    fig = SPECS[chart.figure_id].build(chart.knobs, Canvas(slide=(width, height))).figure
    return export.image(fig, "png", width=width, height=height)


def write_previews(out: Path, slugs, langs=LANGS) -> None:
    """Each page's link-preview picture, through this process's one warm kaleido."""
    for lang, slug in product(langs, slugs):
        chart = lead(slug, lang)
        if chart:
            path = out / lang / "files" / slug / "preview.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(preview_png(chart))


def build(out: Path, *, base_url: str | None = None, app_url: str | None = None, images: bool = False,
          precisions: bool = False, progress: Callable[[str], None] | None = None, say: Callable[[str], None] = print,
          slugs=tuple(SECTIONS)) -> list[Path]:
    """Write the site into `out`: a page per section and language, their files, the shared assets
    (the partial plotly.js, fetched if need be), each page's link-preview picture; with `images`,
    each figure's SVG and PNG; with `precisions`, every per-component precision too; with `app_url`
    (where the app is served), links from each page and from each figure whose controls only the
    app has to the same view there. Without a
    Chrome or Chromium it writes the rest and `say`s what it left out. The languages are built side
    by side, a process each, while this one renders the previews; `progress` hears of each page."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(plotly_js.ensure(say), out / "plotly.min.js")
    for asset in ("site.css", "site.js"):
        shutil.copyfile(ASSETS / asset, out / asset)
    (out / "index.html").write_text(markup.redirect(f"{DEFAULT_LANG}/overview.html"), encoding="utf-8")
    pictures = export.image_browser() is not None
    if not pictures:
        left = "the link-preview pictures" + (" and the figures' SVG/PNG downloads" if images else "")
        say(f"built without {left}: {export.NO_BROWSER}")
    written, n = [], len(LANGS)
    with ProcessPoolExecutor(min(n, os.cpu_count() or 1), mp_context=get_context("spawn")) as pool:
        pages = pool.map(_language, [out] * n, LANGS, [base_url] * n, [app_url] * n, [images and pictures] * n,
                         [pictures] * n, [precisions] * n, [progress] * n, [tuple(slugs)] * n)
        if pictures:
            write_previews(out, slugs)
        for paths in pages:
            written += paths
    return written


def _language(out: Path, lang: str, base_url: str | None, app_url: str | None, images: bool, previews: bool,
              precisions: bool, progress: Callable[[str], None], slugs: tuple[str, ...]) -> list[Path]:
    (out / lang).mkdir(exist_ok=True)
    figures, written = Figures(lang), []
    for slug in slugs:
        p = page(slug, lang, figures, images, precisions, app_url)
        written.append(write_page(out, p, figures, base_url, previews and bool(p.charts)))  # lead: charts[0]
        write_classes(out, p, figures)
        write_files(out, p, figures, images)
        if progress:  # a module's function: it travels to the language's process
            progress(f"{lang}/{slug}")
    (out / lang / "index.html").write_text(markup.redirect("overview.html"), encoding="utf-8")
    return written
