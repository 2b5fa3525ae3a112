"""The typed registry: every figure's knobs describe its builder, every value from outside is
read through them (parsed, clamped, or the default with a note, never an exception), and a
link written through them reproduces the figure."""

import random
import tracemalloc

import pytest

import core
from figures import EXTRAS, FIGURES, SPECS
from figures.canvas import NATIVE
from figures.knobs import CONTEXT, PRECISION, Knob, Note
from figures.made import Incompatible
from i18n import LANGS, TEXT

HOSTILE = ("-1", "0", "1e12", str(2**63), "inf", "-inf", "nan", "1e400", "text", "1.5", "", "ln", ",", "9" * 500,
           "none", "  7 ", "1K", "-0")
BUDGET_MB = 64  # what stops a giant array; time is measured in benchmarks/bench_links.py, not asserted here


def leaves(knob: Knob) -> tuple[Knob, ...]:
    return knob.parts or (knob,)


def ends(knob: Knob) -> list:
    """A knob's extreme values: range ends, first and last choice, each part's ends."""
    if knob.kind in ("int", "float"):
        return [knob.lo, knob.hi] + ([None] if knob.nullable else [])
    if knob.kind == "choice" and knob.multi:
        return [knob.choices[:1], knob.choices[-1:], knob.choices]
    if knob.kind == "choice":
        return [knob.choices[0], knob.choices[-1]] + ([None] if knob.nullable else [])
    if knob.kind == "tuple":
        return [tuple(p.lo for p in knob.parts), tuple(p.hi for p in knob.parts)]
    if knob.kind == "precision":
        return [core.Precision(p, *[o] * 3) for p in core.PRESETS for o in ("bf16", "fp4")]
    return [tuple(tuple(-x for x in row) for row in knob.default),
            tuple(tuple(x * 1000 for x in row) for row in knob.default)]


def assert_builds_within_memory(spec, values: dict):
    tracemalloc.start()
    try:
        fig = spec.build(values, NATIVE).figure
    finally:
        peak = tracemalloc.get_traced_memory()[1] / 1e6
        tracemalloc.stop()
    assert peak < BUDGET_MB, f"{spec.id} {values}: {peak:.0f} MB"
    return fig


def test_every_figure_of_the_catalogue_is_registered_with_a_title_in_both_languages():
    assert list(FIGURES) == [f"A{i}" for i in range(1, 28)] + [f"B{i}" for i in range(1, 5)]
    for spec in SPECS.values():
        assert all(spec.title(lang) for lang in LANGS)


def test_knobs_are_the_builders_keywords_with_the_builders_defaults():
    """Every keyword is a knob; none is the canvas, which only the layout pass sees."""
    import inspect

    for spec in SPECS.values():
        params = dict(inspect.signature(spec.builder).parameters)
        assert "canvas" not in params, spec.id
        assert {k.name: k.default for k in spec.knobs} == {n: p.default for n, p in params.items()}


def test_a_builder_that_asks_for_the_canvas_is_refused():
    from figures.canvas import NATIVE
    from figures.registry import FigureSpec

    def build_laid_out(*, lang: str = "ko", canvas=NATIVE):
        raise AssertionError("never called")

    with pytest.raises(ValueError, match="only the layout pass"):
        FigureSpec("X1", build_laid_out, "a1.title", knobs=())


@pytest.mark.parametrize("fid", list(SPECS))
def test_a_figure_depends_on_its_arguments_alone(fid):
    """Built for a phone's column, then for a slide on another thread at the same time, then for the
    column again: the same JSON. Nothing a build leaves behind, or builds beside it, steers another."""
    from concurrent.futures import ThreadPoolExecutor

    import plotly.io as pio

    from figures.canvas import SLIDE_SIZES, Canvas
    spec, phone, slide = SPECS[fid], Canvas(column=360), Canvas(slide=SLIDE_SIZES["720p"], font_scale=1.5)
    values = {**spec.defaults, "lang": "en"} if "lang" in spec.defaults else spec.defaults
    first = pio.to_json(spec.build(values, phone).figure, validate=False)
    with ThreadPoolExecutor(2) as pool:
        beside = pool.submit(spec.build, values, slide)
        again = pio.to_json(spec.build(values, phone).figure, validate=False)
        beside.result()
    assert again == first
    assert pio.to_json(spec.build(values, phone).figure, validate=False) == first


def test_no_figure_module_keeps_state_that_steers_a_figure():
    """No context variable, thread-local or `global` rebinding in the figures, the publishing or the UI
    code that builds them (the kaleido server's flag in publish/export.py is not a figure's)."""
    import ast
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    for path in [p for room in ("figures", "publish", "ui") for p in (root / room).rglob("*.py")]:
        tree = ast.parse(path.read_text(encoding="utf-8"))
        names = {n.id if isinstance(n, ast.Name) else n.attr for n in ast.walk(tree)
                 if isinstance(n, (ast.Name, ast.Attribute))}
        assert not names & {"ContextVar", "local"}, path
        rebinds = [g.names for g in ast.walk(tree) if isinstance(g, ast.Global)]
        assert all(n == ["_server"] for n in rebinds) and (not rebinds or path.name == "export.py"), path


def test_a_registry_entry_that_misses_a_keyword_is_refused():
    from figures.registry import FigureSpec
    with pytest.raises(ValueError, match="do not match"):
        FigureSpec("Z1", FIGURES["A14"].builder, "a14.title", FIGURES["A14"].knobs[:1])


@pytest.mark.parametrize("spec", SPECS.values(), ids=SPECS.keys())
def test_every_knob_has_a_label_in_both_languages_and_a_bounded_range(spec):
    for knob in spec.knobs:
        for leaf in leaves(knob):
            assert leaf.label in TEXT and (not leaf.help or leaf.help in TEXT), (spec.id, leaf.name)
            if leaf.kind in ("int", "float"):
                assert leaf.lo is not None and leaf.hi is not None


@pytest.mark.parametrize("spec", SPECS.values(), ids=SPECS.keys())
def test_each_knob_at_its_ends_survives_its_own_link(spec):
    for knob in spec.knobs:
        for end in ends(knob):
            values = {**spec.defaults, knob.name: end}
            params = {k: v for k, v in spec.dump(values, "en").items()}
            read, notes = spec.read(params, "en")
            assert notes == [] and read == values, (knob.name, end, params)
            if (spec.id, knob.name) == ("A1", "highlight") and end not in (None, *values["models"]):
                # the one end that does not combine with the other defaults: a highlight not shown
                with pytest.raises(Incompatible, match="is not among"):
                    spec.build(values, NATIVE)
                assert spec.from_link(params, "en")[2][-1].code == "build"
                continue
            expected = spec.build(values, NATIVE).figure.to_json()
            assert assert_builds_within_memory(spec, read).to_json() == expected


@pytest.mark.parametrize("spec", SPECS.values(), ids=SPECS.keys())
def test_hostile_values_give_a_figure_or_a_note(spec):
    built = {}
    for knob in spec.knobs:
        for leaf in leaves(knob):
            for raw in HOSTILE:
                for key in leaf.keys:
                    values, notes = spec.read({key: raw}, "en")
                    assert all(isinstance(n, Note) and n.text("en") and n.text("ko") for n in notes)
                    frozen = repr(sorted(values.items()))
                    if frozen not in built:
                        fig = spec.from_link({key: raw}, "en")[0].figure
                        built[frozen] = fig
                        assert fig.data or fig.layout.shapes or fig.layout.annotations


def test_the_largest_figure_a_link_can_ask_for_builds_within_memory():
    for spec in SPECS.values():
        top = {k.name: ends(k)[1] if k.kind not in ("choice",) or k.multi else k.default for k in spec.knobs}
        assert_builds_within_memory(spec, top)  # every figure builds at its largest values, none refuses


def test_a_thousand_generated_links_never_raise():
    rng = random.Random(20261130)
    keys = sorted({k for s in SPECS.values() for knob in s.knobs for leaf in leaves(knob) for k in leaf.keys})
    pool = [*HOSTILE, "2", "4", "8", "31", "fp8", "FP4", "bf16", "v3", "v2", "en", "ko", "2,4", "1,0;0,1", "dark"]
    seen = set()
    for _ in range(1000):
        spec = rng.choice(list(SPECS.values()))
        params = {rng.choice(keys): rng.choice(pool) for _ in range(rng.randint(1, 5))}
        values, _ = spec.read(params, "en")
        frozen = (spec.id, repr(sorted(values.items())))
        if frozen not in seen:
            seen.add(frozen)
            assert spec.from_link(params, "en")[0].figure is not None


@pytest.mark.parametrize("params, value, code", [
    ({"t_": "99999"}, 30, "clamped"), ({"t": "-5"}, 0, "clamped"), ({"t": "inf"}, 30, "clamped"),
    ({"t": "nan"}, 6, "invalid"), ({"t": "x"}, 6, "invalid"), ({"t": "2.5"}, 6, "invalid"), ({"t": "9"}, 9, None),
])
def test_a14_step_from_a_link(params, value, code):
    values, notes = FIGURES["A14"].read(params)
    assert values["t_"] == value
    assert [n.code for n in notes] == ([code] if code else [])


def test_a_tuple_knob_reads_its_list_or_its_parts():
    b4 = FIGURES["B4"]
    assert b4.read({"groups": "3,5"})[0]["groups"] == (3, 5)
    assert b4.read({"g2": "6"})[0]["groups"] == (2, 6)
    values, notes = b4.read({"groups": "2"})  # one number for two groups: the default, said so
    assert values["groups"] == (2, 4) and notes[0].code == "invalid"
    assert b4.read({"groups": "99,0"})[0]["groups"] == (8, 1)


def test_context_reads_what_the_sidebar_writes_and_clamps_the_rest():
    assert CONTEXT.read({"ctx": "1.5K"})[0] == 1536
    assert CONTEXT.read({"ctx": "128K"})[0] == 131072
    assert CONTEXT.read({"ctx": "131,072"})[0] == 131072
    assert CONTEXT.read({"ctx": "-1"})[0] == 1
    assert CONTEXT.read({"ctx": str(2**63)})[0] == CONTEXT.hi


def test_per_component_precision_survives_its_link():
    p = core.Precision("deployed", main_kv="fp8", index_key="fp4", local_kv="bf16")
    a1 = FIGURES["A1"]
    params = a1.dump({"precision": p})
    assert params == {"main": "FP8", "ikey": "FP4", "local": "BF16"}
    assert a1.read(params)[0]["precision"] == p
    assert PRECISION.read({"precision": "none"})[1][0].code == "invalid"


def test_model_picks_read_ids_or_names_in_either_language_in_article_order():
    knob = FIGURES["A1"].knob("models")
    assert knob.read({"models": ["V4.1-Flash", "가상 MHA", "v2"]})[0] == ("mha", "v2", "v4.1-flash")
    values, notes = knob.read({"models": "v2,gpt5"})
    assert values == ("v2",) and notes[0].code == "clamped"


def test_a_model_pick_takes_an_imported_model_as_its_model_and_writes_it_as_its_id():
    """ui puts a session's imported model in place of its id before a build: a knob that takes imports holds the
    Model (after the choices), one that does not takes a Model only by an id among its choices; a link says the id."""
    from dataclasses import replace

    llama = core.get("llama-3.1-8b")
    mine = replace(llama, name="mine")
    mine = replace(mine, id=core.imported_id(mine))
    picks, highlight = FIGURES["A1"].knob("models"), FIGURES["A1"].knob("highlight")
    assert picks.clamp((mine, llama, "v2")) == ("v2", llama, mine)
    assert picks.dump(("v2", mine)) == {"models": ["V2", mine.id]}
    assert highlight.clamp(llama) is llama and highlight.dump(llama) == {"hl": "llama-3.1-8b"}
    with pytest.raises(ValueError):
        highlight.clamp(mine)
    built = FIGURES["A1"].build({"models": ("v2", mine)}, NATIVE)
    assert [r["model"] for r in built.numbers] == ["v2", mine.id]


def test_values_that_do_not_combine_fall_back_to_the_defaults_with_a_note():
    _, values, notes = FIGURES["A1"].from_link({"models": "v2", "hl": "v3.2"}, "ko")
    assert values == {**FIGURES["A1"].defaults, "lang": "ko"} and notes[-1].code == "build"


def test_extras_are_registered_too():
    assert set(EXTRAS) == {"crossover", "mla-cost", "rope", "ced-ratio", "factors", "capacity", "read-floor",
                           "budget", "reconciliation"}
    assert EXTRAS["crossover"].read({"ctx": "none"})[0]["context"] is None


def test_the_catalogue_in_docs_is_the_registry_s():
    from pathlib import Path

    from publish.catalogue import markdown
    committed = (Path(__file__).resolve().parent.parent / "docs" / "catalogue.md").read_text(encoding="utf-8")
    assert committed == markdown(), "stale: run python -m publish catalogue --out docs/catalogue.md"
