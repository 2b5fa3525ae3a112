"""V3.2 · DSA's prose (article/prose/<lang>/v3-2-dsa.md): the reads it writes out are core's
read terms at the reader's context and precision, and move on a context step in the app; the
architecture-only comparison stays all-BF16 whatever the precision; the formats it derives follow
the precision; the sources quote the deployed formats and the reference code's count from core."""

from __future__ import annotations

import pathlib
from fractions import Fraction

import pytest
from streamlit.testing.v1 import AppTest

from article import Heading, Text
from article.derive import entry_sum, entry_terms, num, per_token_sum
from core import ALL_BF16, DEPLOYED, Precision, get
from core.cost import formats, read_terms
from core.mechanisms.indexer import selected_count
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
            assert entry_terms(formats(MODEL, precision)[role], lang) in text
        assert per_token_sum(MODEL, precision) in text
    assert entry_terms(formats(MODEL, ALL_BF16)["main_kv"], lang) not in shown(lang)


@pytest.mark.parametrize("lang", LANGS)
def test_the_sources_quote_the_deployed_formats_and_the_reference_codes_count(lang):
    text = shown(lang, precision=ALL_BF16)  # the cited formats are the deployed ones at any precision
    sources = text[text.index("출처" if lang == "ko" else "Sources"):]
    for role in ("main_kv", "index_key"):
        assert entry_sum(formats(MODEL)[role]) in sources
    hf = VARIANTS["hf-reference-v3.2"].apply(MODEL)
    assert fmt_exact(hf.storage_per_token().total) in sources
    assert sources.count("https://") == 3


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
