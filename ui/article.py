"""A section of the article (article/) drawn with Streamlit: each block as its element, each
control as its widget (bound to the URL), a part the context moves as a fragment of its own."""

from __future__ import annotations

import re
from urllib.parse import urlencode

import pandas as pd
import streamlit as st

from article import (
    SECTIONS,
    Ask,
    Chart,
    Either,
    Heading,
    Metrics,
    Part,
    Table,
    Text,
    Title,
    Tool,
    notation,
    run_section,
)
from figures import CONTEXT, FONT_SCALE, LANG, PRECISION, THEME, UNITS, Knob, TupleKnob

from .charts import chart
from .state import control, follows_context, view

_TEXT = {"markdown": st.markdown, "caption": st.caption, "info": st.info, "error": st.error,
         # the article's own prose (article/prose/): Markdown with <sub>/<sup>, no reader's input in it
         "prose": lambda text: st.markdown(notation(sections_linked(text)), unsafe_allow_html=True)}


def sections_linked(markdown: str) -> str:
    """The prose's links to a section by its slug ([V2 · MLA](v2-mla)) with the reader's view: a
    link opens its page afresh, so the language, context, precision and look go along."""
    v = view()
    query = urlencode({LANG.key: v.lang, **CONTEXT.dump(v.context), **PRECISION.dump(v.precision),
                       **UNITS.dump(v.units), **THEME.dump(v.theme), **FONT_SCALE.dump(v.font_scale)})
    return re.sub(r"\]\(([\w-]+)\)",  # the Overview is the app's home
                  lambda m: f"]({'.' if m[1] == 'overview' else m[1]}?{query})" if m[1] in SECTIONS else m[0], markdown)


def show(slug: str, **tools) -> None:
    """Draw the section `slug` for this run's view; `tools` are the app's own (see the section)."""
    run_section(SECTIONS[slug].draw(view(), **tools), _answer)


def _answer(block):
    match block:
        case Title(text):
            st.title(text)
        case Heading(text, level):
            (st.header if level == 2 else st.subheader)(text)
        case Text(text, style):
            _TEXT[style](text)
        case Metrics(items):
            for col, (label, value) in zip(st.columns(len(items)), items):
                col.metric(label, value)
        case Chart(figure_id, knobs, width):
            chart(figure_id, width=width, **knobs)
        case Table():
            _table(block)
        case Ask(knobs, widths):
            return _ask(knobs, widths)
        case Tool(app):
            return app()
        case Either(app):
            for b in app:
                _answer(b)
        case Part(key, section):
            return _part(key, section)


def _table(table: Table) -> None:
    """A table drawn as a table (st.table: no grid toolbar, whose English a Korean screen reader would
    read), as wide as the column; byte counts right-aligned with thousands separators, a missing one a
    dash; named for a screen reader; a CSV download where the table offers one, under its own label."""
    frame = pd.DataFrame(table.columns)
    numbers = [c for c in table.numbers if c in frame]
    # whole numbers stay whole beside a missing one (pandas would make the column float)
    shown = frame.assign(**{c: _whole(frame[c]) for c in numbers})
    if table.wrap:  # long texts: every cell whole, wrapped (a file path too, on a phone), the first column heading
        shown = shown.set_index(shown.columns[0])
    if numbers:  # (a Styler needs a unique index: a table with numbers has no heading column)
        shown = (shown.style.format(_number_or_dash, subset=numbers, na_rep="—")
                 .set_properties(subset=numbers, **{"text-align": "right", "font-variant-numeric": "tabular-nums"})
                 .set_table_styles({c: [{"selector": "th", "props": "text-align: right"}] for c in numbers},
                                   overwrite=False))
    st.html(_TABLE_CSS)
    st.table(shown, hide_index=not table.wrap, alt=table.name or None)
    if table.download:
        label, name = table.download
        st.download_button(label, frame.to_csv(index=False).encode("utf-8"), file_name=name, mime="text/csv")


# every table as wide as the column, a cell's text wrapped within it (Streamlit holds a cell's Markdown to
# 400 px, which left a wide table's long texts in a narrow strip); a table with a heading column (a wrapped
# one) laid out fixed, that column a quarter of it, a long file path broken anywhere (Streamlit's markdown
# sets the paragraph's overflow-wrap itself: only !important overrides it)
_TABLE_CSS = ('<style>[data-testid="stTable"] table{width:100%}'
              '[data-testid="stTable"] :is(td,th){white-space:normal}'
              '[data-testid="stTable"] thead th{word-break:keep-all}'  # a Korean heading breaks between words
              '[data-testid="stTable"] :is(td,th) [data-testid="stMarkdownContainer"]{max-width:none}'
              '[data-testid="stTable"]:has(tbody th) table{table-layout:fixed}'
              '[data-testid="stTable"]:has(tbody th) thead th:first-child{width:25%}'
              '[data-testid="stTable"]:has(tbody th) :is(td,th,td p,th p){overflow-wrap:anywhere !important}</style>')


def _whole(column: pd.Series) -> pd.Series:
    """A column of byte counts as whole numbers where every one is whole (a missing one kept missing)."""
    present = column.dropna()
    if len(present) and all(float(v).is_integer() for v in present):
        return column.astype("Int64")
    return column


def _number_or_dash(v) -> str:
    if pd.isna(v):
        return "—"
    return f"{int(v):,}" if float(v).is_integer() else f"{v:,}"


def _widgets(k: Knob) -> int:
    """How many widgets a knob takes: a tuple knob one per part (ui.state.control)."""
    return len(k.parts) if isinstance(k, TupleKnob) else 1


def _ask(knobs, widths) -> tuple:
    """One widget per knob, side by side (a tuple knob takes a column per part); alone, full width."""
    slots = sum(_widgets(k) for k in knobs)
    columns = iter(st.columns(list(widths) if widths else slots)) if slots > 1 or widths else None
    values = []
    for k in knobs:
        where = None if columns is None else [next(columns) for _ in k.parts] if _widgets(k) > 1 else next(columns)
        values.append(control(k, where))
    return tuple(values)


def _part(key: str, section):
    @follows_context(key)
    def part():
        return run_section(section(view()), _answer)

    return part()
