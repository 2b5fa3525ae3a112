"""The width the page draws its figures for. The server cannot see the reader's screen, so a
component measures the main column and reports its width class (figures.canvas.width_class);
until it has, the first run guesses from the browser's User-Agent (a phone, a tablet or a
desktop). A guess that was wrong costs one rerun, on the first load."""

from __future__ import annotations

from pathlib import Path

import streamlit as st

from figures import SCREEN_WIDTHS, width_class

_mount = st.components.v2.component("kv_atlas.column", js=Path(__file__).with_name("column.js").read_text(),
                                    isolate_styles=False)
KEY = "canvas"
GUESS = {"phone": 358, "tablet": 736, "desktop": 940}  # a column's px on each (the iPhone 13, iPad Mini, 1,400 px)


def guess() -> int:
    """The width class a first run draws for, from the User-Agent."""
    agent = (st.context.headers.get("User-Agent") or "").lower()
    kind = "tablet" if "ipad" in agent or "tablet" in agent else "phone" if "mobi" in agent else "desktop"
    return width_class(GUESS[kind])


def current() -> int:
    """The width class of the reader's main column: as measured once the page has drawn, else guessed."""
    reported = st.session_state.get(f"_{KEY}")
    return reported if reported in SCREEN_WIDTHS else guess()


def column_width(where) -> int:
    """`current()`, with the component that measures the column mounted in `where` (the sidebar on
    a page; the main column in a figure-only view, which has none)."""
    drawn = current()
    with where:
        _mount(key=KEY, data={"widths": list(SCREEN_WIDTHS), "current": drawn}, default={"width": None},
               on_width_change=_reported, width="stretch", height="content")
    return drawn


def _reported() -> None:
    st.session_state[f"_{KEY}"] = st.session_state[KEY].get("width")
