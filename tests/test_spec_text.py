"""Every number in a label comes from the spec: placeholders match across languages, no
number that core defines is typed in figures, pages or the translations, and changing a
spec changes the words that quote it."""

import dataclasses
import io
import re
import tokenize
from pathlib import Path

import pytest
from streamlit.testing.v1 import AppTest

import core
from article.prose import PROSE, passages
from core import MODELS
from figures import FIGURES
from figures.canvas import NATIVE
from figures.knobs import help_fields
from i18n import LANGS, t
from i18n.text import TEXT

ROOT = Path(__file__).resolve().parent.parent
SOURCES = sorted([*ROOT.glob("figures/*.py"), *ROOT.glob("pages/*.py"), *ROOT.glob("ui/*.py"), ROOT / "app.py"])
NUMBER = re.compile(r"(?<![\w.#])(\d{1,3}(?:,\d{3})+|\d+)(?![\w.])")
# Numbers that happen to equal a spec value but mean something else, with what they mean.
NOT_SPEC = {1024: "K = 1,024 tokens, the unit of context lengths", 1280: "the width of a 720p slide"}


def spec_numbers() -> set[int]:
    """Every width, count, ratio, cap and entry size the specs define (16 and up: smaller
    numbers are the mechanism runs' own small sizes)."""
    nums = set()
    for m in MODELS.values():
        nums |= {v for v in dataclasses.asdict(m.dims).values() if isinstance(v, int)}
        nums |= {m.n_layers, m.n_global, m.n_windowed, m.index_topk, m.window, m.pool_blocks,
                 m.pool_block_size, m.pool, *m.layer_counts.values(), *(ly.ratio for ly in m.layers)}
        for layout in (lo for c in m.components for lo in c.layouts.values()):
            nums |= {layout.nbytes, layout.dims, *(s.dims for s in layout.segments)}
    return {n for n in nums if n >= 16} - set(NOT_SPEC)


def numbers_in(text: str) -> set[int]:
    return {int(m.replace(",", "")) for m in NUMBER.findall(re.sub(r"\{[^}]*\}", "", text))}


def test_every_label_has_the_same_placeholders_in_every_language():
    fields = {key: {lang: sorted(re.findall(r"\{(\w+)", text[lang])) for lang in LANGS} for key, text in TEXT.items()}
    assert len(fields) > 500 and fields["floor.sub"]["ko"] == ["b", "bw", "g", "tp", "what"]
    assert not {key: f for key, f in fields.items() if len({tuple(v) for v in f.values()}) > 1}


def test_no_translation_types_a_number_the_specs_define():
    spec = spec_numbers()
    typed = {(k, lang): numbers_in(s) & spec for k, v in TEXT.items() for lang, s in v.items()}
    assert not {k: v for k, v in typed.items() if v}


def test_no_prose_types_a_number_the_specs_define():
    """The article's prose (article/prose/) takes every spec number from a field the section fills."""
    spec = spec_numbers()
    typed = {(f"{p.parent.name}/{p.name}", name): numbers_in(text) & spec
             for p in PROSE.glob("*/*.md") for name, text in passages(p.stem, p.parent.name).items()}
    assert not {k: v for k, v in typed.items() if v}


@pytest.mark.parametrize("path", SOURCES, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_no_figure_or_page_types_a_number_the_specs_define(path):
    spec = spec_numbers()
    wide = {n for n in spec if n >= 64}  # code is full of small layout numbers (margins, sizes)
    hits = []
    for tok in tokenize.generate_tokens(io.StringIO(path.read_text(encoding="utf-8")).readline):
        if tok.type == tokenize.STRING:
            hits += [(tok.start[0], n) for n in numbers_in(tok.string) & spec]
        elif tok.type == tokenize.NUMBER and tok.string.isdigit() and int(tok.string) in wide:
            hits.append((tok.start[0], int(tok.string)))
    assert not hits, f"{path.name}: spec numbers typed at (line, number) {hits}"


@pytest.fixture
def changed_specs(monkeypatch):
    """V2 with a 256-wide latent, V4-Flash with HCA m′ = 64 and a 64-position window,
    V4.1-Flash with 1,024 candidate blocks: copies of the specs, put where core looks."""
    v2, v4, v41 = MODELS["v2"], MODELS["v4-flash"], MODELS["v4.1-flash"]
    hca = tuple(dataclasses.replace(ly, ratio=64) if ly.kind == "HCA" else ly for ly in v4.layers)
    changed = {
        "v2": dataclasses.replace(v2, dims=dataclasses.replace(v2.dims, kv_lora_rank=256)),
        "v4-flash": dataclasses.replace(v4, layers=hca, window=64),
        "v4.1-flash": dataclasses.replace(v41, pool_blocks=1024),
    }
    monkeypatch.setattr(core.models, "MODELS", {**MODELS, **changed})
    return changed


def labels(fid: str) -> str:
    """The text drawn on a figure: annotations and text traces."""
    fig = FIGURES[fid].build(dict(lang="en"), NATIVE).figure
    traces = [s for tr in fig.data if tr.type == "scatter" and tr.text is not None for s in tr.text]
    return " ".join([a.text for a in fig.layout.annotations] + traces)


def test_figure_labels_follow_a_changed_spec(changed_specs):
    assert "(256 dims)" in labels("A3")
    assert "r<sub>kv</sub> = 256" in labels("A5")
    assert "m′ = 64" in labels("A13")
    assert "1,024 blocks × 8 = 8,192 positions" in labels("A25")
    local = labels("A11")
    assert "recent 64 positions" in local
    assert f"{core.storage_per_token(changed_specs['v4-flash']).total:,.0f}" in local.replace("≈", "")


def test_control_help_follows_a_changed_spec(changed_specs):
    assert t("v4.ctl.m", "en", **help_fields()) == "compression ratio (for teaching; real HCA 64, CSA 4)"
    assert t("ctl.rkv", "en", **help_fields()).endswith("(V2: 256)")


def test_page_text_follows_a_changed_spec(changed_specs):
    at = AppTest.from_file(str(ROOT / "pages/v4-flash.py"), default_timeout=60)
    at.session_state["_view"] = __import__("ui").View(lang="en")
    at.run()
    assert not at.exception
    assert "HCA one per 64 tokens" in at.caption[0].value
    assert "HCA: one entry per segment of 64 tokens" in [h.value for h in at.header]
    prose = " ".join(m.value for m in at.markdown)
    assert "pools 64 tokens into one entry" in prose and "the recent 64 positions" in prose
