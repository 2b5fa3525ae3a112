"""The V4-Flash section's prose: its numbers are core's, the reads follow the context (in a part of
their own that a context step reruns), the reading of A14 follows its controls, and only the app
talks about the controls it alone has."""

from __future__ import annotations

import pathlib
import re

import pytest
from streamlit.testing.v1 import AppTest

import core
import core.summary
from article import Heading, Text
from article.derive import per_token_sum
from article.prose import passages
from core.cost import read_terms
from core.mechanisms.visibility import visible_rows
from core.units import fmt_bytes
from figures.knobs import CONTEXT, CONTEXT_STOPS
from i18n import t
from publish.site import SiteView, blocks
from ui import View

ROOT = pathlib.Path(__file__).resolve().parent.parent
MODEL = core.get("v4-flash")


def page(lang: str, **params) -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages/v4-flash.py"), default_timeout=60)
    at.session_state["_view"] = View(lang=lang)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def prose(at: AppTest) -> str:
    return "\n".join(m.value for m in at.markdown)


def shown(lang: str, context: int = CONTEXT.default, app: bool = False) -> str:
    return "\n".join(b.text for b in blocks("v4-flash", SiteView(lang, context, core.Precision()), app=app)
                     if isinstance(b, (Heading, Text)))


def test_the_page_states_the_article_numbers_and_the_layer_mix():
    at = page("ko")
    assert [m.value for m in at.metric] == ["≈3,514 B", "1/1,119", "3.21 MB", "68.2 MB"]
    text = prose(at)
    counts = MODEL.layer_counts
    assert f"{MODEL.n_layers}층 가운데 {counts['SWA']}층이" in text
    assert f"{counts['CSA']}층이 CSA, {counts['HCA']}층이 HCA" in text
    assert "21.5 MB" in text and "46.8 MB" in text
    assert per_token_sum(MODEL.id) in text and "448 + 7 + 128 + 1" not in text  # written out by name
    assert "FP8 값 448 B + scale 7 B(UE8M0 7개) + BF16 RoPE 부분 128 B + 패딩 1 B = 584 B" in text
    assert f"<{MODEL.source}>" in text


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_reads_are_cores_term_by_term_at_every_context(lang):
    texts = set()
    for n in (CONTEXT_STOPS[0], CONTEXT.default, CONTEXT_STOPS[-1]):
        text = shown(lang, n)
        for r in read_terms(MODEL, n):
            assert f"{r.layers:,} × {r.entries:,} × {r.entry_bytes:,} B ≈ {fmt_bytes(r.total)}" in text
        assert fmt_bytes(core.reads(MODEL, n).total) in text
        texts.add(text)
    assert len(texts) == 3


def test_a_context_step_reruns_the_reads_with_the_top():
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["lang"] = "en"
    at.run()
    at.switch_page("pages/v4-flash.py").run()
    n = 1 << 20
    at.sidebar.select_slider(key="ctx").set_value(n).run()
    assert not at.exception and not at.sidebar.select_slider  # a fragment run: only the parts the context moves
    hca = next(r for r in read_terms(MODEL, n) if r.ratio == MODEL.ratio("HCA"))
    assert f"main KV (HCA): {hca.layers} × {hca.entries:,} × {hca.entry_bytes} B" in prose(at)


@pytest.mark.parametrize("t_, window", [(7, 3), (10, 1)])
def test_the_reading_of_a14_follows_its_controls(t_, window):
    at = page("en", t=str(t_), win=str(window))
    counts = []
    for step in (t_, t_ + 1):
        rows = visible_rows(step, 4, window)
        compressed = sum(r.kind == "compressed" for r in rows)
        counts.append(f"t = {step} reads {compressed} compressed and {len(rows) - compressed} window rows")
    assert "; ".join(counts) in prose(at)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_only_the_app_tells_what_its_controls_do(lang):
    site, app = shown(lang), shown(lang, app=True)
    for figure in ("a13", "a14", "a15", "a17", "a18"):
        assert t(f"v4.how.{figure}", lang) in app and t(f"v4.how.{figure}", lang) not in site


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_reads_split_is_stated_after_the_mechanisms_not_before(lang):
    """The index keys' share of the reads is derived once, at the end, after CSA and HCA are met."""
    text = shown(lang)
    share = f"{core.summary.summarise(MODEL.id, CONTEXT.default).key_share:.0%}"
    assert text.count(f"({share})") == 1
    assert text.index(f"({share})") > text.index("CSA: ")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_page_and_its_figures_call_an_entry_and_a_segment_by_the_glossarys_words(lang):
    """항목/entry is what a layer holds for one readable position; 구간/segment the tokens it stands for;
    블록/block is V4.1's hierarchical indexer's and has no place here."""
    from i18n.labels.v4 import TEXT
    labels = "\n".join(v[lang] for v in TEXT.values())
    for text in (shown(lang, app=True), labels):
        if lang == "ko":
            assert "entry" not in text and "블록" not in text and "검색용 key" not in text
            assert "항목" in text and "구간" in text
        else:
            assert not re.search(r"\bblocks?\b", text)
            assert "segment" in text


def test_what_is_known_of_quality_is_said_in_both_languages_alike():
    """Training with compression does not guarantee MHA's quality: nothing more is known."""
    en, ko = shown("en"), shown("ko")
    assert "as good as MHA" not in en and "does not guarantee the quality of MHA" in en
    assert "MHA와 같은 품질이 보장되지는 않습니다" in ko


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_csa_heading_is_true_and_the_inverse_rotation_points_back_to_rope(lang):
    headings = [b.text for b in blocks("v4-flash", SiteView(lang, CONTEXT.default, core.Precision()))
                if isinstance(b, Heading)]
    csa = next(h for h in headings if h.startswith("CSA"))
    assert "촘촘" not in csa and "denser" not in csa
    assert ("짧은 구간" if lang == "ko" else "short") in csa
    rotation = passages("v4-flash", lang)["hca-attn-read"]  # the inverse rotation: RoPE is taught on V2's page
    assert "[V2 · MLA](v2-mla)" in rotation and "t − s" in rotation and "s − t" in rotation
