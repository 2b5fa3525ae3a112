"""The token-axis section reads its figures as they stand: V4-Flash's counts at the page's context
open it; the counts come first (B1, B3, B4), one entry worked out after (B2); B2's steps from core's
summarize on the matrices in effect, with what the entry keeps (its mean and its leaning) and loses
(order: reversed rows, the same entry); B3's and B4's counts from read_plan at the controls' values,
carried to a long context; the site says what B2 shows instead of asking for an edit it cannot take,
and leaves out the passage that asks the reader to edit the matrices."""

from __future__ import annotations

import re

import numpy as np
import pytest

from article import SECTIONS, Ask, Chart, Either, Part, Text, run_section
from article.prose import app_only, passages
from core import Precision
from core.mechanisms.compression import entry_count
from core.mechanisms.token_axis import read_plan, run_summary
from core.registry import get
from figures import FIGURES
from figures.knobs import CONTEXT
from i18n import t
from publish.site import SiteView, blocks


def listed(names, lang):
    """Names as the section lists them ('p4, p5' in Korean, 'p4 and p5' in English)."""
    return names[0] if len(names) == 1 else ", ".join(names[:-1]) + t("tb.and", lang) + names[-1]


def shown(lang: str = "en", app: bool = True, context: int = CONTEXT.default, **values) -> str:
    """The section's text with some controls (by knob name) set, the others at their defaults."""
    texts = []

    def answer(block):
        match block:
            case Ask(knobs):
                return tuple(values.get(k.name, k.default) for k in knobs)
            case Either(in_app, on_site):
                texts.extend(b.text for b in (in_app if app else on_site))
            case Part(_, section):
                return run_section(section(SiteView(lang, context, Precision())), answer)
            case Text(text):
                texts.append(text)

    run_section(SECTIONS["token-axis"].draw(SiteView(lang, context, Precision())), answer)
    return "\n".join(texts)


def test_b2_is_worked_with_the_matrices_in_effect():
    H, W_u, W_s = ((1, 2), (3, 4), (0, 1)), ((1, 0), (0, 1)), ((0.5, -1), (2, 0))
    run = run_summary(H, W_u, W_s)
    text = shown(H=H, W_u=W_u, W_s=W_s)
    assert "From 3 tokens of 2 components" in text
    assert f"[{run.c[0]:.4g}, {run.c[1]:.4g}]" in text  # the summary
    assert f"[{run.A[0, 0]:.4g}, {run.A[1, 0]:.4g}, {run.A[2, 0]:.4g}]" in text  # the first column's weights
    assert f"= {run.c[1]:.4g}" in text  # component 2's weighted sum
    assert "[1.5, 3]" not in text


def test_b2_at_the_start_shows_the_articles_example_from_core():
    run = run_summary(*(FIGURES["B2"].knob(n).default for n in ("H", "W_u", "W_s")))
    assert np.allclose(run.c, (1.5, 3)) and np.allclose(run.A[:, 0], (0.75, 0.25))
    text = shown()
    assert "[ln 3, 0]" in text and "[3, 1]" in text and "[0.75, 0.25]" in text and "[1.5, 3]" in text
    assert "2 × 0.75 + 0 × 0.25 = 1.5" in text


def test_b2_explains_scores_too_large_for_a_float():
    text = shown(W_s=((1000, 0), (0, 1)))  # e^1000 is beyond a float: written out all the same
    assert "e+434" in text and not re.search(r"\b(inf|nan)\b", text)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_b3_names_the_positions_read_twice_and_those_read_nowhere(lang):
    at_start = shown(lang)
    assert t("tb.both", lang, p=listed(["p4", "p5"], lang)) in at_start
    assert t("tb.gone", lang, p=listed(["p4", "p5"], lang), e="b2") in at_start  # out of the window at q8: in b2
    short = shown(lang, position=6, group=4, window=1)  # p4, p5: past the window, their group not yet full
    assert t("tb.gap", lang, p=listed(["p4", "p5"], lang)) in short and t("tb.both.none", lang) in short
    assert t("tb.both.one", lang, p="p3") in shown(lang, position=4, group=2, window=2)  # p3 alone, twice
    assert t("tb.done.none", lang, t=0) in shown(lang, position=0)


def test_b4_counts_are_read_plans_at_the_controls_values():
    text = shown(position=21, groups=(3, 6), topk=4)
    chosen, coarse = read_plan(21, 3, 3, topk=4), read_plan(21, 6, 3)
    assert f"(m = 3) stores {chosen.stored} compressed entries" in text and f"{chosen.read} in all" in text
    assert f"(m = 6) stores {coarse.stored} and, with the local KV, reads {coarse.read}." in text
    picked = [f"b{r.index} (p{min(r.sources)}–p{max(r.sources)})" for r in chosen.rows if r.kind == "compressed"]
    assert listed(picked, "en") in text
    assert "Without compression the query would read 22." in text


def test_b2_says_what_the_entry_keeps_and_loses_from_core():
    H, W_u, W_s = ((1, 2), (3, 4), (0, 1)), ((1, 0), (0, 1)), ((0.5, -1), (2, 0))
    run, mean = run_summary(H, W_u, W_s), run_summary(H, W_u, np.zeros((2, 2)))
    text = shown(H=H, W_u=W_u, W_s=W_s)
    assert f"the plain mean of U, [{mean.c[0]:.4g}, {mean.c[1]:.4g}]" in text
    heavy = [(int(np.argmax(col)), f"{100 * col.max():.3g}") for col in run.A.T]
    assert listed([f"h{i} in component {j + 1} ({p}%)" for j, (i, p) in enumerate(heavy)], "en") in text
    assert f"Reverse the rows of H and the entry is still [{run.c[0]:.4g}, {run.c[1]:.4g}]" in text
    assert "identity matrix" not in text and "identity matrix" in shown()  # said only of an identity H
    assert "no single token in component 1 (all 50%)" in shown(W_s=((0, 0), (0, 0)))


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_counts_are_carried_to_a_long_context_by_read_plan(lang):
    text = shown(lang)
    far = (read_plan(999, 2, 3).stored, read_plan(999, 2, 3, topk=2).read, read_plan(999, 4, 3).read)
    assert far == (500, 5, 253)
    assert all(str(n) in text for n in far) and "1,000" in text


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_b1_names_positions_left_over_and_only_then(lang):
    assert t("tb.rest", lang, p="p6") in shown(lang, rows=7, group=2)
    left_over = t("tb.rest", lang, p="X").split("X")[0]
    assert left_over not in shown(lang, rows=8, group=2)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_site_shows_b2_without_asking_for_an_edit(lang):
    site = [b.text for b in blocks("token-axis", SiteView(lang, CONTEXT.default, Precision())) if isinstance(b, Text)]
    app = [b.text for b in blocks("token-axis", SiteView(lang, CONTEXT.default, Precision()), app=True)
           if isinstance(b, Text)]
    assert t("tb.b2.site", lang) in site and t("tb.b2.help", lang) not in site
    assert t("tb.b2.help", lang) in app and t("tb.b2.site", lang) not in app
    assert not any(t(f"tb.how.{f}", lang) in site for f in ("b1", "b3", "b4"))  # the site has no such controls
    try_it = passages("token-axis", lang)["entry-try"]
    assert "entry-try" in app_only("token-axis", lang)
    assert try_it in app and try_it not in site  # "edit the matrices" only where they can be edited


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_b2_says_how_the_figure_prints_a_natural_log_and_only_then(lang):
    at_start = shown(lang)
    assert t("tb.ln", lang, v="ln 3 ≈ 1.10") in at_start  # W_s's ln 3, which the figure draws as 1.10
    no_logs = shown(lang, W_s=((1, 0), (0, 1)))
    assert t("tb.ln", lang, v="X").split("X")[0] not in no_logs


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_page_opens_on_v4_flash_at_the_pages_context(lang):
    m = get("v4-flash")
    csa, hca, k = m.ratio("CSA"), m.ratio("HCA"), m.index_topk
    long = shown(lang)
    n = CONTEXT.default
    assert f"{n:,}" in long and f"{entry_count(n, csa):,}" in long and f"{entry_count(n, hca):,}" in long
    assert t("tb.csa.pick", lang, k=f"{k:,}") in long  # more entries than top-k: a few are picked
    short = shown(lang, context=CONTEXT.stops[0])
    assert entry_count(CONTEXT.stops[0], csa) <= k and t("tb.csa.all", lang, k=f"{k:,}") in short


def test_counts_come_before_the_worked_entry():
    """The page's own order: what merging is (B1), when entries exist (B3), how many are read (B4),
    and only then what one entry holds (B2)."""
    charts = []

    def answer(block):
        match block:
            case Ask(knobs):
                return tuple(k.default for k in knobs)
            case Part(_, section):
                return run_section(section(SiteView("en", CONTEXT.default, Precision())), answer)
            case Chart(figure_id):
                charts.append(figure_id)

    run_section(SECTIONS["token-axis"].draw(SiteView("en", CONTEXT.default, Precision())), answer)
    assert charts == ["B1", "B3", "B4", "B2"]


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_merged_row_has_one_name_and_grey_is_told_only_where_drawn(lang):
    assert "b<sub>0</sub>" in shown(lang) and "c<sub>0</sub>" not in shown(lang)
    assert "b<sub>0</sub>" in t("b2.cap", lang, c="1.5, 3")
    assert ("회색" if lang == "ko" else "grey") not in t("b3.legend", lang).lower()  # B3 draws no grey
    assert ("회색" if lang == "ko" else "grey") in t("b4.cap", lang).lower()  # B4 greys the entries not chosen
