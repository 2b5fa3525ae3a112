"""Any URL anyone types: generated query strings against every page and the figure-only view.

Keys the app knows, unknown ones and repeated ones; values huge, negative, NaN or infinite,
empty, Korean, emoji, right-to-left, 10,000 characters long, HTML and script, path-like. No
page ever raises, and nothing from the URL is rendered as HTML.
"""

import pathlib

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from streamlit.testing.v1 import AppTest

import ui
from figures import SPECS
from ui.plot import COMPONENT

ROOT = pathlib.Path(__file__).resolve().parent.parent
PAGES = sorted(p.relative_to(ROOT).as_posix() for p in (ROOT / "pages").glob("*.py"))
KNOWN_KEYS = sorted({key for spec in SPECS.values() for knob in spec.knobs for leaf in (knob.parts or (knob,))
                     for key in (*leaf.keys, leaf.key)} | {"lang", "ctx", "prec", "main", "ikey", "local", "units",
                                                          "theme", "fs", "models", "hl", "embed", "var-mtp-layer"})
HOSTILE = ["", "-1", "0", "1e12", str(2**63), str(-2**63), "inf", "-inf", "nan", "NaN", "1e400", "1.5K", "128K",
           "한국어", "🙂🚀", "\u202eevil\u202c", "x" * 10_000, "<script>alert(1)</script>",
           "<img src=x onerror=alert(1)>",
           "../../etc/passwd", "/dev/null", "C:\\windows", "%00", "\x00", "ko", "en", "bf16", "FP8", "v3.2", "A14",
           "none", "true", "1,2", "1, 0; 0, 1"]
MARK = "kvatlas-probe"  # a value that would show if the URL reached an HTML sink

values = st.one_of(st.sampled_from(HOSTILE), st.text(max_size=40), st.integers(-2**70, 2**70).map(str),
                   st.floats(allow_nan=True, allow_infinity=True).map(repr), st.just(f"<b>{MARK}</b>"))
keys = st.one_of(st.sampled_from(KNOWN_KEYS), st.text(min_size=1, max_size=12))
query = st.dictionaries(keys, st.one_of(values, st.lists(values, min_size=2, max_size=3)), max_size=6)
FUZZ = settings(max_examples=60, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])


def assert_no_exception_and_no_html_from_the_url(at: AppTest) -> None:
    assert not at.exception, [e.value[:300] for e in at.exception]
    for md in at.markdown:
        if md.proto.allow_html:
            assert MARK not in md.value and "<script" not in md.value.lower(), md.value[:200]


def run(script: str, params: dict, view=None) -> AppTest:
    at = AppTest.from_file(str(ROOT / script), default_timeout=120)
    if view is not None:
        at.session_state["_view"] = view
    for k, v in params.items():
        at.query_params[k] = v
    return at.run()


@pytest.mark.parametrize("page", PAGES)
@FUZZ
@given(params=query)
def test_a_page_survives_any_query_string(page, params):
    assert_no_exception_and_no_html_from_the_url(run(page, params, ui.View()))


@FUZZ
@given(params=query)
def test_the_router_survives_any_query_string(params):
    params.pop("figure", None)
    assert_no_exception_and_no_html_from_the_url(run("app.py", params))


@settings(max_examples=120, deadline=None, derandomize=True, suppress_health_check=[HealthCheck.too_slow])
@given(figure=st.one_of(st.sampled_from(sorted(SPECS)), values), params=query)
def test_a_figure_link_survives_any_query_string(figure, params):
    at = run("app.py", {**params, "figure": figure})
    assert_no_exception_and_no_html_from_the_url(at)
    charts = [e for e in at.get("bidi_component") if e.proto.component_name == COMPONENT]  # ui/plot.py's
    assert charts or at.error  # the figure, or one line saying which figure is unknown
