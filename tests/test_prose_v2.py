"""The V2 · MLA section's prose: its byte counts are core's and follow the controls that move them —
the entry and the per-token sum the precision (V2's deployed format is BF16, so the presets alone
cannot show it: a per-component FP8 does), what a decode step reads the context, inside a part the
context reruns — while V3's sum, an architecture statement, stays put."""

from __future__ import annotations

import pytest

from article import SECTIONS, Ask, Heading, Part, Text, run_section
from article.derive import entry_terms, per_token_sum
from core import ALL_BF16, Precision, get
from core.cost import read_terms, role_layouts
from core.units import fmt_bytes
from figures.knobs import CONTEXT_STOPS
from publish.site import SiteView

FP8 = Precision(main_kv="fp8")


def texts(reading: SiteView) -> tuple[list[str], list[str]]:
    """The section's headings and texts at a reading: (outside any part, inside the context's parts)."""
    outside, inside, depth = [], [], [0]

    def answer(block):
        if isinstance(block, Part):
            depth[0] += 1
            try:
                return run_section(block.section(reading), answer)
            finally:
                depth[0] -= 1
        if isinstance(block, (Heading, Text)):
            (inside if depth[0] else outside).append(block.text)
        return tuple(k.default for k in block.knobs) if isinstance(block, Ask) else None

    run_section(SECTIONS["v2-mla"].draw(reading), answer)
    return outside, inside


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("precision", [Precision(), ALL_BF16, FP8, Precision(main_kv="fp4")])
def test_the_entry_and_the_sum_follow_the_precision(lang, precision):
    shown = "\n".join(sum(texts(SiteView(lang, CONTEXT_STOPS[0], precision)), []))
    layout = role_layouts("v2", precision)["main_kv"]
    d = get("v2").dims
    if layout.segments[0].n_scales:  # a quantised latent: term by term
        assert entry_terms(layout, lang) in shown
    else:  # one format for every value: the widths times the bytes of one
        each = layout.nbytes // (d.kv_lora_rank + d.qk_rope_head_dim)
        assert f"({d.kv_lora_rank} + {d.qk_rope_head_dim}) × {each} B = {layout.nbytes:,} B" in shown
    assert per_token_sum("v2", precision) in shown
    assert per_token_sum("v3", ALL_BF16) in shown  # V3 at BF16 whatever the control says


def test_a_per_component_fp8_changes_v2s_derivation():
    assert per_token_sum("v2") == per_token_sum("v2", ALL_BF16) != per_token_sum("v2", FP8)
    deployed, fp8 = ("\n".join(texts(SiteView("en", CONTEXT_STOPS[0], p))[0]) for p in (Precision(), FP8))
    assert per_token_sum("v2", FP8) in fp8 and per_token_sum("v2", FP8) not in deployed


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_what_a_step_reads_follows_the_context_inside_its_part(lang):
    first, last = (texts(SiteView(lang, n, Precision())) for n in (CONTEXT_STOPS[0], CONTEXT_STOPS[-1]))
    assert first[0] == last[0]  # outside the parts nothing moves with the context
    for n, (_, inside) in ((CONTEXT_STOPS[0], first), (CONTEXT_STOPS[-1], last)):
        (term,) = read_terms("v2", n, Precision())
        shown = "\n".join(inside)
        assert f"{term.entries:,}" in shown and f"{term.entry_bytes:,} B = {fmt_bytes(term.total)}" in shown


def test_a_context_step_in_the_app_moves_what_a_step_reads():
    """The reads sit in a part of their own, below the figures: a context step reruns it too."""
    from tests.test_app import assert_runs

    at = assert_runs(lang="en")
    at.switch_page("pages/v2-mla.py").run()
    at.sidebar.select_slider(key="ctx").set_value(1 << 20).run()
    assert not at.exception and not at.sidebar.select_slider  # a fragment run: the page was not drawn again
    (term,) = read_terms("v2", 1 << 20, Precision())
    assert any(f"{term.entry_bytes:,} B = {fmt_bytes(term.total)}" in m.value for m in at.markdown)


ROPE_HEADING = {"ko": "RoPE: 위치를 회전으로 담기", "en": "RoPE: position as a rotation"}  # other pages point here


def shown(lang: str, app: bool) -> list:
    from core.cost import DEPLOYED
    from publish.site import blocks

    return blocks("v2-mla", SiteView(lang, CONTEXT_STOPS[0], DEPLOYED), app=app)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_what_the_app_knobs_let_a_reader_try_is_for_the_app_alone(lang):
    """The site has no seed, T or calculation precision: what they do is said in the app only, while
    what the diagrams show is said on both."""
    from article.prose import app_only

    assert {"absorb.knobs", "absorb.rounding", "rope.try"} <= app_only("v2-mla", lang)
    site, app = ("\n".join(b.text for b in shown(lang, a) if isinstance(b, Text)) for a in (False, True))
    knob_words = ("seed", "BF16이나 FP8로" if lang == "ko" else "BF16 or FP8")
    assert not any(w in site for w in knob_words) and all(w in app for w in knob_words)
    assert "10<sup>−14</sup>" in site  # what the FP64 diagrams show stays on the site


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_hypothetical_mha_is_recalled_with_a_link_to_the_overview_not_derived_again(lang):
    from core.cost import DEPLOYED, fitted, storage_per_token
    from core.units import fmt_exact

    first = next(b.text for b in shown(lang, False) if isinstance(b, Text) and "MHA" in b.text)
    assert ("[개요](overview)" if lang == "ko" else "[Overview](overview)") in first
    assert fmt_exact(storage_per_token("mha", fitted("v2", DEPLOYED)).total) in first
    mha = get("mha").dims
    assert f"{mha.num_attention_heads} × ({mha.head_dim} + {mha.head_dim})" not in first  # the Overview's derivation


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_rope_is_taught_under_its_own_heading_before_its_figure_and_decoupled_rope(lang):
    from article import Chart

    seen = [b.text if isinstance(b, Heading) else b.figure_id for b in shown(lang, False)
            if isinstance(b, Heading) or isinstance(b, Chart)]
    at = seen.index(ROPE_HEADING[lang])
    assert seen.index("A6") < at < seen.index("rope") < seen.index("mla-cost")
    assert seen[at + 2].startswith("decoupled RoPE" if lang == "ko" else "Decoupled RoPE")
