"""RoPE (core.mechanisms.rope) and its figure on the V2 page: two vectors turned by their positions
score by their distance alone, turns undo and add, and a content key turned by RoPE leaves a
different matrix between the query and the latent at every cached position, so no query absorbed
once reproduces the scores. The figure draws the run's own numbers."""

from __future__ import annotations

import re

import numpy as np
import pytest

from core.mechanisms.ops import rope
from core.mechanisms.rope import rotation, run_rope, turns
from figures import SPECS
from figures.canvas import NATIVE, Canvas, font_sizes
from i18n import t

HANGUL = re.compile(r"[\uac00-\ud7a3]")
FP64 = 1e-12  # fp64 agreement for numbers of order 1


# --- the mechanism ------------------------------------------------------------------------


@pytest.mark.parametrize("width", [2, 4, 8, 64])
@pytest.mark.parametrize("interleaved", [True, False])
@pytest.mark.parametrize("seed", [0, 1, 2])
def test_turned_by_t_against_turned_by_s_scores_as_turned_by_t_minus_s(width, interleaved, seed):
    """rope(q, t)·rope(k, s) = rope(q, t − s)·k for every pair of positions, negative distances too."""
    rng = np.random.default_rng(seed)
    q, k = rng.standard_normal((2, width))
    pos = np.arange(12)
    Q = rope(np.tile(q, (12, 1)), pos, interleaved=interleaved)
    K = rope(np.tile(k, (12, 1)), pos, interleaved=interleaved)
    t, s = np.meshgrid(pos, pos, indexing="ij")
    by_distance = rope(np.tile(q, (t.size, 1)), (t - s).ravel(), interleaved=interleaved) @ k
    assert np.max(np.abs((Q @ K.T).ravel() - by_distance)) < FP64 * max(1.0, np.abs(by_distance).max())


@pytest.mark.parametrize("tokens, seed", [(2, 0), (6, 0), (10, 7), (10, 9999)])
def test_the_runs_score_matrix_holds_one_value_on_each_diagonal(tokens, seed):
    run = run_rope(tokens, seed)
    assert run.distance_error < FP64
    for d in range(tokens):
        assert np.ptp(np.diagonal(run.S, -d)) < FP64  # the cells t − s = d
    assert np.allclose(np.linalg.norm(run.Q, axis=1), 1) and np.allclose(np.linalg.norm(run.K, axis=1), 1)


def test_the_diagonals_would_differ_if_the_positions_were_not_turned_alike():
    """The test above can fail: turn the key by 2s instead of s and the diagonals break."""
    run = run_rope(6, 0)
    wrong = run.Q @ rope(np.tile(run.k, (6, 1)), 2 * np.arange(6)).T
    assert max(np.ptp(np.diagonal(wrong, -d)) for d in range(5)) > 0.1


@pytest.mark.parametrize("width", [2, 4, 64])
def test_a_turn_is_an_orthogonal_matrix_turns_add_and_turning_back_undoes_them(width):
    x = np.random.default_rng(3).standard_normal((5, width))
    for a, b in [(0, 0), (3, 5), (7, -2), (-4, 4)]:
        Ra, Rb = rotation(a, width), rotation(b, width)
        assert np.allclose(x @ Ra, rope(x, np.full(5, a)), atol=FP64)
        assert np.allclose(Ra @ Ra.T, np.eye(width), atol=FP64)
        assert np.allclose(Ra @ Rb, rotation(a + b, width), atol=FP64)
        assert np.allclose(Ra.T, rotation(-a, width), atol=FP64)
    k = x[0]
    for s, t_ in [(3, 8), (8, 3), (0, 5)]:  # V4: an entry turned by s, turned back by the query's t
        assert np.allclose(rope(rope(k, s), -t_), rope(k, s - t_), atol=FP64)


def test_each_pair_turns_at_its_own_speed_the_first_fastest():
    speeds = turns(64)
    assert speeds[0] == 1.0 and np.all(np.diff(speeds) < 0) and len(speeds) == 32


@pytest.mark.parametrize("seed", [0, 1, 5])
def test_the_matrix_between_the_query_and_the_latent_changes_with_s(seed):
    run = run_rope(6, seed)
    W_UK, C = run.mla.weights.W_UK[run.head], run.mla.C_KV
    q = run.mla.Q_C[run.head]  # content queries before RoPE
    for t_ in range(6):
        for s in range(t_ + 1):
            assert abs(q[t_] @ run.between(t_, s) @ C[s] - run.S_turned[t_, s]) < FP64 * 10
        mats = [run.between(t_, s) for s in range(6)]
        assert min(np.abs(a - b).max() for i, a in enumerate(mats) for b in mats[i + 1:]) > 1e-3
    assert np.allclose(run.between(4, 4), W_UK.T)  # no turn at distance 0: W^UK alone


@pytest.mark.parametrize("seed", [0, 1, 5, 9999])
def test_a_query_absorbed_once_reproduces_one_column_of_the_turned_scores_only(seed):
    """Q̂ folds W^UK into the turned query once per row: right at s = 0, where the key is not turned,
    wrong elsewhere. Folding it with the matrix of any other s is right in that column only."""
    run = run_rope(6, seed)
    C, q = run.mla.C_KV, run.mla.Q_C[run.head]
    assert np.max(np.abs(run.S_absorbed[:, 0] - run.S_turned[:, 0])) < FP64 * 10
    assert run.absorbed_error > 0.05
    for s0 in range(1, 6):
        q_hat = np.stack([q[t_] @ run.between(t_, s0) for t_ in range(6)])  # one absorbed query per row
        scores = q_hat @ C.T
        assert np.max(np.abs(scores[s0:, s0] - run.S_turned[s0:, s0])) < FP64 * 10
        others = [s for s in range(6) if s != s0]
        assert np.max(np.abs(scores[:, others] - run.S_turned[:, others])[np.tri(6, dtype=bool)[:, others]]) > 0.05


def test_without_rope_on_the_content_key_absorbing_once_is_exact():
    """The decoupled design's premise: unturned content scores absorb with one Q̂ per query."""
    run = run_rope(6, 0)
    W_UK, C, q = run.mla.weights.W_UK[run.head], run.mla.C_KV, run.mla.Q_C[run.head]
    assert np.max(np.abs((q @ W_UK.T) @ C.T - q @ (C @ W_UK).T)) < FP64 * 10


def test_a_run_refuses_an_odd_width_or_no_tokens():
    with pytest.raises(ValueError):
        run_rope(6, 0, width=3)
    with pytest.raises(ValueError):
        run_rope(0, 0)


# --- the figure ---------------------------------------------------------------------------


def heatmap(fig, label: str) -> np.ndarray:
    (z,) = [np.array(tr.z, dtype=float) for tr in fig.data
            if tr.type == "heatmap" and tr.hovertemplate.startswith(label + ":")]
    return z


def cell_texts(fig) -> list[str]:
    return [s for tr in fig.data if tr.type == "scatter" and tr.text is not None for s in tr.text]


def texts(fig) -> str:
    return "\n".join(a.text for a in fig.layout.annotations) + fig.layout.title.text


@pytest.mark.parametrize("seed, tokens", [(0, 6), (7, 10), (9999, 2)])
def test_the_figure_draws_the_runs_scores_for_the_pairs_a_query_reads(seed, tokens):
    fig, run = SPECS["rope"].build(dict(seed=seed, tokens=tokens, lang="en"), NATIVE).figure, run_rope(tokens, seed)
    lower = np.tri(tokens, dtype=bool)
    for label, values in (("S", run.S), ("S<sup>C</sup><sub>h</sub>", run.S_turned),
                          ("Q̂<sub>h</sub>(C<sup>KV</sup>)<sup>T</sup>", run.S_absorbed)):
        z = heatmap(fig, label)
        assert np.allclose(z[lower], values[lower]) and np.isnan(z[~lower]).all()
    assert np.allclose(heatmap(fig, t("rope.by_distance", "en"))[:, 0], run.by_distance)
    drawn = cell_texts(fig)
    for value in (run.S[tokens - 1, 0], run.by_distance[-1], run.S_turned[-1, -1], run.S_absorbed[-1, 1]):
        assert f"{value:.2f}".replace("-", "−") in drawn


def test_the_figures_captions_state_the_runs_numbers():
    run = run_rope(6, 0)
    for lang in ("ko", "en"):
        body = texts(SPECS["rope"].build(dict(lang=lang), NATIVE).figure)
        assert "S[5, 4]" in body and f"{run.S[5, 4]:.2f}" in body
        assert f"{run.distance_error:.1e}" in body and f"{run.absorbed_error:.2f}" in body
        assert "seed 0" in body and "57°" in body  # one radian per position for the only pair
    assert not HANGUL.search(texts(SPECS["rope"].build(dict(lang="en", tokens=10, seed=9999), NATIVE).figure))


def test_the_figure_follows_its_knobs():
    a, b = (heatmap(SPECS["rope"].build(dict(seed=s, lang="en"), NATIVE).figure, "S") for s in (0, 1))
    assert a.shape == b.shape == (6, 6) and not np.allclose(np.nan_to_num(a), np.nan_to_num(b))
    assert heatmap(SPECS["rope"].build(dict(tokens=10, lang="en"), NATIVE).figure, "S").shape == (10, 10)


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("font_scale", [1.0, 2.0])
def test_the_figure_fits_a_phones_column_with_no_text_under_11_px(lang, font_scale):
    fig = SPECS["rope"].build({"seed": 0, "tokens": 10, "lang": lang}, Canvas(column=360, font_scale=font_scale)).figure
    assert fig.layout.width <= 360
    assert min(font_sizes(fig)) >= 11


def test_the_v2_page_quotes_the_figures_numbers():
    from article import Chart, Text
    from core.cost import DEPLOYED
    from figures.knobs import CONTEXT
    from publish.site import SiteView, blocks

    shown = blocks("v2-mla", SiteView("en", CONTEXT.default, DEPLOYED), app=True)
    (chart,) = [b for b in shown if isinstance(b, Chart) and b.figure_id == "rope"]
    run = run_rope(chart.knobs["tokens"], chart.knobs["seed"])
    prose = "\n".join(b.text for b in shown if isinstance(b, Text))
    assert f"off by up to {run.absorbed_error:.2f}" in prose and "57°" in prose
