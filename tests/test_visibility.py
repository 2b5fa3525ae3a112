"""What token t reads: complete compressed entries (or the indexer's top-k of them) plus the
recent window, never a later token; the article's t = 6 / t = 7 and t = 11 cases."""

from __future__ import annotations

import numpy as np
import pytest

from core.mechanisms import compression as cp
from core.mechanisms import ops
from core.mechanisms import visibility as vis
from core.mechanisms.csa_indexer import NEWEST_SKIPPED_SEED, run_csa_indexer

SHAPES = [(1, 1), (2, 3), (4, 4), (4, 128), (3, 5), (8, 2), (128, 128)]  # (m, window)
TS = range(64)


def _scores(t, m, seed=0):
    return np.random.default_rng((seed, t, m)).standard_normal(cp.entry_count(t + 1, m) + 3)


@pytest.mark.parametrize("overlap", [False, True], ids=["hca", "csa"])
@pytest.mark.parametrize(("m", "window"), SHAPES)
def test_no_row_ever_holds_a_token_after_t(m, window, overlap):
    for t in TS:
        for kw in ({}, {"topk": 2, "scores": _scores(t, m)}):
            rows = vis.visible_rows(t, m, window, overlap=overlap, **kw)
            assert max(s for r in rows for s in r.sources) <= t
            assert vis.read_grid(rows, t).shape == (len(rows), t + 1)


@pytest.mark.parametrize("overlap", [False, True], ids=["hca", "csa"])
@pytest.mark.parametrize(("m", "window"), SHAPES)
def test_rows_are_the_complete_entries_plus_min_window_and_t_plus_1(m, window, overlap):
    for t in TS:
        complete = (t + 1) // m
        rows = vis.visible_rows(t, m, window, overlap=overlap)
        kinds = [r.kind for r in rows]
        assert kinds == ["compressed"] * complete + ["window"] * min(window, t + 1)
        assert [r.index for r in rows if r.kind == "compressed"] == list(range(complete))
        assert [r.index for r in rows if r.kind == "window"] == list(range(max(0, t - window + 1), t + 1))


@pytest.mark.parametrize("overlap", [False, True], ids=["hca", "csa"])
@pytest.mark.parametrize(("m", "window"), SHAPES)
@pytest.mark.parametrize("k", [1, 2, 5])
def test_with_top_k_exactly_min_k_and_complete_entries_are_read(m, window, overlap, k):
    for t in TS:
        complete = (t + 1) // m
        scores = _scores(t, m)
        rows = vis.visible_rows(t, m, window, overlap=overlap, topk=k, scores=scores)
        chosen = [r.index for r in rows if r.kind == "compressed"]
        assert len(chosen) == min(k, complete)
        assert chosen == sorted(chosen) and all(i < complete for i in chosen)
        assert len(rows) == min(k, complete) + min(window, t + 1)
        if chosen and complete > len(chosen):  # the chosen outscore the rest of the complete ones
            rest = [scores[i] for i in range(complete) if i not in chosen]
            assert min(scores[i] for i in chosen) >= max(rest)


@pytest.mark.parametrize("overlap", [False, True], ids=["hca", "csa"])
def test_compressed_rows_hold_their_block_or_csa_span_and_sit_at_its_start(overlap):
    m = 4
    for r in vis.visible_rows(40, m, 3, overlap=overlap):
        if r.kind == "compressed":
            first = max(0, (r.index - 1) * m) if overlap else r.index * m
            assert r.sources == tuple(range(first, (r.index + 1) * m))
            assert r.position == r.index * m
        else:
            assert r.sources == (r.index,) and r.position == r.index


def test_article_t6_reads_one_compressed_entry_and_four_window_rows():
    rows = vis.visible_rows(6, 4, 4)
    assert len(rows) == 5
    assert [(r.kind, r.index) for r in rows] == [("compressed", 0), ("window", 3), ("window", 4),
                                                 ("window", 5), ("window", 6)]
    grid = vis.read_grid(rows, 6)
    assert grid.tolist() == [[1, 1, 1, 1, 0, 0, 0], [0, 0, 0, 1, 0, 0, 0], [0, 0, 0, 0, 1, 0, 0],
                             [0, 0, 0, 0, 0, 1, 0], [0, 0, 0, 0, 0, 0, 1]]


def test_article_t7_completes_block_1_and_tokens_4_to_7_sit_in_both_kinds_of_row():
    rows = vis.visible_rows(7, 4, 4)
    assert len(rows) == 6
    assert [r.kind for r in rows] == ["compressed"] * 2 + ["window"] * 4
    assert rows[1].sources == (4, 5, 6, 7)
    in_window = {s for r in rows if r.kind == "window" for s in r.sources}
    assert set(rows[1].sources) <= in_window
    grid = vis.read_grid(rows, 7)
    assert grid[:2, 4:].sum() == 4 and grid[2:, 4:].sum() == 4  # each of 4–7 twice


def test_article_t11_reads_two_of_three_complete_entries():
    run = run_csa_indexer(topk=2)
    assert run.n_complete[11] == 3
    rows = vis.visible_rows(11, 4, 4, overlap=True, topk=2, scores=run.I[11])
    chosen = [r.index for r in rows if r.kind == "compressed"]
    assert len(chosen) == 2
    assert chosen == np.flatnonzero(run.selected[11]).tolist()
    assert len(rows) == 2 + 4


def test_the_newest_complete_entry_is_not_always_chosen():
    rows = vis.visible_rows(11, 4, 4, overlap=True, topk=2, scores=[3.0, 2.0, 1.0])
    assert [r.index for r in rows if r.kind == "compressed"] == [0, 1]
    run = run_csa_indexer(topk=2, seed=NEWEST_SKIPPED_SEED)
    assert run.selected[11].tolist() == [True, True, False]  # block 2 completed at t = 11, not read
    rows = vis.visible_rows(11, 4, 4, overlap=True, topk=2, scores=run.I[11])
    assert 2 not in [r.index for r in rows if r.kind == "compressed"]


def test_score_ties_go_to_the_lower_entry_and_incomplete_entries_are_never_chosen():
    rows = vis.visible_rows(11, 4, 2, topk=2, scores=[0.0, 0.0, 0.0, 99.0])
    assert [r.index for r in rows if r.kind == "compressed"] == [0, 1]
    mask = ops.top_k(np.array([[5.0, 9.0, 9.0], [1.0, 2.0, 3.0]]), np.array([1, 3]), 2)
    assert mask.tolist() == [[True, False, False], [False, True, True]]


def test_gather_stacks_visible_entries_then_local_kv_rows():
    run = cp.hca_compress()
    E, pos, rows = vis.gather(run, 7, 4)
    assert E.shape == (6, run.dims.head_dim)
    assert np.array_equal(E[:2], run.entries[:2]) and np.array_equal(E[2:], run.E_win[4:8])
    assert pos.tolist() == [0, 4, 4, 5, 6, 7]
    csa = cp.csa_compress()
    _, _, rows = vis.gather(csa, 11, 4, topk=1, scores=[0.0, 1.0, 0.0])
    assert rows[0].index == 1 and rows[0].sources == tuple(range(8))


@pytest.mark.parametrize(("args", "kwargs"), [((-1, 4, 4), {}), ((3, 0, 4), {}), ((3, 4, 0), {}),
                                              ((3, 4, 4), {"topk": 2}), ((3, 4, 4), {"scores": [1.0]}),
                                              ((11, 4, 4), {"topk": 2, "scores": [1.0, 2.0]}),
                                              ((11, 4, 4), {"topk": 0, "scores": [1.0, 2.0, 3.0]})])
def test_bad_arguments_raise_value_error(args, kwargs):
    with pytest.raises(ValueError):
        vis.visible_rows(*args, **kwargs)


def test_the_article_window_and_top_k_come_from_the_spec():
    assert (vis.ARTICLE_WINDOW, vis.ARTICLE_TOPK) == (128, 512)
