"""The article as a static site: one page per section (article/) and language, the same blocks the
app draws, written as HTML. The context and the precision preset work without a server: every state
they reach is computed by core here, and a page ships what differs between states as data
(site.js swaps texts and redraws charts with Plotly.react). `python -m publish site --out site/`."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from html import escape
from multiprocessing import get_context
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio

from article import SECTIONS, Ask, Chart, Heading, Metrics, Part, Table, Text, Title, Tool, play
from core import PRESETS, Precision
from figures import SPECS
from figures.canvas import screen
from figures.describe import description
from figures.knobs import CONTEXT, CONTEXT_STOPS, PRECISION, UNITS
from figures.screen import screen_layout
from figures.style import plotly_config, title_parts
from i18n import DEFAULT_LANG, LANGS, t

from .animation import animated
from .export import figure_file, html, image, numbers
from .plotly_js import bundle

ASSETS = Path(__file__).resolve().parent / "site_assets"  # site.css, site.js
CANVASES = (900, 360)  # px: the site's column on a desktop, on a phone (figures/canvas.py's width classes)
PREVIEW = (1200, 630)  # px: a shared link's preview image (Open Graph)
STATES = tuple((context, preset) for preset in PRESETS for context in CONTEXT_STOPS)
DEFAULT_STATE = STATES.index((CONTEXT.default, PRESETS[0]))
PRESET = PRECISION.parts[0]


@dataclass(frozen=True)
class Reading:
    """A view of the site: its language and a state of its controls."""

    lang: str
    context: int
    precision: Precision
    units: str = UNITS.default


def blocks(slug: str, reading: Reading, tools: bool = True) -> list:
    """The blocks a section shows at a reading, every control at its default (the app's own
    tools at the defaults the section gives them, and what the site shows in their place unless
    not `tools`)."""
    shown = []

    def answer(block):
        match block:
            case Ask(knobs):
                return tuple(k.default for k in knobs)
            case Tool(_, default, site):
                shown.extend(site if tools else ())
                return default
            case Part(_, section):
                return play(section(reading), answer)
        shown.append(block)

    play(SECTIONS[slug].draw(reading), answer)
    return shown


class Figures:
    """Each figure a site shows in a language, built once per set of knobs for the site's columns:
    as JSON, and its text alternative."""

    def __init__(self, lang: str):
        self.lang = lang
        self.json: list[str] = []  # what a page draws, per canvas: a figure that plays with a frame per step
        self.still: list[go.Figure] = []  # the figure on a desktop: its numbers
        self.text: list[tuple[str, str]] = []  # its title and description (figures/describe.py)
        self.played: dict[int, dict] = {}
        self._at: dict = {}

    def add(self, chart: Chart) -> tuple[int, str, str]:
        """The figure's index, title and description."""
        key = (chart.figure_id, tuple(sorted(chart.knobs.items())))
        if key not in self._at:
            n = self._at[key] = len(self.json)
            shown = {}
            for canvas in CANVASES:
                with screen(canvas):
                    fig = screen_layout(SPECS[chart.figure_id](**chart.knobs), canvas)  # built here: no copy
                    played = animated(chart.figure_id, **chart.knobs) if SPECS[chart.figure_id].play else None
                shown[canvas] = pio.to_json(played or fig, validate=False)
                if canvas == CANVASES[0]:
                    self.still.append(fig)
                    if played:
                        self.played[n] = played
            self.json.append("{" + ",".join(f'"{c}":{j}' for c, j in shown.items()) + "}")
            self.text.append((title_parts(self.still[n])[0], description(self.still[n], self.lang, UNITS.default)))
        n = self._at[key]
        return (n, *self.text[n])


def _text(block) -> str:
    match block:
        case Title(text):
            return f"<h1>{escape(text)}</h1>"
        case Heading(text, level):
            return f"<h{level}>{escape(text)}</h{level}>"
        case Text(text, style):
            return f'<p class="{style}">{_linked(escape(text))}</p>'
        case Metrics(items):
            return '<div class="metrics">' + "".join(
                f'<div class="metric"><div class="label">{escape(label)}</div><div class="value">{escape(value)}</div>'
                f"</div>" for label, value in items) + "</div>"
        case Table(columns, numbers_):
            head = "".join(f"<th>{escape(c)}</th>" for c in columns)
            rows = zip(*columns.values())
            body = "".join("<tr>" + "".join(
                f'<td class="num" data-v="{v}">{v:,}</td>' if c in numbers_ else f"<td>{escape(str(v))}</td>"
                for c, v in zip(columns, row)) + "</tr>" for row in rows)
            csv = (f'<a class="csv" href="#" download="{escape(block.download[1])}">{escape(block.download[0])}</a>'
                   if block.download else "")  # site.js writes the file from the table shown
            # a region that scrolls sideways on a phone: reachable by keyboard, named for a screen reader
            return (f'<div class="table" tabindex="0" role="region" aria-label="{escape(block.name)}">'
                    f'<table><thead><tr>{head}</tr></thead><tbody>{body}</tbody></table></div>'
                    f"{csv}")
    raise TypeError(f"no HTML for {block!r}")


def _linked(html: str) -> str:
    """Links in a text made links (Streamlit's markdown does the same in the app)."""
    return re.sub(r"https?://[^\s<>()]+", lambda m: f'<a href="{m[0]}">{m[0]}</a>', html)


@dataclass
class Page:
    slug: str
    lang: str
    html: list[str]  # the body's blocks, at the default state
    dynamic: list[dict]  # {el, kind, values, at}: a block that differs between states
    charts: list[dict]  # {el, fig, id}: every chart at the default state
    lead: Chart | None  # the first figure (the preview image)
    intro: str  # the first caption (the description of a shared link)


def page(slug: str, lang: str, figures: Figures, images: bool = False) -> Page:
    """A section in one language: its blocks at every state, what differs kept per state."""
    at_state = [blocks(slug, Reading(lang, context, Precision(preset))) for context, preset in STATES]
    shape = [type(b) for b in at_state[DEFAULT_STATE]]
    if any([type(b) for b in bs] != shape for bs in at_state):
        raise ValueError(f"{slug}: a section must show the same blocks at every context and preset")
    html, dynamic, charts = [], [], []
    for i, default in enumerate(at_state[DEFAULT_STATE]):
        el = f"b{i}"
        kind = "chart" if isinstance(default, Chart) else "html"
        values = [figures.add(bs[i]) if kind == "chart" else _text(bs[i]) for bs in at_state]
        distinct = list(dict.fromkeys(values))
        shown = values[DEFAULT_STATE]
        if len(distinct) > 1:
            dynamic.append({"el": el, "kind": kind, "at": [distinct.index(v) for v in values], "values": distinct})
        if kind == "chart":
            charts.append({"el": el, "fig": shown[0], "id": default.figure_id})
            html.append(_figure_html(el, default.figure_id, shown[1], shown[2], slug, lang, images))
        else:
            html.append(f'<div id="{el}">{shown}</div>')
    lead = next((b for b in at_state[DEFAULT_STATE] if isinstance(b, Chart)), None)
    intro = next((b.text for b in at_state[DEFAULT_STATE] if isinstance(b, Text)), "")
    return Page(slug, lang, html, dynamic, charts, lead, intro)


def _figure_html(el: str, figure_id: str, title: str, described: str, slug: str, lang: str, images: bool) -> str:
    files = "".join(f'<a href="files/{slug}/kv-atlas-{figure_id}.{fmt}" download>{fmt.upper()}</a>'
                    for fmt in ("csv", "html", *(("svg", "png") if images else ())))
    return (f'<figure id="{escape(figure_id)}" class="chart" role="figure" aria-label="{escape(title)}" '
            f'aria-describedby="{el}-d"><div id="{el}" class="plot"></div>'
            f'<p id="{el}-d" class="described">{escape(described)}</p>'
            f'<div class="files">{t("app.download", lang)}: {files}'
            f' <a href="#{escape(figure_id)}">#{escape(figure_id)}</a></div></figure>')


def _controls(lang: str) -> str:
    stops = "".join(f"<option value={i}></option>" for i in range(len(CONTEXT_STOPS)))
    presets = "".join(
        f'<label><input type="radio" name="preset" value="{p}"{" checked" if p == PRESETS[0] else ""}>'
        f'{escape(PRESET.display(p, lang))}</label>' for p in PRESETS)
    at = CONTEXT_STOPS.index(CONTEXT.default)
    return (f'<form class="controls" aria-label="{escape(t("site.controls", lang))}">'
            f'<label class="context">{escape(t("app.context", lang))} '
            f'<input id="context" type="range" min="0" max="{len(CONTEXT_STOPS) - 1}" value="{at}" list="stops" '
            f'aria-valuetext="N = {CONTEXT.default:,}">'
            f'<output id="context-value" for="context">N = {CONTEXT.default:,}</output></label>'
            f'<datalist id="stops">{stops}</datalist>'
            f'<fieldset><legend>{escape(t("app.precision", lang))}</legend>{presets}</fieldset></form>')


def _head(p: Page, title: str, base_url: str | None, preview: bool) -> str:
    path = f"{p.lang}/{p.slug}.html"
    tags = [f'<meta name="description" content="{escape(p.intro)}">',
            f'<meta property="og:title" content="{escape(title)}">',
            f'<meta property="og:description" content="{escape(p.intro)}">',
            '<meta property="og:type" content="article">', '<meta property="og:site_name" content="KV Atlas">',
            f'<meta property="og:locale" content="{"ko_KR" if p.lang == "ko" else "en_US"}">',
            f'<meta name="twitter:card" content="{"summary_large_image" if preview else "summary"}">',
            f'<meta name="twitter:title" content="{escape(title)}">']
    if preview:
        image_url = f"files/{p.slug}/preview.png"
        if base_url:
            image_url = f"{base_url}/{p.lang}/{image_url}"
        tags += [f'<meta property="og:image" content="{escape(image_url)}">',
                 f'<meta property="og:image:width" content="{PREVIEW[0]}">',
                 f'<meta property="og:image:height" content="{PREVIEW[1]}">',
                 f'<meta name="twitter:image" content="{escape(image_url)}">']
    if base_url:
        tags += [f'<link rel="canonical" href="{escape(base_url)}/{path}">',
                 f'<meta property="og:url" content="{escape(base_url)}/{path}">']
    return "\n".join(tags)


def write_page(out: Path, p: Page, figures: Figures, base_url: str | None, preview: bool) -> Path:
    lang, other = p.lang, next(x for x in LANGS if x != p.lang)
    title = f"{t(SECTIONS[p.slug].title, lang)} · KV Atlas"
    nav = "".join(f'<a href="{s}.html"{" aria-current=page" if s == p.slug else ""}>{escape(t(sec.title, lang))}</a>'
                  for s, sec in SECTIONS.items())
    used = sorted({c["fig"] for c in p.charts} | {v[0] for d in p.dynamic if d["kind"] == "chart" for v in d["values"]})
    data = {"states": [f"{c}|{pr}" for c, pr in STATES], "stops": CONTEXT_STOPS, "presets": PRESETS,
            "default": DEFAULT_STATE, "dynamic": p.dynamic, "charts": p.charts,
            "config": {**plotly_config("x"), "responsive": True}}
    figs = "{" + ",".join(f'"{n}":{figures.json[n]}' for n in used) + "}"
    script = (f"window.KV={_js(json.dumps(data, ensure_ascii=False))};"
              f"window.KV.figures={_js(figs)};")
    controls = _controls(lang) if p.dynamic else ""
    text = f"""<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
{_head(p, title, base_url, preview)}
<link rel="icon" href="data:,"><link rel="stylesheet" href="../site.css"></head>
<body><header><nav aria-label="{escape(t("site.nav", lang))}">{nav}</nav>
<a class="lang" href="../{other}/{p.slug}.html" hreflang="{other}" lang="{other}">{escape(t("site.other", lang))}</a>
</header>{controls}
<main>{"".join(p.html)}</main>
<script src="../plotly.min.js"></script>
<script>{script}</script>
<script src="../site.js"></script></body></html>
"""
    path = out / lang / f"{p.slug}.html"
    path.write_text(text, encoding="utf-8")
    return path


def _js(text: str) -> str:
    """JSON as a script's text: nothing in it can end the script element."""
    return text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def write_files(out: Path, p: Page, figures: Figures, images: bool) -> None:
    """Each chart's downloads at the default state: its numbers (CSV) and interactive HTML (and,
    with `images`, SVG and PNG); with `images`, the page's preview picture."""
    files = out / p.lang / "files" / p.slug  # a figure may show on two pages, with other knobs
    files.mkdir(parents=True, exist_ok=True)
    for c in p.charts:
        shown = figures.still[c["fig"]]
        (files / f"kv-atlas-{c['id']}.csv").write_text(numbers(shown).to_csv(index=False), encoding="utf-8")
        (files / f"kv-atlas-{c['id']}.html").write_text(html(figures.played.get(c["fig"], shown), cdn=True),
                                                        encoding="utf-8")
        if images:
            for fmt in ("svg", "png"):
                (files / f"kv-atlas-{c['id']}.{fmt}").write_bytes(image(shown, fmt))
    if images and p.lead:
        (files / "preview.png").write_bytes(
            figure_file(p.lead.figure_id, "png", p.lead.knobs, size=dict(zip(("width", "height"), PREVIEW))))


def build(out: Path, *, base_url: str | None = None, images: bool = False,
          progress: Callable[[str], None] | None = None) -> list[Path]:
    """Write the site into `out`: a page per section and language, their files, the shared assets.
    The languages are built side by side, a process each; `progress` hears of each page written."""
    base_url = base_url.rstrip("/") if base_url else None
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(bundle(), out / "plotly.min.js")
    for asset in ("site.css", "site.js"):
        shutil.copyfile(ASSETS / asset, out / asset)
    (out / "index.html").write_text(_redirect(f"{DEFAULT_LANG}/overview.html"), encoding="utf-8")
    written = []
    with ProcessPoolExecutor(min(len(LANGS), os.cpu_count() or 1), mp_context=get_context("spawn")) as pool:
        for paths in pool.map(_language, [out] * len(LANGS), LANGS, [base_url] * len(LANGS), [images] * len(LANGS),
                              [progress] * len(LANGS)):
            written += paths
    return written


def _language(out: Path, lang: str, base_url: str | None, images: bool, progress: Callable[[str], None]) -> list[Path]:
    (out / lang).mkdir(exist_ok=True)
    figures, written = Figures(lang), []
    for slug in SECTIONS:
        p = page(slug, lang, figures, images)
        written.append(write_page(out, p, figures, base_url, images))
        write_files(out, p, figures, images)
        if progress:  # a module's function: it travels to the language's process
            progress(f"{lang}/{slug}")
    (out / lang / "index.html").write_text(_redirect("overview.html"), encoding="utf-8")
    return written


def _redirect(to: str) -> str:
    return (f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url={to}">'
            f'<link rel="canonical" href="{to}"><a href="{to}">KV Atlas</a>')
