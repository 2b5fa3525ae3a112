"""Moving through the article: links to the previous and the next section at a section's end."""

from __future__ import annotations

import streamlit as st

from i18n import t


def section_links(sections: list, page, lang: str) -> None:
    """At the end of a section, links to the one before and the one after it (st.page_link, in
    the page's language); nothing on a page that is not a section."""
    at = next((i for i, p in enumerate(sections) if p.url_path == page.url_path), None)
    if at is None:
        return
    st.divider()
    with st.container(horizontal=True, horizontal_alignment="distribute", key="section-links"):
        if at > 0:
            st.page_link(sections[at - 1], label=t("app.prev", lang, p=sections[at - 1].title))
        if at + 1 < len(sections):
            st.page_link(sections[at + 1], label=t("app.next", lang, p=sections[at + 1].title))
