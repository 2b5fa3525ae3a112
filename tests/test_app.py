"""Every page through AppTest: no exception at the ends of every control, both languages,
both presets; the shown numbers are core's. Controls are driven through the URL (the
widgets are bound to query params), which also checks that a link reproduces a view."""

import json
import pathlib
import re

import pytest
from google.protobuf.message import Message
from streamlit.testing.v1 import AppTest

import core
import ui
from article import SECTIONS
from core.units import fmt_bytes, fmt_exact, fmt_tokens
from figures import SPECS
from figures.canvas import width_class
from figures.knobs import CONTEXT_STOPS, LANG, PRECISION
from figures.registry import ALL_MODELS
from i18n import t
from ui.plot import COMPONENT

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py"))
OVERRIDES = PRECISION.parts[1].choices  # auto, bf16, fp8, fp4


def assert_runs(**params) -> AppTest:
    """The app opened with these URL params, run without an exception."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


def chart_specs(at: AppTest) -> list[str]:
    """The figures a page shows (ui/plot.py's component), as the JSON it sends."""
    return [json.loads(e.proto.json)["spec"] for e in at.get("bidi_component") if e.proto.component_name == COMPONENT]


def page_charts(at: AppTest) -> list[dict]:
    """The figures a page shows (ui/plot.py's component), parsed."""
    return [json.loads(spec) for spec in chart_specs(at)]


def chart_descriptions(at: AppTest) -> list[str]:
    """The text alternative of each figure a page shows (figures/describe.py: its numbers in words)."""
    return [json.loads(e.proto.json)["description"] for e in at.get("bidi_component")
            if e.proto.component_name == COMPONENT]


def metric(at: AppTest, word: str) -> str:
    return next(m.value for m in at.metric if word in m.label)


def test_overview_opens_by_default_in_korean_with_the_article_numbers():
    at = assert_runs()
    assert "890 B" in at.title[0].value
    assert metric(at, "토큰당 저장") == "890 B"
    assert metric(at, "읽는 양") == "35.0 MB"
    assert len(page_charts(at)) == 2
    assert at.table[0].value.shape == (5, 9)


@pytest.mark.parametrize("lang", ["ko", "en"])
@pytest.mark.parametrize("prec", ["deployed", "bf16"])
@pytest.mark.parametrize("ctx", [CONTEXT_STOPS[0], 131072, CONTEXT_STOPS[-1]])
def test_overview_runs_at_the_ends_of_every_slider(lang, prec, ctx):
    at = assert_runs(lang=lang, prec=prec, ctx=fmt_tokens(ctx))
    word = "read" if lang == "en" else "읽는"
    expected = core.reads("v4.1-flash", ctx, core.Precision(prec)).total
    assert metric(at, word) == fmt_bytes(expected)
    assert at.sidebar.select_slider(key="ctx").value == ctx


@pytest.mark.parametrize("ctx", [CONTEXT_STOPS[0], 1 << 20, CONTEXT_STOPS[-1]])
def test_a_context_step_moves_the_overview_numbers_without_rerunning_the_page(ctx):
    at = assert_runs(lang="en")
    at.sidebar.select_slider(key="ctx").set_value(ctx).run()
    assert not at.exception, [e.value for e in at.exception]
    # a fragment run: only what the context moves is drawn again (AppTest's tree holds just that)
    assert not at.title and not at.sidebar.select_slider
    assert f"N = {ctx:,}" in [c.value for c in at.sidebar.caption]
    assert metric(at, "read") == fmt_bytes(core.reads("v4.1-flash", ctx).total)
    models = SPECS["A1"].defaults["models"]
    assert list(at.table[0].value.iloc[:, 3]) == [core.cache_at(m, ctx).total for m in models]
    (a1,) = chart_descriptions(at)
    assert f"{ctx:,}" in a1.splitlines()[-1]  # the read line names the context


@pytest.mark.parametrize("page, model", [("pages/v2-mla.py", "v2"), ("pages/v3-2-dsa.py", "v3.2"),
                                         ("pages/v4-flash.py", "v4-flash"), ("pages/v4-1-flash.py", "v4.1-flash")])
def test_a_context_step_on_a_generation_page_reruns_its_top_only(page, model):
    at = assert_runs(lang="en")
    at.switch_page(page).run()
    charts = len(page_charts(at))
    at.sidebar.select_slider(key="ctx").set_value(1 << 20).run()
    assert not at.exception, [e.value for e in at.exception]
    assert not at.sidebar.select_slider and len(page_charts(at)) == 1 < charts  # its top: the numbers, one chart
    assert metric(at, "read") == fmt_bytes(core.reads(model, 1 << 20).total)
    (described,) = chart_descriptions(at)
    assert f"{1 << 20:,}" in described.splitlines()[-1]  # the read line, at the context set


def test_a_context_step_with_another_change_in_the_same_request_reruns_the_page():
    at = assert_runs(lang="en")
    at.sidebar.radio(key="prec").set_value("bf16")
    at.sidebar.select_slider(key="ctx").set_value(1 << 20).run()
    assert at.title and metric(at, "read") == fmt_bytes(core.reads("v4.1-flash", 1 << 20, core.ALL_BF16).total)

    at = assert_runs(lang="en")
    at.switch_page("pages/v4-flash.py")
    at.sidebar.select_slider(key="ctx").set_value(1 << 20).run()
    assert at.title[0].value.startswith("DeepSeek-V4-Flash")
    assert metric(at, "read") == fmt_bytes(core.reads("v4-flash", 1 << 20).total)


@pytest.mark.parametrize("page, params", [("pages/any-model.py", {}), ("pages/overview.py", {"models": []})])
def test_a_context_step_on_a_page_without_a_part_drawn_reruns_the_page(page, params):
    at = assert_runs(lang="en", **params)
    at.switch_page(page).run()
    if params:
        at.multiselect(key="models").set_value([]).run()
    at.sidebar.select_slider(key="ctx").set_value(1 << 20).run()
    assert not at.exception and at.title and at.sidebar.select_slider(key="ctx").value == 1 << 20


@pytest.mark.parametrize("role, key", [("main_kv", "main"), ("index_key", "ikey"), ("local_kv", "local")])
@pytest.mark.parametrize("choice", OVERRIDES[1:])
def test_each_component_override_reaches_the_numbers(role, key, choice):
    at = assert_runs(**{key: choice.upper()})
    p = core.cost.fitted("v4.1-flash", core.Precision(**{role: choice}))  # V4.1 has no FP8_BLOCK: deployed
    assert metric(at, "토큰당 저장") == fmt_exact(core.storage_per_token("v4.1-flash", p).total)
    assert metric(at, "읽는 양") == fmt_bytes(core.reads("v4.1-flash", 131072, p).total)


def test_binary_units_show_binary_prefixes():
    assert metric(assert_runs(units="binary"), "읽는 양").endswith("MiB")


@pytest.mark.parametrize("model", list(core.MODELS))
def test_highlighting_a_model_focuses_the_metrics_on_it(model):
    at = assert_runs(models=list(core.MODELS), hl=model)
    assert metric(at, "토큰당 저장") == fmt_exact(core.storage_per_token(model).total)


def test_a_reduced_model_set_narrows_the_table():
    at = assert_runs(models=["v2", "v3.2"], hl="v3.2")
    assert at.table[0].value.shape[0] == 2
    assert len(page_charts(at)) == 1  # no local KV among them: no crossover chart


def test_bad_query_values_fall_back_to_defaults_with_a_note():
    at = assert_runs(ctx="abc", prec="fp7", lang="xx", main="FP5")
    assert metric(at, "토큰당 저장") == "890 B"
    notes = " ".join(w.value for w in at.warning)
    assert all(f"{k}={v}" in notes for k, v in (("ctx", "abc"), ("prec", "fp7"), ("lang", "xx"), ("main", "FP5")))


@pytest.mark.parametrize("ctx, shown", [("-1", 1), ("1.5K", 1536), ("100000", 100000), (str(2**63), 1 << 30)])
def test_a_linked_context_is_read_clamped_and_shown_exactly(ctx, shown):
    at = assert_runs(ctx=ctx)
    assert at.sidebar.select_slider(key="ctx").value == shown
    assert metric(at, "읽는 양") == fmt_bytes(core.reads("v4.1-flash", shown).total)


def test_the_model_picker_shows_names_and_the_table_a_dash_for_no_crossover():
    at = assert_runs(models=["mha", "v2", "v4.1-flash"])
    assert {"가상 MHA", "V2", "V4.1-Flash"} <= set(at.multiselect(key="models").options)
    crossover = at.table[0].value.iloc[:, -1].tolist()
    assert crossover == ["—", "—", f"{core.crossover_tokens('v4.1-flash'):,}"]


def test_english_link_reproduces_the_view():
    at = assert_runs(lang="en", ctx="1M", prec="bf16")
    assert at.title[0].value.startswith("DeepSeek's KV cache")
    assert metric(at, "read") == fmt_bytes(core.reads("v4.1-flash", 1 << 20, core.ALL_BF16).total)


def test_there_are_pages_to_route():
    assert len(PAGES) >= 7


@pytest.mark.parametrize("page", PAGES)
def test_every_page_file_is_routed_by_the_app(page):
    """Each file under pages/ is an article section's (article.SECTIONS) or the Export page, and the
    app opens it."""
    assert pathlib.Path(page).stem in {*SECTIONS, "export"}
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.switch_page(page)
    at.run()
    assert not at.exception and at.title, page


# --- mechanism pages, run on their own (AppTest renders one page; the view comes from
# session state, the page's own knobs from the URL) ---------------------------------------

MECHANISM_PAGES = {
    "pages/v2-mla.py": [{}, dict(seed="0", T="2", rkv="2", dk="1", calc="FP8"),
                        dict(seed="9999", T="10", rkv="12", dk="8", calc="BF16")],
    "pages/v3-2-dsa.py": [{}, dict(T="2", k="1", seed="0"), dict(T="10", k="12", seed="9999")],
    "pages/v4-flash.py": [{}, dict(m="1", seed="0", t="0", win="1", sink="-4.0", tq="0", k="1"),
                          dict(m="8", seed="9999", t="30", win="8", sink="4.0", tq="30", k="8")],
    "pages/v4-1-flash.py": [{}, dict(m="1", seed="0", T="8", pool="1", k="1", hseed="0", prompt="1", win="1"),
                           dict(m="8", seed="9999", T="40", pool="5", k="12", hseed="9999", prompt="16", win="8")],
}


def assert_page_runs(page: str, view=None, *, timeout: float = 60, **params) -> AppTest:
    """One page run on its own (view in session state, knobs in the URL), without an exception."""
    at = AppTest.from_file(str(ROOT / page), default_timeout=timeout)
    if view is not None:
        at.session_state["_view"] = view
    for k, v in params.items():
        at.query_params[k] = v
    at.run()
    assert not at.exception, [e.value for e in at.exception]
    return at


@pytest.mark.parametrize("page, params", [(p, q) for p, qs in MECHANISM_PAGES.items() for q in qs])
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_mechanism_pages_run_at_the_ends_of_every_control(page, params, lang):
    at = assert_page_runs(page, ui.View(lang=lang, context=CONTEXT_STOPS[-1], precision=core.ALL_BF16), **params)
    assert len(page_charts(at)) >= 4
    assert at.title[0].value.startswith("DeepSeek-V")


def test_v2_page_states_the_article_numbers():
    at = assert_page_runs("pages/v2-mla.py")
    values = [m.value for m in at.metric]
    assert values[:3] == ["69,120 B", "1/57", "9.06 GB"]
    assert float(values[3]) < 1e-12 and float(values[4]) < 1e-12  # absorbed == expanded at fp64


def test_v2_page_shows_rounding_differences_in_low_precision():
    at = assert_page_runs("pages/v2-mla.py", calc="FP8")
    assert float(at.metric[3].value) > 0


def test_v32_page_states_storage_read_and_the_key_share():
    at = assert_page_runs("pages/v3-2-dsa.py")
    assert [m.value for m in at.metric] == ["48,068 B", "1.14 GB", "93%"]
    assert any("22%" in m.value for m in at.markdown)  # same-precision storage grows vs V3


def test_v4_page_states_the_article_numbers_and_the_layer_mix():
    at = assert_page_runs("pages/v4-flash.py")
    assert [m.value for m in at.metric] == ["≈3,514 B", "1/1,119", "3.21 MB", "68.2 MB"]
    text = " ".join(m.value for m in at.markdown)
    assert "43층 가운데 2층이" in text and "21층이 CSA, 20층이 HCA" in text
    assert "21.5 MB" in text and "46.8 MB" in text
    assert "915" in at.info[0].value


def test_v41_page_states_the_article_numbers():
    at = assert_page_runs("pages/v4-1-flash.py")
    assert [m.value for m in at.metric] == ["890 B", "1/4,418", "2.70 MB", "35.0 MB"]
    text = at.markdown[0].value  # the top: the result in one line, counted at the page's end
    assert "저장하는 층은 4개" in text and "35.0 MB" in text and "76%" in text
    prose = " ".join(m.value for m in at.markdown)
    assert "8.31 MB" in prose and "5.60 MB" in prose and "26.7 MB" in prose and "22.3 MB" in prose
    assert "3,038" in at.info[0].value


def test_token_axis_page_states_stored_and_read_counts():
    at = assert_page_runs("pages/token-axis.py")
    assert [m.value for m in at.metric] == ["8 / 5", "4 / 7"]
    assert len(page_charts(at)) == 4


@pytest.mark.parametrize("text, message", [
    ("1, x; 0, 1", "'x' is not a number"), ("1, 0; 0", "same number of values"), ("", "is empty"),
    ("1, 0, 0; 0, 1, 0", "W_u and W_s"),
])
def test_token_axis_page_explains_bad_matrices_without_a_traceback(text, message):
    at = AppTest.from_file(str(ROOT / "pages/token-axis.py"), default_timeout=60).run()
    at.text_input(key="Ws").set_value(text).run()
    assert not at.exception
    assert message in at.error[0].value


@pytest.mark.parametrize("params", [
    dict(rows="2", comp="2", g="1", p="0", g3="1", w="1", p4="1", g1="1", g2="1", k="1"),
    dict(rows="16", comp="8", g="4", p="24", g3="4", w="6", p4="32", g1="8", g2="8", k="8"),
])
@pytest.mark.parametrize("lang", ["ko", "en"])
def test_token_axis_page_runs_at_the_ends_of_every_control(params, lang):
    at = assert_page_runs("pages/token-axis.py", ui.View(lang=lang), **params)
    assert len(page_charts(at)) == 4


def test_a_figure_link_shows_that_figure_alone_with_its_knobs():
    at = assert_runs(figure="A14", t_="9", lang="en")
    (spec,) = chart_specs(at)
    assert not at.title and not at.toggle and not at.get("popover")  # the figure alone: no ▶ Play, no downloads
    assert "t = 9: " in spec and "t = 10: " in spec


def test_a_figure_link_is_laid_out_for_the_column_as_a_page_lays_it_out():
    """The same build as a page's chart for that column (ui/charts.py), not the builder's own layout: a
    first run draws for the column its User-Agent suggests (AppTest sends none: a desktop's)."""
    from ui.charts import figure
    from ui.column import GUESS

    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=60)
    at.query_params["figure"] = "A1"
    at.run()
    (a1,) = page_charts(at)
    assert a1 == json.loads(figure("A1", column=width_class(GUESS["desktop"]), **SPECS["A1"].defaults).figure.to_json())


def test_an_unknown_figure_link_explains_itself():
    at = assert_runs(figure="Z9")
    assert "Z9" in at.error[0].value and not chart_specs(at)


# Links a hosted app meets: mangled, hostile or old. Each shows its figure at a clamped value
# or the default, with a note naming the value, and never raises or allocates a giant array.
HOSTILE_LINKS = [
    (dict(figure="A14", t_="99999"), "t_=99999"), (dict(figure="A27", decoder_layers="2147483648"), "2147483648"),
    (dict(figure="B3", position="8000"), "position=8000"), (dict(figure="B1", rows="100000"), "rows=100000"),
    (dict(figure="A1", ctx="-1"), "ctx=-1"), (dict(figure="crossover", precision="none"), "precision=none"),
    (dict(figure="A24", model="v3"), "model=v3"), (dict(figure="B4", groups="2"), "groups=2"),
    (dict(figure="A14", t_="x"), "t_=x"), (dict(figure="A1", prec="fp7"), "prec=fp7"),
    (dict(figure="A5", seed="-inf"), "seed=-inf"), (dict(figure="A13", seed="1e400"), "seed=1e400"),
    (dict(figure="A1", models="v2", hl="v3.2"), "A1"), (dict(figure="B2", Ws="1, x; 0, 1"), "Ws="),
    (dict(figure="A15", sink="nan"), "sink=nan"), (dict(figure="A19", t_=str(2**63)), "t_="),
]


@pytest.mark.parametrize("params, shown", HOSTILE_LINKS)
def test_a_hostile_figure_link_shows_the_figure_with_a_note(params, shown):
    at = assert_runs(**params)
    assert len(chart_specs(at)) == 1
    assert shown in " ".join(c.value for c in at.caption)


def test_a_figure_link_reads_valid_values_silently():
    at = assert_runs(figure="A1", ctx="1.5K", lang="en")
    assert not at.caption  # no note
    assert "(1,536 context)" in chart_specs(at)[0]


def test_a_link_with_per_component_precision_reproduces_the_figure():
    from figures import FIGURES
    p = core.Precision("deployed", main_kv="fp8", index_key="bf16")
    at = assert_runs(figure="A1", lang="en", **FIGURES["A1"].dump({"precision": p}))
    spec = chart_specs(at)[0]
    assert "custom formats" in spec and fmt_exact(core.storage_per_token("v4.1-flash", p).total) in spec


@pytest.mark.parametrize("page, params, key, value", [
    ("pages/v2-mla.py", dict(seed="-inf"), "seed", 0), ("pages/v4-flash.py", dict(seed="1e400"), "seed", 9999),
    ("pages/v4-flash.py", dict(t="99"), "t", 30), ("pages/v4-1-flash.py", dict(T="3"), "T", 8),
    ("pages/token-axis.py", dict(g1="0"), "g1", 1),
])
def test_a_page_reads_its_linked_controls_through_their_knobs(page, params, key, value):
    at = assert_page_runs(page, **params)
    widget = next(w for w in [*at.number_input, *at.slider] if w.key == key)
    assert widget.value == value


def test_the_export_page_builds_one_zip_with_a_file_per_figure_and_format():
    at = AppTest.from_file(str(ROOT / "pages/export.py"), default_timeout=120).run()
    at.multiselect(key="ex_ids").set_value(["A1", "B2"])
    at.multiselect(key="ex_fmt").set_value(["svg", "csv"])
    at.run()
    at.button[0].click().run(timeout=120)
    assert not at.exception and not at.warning
    assert "파일 4개" in at.get("download_button")[0].proto.label


def test_the_export_page_lists_figures_with_their_titles():
    at = AppTest.from_file(str(ROOT / "pages/export.py"), default_timeout=60).run()
    assert "A1 · KV 캐시: 저장하는 양과 읽는 양" in at.multiselect(key="ex_ids").options


@pytest.mark.parametrize("page", [p for p in PAGES if not p.endswith("export.py")])
def test_every_page_prices_a_format_its_models_lack_in_their_deployed_one(page):
    every = core.Precision.every("fp8_block")  # open models' format: the article's models fall back
    at = assert_page_runs(page, ui.View(lang="en", precision=every))
    assert not at.error


# --- the interface speaks the page's language ---------------------------------------------

# English words of an interface, as Streamlit's defaults and our own choices once showed them.
# Not the technical terms the articles and figures keep in English (KV, key, Query, Value, window,
# top-k, prompt, pool, seed…).
INTERFACE_WORDS = frozenset("""deployed decimal binary auto light dark transparent none choose option options select
    download play pause custom reserved weights batch size field source variants upload paste browse drag
    drop import export build link model models highlight tokens step ratio precision context units background
    font help show hide yes no true false all figure figures format formats width height memory bandwidth
    previous next back more less reset default per and or of the with to for""".split())
TEXT_FIELDS = {"label", "help", "placeholder", "options"}


def control_texts(at: AppTest) -> list[str]:
    """Every text of a page's controls, in the main column and the sidebar: labels (of widgets,
    expanders, popovers, links), options, placeholders and help texts, as the page sends them."""
    found: list[str] = []

    def read(msg: Message) -> None:
        for field, value in msg.ListFields():
            values = value if field.is_repeated else [value]
            if field.message_type is not None:
                for m in values:
                    read(m)
            elif field.name in TEXT_FIELDS:
                found.extend(values)

    def walk(node) -> None:
        if isinstance(getattr(node, "proto", None), Message):
            read(node.proto)
        for child in getattr(node, "children", {}).values():
            walk(child)

    walk(at._tree)
    return found


def test_the_control_texts_are_read_from_the_page():
    texts = control_texts(assert_runs(lang="en"))
    assert {"Precision", "deployed", "bf16", "decimal", "auto", "Choose"} <= set(texts)


@pytest.mark.parametrize("page", PAGES)
def test_a_korean_page_shows_no_english_interface_word(page):
    """Labels, options, placeholders and help texts of every control on a Korean page: none is an
    English interface word (the language switch names both languages on purpose), and no choice
    list is left to Streamlit's English placeholder."""
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    at.switch_page(page).run()
    assert not at.exception, [e.value for e in at.exception]
    switch = {t(LANG.label, "ko"), *LANG.choices}
    names = {m.name for m in map(core.get, ALL_MODELS)}  # a model's name is its own ("Qwen3-Next")
    english = {(text, word) for text in control_texts(at) if text not in switch | names
               for word in re.findall(r"[A-Za-z]+", text) if word.lower() in INTERFACE_WORDS}
    assert not english, sorted(english)
    lists = [*at.multiselect, *at.selectbox, *at.sidebar.selectbox]
    assert lists and all(w.proto.placeholder == t("app.choose", "ko") for w in lists), page



def test_a_prose_link_to_another_section_keeps_the_readers_view():
    """A link opens its page afresh: the language, context and precision go along with it."""
    at = assert_runs(lang="en", ctx="1M", prec="bf16")
    at.switch_page("pages/v3-2-dsa.py").run()
    assert not at.exception
    prose = " ".join(m.value for m in at.markdown)
    assert "](v2-mla?lang=en&ctx=1M&prec=bf16)" in prose
    assert "](v2-mla)" not in prose
