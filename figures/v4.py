"""V4-Flash figures A12–A19: HCA and CSA branches, making compressed entries, which entries
token t reads, and attention over shared K = V entries with a sink.

A12/A16 are structural (entry width c from the V4-Flash spec); the others run small seeded
mechanisms from core (compression, visibility, sink_attention, csa_indexer).
"""

from __future__ import annotations

from core import get

from .i18n import t
from .matrix import Box, Diagram, Op, render
from .mla import sym


def entry_width() -> int:
    """c: the width of one main KV entry of V4-Flash (512), from its cache format."""
    return get("v4-flash").component("main_kv").layout("bf16").dims


def _sizes() -> tuple:
    """Symbolic sizes from small to large (V4-Flash: c = 512 < d_c < D < n_h·c), for box widths."""
    c = entry_width()
    return ("k", c, f"2×{c}", "d<sub>c</sub>", "n<sub>I</sub>·d<sub>I</sub>", "D", "n<sub>h</sub>·c", "T")


def _query_lane(lang: str):
    return (Box("X", ("T", "D")), Op("×"), Box(sym("W", "DQ"), ("D", "d<sub>c</sub>"), "weight"), Op("="),
            Box(sym("c", "Q"), ("T", "d<sub>c</sub>")), Op("×"),
            Box(sym("W", "UQ"), ("d<sub>c</sub>", "n<sub>h</sub>·c"), "weight"), Op("="),
            Box("Q", ("T", "n<sub>h</sub>·c")))


def build_a12(*, lang: str = "ko"):
    c = entry_width()
    lanes = (
        _query_lane(lang),
        (Box("X", ("T", "D")), Op("×"), Box(sym("W", "KV", "win"), ("D", c), "weight"), Op("→", "RMSNorm"),
         Box(sym("E", "win"), ("T", c), "local", cached=True, note=t("a12.win", lang))),
        (Box("X", ("T", "D")), Op("×"), Box(sym("W", "KV", "comp"), ("D", c), "weight"), Op("="),
         Box("C", ("T", c), "kv", note=t("a12.cand", lang))),
        (Box("X", ("T", "D")), Op("×"), Box(sym("W", "Z"), ("D", c), "weight"), Op("="),
         Box("Z", ("T", c), note=t("a12.z", lang))),
    )
    return render(Diagram(
        t("a12.title", lang), lanes,
        lane_labels=(t("a12.q", lang), t("a12.local", lang), t("a12.comp", lang), ""),
        captions=(t("a12.cap", lang, c=c), t("mx.width", lang)), cached_label=t("mx.cached", lang),
        subtitle=t("a12.sub", lang), size_order=_sizes()))


def build_a16(*, lang: str = "ko"):
    c = entry_width()
    lanes = (
        _query_lane(lang),
        (Box("X", ("T", "D")), Op("×"), Box(sym("W", "KV", "win"), ("D", c), "weight"), Op("→", "RMSNorm"),
         Box(sym("E", "win"), ("T", c), "local", cached=True)),
        (Box("X", ("T", "D")), Op("×"), Box(sym("W", "KV", "comp") + " a|b", ("D", f"2×{c}"), "weight"), Op("="),
         Box("C<sub>a</sub> | C<sub>b</sub>", ("T", f"2×{c}"), "kv", note=t("a16.halves", lang))),
        (Box("X", ("T", "D")), Op("×"), Box(sym("W", "Z") + " a|b", ("D", f"2×{c}"), "weight"), Op("="),
         Box("Z<sub>a</sub> | Z<sub>b</sub>", ("T", f"2×{c}"))),
        (Box(sym("c", "Q"), ("T", "d<sub>c</sub>")), Op("×"),
         Box(sym("W", "IUQ"), ("d<sub>c</sub>", "n<sub>I</sub>·d<sub>I</sub>"), "weight"), Op("="),
         Box(sym("q", "I"), ("T", "n<sub>I</sub>·d<sub>I</sub>"), "index"),
         Op("→", t("a16.score", lang)), Box(t("a16.blocks", lang), ("T", "k"), "index")),
    )
    return render(Diagram(
        t("a16.title", lang), lanes,
        lane_labels=(t("a12.q", lang), t("a12.local", lang), t("a16.comp", lang), "", t("a16.idx", lang)),
        captions=(t("a16.cap", lang), t("mx.width", lang)), cached_label=t("mx.cached", lang),
        subtitle=t("a16.sub", lang), size_order=_sizes()))
