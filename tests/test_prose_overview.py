"""The Overview's prose takes its numbers from core: the MHA baseline written out in the reader's
format, the four factors per model at the reader's precision, and the numbers that move with the
context (the baseline's cache and reads) at the reader's context."""

from __future__ import annotations

import pytest

from article import Heading, Text
from article.derive import per_token_sum
from core import A1_MODELS, ALL_BF16, Precision, get, storage_per_token
from core.cost import DEPLOYED, reads
from core.factors import factors
from core.units import fmt_bytes, fmt_exact
from i18n import model_name
from publish.site import SiteView, blocks


def shown(context: int = 1 << 17, precision: Precision = DEPLOYED, lang: str = "en") -> str:
    return "\n".join(b.text for b in blocks("overview", SiteView(lang, context, precision))
                     if isinstance(b, (Heading, Text)))


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


@pytest.mark.parametrize("precision", [Precision(), ALL_BF16])
def test_the_factor_table_follows_the_precision(precision):
    rows = {line.split("|")[1].strip(): line for line in shown(precision=precision).splitlines()
            if line.startswith("| ") and line.count("|") == 7}
    for m in A1_MODELS:
        f = factors(m, precision)
        row = rows[model_name(m, get(m).name, "en")]
        assert f"| {f.layers:,} |" in row
        assert fmt_exact(storage_per_token(m, precision).total) in row


@pytest.mark.parametrize("context", [1 << 10, 1 << 20])
def test_the_baselines_cache_and_reads_are_at_the_readers_context(context):
    assert f"decode reads all {fmt_bytes(reads('mha', context).total)}" in shown(context)
