"""The site's HTML, from Jinja2 templates (templates/) with autoescape on: every text is escaped
once, by the template; only the prose's Markdown (rendered by markdown-it) and a page's script
data (data.script) go in as they are."""

from __future__ import annotations

import re
from functools import cache
from html import unescape
from pathlib import Path

from jinja2 import Environment, FileSystemLoader, StrictUndefined
from markdown_it import MarkdownIt
from markupsafe import Markup, escape

from article import SECTIONS, AppField, Heading, Metrics, Table, Text, Title, notation
from i18n import LANGS, t

from .states import DEFAULT_STOP, PRESET, ROLES, AppControls, ticks

TEMPLATES = Path(__file__).resolve().parent / "templates"
PREVIEW = (1200, 630)  # px: a shared link's preview image (Open Graph)
# the article's prose (article/prose/) as the app's st.markdown draws it: CommonMark, tables, inline HTML
PROSE = MarkdownIt("commonmark", {"html": True}).enable("table")


@cache
def _env(lang: str) -> Environment:
    """The templates in a language: `t(key)` is i18n's text in it."""
    env = Environment(loader=FileSystemLoader(TEMPLATES), autoescape=True, undefined=StrictUndefined,
                      keep_trailing_newline=False)
    env.globals.update(lang=lang, t=lambda key, **fields: t(key, lang, **fields),
                       rows=lambda table: [list(zip(table.columns, row)) for row in zip(*table.columns.values())])
    return env


def _macros(lang: str):
    return _env(lang).get_template("blocks.html").module


def block(b, lang: str) -> str:
    """A text block of the article (not a chart) as HTML."""
    m = _macros(lang)
    match b:
        case Title(text):
            return m.title(text)
        case Heading(text, level):
            return m.heading(text, level)
        case Text(text, "prose"):
            return m.prose(Markup(sections_linked(PROSE.render(notation(text)))))
        case Text(text, style):
            return m.text(linked(text), style)
        case Metrics(items):
            return m.metrics(items)
        case Table():
            return m.table(b)
    raise TypeError(f"no HTML for {b!r}")


def app_controls(b: AppControls, slug: str, lang: str, app_url: str | None) -> str:
    """Where the app draws a figure's controls: which they are, and a link to the figure in the app
    at the reader's view (site.js adds the view; the app scrolls to the figure named after #)."""
    names = ", ".join(dict.fromkeys(t(k.label, lang) for k in b.knobs if k.label))
    return _macros(lang).app_controls(names, app_page(app_url, slug), lang, b.figure_id)


def app_field(b: AppField, slug: str, lang: str, app_url: str | None) -> str:
    """A value only the app reads, as a form that opens the section's page in the app with it; nothing on a site
    built without the app's address (the text beside it says the app does this)."""
    href = app_page(app_url, slug)
    return _macros(lang).app_field(b, href, lang) if href else ""


def app_page(app_url: str | None, slug: str) -> str | None:
    """A section's page in the app (its path is the slug; the Overview is the app's home)."""
    return app_url and f"{app_url.rstrip('/')}/{'' if slug == 'overview' else slug}"


def sections_linked(html: str) -> str:
    """Prose's links to a section by its slug ([V2 · MLA](v2-mla), as the app's pages are addressed)
    as the site's pages: <slug>.html, carrying the view as the navigation's links do (site.js)."""
    return re.sub(r'<a href="([\w-]+)">', lambda m: f'<a href="{m[1]}.html" data-view>' if m[1] in SECTIONS else m[0],
                  html)


def linked(text: str) -> Markup:
    """A text, escaped, with its addresses made links (Streamlit's markdown does the same in the app)."""
    link = Markup('<a href="{0}">{0}</a>')  # the address is escaped text already: Markup keeps it as it is
    return Markup(re.sub(r"https?://[^\s<>()]+", lambda m: link.format(Markup(m[0])), str(escape(text))))


def wrapped(el: str, html: str, lang: str) -> str:
    """A block in the element the page's script swaps its states into."""
    return _macros(lang).wrap(el, Markup(html))


def figure(el: str, figure_id: str, title: str, described: str, slug: str, lang: str, images: bool) -> str:
    """A chart's place: its element, its text alternative, its downloads and its own link."""
    return _macros(lang).figure(el, figure_id, title, described, slug, ("csv", "html", *(("svg", "png") if images
                                                                                           else ())))


def plain(text: Text, most: int = 300) -> str:
    """A text without its markup, on one line, cut at a word near `most` characters (the template
    escapes it once)."""
    rendered = PROSE.render(text.text) if text.style == "prose" else text.text
    flat = " ".join(unescape(re.sub(r"<[^>]+>", "", rendered)).split())
    return flat if len(flat) <= most else flat[:most].rsplit(" ", 1)[0] + " …"


def page(p, blocks: list[str], data: str, figures: str, base_url: str | None, preview: bool,
         controls: bool, every: bool) -> str:
    """A section's page: head, header, controls, its blocks, the pager and its script data."""
    lang, base = p.lang, base_url and base_url.rstrip("/")
    image_url = None
    if preview:
        image_url = f"files/{p.slug}/preview.png"
        image_url = f"{base}/{lang}/{image_url}" if base else image_url
    order = list(SECTIONS)
    at = order.index(p.slug)
    sides = [(rel, s, t(SECTIONS[s].title, lang)) for rel, s in
             (("prev", order[at - 1] if at else None), ("next", order[at + 1] if at + 1 < len(order) else None)) if s]
    return _env(lang).get_template("page.html").render(
        title=f"{t(SECTIONS[p.slug].title, lang)} · KV Atlas", intro=p.intro, image_url=image_url, preview=PREVIEW,
        page_url=base and f"{base}/{lang}/{p.slug}.html", slug=p.slug, section=t(SECTIONS[p.slug].title, lang),
        sections=[(s, t(sec.title, lang)) for s, sec in SECTIONS.items()], other=next(x for x in LANGS if x != lang),
        controls=controls, every=every, ticks=ticks(), stop=DEFAULT_STOP, preset=PRESET, roles=ROLES,
        app=app_page(p.app_url, p.slug),
        blocks=[Markup(b) for b in blocks], sides=sides, data=Markup(data), figures=Markup(figures))


def redirect(to: str) -> str:
    return _env(LANGS[0]).get_template("redirect.html").render(to=to)
