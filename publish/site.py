"""The article as a static site: one page per section (article/) and language, the same blocks the
app draws, written as HTML. The controls work without a server: every state they reach is computed
by core here and shipped as data (site.js swaps texts and redraws charts with Plotly.react).

A state is a context stop and a precision class: the control combinations that give the section's
models the same formats (core.cost.formats). The presets' classes ship in the page; with
`precisions`, every per-component combination is built too, each further class in a file of its own
that the page loads when the reader picks it. The address carries the view with the app's link keys
(figures/knobs.py), so a link opens the state it was copied at.

`python -m publish site --out site/ [--base-url URL] [--images] [--precisions]` is the whole deploy:
it fetches the partial plotly.js when static/ lacks it and renders each page's link-preview image
(its lead figure) where a Chrome or Chromium is; without one it builds the rest and says what it
left out."""

from __future__ import annotations

import json
import os
import re
import shutil
from collections.abc import Callable
from concurrent.futures import ProcessPoolExecutor
from dataclasses import dataclass
from html import escape, unescape
from itertools import product
from multiprocessing import get_context
from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
from markdown_it import MarkdownIt

from article import SECTIONS, Ask, Chart, Either, Heading, Metrics, Part, Table, Text, Title, Tool, play
from article.prose import notation
from core import Precision
from core.cost import formats
from core.units import fmt_tokens
from figures import SPECS
from figures.canvas import screen
from figures.describe import description
from figures.knobs import CONTEXT, CONTEXT_STOPS, PRECISION, UNITS
from figures.screen import screen_layout
from figures.style import plotly_config, title_parts
from i18n import DEFAULT_LANG, LANGS, t
from i18n.text import TEXT

from . import plotly_js
from .animation import animated
from .export import NO_BROWSER, as_slide, html, image, image_browser, numbers

ASSETS = Path(__file__).resolve().parent / "site_assets"  # site.css, site.js
CANVASES = (900, 360)  # px: the site's column on a desktop, on a phone (figures/canvas.py's width classes)
PREVIEW = (1200, 630)  # px: a shared link's preview image (Open Graph)
PRESET, *ROLES = PRECISION.parts  # the preset; a format per component ("auto": the preset's)
PRESET_COMBOS = tuple((preset, *("auto" for _ in ROLES)) for preset in PRESET.choices)
COMBOS = tuple(dict.fromkeys((*PRESET_COMBOS, *product(PRESET.choices, *(r.choices for r in ROLES)))))
DEFAULT_STOP = CONTEXT_STOPS.index(CONTEXT.default)
# the article's prose (article/prose/) as the app's st.markdown draws it: CommonMark, tables, inline HTML
PROSE = MarkdownIt("commonmark", {"html": True}).enable("table")
# the charts' shared template, shipped once per page rather than in every figure
TEMPLATE = go.Figure(layout=dict(template="kv_atlas")).to_plotly_json()["layout"]["template"]


def precision(combo: tuple[str, ...]) -> Precision:
    """The precision a combination of the controls selects."""
    preset, *roles = combo
    return Precision(preset, *(None if r == "auto" else r for r in roles))


def precision_classes(slug: str, every: bool) -> tuple[dict[str, int], list[Precision]]:
    """The section's precision classes: each combination's class ("deployed|auto|fp4|auto" → 2; the
    presets' alone unless `every`), and a precision of each class. Class 0 is the default's."""
    models = SECTIONS[slug].prices
    of, reps, index = {}, [], {}
    for combo in COMBOS if every else PRESET_COMBOS:
        p = precision(combo)
        stored = tuple(tuple(formats(m, p).values()) for m in models)
        of["|".join(combo)] = index.setdefault(stored, len(reps))
        if len(reps) < len(index):
            reps.append(p)
    return of, reps


@dataclass(frozen=True)
class Reading:
    """A view of the site: its language and a state of its controls."""

    lang: str
    context: int
    precision: Precision
    units: str = UNITS.default


def blocks(slug: str, reading: Reading, app: bool = False) -> list:
    """The blocks a section shows at a reading, every control at its default, the app's own tools
    at the defaults the section gives them: as the site shows it (what it shows in the tools'
    place, its side of an Either), or with `app`, the app's text (its side of an Either, nothing
    for a tool)."""
    shown = []

    def answer(block):
        match block:
            case Ask(knobs):
                return tuple(k.default for k in knobs)
            case Tool(_, default, site):
                shown.extend(() if app else site)
                return default
            case Either(in_app, on_site):
                shown.extend(in_app if app else on_site)
                return None
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
                shown[canvas] = _json(played or fig)
                if canvas == CANVASES[0]:
                    self.still.append(fig)
                    if played:
                        self.played[n] = played
            self.json.append("{" + ",".join(f'"{c}":{j}' for c, j in shown.items()) + "}")
            self.text.append((title_parts(self.still[n])[0], description(self.still[n], self.lang, UNITS.default)))
        n = self._at[key]
        return (n, *self.text[n])


def _json(fig: go.Figure | dict) -> str:
    """A figure (or a played one's dict) as JSON, without the template every page ships once
    (site.js puts it back)."""
    plain = fig if isinstance(fig, dict) else fig.to_plotly_json()
    if plain["layout"].get("template") == TEMPLATE:
        plain["layout"] = {k: v for k, v in plain["layout"].items() if k != "template"}
    return pio.to_json(plain, validate=False)


def _text(block) -> str:
    match block:
        case Title(text):
            return f"<h1>{escape(text)}</h1>"
        case Heading(text, level):
            return f"<h{level}>{escape(text)}</h{level}>"
        case Text(text, "prose"):
            return f'<div class="prose">{PROSE.render(notation(text))}</div>'
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
    charts: list[dict]  # {el, fig, id}: every chart at the default state
    combos: dict[str, int]  # a combination of the precision controls → its class
    classes: list[dict]  # per class, {el: {values, at}}: what differs from the default at a stop
    inline: set[int]  # the classes the page ships (the presets'); the others in files of their own
    intro: str  # the first text, plain (the description of a shared link)

    def figures(self, classes) -> set[int]:
        """The figures the classes show."""
        return {v[0] for k in classes for d in self.classes[k].values() for v in d["values"] if isinstance(v, tuple)}


def page(slug: str, lang: str, figures: Figures, images: bool = False, every: bool = False) -> Page:
    """A section in one language: its blocks at the default state, and at every context stop of each
    precision class what differs from them."""
    default = blocks(slug, Reading(lang, CONTEXT.default, Precision()))
    shape = [type(b) for b in default]
    shown = [figures.add(b) if isinstance(b, Chart) else _text(b) for b in default]

    def differs(rep: Precision) -> dict:
        at_stop = [blocks(slug, Reading(lang, context, rep)) for context in CONTEXT_STOPS]
        if any([type(b) for b in bs] != shape for bs in at_stop):
            raise ValueError(f"{slug}: a section must show the same blocks at every context and precision")
        out = {}
        for i, value in enumerate(shown):
            values = [figures.add(bs[i]) if isinstance(value, tuple) else _text(bs[i]) for bs in at_stop]
            if any(v != value for v in values):
                distinct = list(dict.fromkeys(values))
                out[f"b{i}"] = {"values": distinct, "at": [distinct.index(v) for v in values]}
        return out

    combos, reps = precision_classes(slug, every)
    inline = {combos["|".join(c)] for c in PRESET_COMBOS}
    html, charts = [], []
    for i, (block, value) in enumerate(zip(default, shown)):
        if isinstance(block, Chart):
            charts.append({"el": f"b{i}", "fig": value[0], "id": block.figure_id})
            html.append(_figure_html(f"b{i}", block.figure_id, value[1], value[2], slug, lang, images))
        else:
            html.append(f'<div id="b{i}">{value}</div>')
    intro = next((_plain(b) for b in default if isinstance(b, Text)), "")
    return Page(slug, lang, html, charts, combos, [differs(rep) for rep in reps], inline, intro)


def _plain(text: Text, most: int = 300) -> str:
    """A text without its markup, on one line, cut at a word near `most` characters."""
    rendered = PROSE.render(text.text) if text.style == "prose" else text.text
    plain = " ".join(unescape(re.sub(r"<[^>]+>", "", rendered)).split())  # _head escapes it once
    return plain if len(plain) <= most else plain[:most].rsplit(" ", 1)[0] + " …"


def lead(slug: str, lang: str) -> Chart | None:
    """A section's first figure at the defaults: the picture of a shared link."""
    return next((b for b in blocks(slug, Reading(lang, CONTEXT.default, Precision())) if isinstance(b, Chart)), None)


def preview_png(chart: Chart) -> bytes:
    """A shared link's picture: the figure laid out for a PREVIEW-sized canvas, as a PNG."""
    return image(as_slide(chart.figure_id, chart.knobs, *PREVIEW), "png", width=PREVIEW[0], height=PREVIEW[1])


def _figure_html(el: str, figure_id: str, title: str, described: str, slug: str, lang: str, images: bool) -> str:
    files = "".join(f'<a href="files/{slug}/kv-atlas-{figure_id}.{fmt}" download>{fmt.upper()}</a>'
                    for fmt in ("csv", "html", *(("svg", "png") if images else ())))
    return (f'<figure id="{escape(figure_id)}" class="chart" role="figure" aria-label="{escape(title)}" '
            f'aria-describedby="{el}-d"><div id="{el}" class="plot"></div>'
            f'<p id="{el}-d" class="described">{escape(described)}</p>'
            f'<div class="files">{t("app.download", lang)}: {files}'
            f' <a href="#{escape(figure_id)}" aria-label="{escape(t("site.figure.link", lang))} ({escape(figure_id)})">'
            f'#{escape(figure_id)}</a></div></figure>')


def _ticks() -> dict[str, list[str]]:
    """What the context output says at each stop: in full, and as the app's slider says it (128K)."""
    return {"long": [f"N = {n:,}" for n in CONTEXT_STOPS], "short": [f"N = {fmt_tokens(n)}" for n in CONTEXT_STOPS]}


def _controls(lang: str, every: bool) -> str:
    """One line: the context slider between a step down and a step up, its value, and the preset;
    with `every`, a format per component (as in the app's sidebar, its overrides folded away)."""
    stops = "".join(f"<option value={i}></option>" for i in range(len(CONTEXT_STOPS)))
    ticks = _ticks()
    presets = "".join(
        f'<label><input type="radio" name="preset" value="{p}"{" checked" if p == PRESET.default else ""}>'
        f'<span>{escape(PRESET.display(p, lang))}</span></label>' for p in PRESET.choices)
    roles = "".join(
        f'<label>{escape(t(r.label, lang))} <select name="{r.name}">' + "".join(
            f'<option value="{c}"{" selected" if c == r.default else ""}>{escape(r.display(c, lang))}</option>'
            for c in r.choices) + "</select></label>" for r in ROLES)
    override = (f'<details class="roles"><summary><span class="wide">{escape(t("app.override", lang))}</span>'
                f'</summary><p class="caption">{escape(t("app.override.help", lang))}</p>{roles}</details>'
                ) if every else ""

    def step(name: str, sign: str) -> str:
        return (f'<button type="button" class="step" id="context-{name}" aria-controls="context" '
                f'aria-label="{escape(t(f"site.{name}", lang))}">{sign}</button>')

    return (f'<form class="controls" aria-label="{escape(t("site.controls", lang))}">'
            f'<div class="context"><label for="context">{escape(t("app.context", lang))}</label>{step("less", "−")}'
            f'<input id="context" type="range" min="0" max="{len(CONTEXT_STOPS) - 1}" value="{DEFAULT_STOP}" '
            f'list="stops" aria-valuetext="{ticks["long"][DEFAULT_STOP]}">{step("more", "+")}'
            f'<output id="context-value" for="context"><span class="long">{ticks["long"][DEFAULT_STOP]}</span>'
            f'<span class="short" aria-hidden="true">{ticks["short"][DEFAULT_STOP]}</span></output></div>'
            f'<datalist id="stops">{stops}</datalist>'
            f'<fieldset class="preset"><legend>{escape(t("app.precision", lang))}</legend>{presets}</fieldset>'
            f'{override}</form>')


def address(lang: str) -> dict:
    """How the address carries the view, with the app's link keys (figures/knobs.py): what each
    context stop and each choice of the precision controls writes (Knob.dump; None for a default,
    which is left out), the keys each is read from, and every text a choice is read as (its value
    or its label in any language, as Knob.read takes it)."""
    defaults = (PRESET.default, *(r.default for r in ROLES))

    def written(i: int, choice: str) -> str | None:
        combo = (*defaults[:i], choice, *defaults[i + 1:])
        return PRECISION.dump(precision(combo), lang).get(PRECISION.parts[i].key)

    return {
        "ctx": {"keys": [CONTEXT.key, *CONTEXT.aliases], "lo": CONTEXT.lo, "hi": CONTEXT.hi,
                "at": [CONTEXT.dump(n, lang).get(CONTEXT.key) for n in CONTEXT_STOPS]},
        "parts": [{"name": part.name, "keys": [part.key, *part.aliases],
                   "write": {c: written(i, c) for c in part.choices},
                   "read": {text.lower(): c for c in part.choices
                            for text in (str(c), *(part.display(c, lg) for lg in LANGS))}}
                  for i, part in enumerate(PRECISION.parts)],
    }


def _header(slug: str, lang: str) -> str:
    """The sections as a row of links where the screen is wide enough, else a menu named after the
    page's section; the link to the page in the other language. Both carry the view (site.js)."""
    other = next(x for x in LANGS if x != lang)
    links = [f'<a href="{s}.html" data-view{" aria-current=page" if s == slug else ""}>{escape(t(sec.title, lang))}</a>'
             for s, sec in SECTIONS.items()]
    label = escape(t("site.nav", lang))
    return (f'<header><nav class="row" aria-label="{label}">{"".join(links)}</nav>'
            f'<nav class="menu" aria-label="{label}"><details><summary>{escape(t(SECTIONS[slug].title, lang))}'
            f'</summary><ol>{"".join(f"<li>{a}</li>" for a in links)}</ol></details></nav>'
            f'<a class="lang" href="../{other}/{slug}.html" data-view hreflang="{other}" lang="{other}">'
            f'{escape(t("site.other", lang))}</a></header>')


def _pager(slug: str, lang: str) -> str:
    """The end of a page: the previous and the next section, by name (the first and the last lack one)."""
    order = list(SECTIONS)
    at = order.index(slug)
    sides = (("prev", order[at - 1] if at else None), ("next", order[at + 1] if at + 1 < len(order) else None))
    links = "".join(f'<a class="{rel}" rel="{rel}" href="{s}.html" data-view><span class="dir">'
                    f'{escape(t(f"site.{rel}", lang))}</span> <span class="name">{escape(t(SECTIONS[s].title, lang))}'
                    f'</span></a>' for rel, s in sides if s)
    return f'<nav class="pager" aria-label="{escape(t("site.pager", lang))}">{links}</nav>'


def _plotly_locale(lang: str) -> dict | None:
    """The chart toolbar's words in the page's language (plotly.js speaks English by itself)."""
    if lang == "en":
        return None
    keys = [k for k in TEXT if k.startswith("site.plotly.")]
    return {"name": lang, "dictionary": {t(k, "en"): t(k, lang) for k in keys}}


def _head(p: Page, title: str, base_url: str | None, preview: bool) -> str:
    path, base_url = f"{p.lang}/{p.slug}.html", base_url and base_url.rstrip("/")
    tags = [f'<meta name="description" content="{escape(p.intro)}">',
            f'<meta property="og:title" content="{escape(title)}">',
            f'<meta property="og:description" content="{escape(p.intro)}">',
            '<meta property="og:type" content="article">', '<meta property="og:site_name" content="KV Atlas">',
            f'<meta property="og:locale" content="{"ko_KR" if p.lang == "ko" else "en_US"}">',
            f'<meta name="twitter:card" content="{"summary_large_image" if preview else "summary"}">',
            f'<meta name="twitter:title" content="{escape(title)}">',
            f'<meta name="twitter:description" content="{escape(p.intro)}">']
    if preview:
        image_url = f"files/{p.slug}/preview.png"
        if base_url:
            image_url = f"{base_url}/{p.lang}/{image_url}"
        tags += [f'<meta property="og:image" content="{escape(image_url)}">',
                 f'<meta property="og:image:width" content="{PREVIEW[0]}">',
                 f'<meta property="og:image:height" content="{PREVIEW[1]}">',
                 f'<meta property="og:image:alt" content="{escape(title)}">',
                 f'<meta name="twitter:image" content="{escape(image_url)}">']
    if base_url:
        tags += [f'<link rel="canonical" href="{escape(base_url)}/{path}">',
                 f'<meta property="og:url" content="{escape(base_url)}/{path}">']
    return "\n".join(tags)


def write_page(out: Path, p: Page, figures: Figures, base_url: str | None, preview: bool) -> Path:
    lang = p.lang
    title = f"{t(SECTIONS[p.slug].title, lang)} · KV Atlas"
    inline = sorted(p.inline)
    data = {"slug": p.slug, "stops": CONTEXT_STOPS, "stop": DEFAULT_STOP, "combos": p.combos, "charts": p.charts,
            "roles": {r.name: r.default for r in ROLES}, "ticks": _ticks(), "address": address(lang),
            "classes": [p.classes[k] if k in p.inline else None for k in range(len(p.classes))],
            "template": TEMPLATE, "config": {**plotly_config("x"), "responsive": True},
            "locale": _plotly_locale(lang)}
    used = {c["fig"] for c in p.charts} | p.figures(inline)
    script = (f"window.KV={_js(json.dumps(data, ensure_ascii=False))};"
              f"window.KV.figures={_js(_figures_json(figures, used))};")
    controls = _controls(lang, len(p.combos) > len(PRESET_COMBOS)) if any(p.classes) else ""
    text = f"""<!doctype html>
<html lang="{lang}"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>{escape(title)}</title>
{_head(p, title, base_url, preview)}
<link rel="icon" href="data:,"><link rel="stylesheet" href="../site.css"></head>
<body>{_header(p.slug, lang)}{controls}
<main>{"".join(p.html)}</main>
{_pager(p.slug, lang)}
<script src="../plotly.min.js"></script>
<script>{script}</script>
<script src="../site.js"></script></body></html>
"""
    path = out / lang / f"{p.slug}.html"
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
            path.write_text(f"KV.loaded({k},{_js(json.dumps(states, ensure_ascii=False))},"
                            f"{_js(_figures_json(figures, p.figures([k]) - shipped))});\n", encoding="utf-8")


def _figures_json(figures: Figures, used) -> str:
    return "{" + ",".join(f'"{n}":{figures.json[n]}' for n in sorted(used)) + "}"


def _js(text: str) -> str:
    """JSON as a script's text: nothing in it can end the script element."""
    return text.replace("</", "<\\/").replace("\u2028", "\\u2028").replace("\u2029", "\\u2029")


def write_files(out: Path, p: Page, figures: Figures, images: bool) -> None:
    """Each chart's downloads at the default state: its numbers (CSV) and interactive HTML (and,
    with `images`, SVG and PNG)."""
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


def write_previews(out: Path, slugs, langs=LANGS) -> None:
    """Each page's link-preview picture, through this process's one warm kaleido."""
    for lang, slug in product(langs, slugs):
        chart = lead(slug, lang)
        if chart:
            path = out / lang / "files" / slug / "preview.png"
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(preview_png(chart))


def build(out: Path, *, base_url: str | None = None, images: bool = False, precisions: bool = False,
          progress: Callable[[str], None] | None = None, say: Callable[[str], None] = print,
          slugs=tuple(SECTIONS)) -> list[Path]:
    """Write the site into `out`: a page per section and language, their files, the shared assets
    (the partial plotly.js, fetched if need be), each page's link-preview picture; with `images`,
    each figure's SVG and PNG; with `precisions`, every per-component precision too. Without a
    Chrome or Chromium it writes the rest and `say`s what it left out. The languages are built side
    by side, a process each, while this one renders the previews; `progress` hears of each page."""
    out.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(plotly_js.ensure(say), out / "plotly.min.js")
    for asset in ("site.css", "site.js"):
        shutil.copyfile(ASSETS / asset, out / asset)
    (out / "index.html").write_text(_redirect(f"{DEFAULT_LANG}/overview.html"), encoding="utf-8")
    pictures = image_browser() is not None
    if not pictures:
        left = "the link-preview pictures" + (" and the figures' SVG/PNG downloads" if images else "")
        say(f"built without {left}: {NO_BROWSER}")
    written, n = [], len(LANGS)
    with ProcessPoolExecutor(min(n, os.cpu_count() or 1), mp_context=get_context("spawn")) as pool:
        pages = pool.map(_language, [out] * n, LANGS, [base_url] * n, [images and pictures] * n, [pictures] * n,
                         [precisions] * n, [progress] * n, [tuple(slugs)] * n)
        if pictures:
            write_previews(out, slugs)
        for paths in pages:
            written += paths
    return written


def _language(out: Path, lang: str, base_url: str | None, images: bool, previews: bool, precisions: bool,
              progress: Callable[[str], None], slugs: tuple[str, ...]) -> list[Path]:
    (out / lang).mkdir(exist_ok=True)
    figures, written = Figures(lang), []
    for slug in slugs:
        p = page(slug, lang, figures, images, precisions)
        written.append(write_page(out, p, figures, base_url, previews and bool(p.charts)))  # lead: charts[0]
        write_classes(out, p, figures)
        write_files(out, p, figures, images)
        if progress:  # a module's function: it travels to the language's process
            progress(f"{lang}/{slug}")
    (out / lang / "index.html").write_text(_redirect("overview.html"), encoding="utf-8")
    return written


def _redirect(to: str) -> str:
    return (f'<!doctype html><meta charset="utf-8"><meta http-equiv="refresh" content="0; url={to}">'
            f'<link rel="canonical" href="{to}"><a href="{to}">KV Atlas</a>')
