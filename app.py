"""KV Atlas: the router and the shared sidebar. Run with `streamlit run app.py`."""

import streamlit as st

import ui
from article import SECTIONS
from i18n import t

st.set_page_config(page_title="KV Atlas", page_icon="🗺️", layout="wide")

if "figure" in st.query_params:  # one figure alone, for an iframe (add &embed=true to hide Streamlit's chrome)
    ui.embed()
    st.stop()

# Navigation first: a control that rewrites a linked value reruns, and a rerun keeps the page
# only once st.navigation has chosen it. Page titles need the language before the sidebar.
lang = ui.language()
# A page's file is named as its URL: until some session has called st.navigation, a fresh
# process resolves URLs against pages/ file names (ui.view() then hands the run back to here).
sections = [st.Page(f"pages/{slug}.py", title=t(section.title, lang),
                    **({"default": True} if slug == "overview" else {"url_path": slug}))
            for slug, section in SECTIONS.items()]  # the article's sections (article/), then the tools
page = st.navigation([*sections, st.Page("pages/export.py", title=t("app.page.export", lang), url_path="export")])
ui.sidebar()
ui.url_notes()
page.run()
ui.section_links(sections, page, ui.view().lang)
ui.run_completed()
