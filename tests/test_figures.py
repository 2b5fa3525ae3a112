"""Figures as objects: the registry, A1's geometry and labels, the crossover chart."""

import math
import re

import pytest

import core
from core.units import fmt_bytes
from figures import EXTRAS, FIGURES
from figures.builders.kv_bars import LOCAL_TEXT
from figures.canvas import NATIVE
from figures.charts.bars import bar_colour
from figures.contrast import READABLE, contrast
from figures.knobs import CONTEXT_STOPS as CONTEXTS
from figures.style import ROLE_COLOURS
from i18n import LANGS, TEXT

HANGUL = re.compile(r"[\uac00-\ud7a3]")


def labels(fig) -> list[str]:
    """Every label drawn on the plot: annotations and the text of text traces."""
    out = [a.text for a in fig.layout.annotations]
    return out + [s for tr in fig.data if tr.type == "scatter" and tr.text is not None for s in tr.text]


def texts(fig) -> list[str]:
    """Every string a reader can see: labels, titles, tick texts, trace names."""
    out = labels(fig)
    out += [fig.layout.title.text or ""]
    for ax in (fig.layout.xaxis, fig.layout.xaxis2, fig.layout.yaxis):
        if ax is not None:
            out += [ax.title.text or ""] + list(ax.ticktext or [])
    out += [tr.name or "" for tr in fig.data]
    return out


def assert_label(fig, pattern: str) -> str:
    hits = [text for text in labels(fig) if re.search(pattern, text)]
    assert hits, f"no label matches {pattern!r}"
    return hits[0]


def test_registry_holds_the_figures_of_this_foundation():
    assert {"A1", "A2", "A7", "A11", "A20"} <= set(FIGURES)
    assert all(re.fullmatch(r"[AB]\d+", k) for k in FIGURES)


@pytest.mark.parametrize("fid", sorted(FIGURES) + sorted(EXTRAS))
def test_every_builder_reproduces_its_figure_with_no_arguments(fid):
    fig = {**FIGURES, **EXTRAS}[fid].build({}, NATIVE).figure
    assert (fig.data or fig.layout.shapes) and fig.layout.title.text


def test_a1_is_two_log_scale_bar_charts_with_separate_axes():
    fig = FIGURES["A1"].build({}, NATIVE).figure
    assert fig.layout.xaxis.type == "log" and fig.layout.xaxis2.type == "log"
    assert fig.layout.xaxis.range != fig.layout.xaxis2.range
    bars = [tr for tr in fig.data if tr.type == "bar"]
    assert len(bars) == 4 and all(tr.orientation == "h" for tr in bars)
    assert list(fig.layout.yaxis.ticktext) == ["가상 MHA", "V2", "V3.2", "V4-Flash", "V4.1-Flash"]


def test_a1_draws_its_labels_as_text_traces_not_annotations():
    # plotly lays annotations out one by one: a slider step redrew them slowly
    fig = FIGURES["A1"].build({}, NATIVE).figure
    assert len(fig.layout.annotations) == 2  # the two panel titles
    text = [tr for tr in fig.data if tr.type == "scatter"]
    assert text and all(tr.hoverinfo == "skip" and not tr.showlegend for tr in text)


@pytest.mark.parametrize("label", ["3,932,160 B", "69,120 B", "48,068 B", "≈3,514 B", "890 B"])
def test_a1_labels_each_storage_bar_with_the_article_value(label):
    assert_label(FIGURES["A1"].build({}, NATIVE).figure, re.escape(f"<b>{label}</b>"))


@pytest.mark.parametrize("label", ["515 GB", "9.06 GB", "1.14 GB", "68.2 MB", "35.0 MB"])
def test_a1_labels_each_read_bar_with_the_article_value(label):
    assert_label(FIGURES["A1"].build({}, NATIVE).figure, re.escape(f"<b>{label}</b>"))


@pytest.mark.parametrize("ratio", ["1/57", "1/82", "1/1,119", "1/4,418"])
def test_a1_states_how_many_times_smaller_than_mha(ratio):
    assert_label(FIGURES["A1"].build({}, NATIVE).figure, re.escape(f"MHA의 약 {ratio}") + "$")


def test_a1_format_lines_give_the_bytes_of_one_per_layer_entry():
    fig = FIGURES["A1"].build({}, NATIVE).figure
    assert_label(fig, r"^KV BF16 1,152 B$")
    assert_label(fig, r"^KV FP8\+BF16 656 B · 검색용 Key FP8 132 B$")
    assert_label(fig, r"^KV FP8\+BF16 584 B · 검색용 Key FP4 68 B")
    assert_label(fig, r"^KV FP4 288 B · 검색용 Key FP4 68 B")


def test_a1_notes_local_kv_in_orange_only_for_v4_and_v41():
    fig = FIGURES["A1"].build({}, NATIVE).figure
    notes = [text for text in labels(fig) if "local KV" in text]
    assert len(notes) == 2
    assert "3.21 MB" in notes[0] and "2.70 MB" in notes[1]
    assert all("최근 128개 위치" in n and LOCAL_TEXT in n for n in notes)  # the role's orange, dark enough to read


def test_a1_local_kv_text_is_the_role_orange_made_readable_on_white():
    assert contrast(LOCAL_TEXT, "#ffffff") >= READABLE


def test_a1_read_bar_is_split_by_share_of_its_log_length():
    fig = FIGURES["A1"].build({}, NATIVE).figure
    kv, key = [tr for tr in fig.data if tr.xaxis == "x2" and tr.type == "bar"]
    lo = math.log10(kv.base[0])
    r = core.reads("v3.2", 131072)
    row = 2  # V3.2
    edge = key.base[row]
    total = edge + key.x[row]
    visual_share = (math.log10(total) - math.log10(edge)) / (math.log10(total) - lo)
    assert visual_share == pytest.approx(r.index_key / r.total)  # ≈ 93 %
    assert total == pytest.approx(r.total)


def test_a1_says_a_hybrids_state_under_its_bar_and_draws_it_with_what_attention_reads():
    fig = FIGURES["A1"].build(dict(models=("qwen3-next-80b-a3b",), lang="en"), NATIVE).figure
    state = core.state_bytes("qwen3-next-80b-a3b")
    [under] = [n for n in labels(fig) if "separate" in n]
    assert under.endswith(f"<span style='color:{LOCAL_TEXT}'>separate: the state of 36 linear layers "
                          f"{fmt_bytes(state)}</span>")
    kv, key = [tr for tr in fig.data if tr.xaxis == "x2" and tr.type == "bar"]
    assert key.x[0] == pytest.approx(0, abs=1e-3)  # no index key: nothing read is drawn as one
    assert kv.base[0] + kv.x[0] == pytest.approx(core.reads("qwen3-next-80b-a3b", 131072).total)


@pytest.mark.parametrize("fid, last", [("A2", "V2"), ("A7", "V3.2"), ("A11", "V4-Flash"), ("A20", "V4.1-Flash")])
def test_generation_charts_stop_at_their_model_and_highlight_it(fid, last):
    fig = FIGURES[fid].build({}, NATIVE).figure
    ticks = list(fig.layout.yaxis.ticktext)
    assert ticks[0] == "가상 MHA" and ticks[-1] == f"<b>{last}</b>"
    dim, full = bar_colour("main_kv", True), ROLE_COLOURS["main_kv"]  # the others greyed, opaque
    assert list(fig.data[0].marker.color) == [dim] * (len(ticks) - 1) + [full] and dim != full


def test_generation_charts_share_a1_axes():
    a1, a2 = (FIGURES[fid].build({}, NATIVE).figure for fid in ("A1", "A2"))
    assert a2.layout.xaxis2.range == a1.layout.xaxis2.range


@pytest.mark.parametrize("context", [CONTEXTS[0], CONTEXTS[-1]])
def test_a1_read_labels_follow_the_context_slider_to_its_ends(context):
    fig = FIGURES["A1"].build(dict(context=context), NATIVE).figure
    total = core.reads("v4.1-flash", context).total
    assert_label(fig, re.escape(f"<b>{fmt_bytes(total)}</b>"))
    assert_label(fig, re.escape(f"({context:,}"))  # right panel title


def test_a1_all_bf16_preset_gives_the_collapsible_variants():
    fig = FIGURES["A1"].build(dict(precision=core.ALL_BF16), NATIVE).figure
    for label in ["85,888 B", "6,880 B", "3,200 B"]:
        assert_label(fig, re.escape(f"<b>{label}</b>"))
    assert "BF16" in fig.layout.title.text


def test_a1_per_component_override_changes_that_component_only():
    fig = FIGURES["A1"].build(dict(precision=core.Precision(main_kv="bf16")), NATIVE).figure
    assert_label(fig, r"^KV BF16 1,024 B · 검색용 Key FP4 68 B")  # V4.1: main 288 → 1,024, key stays 68


def test_a1_in_english_has_no_korean_left():
    fig = FIGURES["A1"].build(dict(lang="en", units="binary"), NATIVE).figure
    assert not [s for s in texts(fig) if HANGUL.search(s)]
    assert_label(fig, r"GiB")


def test_a1_rejects_bad_knobs_with_clear_errors():
    with pytest.raises(ValueError, match="language"):
        FIGURES["A1"].build(dict(lang="fr"), NATIVE)
    with pytest.raises(ValueError, match="at least one model"):
        FIGURES["A1"].build(dict(models=[]), NATIVE)
    with pytest.raises(ValueError, match="not among"):
        FIGURES["A1"].build(dict(models=["mha", "v2"], highlight="v3.2"), NATIVE)


def test_every_label_exists_in_both_languages():
    assert all(set(v) == set(LANGS) and all(v.values()) for v in TEXT.values())


def test_crossover_marks_where_global_kv_meets_local_kv():
    fig = EXTRAS["crossover"].build({}, NATIVE).figure
    marks = [tr for tr in fig.data if tr.mode == "markers+text"]
    assert [round(m.x[0], 2) for m in marks] == [914.66, 3037.48]
    assert "≈915" in marks[0].text[0] and "≈3,038" in marks[1].text[0]
    assert fig.layout.xaxis.type == "log" and fig.layout.yaxis.type == "log"


def test_the_read_floor_names_the_states_it_reads_where_a_model_holds_one():
    sub = {models: EXTRAS["read-floor"].build(dict(models=list(models), lang="en"), NATIVE).figure.layout.title.text
           for models in (("v3.2",), ("v3.2", "minimax-m1-80k"))}
    assert "(KV + index key)\u00a0÷\u00a0its bandwidth" in sub[("v3.2",)]  # kept on one line
    assert "(KV + index key + state)\u00a0÷\u00a0its bandwidth" in sub[("v3.2", "minimax-m1-80k")]
    # 70 lightning states of 2 MiB, read once per step over 8 × 4.8 TB/s, beside 10 GQA layers' KV
    us = EXTRAS["read-floor"].build(dict(models=["minimax-m1-80k"], lang="en"), NATIVE).figure.data[0].y[0]
    assert us == pytest.approx((70 * 64 * 128 * 128 * 2 + 10 * 4096 * 1024) / 38.4e12 * 1e6)


def test_crossover_refuses_models_without_local_kv():
    with pytest.raises(ValueError, match="local KV"):
        EXTRAS["crossover"].build(dict(models=["v2"]), NATIVE)


def test_modebar_downloads_svg_named_after_the_figure():
    from figures.style import plotly_config
    opts = plotly_config("A1")["toImageButtonOptions"]
    assert opts["format"] == "svg" and opts["filename"] == "kv-atlas-A1"


def test_figures_use_the_shared_template_so_screen_matches_export():
    import plotly.io as pio
    fig = FIGURES["A1"].build({}, NATIVE).figure
    assert fig.layout.template.layout.font.family == pio.templates["kv_atlas"].layout.font.family
