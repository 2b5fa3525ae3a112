"""The Overview's prose takes its numbers from core: the MHA baseline written out in the reader's
format, one row per kind of storing layer (its layers, entry, real compression ratio and bytes per
token) at the reader's precision, and the numbers that move with the context (the baseline's cache
and reads) at the reader's context."""

from __future__ import annotations

import re
from fractions import Fraction

import pytest

from article import Heading, Text
from article.derive import num, per_token_sum
from article.sections.overview import storing_kinds
from core import A1_MODELS, ALL_BF16, Precision, get, storage_per_token
from core.cost import DEPLOYED, fitted, ratio_to, reads, storage_groups
from core.units import fmt_bytes, fmt_ratio
from i18n import model_name
from publish.site import SiteView, blocks


def shown(context: int = 1 << 17, precision: Precision = DEPLOYED, lang: str = "en", app: bool = False) -> str:
    return "\n".join(b.text for b in blocks("overview", SiteView(lang, context, precision), app=app)
                     if isinstance(b, (Heading, Text)))


def kind_rows(text: str) -> list[list[str]]:
    """The cells of the per-kind table's rows (seven columns), its header left out."""
    rows = [[c.strip() for c in line.strip("|").split("|")] for line in text.splitlines()
            if line.startswith("| ") and line.count("|") == 8]
    return rows[1:]


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_mha_baseline_is_written_out_from_its_spec(lang):
    m = get("mha")
    d = m.dims
    product = (f"{m.n_layers} × {d.num_attention_heads} × ({d.head_dim} + {d.head_dim}) × 2 B = "
               f"{storage_per_token(m).total:,} B")
    assert product in shown(lang=lang)


def test_the_mha_baseline_in_a_scaled_format_is_summed_entry_by_entry():
    fp8 = Precision(main_kv="fp8")
    written = per_token_sum("mha", fp8)  # layers × (values + scales) B
    assert written in shown(precision=fp8) and written not in shown()


def test_the_mha_baseline_is_derived_once_before_the_chart():
    text = shown()
    assert text.count(f"= {storage_per_token('mha').total:,} B") == 1
    assert text.index("hypothetical MHA") < text.index("Five models in one chart")


def test_the_table_has_one_row_per_kind_of_storing_layer_with_its_real_ratio():
    """The deployed rows, as integers from core: V4-Flash's CSA (m = 4) and HCA (m = 128), V4.1-Flash's
    encoder (m = 2) and decoder (m = 1) Full layers; no fitted ratio anywhere."""
    rows = kind_rows(shown())
    assert rows == [
        ["Hypothetical MHA", "MHA", "60", "32,768", "65,536", "1", "3,932,160 B"],
        ["V2", "MLA", "60", "576", "1,152", "1", "69,120 B"],
        ["V3.2", "DSA", "61", "576 + 128", "656 + 132", "1", "48,068 B"],
        ["V4-Flash", "CSA", "21", "512 + 128", "584 + 68", "4", "3,423 B (97%)"],
        ["V4-Flash", "HCA", "20", "512", "584", "128", "91.25 B (2.6%)"],
        ["V4.1-Flash", "CSA2 Full (encoder)", "3", "512 + 128", "288 + 68", "2", "534 B (60%)"],
        ["V4.1-Flash", "CSA2 Full (decoder)", "1", "512 + 128", "288 + 68", "1", "356 B (40%)"],
    ]


@pytest.mark.parametrize("precision", [DEPLOYED, ALL_BF16, Precision(main_kv="fp8")])
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_kind_rows_are_cores_groups_and_add_up_to_the_storage_per_token(precision, lang):
    rows = kind_rows(shown(precision=precision, lang=lang))
    expected = []
    for m in A1_MODELS:
        p = fitted(m, precision)
        groups = storage_groups(m, p)
        assert [g for _, g in storing_kinds(m, p)] == list(groups)
        assert sum(g.per_token for g in groups) == Fraction(storage_per_token(m, p).total)
        for g in groups:
            expected.append([model_name(m, get(m).name, lang), f"{g.layers:,}",
                             " + ".join(f"{b:,}" for _, b in g.entry), f"{g.ratio:,}"])
    assert [[r[0], r[2], r[4], r[5]] for r in rows] == expected
    per_token = [Fraction(re.match(r"[\d,.]+", r[6])[0].replace(",", "")) for r in rows]
    assert per_token == [Fraction(g.per_token) for m in A1_MODELS for g in storage_groups(m, fitted(m, precision))]
    assert all(num(x) + " B" in r[6] for x, r in zip(per_token, rows))


@pytest.mark.parametrize("context", [1 << 10, 1 << 20])
def test_the_baselines_cache_and_reads_are_at_the_readers_context(context):
    assert f"decode reads all {fmt_bytes(reads('mha', context).total)}" in shown(context)


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_list_of_sections_points_to_the_glossary_and_the_app_only_lines_stay_in_the_app(lang):
    site, app = shown(lang=lang), shown(lang=lang, app=True)
    assert "](glossary)" in site
    units = "KiB" if lang == "en" else "KiB·MiB"
    assert "KiB" not in site and units in app  # the units setting is the app's


def test_korean_says_바이트_and_the_index_key_sits_beside_the_entry():
    """Site decisions: Korean writes 바이트 (B after a number), and the table's bytes column names the
    entry and the index key beside it, not an index key inside the entry."""
    ko, en = shown(lang="ko"), shown(lang="en")
    assert not re.search(r"\bbytes?\b", ko)
    assert "| 항목 + 검색용 Key (B) |" in ko and "| entry + index key (B) |" in en
    assert "검색용 Key 항목" not in ko and "index-key entry" not in en


@pytest.mark.parametrize("lang", ["ko", "en"])
def test_the_example_ratio_and_v4_flashs_layer_counts_are_cores(lang):
    """The ratio the reader is told to compare by is V2's, from core; V4-Flash's storing layers are
    counted out of all its layers."""
    text = shown(lang=lang)
    example = fmt_ratio(ratio_to("v2"))
    assert (f"“MHA의 약 {example}”" if lang == "ko" else f'"≈{example} of MHA"') in text
    v4 = get("v4-flash")
    counts = f"{v4.n_layers}개 가운데 {v4.n_global}개" if lang == "ko" else f"{v4.n_global} of its {v4.n_layers}"
    assert counts in text
