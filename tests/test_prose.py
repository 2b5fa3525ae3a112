"""The article's prose (article/prose/): both languages hold the same passages with the same
fields, every passage is shown by its section, no number a spec defines is typed in it, and the
byte counts it writes out (article/derive.py) are core's and follow the precision."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

import article.prose
from article import SECTIONS, Heading, Text
from article.derive import entry_sum, entry_terms, factor, per_token_sum
from article.prose import PROSE, notation, passage, passages
from core import ALL_BF16, MODELS, Precision, storage_per_token
from core.cost import DEPLOYED, read_terms, reads, role_layouts, storage_groups
from figures.knobs import CONTEXT
from i18n import LANGS
from publish.site import SiteView, blocks

WRITTEN = sorted({p.stem for p in PROSE.glob("*/*.md")})


def fields_of(text: str) -> set[str]:
    """The {fields} a passage asks for."""
    return set(re.findall(r"(?<!\{)\{(\w+)", text))


def test_every_section_has_its_prose_in_every_language():
    for slug in WRITTEN:
        assert slug in SECTIONS, f"{slug}.md belongs to no section"
        for lang in LANGS:
            assert (PROSE / lang / f"{slug}.md").is_file(), f"{lang}/{slug}.md is missing"


@pytest.mark.parametrize("slug", WRITTEN)
def test_both_languages_hold_the_same_passages_with_the_same_fields(slug):
    ko, en = (passages(slug, lang) for lang in ("ko", "en"))
    assert list(ko) == list(en)
    for name in ko:
        assert fields_of(ko[name]) == fields_of(en[name]), name


@pytest.mark.parametrize("slug", WRITTEN)
def test_prose_types_no_byte_count(slug):
    """Even a small one (an element's bytes, a pad byte) is a format's, filled from core."""
    typed = re.compile(r"(?<![\w{])\d[\d,.]*\s(B|bytes?|바이트)(?![A-Za-z])|\b(one|two|half a) bytes?\b", re.I)
    for lang in LANGS:
        found = typed.search((PROSE / lang / f"{slug}.md").read_text(encoding="utf-8"))
        assert not found, f"{lang}/{slug}.md types {found[0]!r}"


@pytest.mark.parametrize("slug", WRITTEN)
def test_prose_has_no_dollar_sign_streamlit_would_read_as_latex(slug):
    for lang in LANGS:
        assert "$" not in (PROSE / lang / f"{slug}.md").read_text(encoding="utf-8")


def _shown(slug: str, lang: str, precision: Precision = DEPLOYED) -> str:
    return "\n".join(b.text for b in blocks(slug, SiteView(lang, CONTEXT.default, precision))
                     if isinstance(b, (Heading, Text)))


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("slug", WRITTEN)
def test_every_passage_is_shown_by_its_section(slug, lang, monkeypatch):
    asked = set()

    class Asked(dict):  # a section's passages that note which of them the section takes
        def __getitem__(self, name):
            asked.add(name)
            return super().__getitem__(name)

    monkeypatch.setattr(article.prose, "passages", lambda s, la: Asked(passages(s, la)))
    for app in (False, True):  # the site's side of an Either and the app's
        blocks(slug, SiteView(lang, CONTEXT.default, DEPLOYED), app=app)
    assert set(passages(slug, lang)) - asked == set(), f"{lang}/{slug}.md has passages no section shows"


def test_a_passage_yields_its_headings_and_the_text_between(tmp_path, monkeypatch):
    import article.prose

    (tmp_path / "en").mkdir()
    (tmp_path / "en" / "x.md").write_text(
        "<!-- top -->\nLead {n} B.\n\n## Head\nOne.\n\nTwo {{x}}.\n### Sub\nThree.\n<!-- next -->\nFour.\n")
    monkeypatch.setattr(article.prose, "PROSE", tmp_path)
    passages.cache_clear()
    try:
        assert list(passages("x", "en")) == ["top", "next"]
        assert list(passage("x", "top", "en", n="656")) == [
            Text("Lead 656 B.", "prose"), Heading("Head", 2), Text("One.\n\nTwo {x}.", "prose"), Heading("Sub", 3),
            Text("Three.", "prose")]
        with pytest.raises(KeyError):
            list(passage("x", "top", "en"))  # a field the section does not fill
    finally:
        passages.cache_clear()


def test_prose_lets_no_element_through_but_notation_and_links():
    shown = notation("C<sup>KV</sup>, W<sub>h</sub> <https://arxiv.org/abs/2405.04434> <script>x</script> <img src=x>")
    assert shown == ("C<sup>KV</sup>, W<sub>h</sub> <https://arxiv.org/abs/2405.04434> &lt;script>x&lt;/script> "
                     "&lt;img src=x>")


@pytest.mark.parametrize("model", ["mha", "v2", "v3.2", "v4-flash", "v4.1-flash"])
@pytest.mark.parametrize("precision", [Precision(), ALL_BF16, Precision(main_kv="fp4", index_key="fp8")])
def test_derivations_sum_to_cores_bytes(model, precision):
    for layout in role_layouts(model, precision).values():
        parts = [int(x.replace(",", "")) for x in re.findall(r"[\d,]+", entry_sum(layout).split("=")[0])]
        assert sum(parts) == layout.nbytes
        assert f"{layout.nbytes:,} B" in entry_terms(layout, "en")
    assert sum(g.per_token for g in storage_groups(model, precision)) == Fraction(
        storage_per_token(model, precision).total)
    assert sum(r.total for r in read_terms(model, CONTEXT.default, precision)) == reads(
        model, CONTEXT.default, precision).total


def test_the_articles_derivations_read_as_it_writes_them():
    assert entry_sum(role_layouts("v3.2")["main_kv"]) == "512 + 16 + 128 = 656 B"
    assert entry_sum(role_layouts("v3.2")["index_key"]) == "128 + 4 = 132 B"
    assert entry_sum(role_layouts("v4-flash")["main_kv"]) == "448 + 7 + 128 + 1 = 584 B"
    assert per_token_sum("v4-flash") == "21 × (584 + 68) B ÷ 4 + 20 × 584 B ÷ 128 ≈ 3,514 B"
    assert per_token_sum("v3.2") == "61 × (656 + 132) B = 48,068 B"
    assert entry_terms(role_layouts("v3.2")["main_kv"], "en") == (
        "512 B FP8 values + 16 B scales (4 × FP32) + 128 B BF16 RoPE part = 656 B")


GENERATIONS = {"v2-mla": "v2", "v3-2-dsa": "v3.2", "v4-flash": "v4-flash", "v4-1-flash": "v4.1-flash"}


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("slug", [s for s in GENERATIONS if s in WRITTEN])
def test_a_sections_derivation_follows_the_precision(slug, lang):
    """Each generation's prose writes its per-token sum out, and a precision step changes it (V2 is
    deployed in BF16: its FP8 main KV is the step that moves it)."""
    model = GENERATIONS[slug]
    steps = (DEPLOYED, ALL_BF16, Precision(main_kv="fp8"))
    for precision in steps:
        assert per_token_sum(model, precision) in _shown(slug, lang, precision)
    assert len({per_token_sum(model, p) for p in steps}) > 1


def test_the_derivations_follow_a_changed_spec(monkeypatch):
    import dataclasses

    import core.models
    v32 = MODELS["v3.2"]
    monkeypatch.setattr(core.models, "MODELS", {**MODELS, "v3.2": dataclasses.replace(
        v32, dims=dataclasses.replace(v32.dims, kv_lora_rank=256))})
    assert entry_sum(role_layouts("v3.2")["main_kv"]) == "256 + 8 + 128 = 392 B"


def test_a_factor_is_written_whole_or_to_its_significant_digits_never_as_an_exponent():
    assert [factor(x, 2) for x in (4, 56.89, 3.555, 1234.5)] == ["4", "57", "3.6", "1,200"]
    assert factor(4418.2, 3) == "4,420" and factor(0.5, 3) == "0.5"
