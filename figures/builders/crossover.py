"""Global KV (growth per token × N) against the fixed local KV, and where they meet.

The article approximates global KV linearly (≈900 tokens for V4-Flash, ≈3,038 for
V4.1-Flash); the local KV is drawn as it really is, min(window, N) positions per layer.
"""

from __future__ import annotations

from collections.abc import Sequence

import numpy as np

from core import DEPLOYED, Precision, crossover, crossover_tokens, fitted, fmt_bytes, get, local_kv, storage_per_token
from i18n import t

from ..charts.crossover import Crossover, Meeting
from ..made import Incompatible


def build_crossover(
    *,
    models: Sequence[str] = ("v4-flash", "v4.1-flash"),
    precision: Precision = DEPLOYED,
    context: int | None = 131072,
    lang: str = "ko",
    units: str = "decimal",
) -> Crossover:
    """Log-log lines per model; a marker and label where global KV equals local KV."""
    models = [m for m in models if local_kv(m, fitted(m, precision))]
    if not models:
        raise Incompatible("none of these models keeps a local KV")
    top = max(1 << 21, context or 0)
    # both curves are straight on log-log axes between these points: growth × N is linear,
    # local KV is linear up to the window and flat after it
    n = np.array(sorted({16, *(get(m).window for m in models), top}), dtype=np.int64)
    meetings, records = [], []
    for mid in models:
        name, p = get(mid).name, fitted(mid, precision)
        growth = storage_per_token(mid, p).total
        full, meet = local_kv(mid, p), crossover(mid, p)
        records.append({"model": get(mid).id, "global_kv_bytes_per_token": growth, "local_kv_bytes": full,
                        "crossover_tokens": crossover_tokens(mid, p), "crossover_exact": meet})
        meetings.append(Meeting(name, t("x.global", lang, m=name), t("x.local", lang, m=name), growth * n,
                                local_kv(mid, p, n), meet, full, t("x.meet", lang, n=f"{crossover_tokens(mid, p):,}"),
                                f"{name}: N≈{meet:,.1f}<br>{fmt_bytes(full, units)}"))
    return Crossover(t("x.title", lang), tuple(records), n, tuple(meetings), context,
                     f"{t('x.now', lang)} = {context:,}" if context else "", t("x.axis.x", lang), t("x.axis.y", lang))
