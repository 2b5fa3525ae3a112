"""The V4.1-Flash section's prose (article/sections/v41.py): what the context moves sits in the
section's context Parts, the reads it writes out are core's terms, the per-token reading as
entries × one entry adds up, and the layout it spells out is the schedule's."""

from __future__ import annotations

import re

import pytest

from article import SECTIONS, Ask, Heading, Part, Text, run_section
from core import ALL_BF16, DEPLOYED, Precision, get, reads, storage_per_token
from core.cost import read_terms
from core.mechanisms.sharing import layer_roles
from core.units import fmt_bytes
from figures.knobs import CONTEXT_STOPS
from publish.site import SiteView, blocks

SLUG, MODEL = "v4-1-flash", "v4.1-flash"


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


@pytest.mark.parametrize("precision", [DEPLOYED, ALL_BF16, Precision(main_kv="fp8")])
def test_the_per_token_storage_reads_as_entries_times_one_entry(precision):
    """'(3 ÷ 2 + 1) = 2.5 entries … 2.5 × (288 + 68) B = 890 B': the arithmetic holds and is core's."""
    text = _text(blocks(SLUG, SiteView("en", CONTEXT_STOPS[0], precision)))
    found = re.search(r"= ([\d.]+) entries, so \1 × \(([\d,]+) \+ ([\d,]+)\) B = ([\d,]+) B", text)
    assert found, text
    entries, main, key, total = (float(g.replace(",", "")) for g in found.groups())
    assert entries * (main + key) == total == storage_per_token(MODEL, precision).total


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
    assert f"only {get(MODEL).n_global} layers store global KV" in text


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
