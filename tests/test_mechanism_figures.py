"""Mechanism figures (A3–A6, A8–A10) as objects: the boxes they state, the values they draw
(taken from the heatmaps' own data), and every knob at its ends."""

import re

import numpy as np
import pytest

from core import get
from core.mechanisms.mla import ARTICLE_DIMS
from figures import EXTRAS, FIGURES
from figures.canvas import NATIVE
from i18n import t

HANGUL = re.compile(r"[\uac00-\ud7a3]")


def heatmaps(fig, label: str) -> list[np.ndarray]:
    """Values of every heatmap whose hover names `label` (e.g. 'P<sub>h</sub>')."""
    return [np.array(tr.z, dtype=float) for tr in fig.data
            if tr.type == "heatmap" and tr.hovertemplate.startswith(label + ":")]


def texts(fig) -> str:
    return "\n".join(a.text for a in fig.layout.annotations) + fig.layout.title.text


def test_a3_states_the_article_sizes_and_marks_only_ckv_and_kr_as_cached():
    fig = FIGURES["A3"].build({}, NATIVE).figure
    body = texts(fig)
    for shape in ["[T × 1,536]", "[T × 512]", "[T × 64]", "[5,120 × 512]", "[1,536 × 128]"]:
        assert shape in body
    cached = [s for s in fig.layout.shapes if s.line.width == 3]
    assert len(cached) == 3  # C^KV (drawn in two lanes) and K^R
    assert f"{ARTICLE_DIMS.kv_lora_rank}차원" in body


def test_a4_divides_by_the_root_of_the_full_head_width():
    body = texts(FIGURES["A4"].build(dict(lang="en"), NATIVE).figure)
    assert "√(128+64)" in body and "concat 128 heads" in body and "[16,384 × 5,120]" in body


@pytest.mark.parametrize("fid, label", [("A5", "S<sup>C</sup><sub>h</sub>"), ("A6", "Y<sub>h</sub>")])
def test_three_orders_draw_equal_results_at_fp64(fid, label):
    a, b, c = heatmaps(FIGURES[fid].build({}, NATIVE).figure, label)
    assert np.max(np.abs(a - b)) < 1e-12 and np.max(np.abs(a - c)) < 1e-12
    # the measured difference is stated
    assert re.search(r"= \d\.\de-1[2-9] ", texts(FIGURES[fid].build({}, NATIVE).figure))


@pytest.mark.parametrize("fid, label", [("A5", "S<sup>C</sup><sub>h</sub>"), ("A6", "Y<sub>h</sub>")])
@pytest.mark.parametrize("precision", ["bf16", "fp8"])
def test_rounding_makes_the_orders_differ_a_little(fid, label, precision):
    a, b, c = heatmaps(FIGURES[fid].build(dict(calc=precision), NATIVE).figure, label)
    spread = max(np.max(np.abs(a - b)), np.max(np.abs(a - c)))
    assert 0 < spread < 0.4 * np.max(np.abs(a))


def test_a8_takes_the_cached_index_key_format_from_the_model_spec():
    key = get("v3.2").component("index_key")
    assert f"{key.layout(key.deployed).nbytes} B" in texts(FIGURES["A8"].build({}, NATIVE).figure)  # 132 B, FP8


@pytest.mark.parametrize("tokens, topk", [(2, 1), (6, 3), (10, 1), (10, 12), (7, 7)])
def test_a9_mask_keeps_exactly_min_k_visible_positions_per_row(tokens, topk):
    (m,) = heatmaps(FIGURES["A9"].build(dict(tokens=tokens, topk=topk), NATIVE).figure, "M")
    chosen = ~np.isnan(m)  # −∞ is drawn as an empty cell
    assert chosen.sum(axis=1).tolist() == [min(topk, t + 1) for t in range(tokens)]
    assert not np.triu(chosen, 1).any()  # never a future position


@pytest.mark.parametrize("seed", [0, 1, 7])
def test_a10_probability_sits_only_on_chosen_positions_and_sums_to_one(seed):
    fig = FIGURES["A10"].build(dict(seed=seed, topk=2), NATIVE).figure
    (m,) = heatmaps(fig, "M")
    p = heatmaps(fig, "P<sub>h</sub>")[0]
    assert np.allclose(p.sum(axis=1), 1.0)
    assert np.all(p[np.isnan(m)] == 0)


KNOB_ENDS = {
    "A5": [dict(tokens=2, kv_lora_rank=2, qk_nope_head_dim=1, seed=9999, calc="fp8"),
           dict(tokens=10, kv_lora_rank=12, qk_nope_head_dim=8, calc="bf16", lang="en")],
    "A6": [dict(tokens=2, kv_lora_rank=2, qk_nope_head_dim=1, seed=9999, calc="fp8"),
           dict(tokens=10, kv_lora_rank=12, qk_nope_head_dim=8, calc="bf16", lang="en")],
    "A9": [dict(tokens=2, topk=1, seed=9999), dict(tokens=10, topk=12, lang="en")],
    "A10": [dict(tokens=2, topk=1, seed=9999), dict(tokens=10, topk=12, lang="en")],
}


@pytest.mark.parametrize("fid, knobs", [(f, k) for f, ks in KNOB_ENDS.items() for k in ks])
def test_mechanism_figures_build_at_the_ends_of_their_knobs(fid, knobs):
    fig = FIGURES[fid].build(knobs, NATIVE).figure
    assert any(tr.type == "heatmap" for tr in fig.data)
    if knobs.get("lang") == "en":
        assert not HANGUL.search(texts(fig))


@pytest.mark.parametrize("fid", ["A3", "A4", "A8"])
def test_structural_diagrams_have_no_korean_left_in_english(fid):
    assert not HANGUL.search(texts(FIGURES[fid].build(dict(lang="en"), NATIVE).figure))


def test_cost_chart_shows_absorb_cheaper_at_decode_and_expand_cheaper_at_prefill():
    fig = EXTRAS["mla-cost"].build({}, NATIVE).figure
    y = {tr.name: np.asarray(tr.y, dtype=float) for tr in fig.data}
    assert y["① 펼치기 · decode"][-1] > 100 * y["② 흡수 · decode"][-1]
    assert y["① 펼치기 · prefill"][-1] < y["② 흡수 · prefill"][-1]


# --- V4-Flash (A12–A19) --------------------------------------------------------------------


def grid_rows(fig, title_start: str) -> np.ndarray:
    """The category grid (0 empty, 1 compressed, 2 window, 3 skipped) of a read-grid box."""
    (z,) = [np.array(tr.z, dtype=float) for tr in fig.data
            if tr.type == "heatmap" and tr.hovertemplate.startswith(title_start)]
    return z


def test_a12_and_a16_take_the_entry_width_from_the_v4_flash_spec():
    c = get("v4-flash").component("main_kv").layout("bf16").dims
    assert f"[T × {c}]" in texts(FIGURES["A12"].build({}, NATIVE).figure)
    assert f"[D × 2×{c}]" in texts(FIGURES["A16"].build({}, NATIVE).figure)


@pytest.mark.parametrize("ratio", [1, 2, 4, 8])
def test_a13_weights_sum_to_one_over_the_block_for_every_channel(ratio):
    s = heatmaps(FIGURES["A13"].build(dict(ratio=ratio), NATIVE).figure, "A<sub>i</sub>")[0]  # drawn in two lanes
    assert s.shape[0] == ratio and np.allclose(s.sum(axis=0), 1.0)
    # RoPE at block 1's first token
    assert f"p = {ratio}" in texts(FIGURES["A13"].build(dict(ratio=ratio), NATIVE).figure)


@pytest.mark.parametrize("t_, rows", [(6, (5, 6))])
def test_a14_reproduces_the_article_rows_at_t6_and_t7(t_, rows):
    fig = FIGURES["A14"].build(dict(t_=t_), NATIVE).figure
    a = grid_rows(fig, "t = 6")
    b = grid_rows(fig, "t = 7")
    assert (a.shape[0], b.shape[0]) == rows
    assert (b[:, 4:8] > 0).sum(axis=0).tolist() == [2, 2, 2, 2]  # tokens 4–7: compressed and window


@pytest.mark.parametrize("t_", [0, 3, 13, 30])
@pytest.mark.parametrize("ratio, window", [(1, 1), (4, 4), (8, 3)])
def test_a14_never_reads_a_future_token_at_any_step(t_, ratio, window):
    fig = FIGURES["A14"].build(dict(t_=t_, ratio=ratio, window=window), NATIVE).figure
    for step in (t_, t_ + 1):
        grid = grid_rows(fig, f"t = {step}")
        assert grid.shape[1] == step + 1  # columns stop at the current token
        assert grid.shape[0] == (step + 1) // ratio + min(window, step + 1)


@pytest.mark.parametrize("sink", [-4.0, 0.0, 4.0])
def test_a15_probabilities_and_sink_mass_add_up_to_one(sink):
    (p,) = heatmaps(FIGURES["A15"].build(dict(sink=sink), NATIVE).figure, "P | sink")
    assert np.allclose(p.sum(axis=1), 1.0)
    assert (p[:, -1] > 0.5).all() == (sink == 4.0)  # a large sink takes most of the mass


def test_a17_first_entry_has_no_previous_segment_and_neighbours_share_half():
    fig = FIGURES["A17"].build(dict(ratio=4), NATIVE).figure
    (spans,) = heatmaps(fig, t("a17.spans", "ko"))
    assert (spans[0] > 0).sum() == 4 and (spans[1] > 0).sum() == 8
    assert ((spans[1] > 0) & (spans[2] > 0)).sum() == 4  # neighbours share m source tokens
    s = heatmaps(fig, "A<sub>1</sub>")[0]
    assert s.shape[0] == 8 and np.allclose(s.sum(axis=0), 1.0)  # one softmax over 2m rows


@pytest.mark.parametrize("topk", [1, 2, 8])
def test_a18_chooses_only_completed_blocks(topk):
    fig = FIGURES["A18"].build(dict(topk=topk), NATIVE).figure
    (chosen,) = [np.array(tr.z, dtype=float) for tr in fig.data if tr.type == "heatmap"
                 and tr.hovertemplate.startswith(("고른", "chosen"))]
    complete = [(t + 1) // 4 for t in range(chosen.shape[0])]
    assert chosen.sum(axis=1).tolist() == [min(topk, c) for c in complete]


def test_a19_at_t11_reads_two_of_three_and_skips_the_newest_by_default():
    grid = grid_rows(FIGURES["A19"].build({}, NATIVE).figure, "t = 11")
    kinds = grid.max(axis=1).tolist()
    assert kinds.count(1) == 2 and kinds.count(3) == 1 and kinds.count(2) == 4
    assert kinds[2] == 3  # C2, the newest complete entry, is not chosen


V4_KNOB_ENDS = {
    "A13": [dict(ratio=1, seed=9999), dict(ratio=8, lang="en")],
    "A14": [dict(t_=0, ratio=1, window=1), dict(t_=30, ratio=8, window=8, lang="en")],
    "A15": [dict(sink=-4.0, seed=9999), dict(sink=4.0, lang="en")],
    "A17": [dict(ratio=1, seed=9999), dict(ratio=8, lang="en")],
    "A18": [dict(t_=0, ratio=1, topk=1, seed=9999), dict(t_=30, ratio=8, topk=8, lang="en")],
    "A19": [dict(t_=0, ratio=1, topk=1, window=1, seed=0), dict(t_=30, ratio=8, topk=8, window=8, lang="en")],
}


@pytest.mark.parametrize("fid, knobs", [(f, k) for f, ks in V4_KNOB_ENDS.items() for k in ks])
def test_v4_figures_build_at_the_ends_of_their_knobs(fid, knobs):
    fig = FIGURES[fid].build(knobs, NATIVE).figure
    assert any(tr.type == "heatmap" for tr in fig.data)
    if knobs.get("lang") == "en":
        assert not HANGUL.search(texts(fig))


@pytest.mark.parametrize("fid", ["A12", "A16"])
def test_v4_structural_diagrams_have_no_korean_left_in_english(fid):
    assert not HANGUL.search(texts(FIGURES[fid].build(dict(lang="en"), NATIVE).figure))


# --- V4.1-Flash (A21–A27, factors) ------------------------------------------------------------


def test_a21_csa_entries_share_half_their_span_and_csa2_entries_share_nothing():
    fig = FIGURES["A21"].build(dict(ratio=4), NATIVE).figure
    csa, csa2 = heatmaps(fig, "항목별 원본 토큰")
    assert ((csa[1] > 0) & (csa[0] > 0)).sum() == 4 and ((csa2[1] > 0) & (csa2[0] > 0)).sum() == 0
    assert (csa2 > 0).sum(axis=0).tolist() == [1] * 12  # every token in exactly one CSA2 entry
    w_csa, w_csa2 = heatmaps(fig, "항목 1의 softmax (8행)")[0], heatmaps(fig, "항목 1의 softmax (4행)")[0]
    assert np.allclose(w_csa.sum(axis=0), 1) and np.allclose(w_csa2.sum(axis=0), 1)


def test_a24_is_drawn_from_the_spec_with_four_storing_layers_marked():
    fig = FIGURES["A24"].build({}, NATIVE).figure
    stars = [a for a in fig.layout.annotations if a.text == "★"]
    assert [round(a.x - 0.5) + 1 for a in stars] == [3, 9, 15, 21]
    cells = [s for s in fig.layout.shapes if s.type == "rect"]
    assert len(cells) == get("v4.1-flash").n_layers
    hover = next(tr for tr in fig.data if tr.hovertext is not None)
    assert "borrowed from layer 21" in FIGURES["A24"].build(dict(lang="en"), NATIVE).figure.data[-1].hovertext[24]
    assert len(hover.hovertext) == 40


def test_a24_brackets_kv_groups_and_selection_groups_separately():
    fig = FIGURES["A24"].build(dict(lang="en"), NATIVE).figure
    froms = [a.text for a in fig.layout.annotations if a.text.startswith("← layer")]
    assert froms.count("← layer 21") == 2  # the decoder KV group and the first selection group
    assert len(froms) == 4 + 8  # 4 KV groups, 8 selection groups of more than one layer


def test_a25_pool_pins_the_newest_block_and_reindex_stays_inside_it():
    fig = FIGURES["A25"].build({}, NATIVE).figure
    (pool,) = heatmaps(fig, "후보 풀")
    (sel,) = heatmaps(fig, "층별 선택")
    assert pool[0, -1] == 1  # the newest position's block is in the pool
    reindex_rows = sel[[2, 4]]
    assert np.all(pool[0][reindex_rows.max(axis=0) > 0] == 1)
    assert "8, 15" in texts(fig)  # Full's own top-k reaches outside the pool (seed 5)


@pytest.mark.parametrize("prompt, window", [(8, 2), (1, 1), (16, 8), (5, 8)])
def test_a27_counts_executed_cells_as_prompt_times_encoder_plus_window_times_decoder(prompt, window):
    fig = FIGURES["A27"].build(dict(prompt=prompt, window=window), NATIVE).figure
    (grid,) = heatmaps(fig, "(층, 위치) 칸")
    assert int((grid > 0).sum()) == prompt * 2 + min(window, prompt) * 2
    assert np.all(grid[2:] > 0)  # encoder rows (drawn at the bottom) all executed


def test_ced_ratio_tends_to_half_for_v41():
    y = np.asarray(EXTRAS["ced-ratio"].build({}, NATIVE).figure.data[0].y, dtype=float)
    assert y[0] == 1.0 and abs(y[-1] - 0.5) < 1e-3


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_factor_chart_shows_each_kind_of_storing_layer_with_its_real_numbers(lang):
    """A bar per kind of layer that stores KV, as long as what it adds per token (core's exact
    bytes); its line names the model's real m (4 and 128 for V4-Flash, 2 and 1 for V4.1-Flash),
    and a model of two kinds says how they add up. No fitted ratio anywhere."""
    from core import A1_MODELS, storage_per_token
    from core.factors import storing
    from figures.canvas import NATIVE, Canvas

    for canvas in (NATIVE, Canvas(column=360), Canvas(column=360, font_scale=2.0)):
        built = EXTRAS["factors"].build({**EXTRAS["factors"].defaults, "lang": lang}, canvas)
        kinds = [k for m in A1_MODELS for k in storing(m)]
        (bars,) = [tr for tr in built.figure.data if tr.type == "bar"]
        assert list(bars.x) == [float(k.per_token) for k in kinds]
        assert [r["per_token"] for r in built.numbers] == [float(k.per_token) for k in kinds]
        words = texts(built.figure).replace("<br>", " ")
        for line in ("CSA: 21", "m = 4 → 3,423 B", "HCA: 20", "m = 128 → 91.25 B", "m = 2 → 534 B", "m = 1 → 356 B",
                     "3,423 B + 91.25 B = 3,514.25 B", "534 B + 356 B = 890 B"):
            assert line in words, (line, words)
        assert "7.22" not in words and "1.07" not in words
        assert sum(r["per_token"] for r in built.numbers if r["model"] == "v4.1-flash") == \
            storage_per_token("v4.1-flash").total
        if lang == "en":
            assert not HANGUL.search(words)


V41_KNOB_ENDS = {
    "A21": [dict(ratio=1, seed=9999), dict(ratio=8, lang="en")],
    "A25": [dict(tokens=8, pool_blocks=1, topk=1, seed=0), dict(tokens=40, pool_blocks=5, topk=12, lang="en")],
    "A27": [dict(prompt=1, window=1), dict(prompt=16, window=8, lang="en")],
}


@pytest.mark.parametrize("fid, knobs", [(f, k) for f, ks in V41_KNOB_ENDS.items() for k in ks])
def test_v41_figures_build_at_the_ends_of_their_knobs(fid, knobs):
    fig = FIGURES[fid].build(knobs, NATIVE).figure
    assert any(tr.type == "heatmap" for tr in fig.data)
    if knobs.get("lang") == "en":
        assert not HANGUL.search(texts(fig))


@pytest.mark.parametrize("fid", ["A22", "A23", "A24", "A26"])
def test_v41_structural_figures_have_no_korean_left_in_english(fid):
    fig = FIGURES[fid].build(dict(lang="en"), NATIVE).figure
    hover = "".join(h for tr in fig.data for h in (getattr(tr, "hovertext", None) or ()))
    assert not HANGUL.search(texts(fig) + hover)


# --- Article B ---------------------------------------------------------------------------------


def test_b1_keeps_positions_on_the_left_and_merges_them_on_the_right():
    fig = FIGURES["B1"].build(dict(rows=8, components=4, group=2), NATIVE).figure
    shapes = [np.array(tr.z).shape for tr in fig.data]
    assert shapes == [(8, 4), (8, 2), (8, 4), (4, 4)]
    assert "b1 = p2·p3" in texts(fig)


def test_b2_reproduces_the_articles_weights_and_summary():
    fig = FIGURES["B2"].build({}, NATIVE).figure
    (a,) = heatmaps(fig, "A")[:1]
    (c,) = heatmaps(fig, "b<sub>0</sub>")
    assert np.max(np.abs(a - [[0.75, 0.25], [0.25, 0.75]])) <= 1e-12
    assert np.max(np.abs(c - [[1.5, 3.0]])) <= 1e-12


def test_b2_recomputes_from_edited_inputs():
    values = dict(H=((1, 0), (0, 1), (1, 1)), W_u=((1, 2), (3, 4)), W_s=((0, 0), (0, 0)))
    fig = FIGURES["B2"].build(values, NATIVE).figure
    (c,) = heatmaps(fig, "b<sub>0</sub>")
    assert np.allclose(c, [[(1 + 3 + 4) / 3, (2 + 4 + 6) / 3]])  # equal scores: the mean of U


def test_b3_reads_three_summaries_and_three_positions_at_p6_and_four_at_p8():
    fig = FIGURES["B3"].build({}, NATIVE).figure
    assert "q6: 압축 항목 3 + local KV 3" in texts(fig) and "q8: 압축 항목 4 + local KV 3" in texts(fig)
    assert "b3의 구간은 아직 다 차지 않아" in texts(fig)  # b3 = p6·p7 would include the future p7


def test_b4_stores_eight_reads_five_on_the_left_and_stores_four_reads_seven_on_the_right():
    body = texts(FIGURES["B4"].build(dict(lang="en"), NATIVE).figure)
    assert "8 stored · 5 read" in body and "4 stored · 7 read" in body


@pytest.mark.parametrize("fid, knobs", [
    ("B1", dict(rows=2, components=2, group=1)), ("B1", dict(rows=16, components=8, group=4, lang="en")),
    ("B3", dict(position=0, group=1, window=1)), ("B3", dict(position=24, group=4, window=6, lang="en")),
    ("B4", dict(position=1, groups=(1, 1), topk=1, window=1)),
    ("B4", dict(position=32, groups=(8, 8), topk=8, window=6, lang="en")),
])
def test_article_b_figures_build_at_the_ends_of_their_knobs(fid, knobs):
    fig = FIGURES[fid].build(knobs, NATIVE).figure
    assert any(tr.type == "heatmap" for tr in fig.data)
    if knobs.get("lang") == "en":
        assert not HANGUL.search(texts(fig))
