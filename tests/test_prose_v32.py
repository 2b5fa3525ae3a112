"""V3.2 · DSA's prose (article/prose/<lang>/v3-2-dsa.md): the reads it writes out are core's
read terms at the reader's context and precision, and move on a context step in the app; the
architecture-only comparison stays all-BF16 whatever the precision; the formats it derives follow
the precision; the sources quote the deployed formats and the reference code's count from core; what to try with
the knobs is the app's alone, what the prose says of the mask's rows is the run's, and the results come
once, after the indexer."""

from __future__ import annotations

import pathlib
from fractions import Fraction

import pytest
from streamlit.testing.v1 import AppTest

from article import Heading, Text
from article.derive import entry_sum, entry_terms, num, per_token_sum
from article.prose import app_only, passages
from article.sections.v32 import example_rows
from core import ALL_BF16, DEPLOYED, Precision, get
from core.cost import read_terms, role_layouts
from core.mechanisms.indexer import run_indexer, selected_count
from core.mechanisms.mla import MLADims, run_mla
from core.summary import summarise
from core.units import fmt_bytes, fmt_exact
from core.variants import VARIANTS
from figures.knobs import CONTEXT, CONTEXT_STOPS
from i18n import LANGS, t
from publish.site import SiteView, blocks

ROOT = pathlib.Path(__file__).resolve().parent.parent
SLUG, MODEL = "v3-2-dsa", "v3.2"
TOPK = get(MODEL).index_topk


def shown(lang: str, context: int = CONTEXT.default, precision: Precision = DEPLOYED) -> str:
    return "\n".join(b.text for b in blocks(SLUG, SiteView(lang, context, precision))
                     if isinstance(b, (Heading, Text)))


def written(context: int, precision: Precision) -> list[str]:
    """Each read term as the prose writes it: its factors and its size."""
    return [f"{r.layers:,} × {r.entries:,} × {r.entry_bytes:,} B ≈ {fmt_bytes(r.total)}"
            for r in read_terms(MODEL, context, precision)]


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("precision", [DEPLOYED, ALL_BF16, Precision(main_kv="fp4", index_key="bf16")])
@pytest.mark.parametrize("context", [CONTEXT_STOPS[0], TOPK, CONTEXT.default, CONTEXT_STOPS[-1]])
def test_the_reads_are_cores_terms_at_the_readers_context(lang, precision, context):
    text = shown(lang, context, precision)
    terms = read_terms(MODEL, context, precision)
    assert [r.role for r in terms] == ["main_kv", "index_key"]
    assert all(term in text for term in written(context, precision))
    assert fmt_bytes(sum(r.total for r in terms)) in text
    # attention reads min(top-k, N) positions: the prose says which side of top-k the context is on
    assert terms[0].entries == min(TOPK, context)
    fields = dict(n=f"{context:,}", k=f"{TOPK:,}")
    said = (t("dsa.cut", lang, x=num(Fraction(context, TOPK)), **fields) if context > TOPK
            else t("dsa.cut.all", lang, **fields))
    assert said in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_architecture_comparison_stays_all_bf16_and_the_formats_follow_the_precision(lang):
    for precision in (DEPLOYED, ALL_BF16, Precision(main_kv="fp4")):
        text = shown(lang, precision=precision)
        assert per_token_sum("v3", ALL_BF16) in text and per_token_sum(MODEL, ALL_BF16) in text
        for role in ("main_kv", "index_key"):
            assert entry_terms(role_layouts(MODEL, precision)[role], lang) in text
        assert per_token_sum(MODEL, precision) in text
    assert entry_terms(role_layouts(MODEL, ALL_BF16)["main_kv"], lang) not in shown(lang)


@pytest.mark.parametrize("lang", LANGS)
def test_the_sources_quote_the_deployed_formats_and_the_reference_codes_count(lang):
    text = shown(lang, precision=ALL_BF16)  # the cited formats are the deployed ones at any precision
    sources = text[text.index("출처" if lang == "ko" else "Sources"):]
    for role in ("main_kv", "index_key"):
        assert entry_sum(role_layouts(MODEL)[role]) in sources
    hf = VARIANTS["hf-reference-v3.2"].apply(MODEL)
    assert fmt_exact(hf.storage_per_token().total) in sources
    assert sources.count("https://") == 5  # the report, the config, the code, FlashMLA, SGLang


def test_a_context_step_in_the_app_moves_the_reads_passage():
    """The reads passage sits in a part of its own: a context step reruns it with the new numbers."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["lang"] = "en"
    at.run()
    at.switch_page("pages/v3-2-dsa.py").run()
    assert any(written(CONTEXT.default, DEPLOYED)[1] in m.value for m in at.markdown)
    at.sidebar.select_slider(key="ctx").set_value(1 << 20).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.sidebar.select_slider  # a fragment run: only the parts the context moves
    assert any(written(1 << 20, DEPLOYED)[1] in m.value for m in at.markdown)


def test_the_score_passage_counts_the_chosen_cells_of_the_apps_controls():
    at = AppTest.from_file(str(ROOT / "pages/v3-2-dsa.py"), default_timeout=60)
    at.query_params.update(T="9", k="4", seed="7")
    at.run()
    assert not at.exception
    chosen = selected_count(9, 4)
    assert chosen < 9 * 10 // 2  # some cells filtered: the count is not every visible cell
    assert any(f"모두 {chosen}개" in m.value for m in at.markdown)
    assert not at.info  # the app tells how to use its controls, not the site's fixed example
    assert any("조절기" in c.value for c in at.caption)


@pytest.mark.parametrize("lang", LANGS)
def test_what_to_try_with_the_knobs_only_the_app_shows(lang):
    """The site has no T, k or seed: the passage about moving them is the app's alone, and the site's
    caption states the example the figures are drawn at instead of pointing at controls."""
    assert "score-try" in app_only(SLUG, lang)
    try_first = passages(SLUG, lang)["score-try"].splitlines()[0]
    site = shown(lang)
    app = "\n".join(b.text for b in blocks(SLUG, SiteView(lang, CONTEXT.default, DEPLOYED), app=True)
                    if isinstance(b, (Heading, Text)))
    assert try_first in app and try_first not in site
    assert t("dsa.ctl.site", lang, T=6, k=3) in site and t("dsa.ctl.app", lang) not in site


@pytest.mark.parametrize(("T", "k", "seed"), [(6, 3, 0), (9, 4, 7), (5, 5, 1), (10, 1, 3)])
def test_the_rows_the_mask_shows_are_the_runs(T, k, seed):
    """What the prose says of A9's rows is read from the run the figure draws: rows that keep every
    position they see (t < k), and how many leave out their own position."""
    idx = run_indexer(run_mla(MLADims(tokens=T), seed), topk=k, seed=seed)
    own = sum(not idx.selected[i, i] for i in range(T))
    for lang in LANGS:
        said = example_rows(lang, T, k, seed)
        if T <= k:
            assert said == t("dsa.rows.all", lang, T=T, k=k) and own == 0
            continue
        assert said.startswith(t("dsa.rows.cut", lang, k=k))
        assert (t("dsa.rows.self", lang, n=own) in said if own > 1 else
                t("dsa.rows.self1", lang) in said if own else said == t("dsa.rows.cut", lang, k=k))


@pytest.mark.parametrize("lang", LANGS)
def test_results_come_after_the_indexer_and_each_once(lang):
    """The reads' total, share and V2 comparison are written once, in the cost section, after the
    indexer is introduced; the chart's reading before it quotes none of them."""
    text = shown(lang)
    s, v2 = (summarise(m, CONTEXT.default, DEPLOYED) for m in (MODEL, "v2"))
    first_indexer = text.index(passages(SLUG, lang)["indexer"].splitlines()[0].removeprefix("## "))
    for said in (f"{s.key_share:.0%}", fmt_bytes(v2.read.total), f"{s.read.total / v2.read.total:.0%}"):
        assert said not in text[:first_indexer], said
        assert text.count(said) == 1, said
