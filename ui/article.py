"""A section of the article (article/) drawn with Streamlit: each block as its element, each
control as its widget (bound to the URL), a part the context moves as a fragment of its own."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from article import SECTIONS, Ask, Chart, Either, Heading, Metrics, Part, Table, Text, Title, Tool, run_section
from article.prose import notation
from figures.knobs import Knob, TupleKnob

from .charts import chart
from .state import control, follows_context, view

_TEXT = {"markdown": st.markdown, "caption": st.caption, "info": st.info, "error": st.error,
         # the article's own prose (article/prose/): Markdown with <sub>/<sup>, no reader's input in it
         "prose": lambda text: st.markdown(notation(text), unsafe_allow_html=True)}


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
    frame = pd.DataFrame(table.columns)
    if table.wrap:  # long texts: every cell whole, wrapped (a file path too, on a phone), the first column heading
        st.html(_WRAP_CSS)
        st.table(frame.set_index(frame.columns[0]))
    elif frame[list(table.numbers)].isna().any().any():  # a missing number: a dash, not the grid's "None"
        shown = frame.assign(**{c: frame[c].map(_number_or_dash) for c in table.numbers})
        st.dataframe(shown, hide_index=True, width="stretch",
                     column_config={c: st.column_config.TextColumn(alignment="right") for c in table.numbers})
    else:
        st.dataframe(frame, hide_index=True, width="stretch",
                     column_config={c: st.column_config.NumberColumn(format="localized") for c in table.numbers})
    if table.download:
        label, name = table.download
        st.download_button(label, frame.to_csv(index=False).encode("utf-8"), file_name=name, mime="text/csv")


# the table as wide as the column, its heading column a quarter of it, a long file path broken anywhere
# (Streamlit's markdown sets the paragraph's overflow-wrap itself: only !important overrides it)
_WRAP_CSS = ('<style>[data-testid="stTable"] table{table-layout:fixed;width:100%}'
             '[data-testid="stTable"] thead th:first-child{width:25%}'
             '[data-testid="stTable"] td,[data-testid="stTable"] th,[data-testid="stTable"] td p,'
             '[data-testid="stTable"] th p{overflow-wrap:anywhere !important;white-space:normal}</style>')


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
