"""KV Atlas: the router and the shared sidebar. Run with `streamlit run app.py`."""

import streamlit as st

import ui
from figures.i18n import t

st.set_page_config(page_title="KV Atlas", page_icon="🗺️", layout="wide")

view = ui.sidebar()
pages = [
    st.Page("pages/overview.py", title=t("app.page.overview", view.lang), url_path="overview", default=True),
]
st.navigation(pages).run()
