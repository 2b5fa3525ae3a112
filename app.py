"""KV Atlas: the router and the shared sidebar. Run with `streamlit run app.py`."""

import streamlit as st

import ui
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
pages = [
    st.Page("pages/overview.py", title=t("app.page.overview", lang), default=True),
    st.Page("pages/v2-mla.py", title=t("app.page.v2", lang), url_path="v2-mla"),
    st.Page("pages/v3-2-dsa.py", title=t("app.page.v32", lang), url_path="v3-2-dsa"),
    st.Page("pages/v4-flash.py", title=t("app.page.v4", lang), url_path="v4-flash"),
    st.Page("pages/v4-1-flash.py", title=t("app.page.v41", lang), url_path="v4-1-flash"),
    st.Page("pages/token-axis.py", title=t("app.page.b", lang), url_path="token-axis"),
    st.Page("pages/any-model.py", title=t("app.page.beyond", lang), url_path="any-model"),
    st.Page("pages/export.py", title=t("app.page.export", lang), url_path="export"),
]
page = st.navigation(pages)
ui.sidebar()
ui.url_notes()
page.run()
ui.run_completed()
