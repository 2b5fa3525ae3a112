"""The V4.1-Flash section's prose (article/sections/v41.py): what the context moves sits in the
section's context Parts, the reads it writes out are core's terms, the per-token reading as
entries × one entry adds up, and the layout it spells out is the schedule's."""

from __future__ import annotations

import re

import pytest

from article import SECTIONS, Ask, Heading, Part, Text, run_section
from core import ALL_BF16, DEPLOYED, get, reads, storage_per_token
from core.cost import read_terms
from core.mechanisms.sharing import layer_roles
from core.units import fmt_bytes
from figures.knobs import CONTEXT_STOPS
from publish.site import SiteView, blocks

SLUG, MODEL = "v4-1-flash", "v4.1-flash"


def outside_pool(r):
    """Positions in Full's own top-k that are not in the candidate pool."""
    import numpy as np

    return np.setdiff1d(r.full_topk, r.pool_positions)


def _text(shown) -> str:
    return "\n".join(b.text for b in shown if isinstance(b, (Heading, Text)))


def _outside_and_inside(reading: SiteView) -> tuple[list, list]:
    """The section's blocks outside its context Parts, and those inside them."""
    outside, inside = [], []

    def answer(block):
        match block:
            case Ask(knobs):
                return tuple(k.default for k in knobs)
            case Part(_, section):
                return run_section(section(reading), inside.append)
        outside.append(block)

    run_section(SECTIONS[SLUG].draw(reading), answer)
    return outside, inside


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_only_the_context_parts_move_with_the_context(lang):
    short, long = (_outside_and_inside(SiteView(lang, n, DEPLOYED)) for n in (CONTEXT_STOPS[0], CONTEXT_STOPS[-1]))
    assert short[0] == long[0]  # a number outside a Part would not follow a context step in the app
    assert _text(short[1]) != _text(long[1])
    for n, (_, inside) in zip((CONTEXT_STOPS[0], CONTEXT_STOPS[-1]), (short, long)):
        assert fmt_bytes(reads(MODEL, n).total) in _text(inside)


@pytest.mark.parametrize("n", [CONTEXT_STOPS[0], 1 << 17, CONTEXT_STOPS[-1]])
@pytest.mark.parametrize("precision", [DEPLOYED, ALL_BF16])
def test_the_reads_are_written_term_by_term_from_core(n, precision):
    text = _text(blocks(SLUG, SiteView("en", n, precision)))
    for term in read_terms(MODEL, n, precision):
        assert f"{term.layers:,} × {term.entries:,} × {term.entry_bytes:,} B" in text
    r = reads(MODEL, n, precision)
    for part in (r.main_kv, r.local_kv, r.index_key, r.kv, r.total):
        assert fmt_bytes(part) in text


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_per_token_storage_is_derived_once_and_v4s_is_referred_to(lang):
    """The per-token sum is written out once (no second reading of it as entries × one entry), and
    V4-Flash's all-BF16 total is named with a link to the page that derives it, not derived again."""
    text = _text(blocks(SLUG, SiteView(lang, CONTEXT_STOPS[0], DEPLOYED)))
    assert text.count(f"= {storage_per_token(MODEL).total:,} B") == 1
    v4 = f"{storage_per_token('v4-flash', ALL_BF16).total:,} B"
    (line,) = [line for line in text.splitlines() if v4 in line]
    assert "](v4-flash)" in line  # the line that quotes it links to V4-Flash
    assert "÷ 128" not in text  # V4-Flash's HCA term, derived on its own page


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("n", [CONTEXT_STOPS[0], 1 << 17, CONTEXT_STOPS[-1]])
def test_what_the_full_layers_scans_read_follows_the_context(lang, n):
    """'What is still left' quotes what the Full layers' scans of every index key read at the view's
    context, and their share, from core's read terms (at 128K: 13.4 MB + 8.91 MB = 22.3 MB, 64 %)."""
    terms = read_terms(MODEL, n)
    key = {t.entry_bytes for t in terms if t.role == "index_key"}.pop()
    scan = sum(n // ly.ratio * key for ly in get(MODEL).layers if ly.kind == "CSA2" and ly.mode == "full")
    read = sum(t.total for t in terms)
    text = _text(blocks(SLUG, SiteView(lang, n, DEPLOYED)))
    assert f"{fmt_bytes(scan)}" in text and f"{scan / read:.0%}" in text
    if n == 1 << 17:
        assert (fmt_bytes(scan), f"{scan / read:.0%}") == ("22.3 MB", "64%")


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_pool_claim_holds_at_the_real_sizes(lang):
    """The prose says Full's own top k always lies in the candidate pool at the real sizes: true when
    the pool's blocks besides the newest outnumber k (each holds an entry ranked ahead of any outside),
    and the small runs agree: with more pool blocks than k nothing of Full's lies outside the pool."""
    from core.mechanisms.hierarchical import hierarchical_indexer

    model = get(MODEL)
    assert model.pool_blocks - 1 >= model.index_topk
    for seed in range(40):
        assert outside_pool(hierarchical_indexer(64, block=4, pool_blocks=5, topk=4, seed=seed)).size == 0
    assert any(outside_pool(hierarchical_indexer(64, block=4, pool_blocks=4, topk=4, seed=s)).size
               for s in range(40))


def _expand(pattern: str) -> list[str]:
    """'[Full, Reuse×3] + 4 × [Reindex, Reuse×3]' → the modes in order."""
    modes = []
    for term in pattern.split(" + "):
        times, _, group = term.rpartition(" × ")
        inner = [m.split("×") for m in group.strip("[]").split(", ")]
        modes += int(times or 1) * [m for name, *k in inner for m in [name] * int(k[0] if k else 1)]
    return modes


@pytest.mark.parametrize("stack", ["encoder", "decoder"])
def test_the_layout_spelled_out_is_the_schedules(stack):
    text = _text(blocks(SLUG, SiteView("en", CONTEXT_STOPS[0], DEPLOYED)))
    pattern = re.search(rf"\*\*{stack.capitalize()}, \d+ layers\*\*:.*? in the order (.+?) \(", text)[1]
    csa2 = [r.label for r in layer_roles(MODEL) if r.stack == stack and r.kind == "CSA2"]
    assert _expand(pattern) == csa2
    assert f"Only {get(MODEL).n_global} of its {get(MODEL).n_layers} layers store global KV" in text


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_what_to_try_with_the_app_s_knobs_is_the_app_s_alone(lang):
    """The comparison m, the pool's blocks, the prompt and the window are the app's knobs: the
    passages that say what moving them does are shown in the app, not on the site."""
    from article.prose import app_only, passages

    tries = {"csa2-try", "hier-try", "replay-try"}
    assert tries <= app_only(SLUG, lang)
    site, app = (_text(blocks(SLUG, SiteView(lang, CONTEXT_STOPS[0], DEPLOYED), app=a)) for a in (False, True))
    for name in tries:
        first = passages(SLUG, lang)[name].split("\n")[0]
        assert first in app and first not in site


def test_the_factors_passage_quotes_each_models_real_numbers_not_a_fitted_ratio():
    """V4-Flash has two ratios, one per kind of layer (4 for CSA, 128 for HCA), and V4.1-Flash's
    storing layers and bytes per value are theirs (core.factors): no 'effective' ratio of 7.22."""
    from core.factors import storing

    text = _text(blocks(SLUG, SiteView("en", CONTEXT_STOPS[0], DEPLOYED)))
    csa, hca = storing("v4-flash")
    assert f"m = {csa.ratio} in its {csa.layers} CSA layers, m = {hca.ratio} in its {hca.layers} HCA layers" in text
    assert f"to {sum(k.layers for k in storing(MODEL))} and, with FP4" in text
    assert "effective" not in text and "7.22" not in text
