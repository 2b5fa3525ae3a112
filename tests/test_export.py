"""Exports: the batch CLI on every figure, numbers equal to core, one kaleido server shared
safely by threads, and clear errors for bad arguments."""

import re
import struct
import subprocess
import sys
import xml.etree.ElementTree as ET
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import pytest

import core
from figures import FIGURES, ordered_ids
from figures.canvas import NATIVE, SLIDE_SIZES, SLIDE_TEXT, SLIDE_TITLE, Canvas
from figures.made import Built
from publish import export
from publish.export import image, slug

ROOT = Path(__file__).resolve().parent.parent


def run_cli(*args) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "publish", *args], cwd=ROOT, capture_output=True, text=True,
                          timeout=600)


@pytest.fixture(scope="module")
def exported(tmp_path_factory) -> Path:
    out = tmp_path_factory.mktemp("export")
    done = run_cli("export", "--out", str(out), "--format", "svg,png,html,csv", "--lang", "en",
                   "--width", "1280", "--height", "720")
    assert done.returncode == 0, done.stdout[-500:] + done.stderr
    assert re.search(r"124 files in [\d.]+ s", done.stdout)
    return out


def plain_title(fid: str) -> str:
    return FIGURES[fid].build({"lang": "en"}, NATIVE).title


@pytest.mark.parametrize("fid", ordered_ids())
def test_every_svg_parses_and_carries_its_title(exported, fid):
    svg = (exported / f"{slug(fid)}-en.svg").read_text(encoding="utf-8")
    ET.fromstring(svg)
    words = [w for w in re.split(r"\W+", plain_title(fid)) if len(w) > 3][:3]
    assert words and all(w in svg for w in words), words


@pytest.mark.parametrize("fid", ordered_ids())
def test_every_png_has_the_requested_slide_size(exported, fid):
    data = (exported / f"{slug(fid)}-en.png").read_bytes()
    assert data[:8] == b"\x89PNG\r\n\x1a\n"
    assert struct.unpack(">II", data[16:24]) == (1280, 720)


def test_every_html_is_standalone(exported):
    for fid in ordered_ids():
        page = (exported / f"{slug(fid)}-en.html").read_text(encoding="utf-8")
        assert not re.search(r'<script[^>]+src="https?:', page) and "Plotly.newPlot" in page


def test_a1_numbers_equal_core(exported):
    table = pd.read_csv(exported / "A01-en.csv").set_index("model")
    for model in core.A1_MODELS:
        assert table.loc[model, "storage_per_token"] == core.storage_per_token(model).total
        assert table.loc[model, "read_total"] == core.reads(model, 131072).total


def test_mechanism_numbers_are_the_drawn_cells(exported):
    table = pd.read_csv(exported / "B02-en.csv")
    c0 = table[table["box"] == "b_0"]["value"].tolist()  # the box's label as plain text
    assert c0 == pytest.approx([1.5, 3.0], abs=1e-12)


def test_eight_threads_each_get_their_own_figure_back():
    ids = ["A1", "A3", "A9", "A14", "A15", "A24", "B2", "B4"]
    with ThreadPoolExecutor(8) as pool:
        svgs = list(pool.map(lambda f: image(FIGURES[f].build(dict(lang="en"), NATIVE).figure, "svg").decode(), ids))
    for fid, svg in zip(ids, svgs):
        words = [w for w in re.split(r"\W+", plain_title(fid)) if len(w) > 3][:2]
        assert all(w in svg for w in words), (fid, words)


@pytest.mark.parametrize("args, message", [
    (["export", "--out", "/tmp/kv-atlas-x", "--ids", "A99"], "unknown figure id"),
    (["export", "--out", "/tmp/kv-atlas-x", "--format", "gif"], "unknown format"),
    (["export", "--out", "/proc/kv-atlas"], "cannot write"),
    (["export"], "required"),
])
def test_bad_arguments_give_one_clear_line_and_status_2(args, message):
    done = run_cli(*args)
    assert done.returncode == 2
    assert message in done.stderr and len(done.stderr.strip().splitlines()) == 1
    assert "Traceback" not in done.stderr


def font_sizes(fig) -> dict[str, float]:
    """Every font size a figure sets, resolved through its template: {where: size}."""
    tpl = fig.layout.template.layout
    body = fig.layout.font.size or tpl.font.size
    sizes = {"layout": body, "title": fig.layout.title.font.size or tpl.title.font.size or body,
             "legend": fig.layout.legend.font.size or body}
    sizes |= {f"annotation {i}": a.font.size or body for i, a in enumerate(fig.layout.annotations)}
    sizes |= {f"trace {i} text": tr.textfont.size or body for i, tr in enumerate(fig.data) if "textfont" in tr}
    return sizes


def svg_font_sizes(svg: str) -> list[float]:
    """Every font size an SVG draws with, in document order (style="font-size: 13px", inline spans too)."""
    return [float(px) for px in re.findall(r"font-size:\s*([\d.]+)px", svg)]


@pytest.mark.parametrize("fid", ["A1", "A14", "B2"])  # bars with a legend; matrix diagrams with cell text
def test_the_talk_look_changes_background_and_scales_every_font(fid):
    from figures.style import apply_look
    base = FIGURES[fid].build({}, NATIVE).figure
    dark = FIGURES[fid].build({}, Canvas(theme="dark", font_scale=1.5)).figure
    assert dark.layout.paper_bgcolor == "#0f172a"
    assert font_sizes(dark) == pytest.approx({where: 1.5 * size for where, size in font_sizes(base).items()})
    assert FIGURES[fid].build({}, Canvas(theme="transparent")).figure.layout.paper_bgcolor == "rgba(0,0,0,0)"
    assert base.layout.paper_bgcolor != "#0f172a"
    with pytest.raises(ValueError, match="theme"):
        apply_look(base, "neon")


@pytest.mark.parametrize("fid", ["A1", "A14"])  # a legend; cell text with inline-sized spans
def test_export_files_apply_the_look_to_images(exported, tmp_path, fid):
    done = run_cli("export", "--out", str(tmp_path), "--ids", fid, "--format", "svg", "--lang", "en",
                   "--width", "1280", "--height", "720", "--theme", "dark", "--font-scale", "1.25")
    assert done.returncode == 0, done.stderr
    looked = (tmp_path / f"{slug(fid)}-en.svg").read_text(encoding="utf-8")
    plain = svg_font_sizes((exported / f"{slug(fid)}-en.svg").read_text(encoding="utf-8"))
    assert "#0f172a" in looked or "rgb(15, 23, 42)" in looked
    sizes, u = svg_font_sizes(looked), 720 / 1080
    assert any(x == pytest.approx(1.25 * SLIDE_TITLE * u, rel=1e-5) for x in sizes)  # the title
    if fid == "A1":  # a chart's labels still fit 1.25 × as large: every text is
        assert plain and sizes == pytest.approx([1.25 * px for px in plain], rel=1e-3)
    else:  # a diagram is laid out again for the larger text, its smallest at 1.25 × the slide's floor
        assert min(sizes) >= 1.25 * SLIDE_TEXT * u - 0.01 and min(sizes) > min(plain)


@pytest.mark.parametrize("formats, builds", [(["png"], [True]), (["csv"], [False]), (["png", "csv"], [False, True]),
                                             (["svg", "json"], [False, True])])
def test_files_build_a_figure_once_per_layout_its_formats_need(monkeypatch, formats, builds):
    """At a slide size, images take the slide build and the other formats the screen build:
    each is made only when a format needs it."""
    made = []

    def figure(fid, values, *, theme="light", font_scale=1.0, size=None):
        made.append(bool(size))
        return Built(go.Figure(), diagram=False, title="")

    monkeypatch.setattr(export, "figure", figure)
    monkeypatch.setattr(export, "image", lambda fig, fmt, **size: b"x")
    monkeypatch.setattr(export, "to_bytes", lambda fig, fmt, **size: b"x")
    size = dict(zip(("width", "height"), SLIDE_SIZES["1080p"]))
    out = list(export.files(["A1"], formats, lang="en", size=size))
    assert [data for _, _, data in out] == [b"x"] * len(formats)
    assert made == builds


def test_an_image_kaleido_fails_to_render_once_is_rendered_again_in_a_fresh_server(monkeypatch):
    import kaleido

    calls, stops = [], []

    def flaky(fig, opts):
        calls.append(opts)
        if len(calls) == 1:  # what a page that had not loaded kaleido's script yet answered
            raise RuntimeError("ReferenceError: kaleido_scopes is not defined")
        return b"<svg/>"

    monkeypatch.setattr(export, "image_browser", lambda: "/usr/bin/chromium")
    monkeypatch.setattr(export, "_start", lambda: None)
    monkeypatch.setattr(export, "_server", export._server)  # restored after the fake stop
    monkeypatch.setattr(kaleido, "calc_fig_sync", flaky)
    monkeypatch.setattr(kaleido, "stop_sync_server", lambda **kw: stops.append(kw))
    assert export.image(go.Figure(), "svg", width=300, height=200) == b"<svg/>"
    assert len(calls) == 2 and len(stops) == 1


def test_an_image_kaleido_fails_to_render_twice_raises(monkeypatch):
    import kaleido

    def broken(fig, opts):
        raise RuntimeError("no")

    monkeypatch.setattr(export, "image_browser", lambda: "/usr/bin/chromium")
    monkeypatch.setattr(export, "_start", lambda: None)
    monkeypatch.setattr(export, "_server", export._server)  # restored after the fake stop
    monkeypatch.setattr(kaleido, "calc_fig_sync", broken)
    monkeypatch.setattr(kaleido, "stop_sync_server", lambda **kw: None)
    with pytest.raises(RuntimeError):
        export.image(go.Figure(), "svg", width=300, height=200)
