"""Mechanism figures (A3–A6, A8–A10) as objects: the boxes they state, the values they draw
(taken from the heatmaps' own data), and every knob at its ends."""

import re

import numpy as np
import pytest

from core import get
from core.mla import ARTICLE_DIMS
from figures import EXTRAS, FIGURES

HANGUL = re.compile(r"[\uac00-\ud7a3]")


def heatmaps(fig, label: str) -> list[np.ndarray]:
    """Values of every heatmap whose hover names `label` (e.g. 'P<sub>h</sub>')."""
    return [np.array(tr.z, dtype=float) for tr in fig.data
            if tr.type == "heatmap" and tr.hovertemplate.startswith(label + ":")]


def texts(fig) -> str:
    return "\n".join(a.text for a in fig.layout.annotations) + fig.layout.title.text


def test_a3_states_the_article_sizes_and_marks_only_ckv_and_kr_as_cached():
    fig = FIGURES["A3"]()
    body = texts(fig)
    for shape in ["[T × 1,536]", "[T × 512]", "[T × 64]", "[5,120 × 512]", "[1,536 × 128]"]:
        assert shape in body
    cached = [s for s in fig.layout.shapes if s.line.width == 3]
    assert len(cached) == 3  # C^KV (drawn in two lanes) and K^R
    assert f"{ARTICLE_DIMS.kv_lora_rank}차원" in body


def test_a4_divides_by_the_root_of_the_full_head_width():
    body = texts(FIGURES["A4"](lang="en"))
    assert "√(128+64)" in body and "concat 128 heads" in body and "[16,384 × 5,120]" in body


@pytest.mark.parametrize("fid, label", [("A5", "S<sup>C</sup><sub>h</sub>"), ("A6", "Y<sub>h</sub>")])
def test_three_orders_draw_equal_results_at_fp64(fid, label):
    a, b, c = heatmaps(FIGURES[fid](), label)
    assert np.max(np.abs(a - b)) < 1e-12 and np.max(np.abs(a - c)) < 1e-12
    assert re.search(r"= \d\.\de-1[2-9] ", texts(FIGURES[fid]()))  # the measured difference is stated


@pytest.mark.parametrize("fid, label", [("A5", "S<sup>C</sup><sub>h</sub>"), ("A6", "Y<sub>h</sub>")])
@pytest.mark.parametrize("precision", ["bf16", "fp8"])
def test_rounding_makes_the_orders_differ_a_little(fid, label, precision):
    a, b, c = heatmaps(FIGURES[fid](precision=precision), label)
    spread = max(np.max(np.abs(a - b)), np.max(np.abs(a - c)))
    assert 0 < spread < 0.4 * np.max(np.abs(a))


def test_a8_takes_the_cached_index_key_format_from_the_model_spec():
    key = get("v3.2").component("index_key")
    assert f"{key.layout(key.deployed).nbytes} B" in texts(FIGURES["A8"]())  # 132 B, FP8


@pytest.mark.parametrize("tokens, topk", [(2, 1), (6, 3), (10, 1), (10, 12), (7, 7)])
def test_a9_mask_keeps_exactly_min_k_visible_positions_per_row(tokens, topk):
    (m,) = heatmaps(FIGURES["A9"](tokens=tokens, topk=topk), "M")
    chosen = ~np.isnan(m)  # −∞ is drawn as an empty cell
    assert chosen.sum(axis=1).tolist() == [min(topk, t + 1) for t in range(tokens)]
    assert not np.triu(chosen, 1).any()  # never a future position


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_a10_probability_sits_only_on_chosen_positions_and_sums_to_one(seed):
    fig = FIGURES["A10"](seed=seed, topk=2)
    (m,) = heatmaps(fig, "M")
    p = heatmaps(fig, "P<sub>h</sub>")[0]
    assert np.allclose(p.sum(axis=1), 1.0)
    assert np.all(p[np.isnan(m)] == 0)


KNOB_ENDS = {
    "A5": [dict(tokens=2, kv_lora_rank=2, qk_nope_head_dim=1, seed=9999, precision="fp8"),
           dict(tokens=10, kv_lora_rank=12, qk_nope_head_dim=8, precision="bf16", lang="en")],
    "A6": [dict(tokens=2, kv_lora_rank=2, qk_nope_head_dim=1, seed=9999, precision="fp8"),
           dict(tokens=10, kv_lora_rank=12, qk_nope_head_dim=8, precision="bf16", lang="en")],
    "A9": [dict(tokens=2, topk=1, seed=9999), dict(tokens=10, topk=12, lang="en")],
    "A10": [dict(tokens=2, topk=1, seed=9999), dict(tokens=10, topk=12, lang="en")],
}


@pytest.mark.parametrize("fid, knobs", [(f, k) for f, ks in KNOB_ENDS.items() for k in ks])
def test_mechanism_figures_build_at_the_ends_of_their_knobs(fid, knobs):
    fig = FIGURES[fid](**knobs)
    assert any(tr.type == "heatmap" for tr in fig.data)
    if knobs.get("lang") == "en":
        assert not HANGUL.search(texts(fig))


@pytest.mark.parametrize("fid", ["A3", "A4", "A8"])
def test_structural_diagrams_have_no_korean_left_in_english(fid):
    assert not HANGUL.search(texts(FIGURES[fid](lang="en")))


def test_cost_chart_shows_absorb_cheaper_at_decode_and_expand_cheaper_at_prefill():
    fig = EXTRAS["mla-cost"]()
    y = {tr.name: np.asarray(tr.y, dtype=float) for tr in fig.data}
    assert y["① 펼치기 · decode"][-1] > 100 * y["② 흡수 · decode"][-1]
    assert y["① 펼치기 · prefill"][-1] < y["② 흡수 · prefill"][-1]
