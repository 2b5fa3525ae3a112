"""The Any model page opened from a link that names a Hugging Face model (?hf=), against the fake Hub
(tests/fakehub.py): the model's row in the comparison, and each failure said in one line."""

from __future__ import annotations

import pytest
from fakehub import COMMIT
from test_app import assert_page_runs as run_page

import ui


def test_a_link_with_a_model_id_shows_its_row(fake):
    at = run_page("pages/any-model.py", ui.View(lang="en"), timeout=90, hf="fake/llama-fp8")
    assert not at.exception and not at.error
    assert any(f"fake/llama-fp8@{COMMIT[:7]}" in s.value for s in at.success)
    table = at.table[1].value  # the comparison: the link's model beside the defaults
    row = table[table.iloc[:, 0].str.startswith("fake/llama-fp8")]
    assert len(row) == 1 and row.iloc[0].iloc[3] == 32 * 2 * 8 * 128 * 2  # Llama 3.1 8B's widths, BF16


@pytest.mark.parametrize("model_id, says", [("meta-llama/gated", "is gated"), ("../etc", "not a Hugging Face"),
                                            ("nobody/nothing", "no public model")])
def test_a_link_the_hub_cannot_serve_is_one_line_not_a_traceback(fake, model_id, says):
    at = run_page("pages/any-model.py", ui.View(lang="en"), timeout=90, hf=model_id)
    assert not at.exception
    assert len(at.error) == 1 and says in at.error[0].value
