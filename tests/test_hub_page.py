"""The Any model page opened from a link that names a Hugging Face model (?hf=), against the fake Hub
(tests/fakehub.py): the model's row in the comparison, and each failure said in one line."""

from __future__ import annotations

import pytest
from fakehub import COMMIT
from test_app import assert_page_runs as run_page

import core
import ui
from core import hub


def hub_error(model_id: str) -> hub.HubError:
    try:
        hub.fetch(model_id)
    except hub.HubError as e:
        return e
    raise AssertionError(f"{model_id} was fetched")


def test_a_link_with_a_model_id_shows_its_row(fake):
    at = run_page("pages/any-model.py", ui.View(lang="en"), timeout=90, hf="fake/llama-fp8")
    assert not at.exception and not at.error
    assert any(f"fake/llama-fp8@{COMMIT[:7]}" in s.value for s in at.success)
    table = at.table[1].value  # the comparison: the link's model beside the defaults
    row = table[table.iloc[:, 0].str.startswith("fake/llama-fp8")]
    assert len(row) == 1 and row.iloc[0].iloc[3] == 32 * 2 * 8 * 128 * 2  # Llama 3.1 8B's widths, BF16


@pytest.mark.parametrize("lang, model_id, says", [
    ("en", "meta-llama/gated", "accept its owner's terms"), ("en", "../etc", "not a Hugging Face model id"),
    ("en", "nobody/nothing", "no public model called nobody/nothing"), ("en", "fake/rate-limited", "in 30 s"),
    ("ko", "meta-llama/gated", "토큰을 받지 않으므로"), ("ko", "fake/rate-limited", "30초 뒤에"),
    ("ko", "mistralai/params-only", "params.json만")])
def test_a_link_the_hub_cannot_serve_is_one_line_in_the_readers_language(fake, lang, model_id, says):
    at = run_page("pages/any-model.py", ui.View(lang=lang), timeout=90, hf=model_id)
    assert not at.exception
    (error,) = at.error
    assert says in error.value
    if lang == "ko":  # said in Korean, not core.hub's English line
        assert str(hub_error(model_id)) not in error.value


def test_a_figure_link_names_the_fetched_model_so_a_fresh_session_shows_it(fake):
    """A figure link from a page opened by ?hf= carries the Hugging Face id and the model's own id (a digest of its
    spec); a session that never imported the model (every session starts without: nothing is kept process-wide)
    fetches it before the knobs read the link's model id. Without the hf= the model is dropped, with a note."""
    from streamlit.testing.v1 import AppTest
    from test_app import assert_runs, page_charts

    def link():
        import streamlit as st

        import ui
        from figures import EXTRAS
        from ui.charts import figure_link
        from ui.state import imported_models

        st.query_params["hf"] = "fake/llama-fp8"
        *_, model_id = ui.fetch_model("fake/llama-fp8")
        defaults = EXTRAS["capacity"].defaults
        st.code(figure_link("capacity", {**defaults, "models": ("v3.2", imported_models()[model_id].model)}))

    at = AppTest.from_function(link).run()
    model_id = core.imported_id(hub.import_fetched(hub.fetch("fake/llama-fp8")).model)
    assert "hf=fake%2Fllama-fp8" in at.code[0].value and f"models=V3.2&models={model_id}" in at.code[0].value
    with pytest.raises(ValueError, match="unknown model"):
        core.get(model_id)  # the page's session held it; core keeps no imported model
    name = f"fake/llama-fp8@{COMMIT[:7]}"
    for hf, shown in (("fake/llama-fp8", True), (None, False)):
        at = assert_runs(figure="capacity", models=model_id, lang="en", **({"hf": hf} if hf else {}))
        (chart,) = page_charts(at)
        assert (name in chart["data"][0]["y"]) is shown
        assert any(model_id in c.value for c in at.caption) is not shown  # the dropped id is said
