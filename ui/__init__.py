"""Streamlit glue shared by the router and the pages (figures/ and core/ know nothing of it):

state   the view (sidebar), controls drawn from the registry's knobs, URL tidying
charts  a figure cached per knobs and look, its downloads and its figure-only link
embed   the ?figure= view
nav     links to the previous and the next section
article a section of the article (article/) drawn with Streamlit
"""

from .article import show
from .charts import chart, figure_link
from .embed import embed
from .hub import HF_KEY, HUB_FAILURES, fetch_model, hub_failure
from .nav import section_links
from .state import (
    View,
    control,
    follows_context,
    imported_models,
    language,
    remember_import,
    run_completed,
    select_model,
    sidebar,
    url_notes,
    view,
)

__all__ = ["HF_KEY", "HUB_FAILURES", "View", "chart", "control", "embed", "fetch_model", "figure_link",
           "follows_context", "hub_failure", "imported_models", "language", "remember_import", "run_completed",
           "section_links", "select_model", "show", "sidebar", "url_notes", "view"]
