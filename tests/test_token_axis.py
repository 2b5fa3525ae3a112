"""Article B in core: the worked summary vector and what a position stores and reads."""

import math

import numpy as np
import pytest

from core.mechanisms.token_axis import ARTICLE_H, ARTICLE_W_S, ARTICLE_W_U, read_plan, run_summary


def test_the_worked_example_gives_the_articles_weights_and_summary_exactly():
    run = run_summary(ARTICLE_H, ARTICLE_W_U, ARTICLE_W_S)
    assert np.max(np.abs(run.A - [[0.75, 0.25], [0.25, 0.75]])) <= 1e-12
    assert np.max(np.abs(run.c - [1.5, 3.0])) <= 1e-12
    assert run.S[0, 0] == math.log(3)


def test_edited_inputs_recompute_every_intermediate():
    run = run_summary([[1, 2], [3, 4], [0, 1]], [[1, 0, 1], [0, 1, 1]], [[0, 0, 0], [0, 0, 0]])
    assert run.U.shape == (3, 3) and np.allclose(run.A, 1 / 3)  # equal scores: the mean
    assert np.allclose(run.c, run.U.mean(axis=0))


@pytest.mark.parametrize("H, W_u, W_s, message", [
    ([[1, 0]], [[1, 0, 0]], [[1, 0, 0]], "need 2 rows"),
    ([[1, 0]], [[1], [0]], [[1, 0], [0, 1]], "same shape"),
    ([], [[1]], [[1]], "non-empty"),
    ([[1, float("nan")]], [[1], [0]], [[1], [0]], "finite"),
])
def test_bad_shapes_and_values_are_refused_with_a_clear_message(H, W_u, W_s, message):
    with pytest.raises(ValueError, match=message):
        run_summary(H, W_u, W_s)


def test_b3_at_p6_reads_three_summaries_and_p4_to_p6():
    plan = read_plan(6, 2, 3)
    assert [(r.kind, r.index) for r in plan.rows] == [
        ("compressed", 0), ("compressed", 1), ("compressed", 2), ("window", 4), ("window", 5), ("window", 6)]
    assert [(r.kind, r.index) for r in read_plan(8, 2, 3).rows] == [
        ("compressed", 0), ("compressed", 1), ("compressed", 2), ("compressed", 3), ("window", 6), ("window", 7),
        ("window", 8)]


def test_b4_at_p16_reads_five_of_eight_with_the_indexer_and_seven_of_four_without():
    left, right = read_plan(16, 2, 3, topk=2), read_plan(16, 4, 3)
    assert (left.stored, left.read) == (8, 5)
    assert [r.index for r in left.rows if r.kind == "compressed"] == [1, 5]  # b1 = p2·p3, b5 = p10·p11
    assert (right.stored, right.read) == (4, 7)


@pytest.mark.parametrize("t", range(0, 40, 3))
@pytest.mark.parametrize("group, window, topk", [(1, 1, None), (2, 3, 2), (4, 3, None), (3, 5, 1), (8, 2, 4)])
def test_stored_and_read_follow_the_counting_rule_and_never_touch_the_future(t, group, window, topk):
    plan = read_plan(t, group, window, topk=topk)
    assert plan.stored == (t + 1) // group
    expected = (plan.stored if topk is None else min(topk, plan.stored)) + min(window, t + 1)
    assert plan.read == expected
    assert max(s for r in plan.rows for s in r.sources) <= t
