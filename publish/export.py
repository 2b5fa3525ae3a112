"""Figures to files: SVG/PNG through one warm kaleido server, standalone or shared-plotly.js
HTML, and the numbers behind a figure as CSV/JSON.

Kaleido's sync server is not thread-safe (images come back swapped between callers), so
every image goes through one process-wide lock; `mathjax=False` keeps it from waiting on
a CDN that this machine (and many conference venues) cannot reach.
"""

from __future__ import annotations

import atexit
import functools
import json
import tempfile
import threading
import time
import uuid
import zipfile
from collections.abc import Iterator
from pathlib import Path

import pandas as pd
import plotly.graph_objects as go
import plotly.io as pio

from figures import FIGURES, SPECS, Built, Canvas, animated, slide_size_of

IMAGE_FORMATS = ("svg", "png")
FORMATS = ("svg", "png", "html", "csv", "json")
IMAGE_TIMEOUT_S = 60

_LOCK = threading.Lock()
_server = False


def _start() -> None:
    global _server
    if not _server:
        import kaleido

        # a figure that does not render within the timeout fails alone; the rest still export
        kaleido.start_sync_server(mathjax=False, timeout=IMAGE_TIMEOUT_S, silence_warnings=True)
        atexit.register(kaleido.stop_sync_server, silence_warnings=True)
        _server = True


class ImagesUnavailable(RuntimeError):
    """SVG and PNG need a Chrome or Chromium on the machine that renders them."""


NO_BROWSER = ("SVG and PNG need Chrome or Chromium on the server (Debian/Ubuntu: apt install chromium; "
              "Streamlit Community Cloud: list chromium in packages.txt)")


@functools.cache
def image_browser() -> str | None:
    """The Chrome/Chromium kaleido renders with (its own search: a downloaded one, then the
    system's), or None: then only HTML and the numbers can be exported here."""
    from choreographer.browsers.chromium import Chromium

    return Chromium.find_browser(skip_local=False)


def image(fig: go.Figure, fmt: str = "svg", *, width: int | None = None, height: int | None = None,
          scale: float = 1.0) -> bytes:
    """Render a static image of the figure as it is laid out (a slide: built for it, `figure`) with
    the shared warm server (serialised by a lock)."""
    if fmt not in IMAGE_FORMATS:
        raise ValueError(f"unknown image format {fmt!r}; choose from {', '.join(IMAGE_FORMATS)}")
    if not image_browser():
        raise ImagesUnavailable(NO_BROWSER)
    opts = {"format": fmt, "scale": scale}
    opts.update({k: v for k, v in (("width", width or fig.layout.width), ("height", height or fig.layout.height))
                 if v})
    with _LOCK:
        try:
            data = _render(fig, opts)
        except _render_errors():
            # kaleido evaluates in a page that, on a loaded machine, has now and then not loaded its own
            # script yet ("kaleido_scopes is not defined"): once more, in a fresh server
            _stop()
            data = _render(fig, opts)
    return data if isinstance(data, bytes) else data.encode()


def _render(fig: go.Figure, opts: dict) -> bytes | str:
    import kaleido

    _start()
    return kaleido.calc_fig_sync(fig, opts=opts)


def _render_errors() -> tuple[type[Exception], ...]:
    from choreographer.errors import DevtoolsProtocolError  # kaleido's browser driver

    return DevtoolsProtocolError, RuntimeError  # kaleido's JavascriptError is a RuntimeError


def _stop() -> None:
    global _server
    import kaleido

    kaleido.stop_sync_server(silence_warnings=True)
    _server = False


def html(fig: go.Figure | dict, *, cdn: bool = False) -> str:
    """Interactive HTML, offline with plotly.js embedded (or, `cdn`, loading it from plotly's CDN: a
    small file, for the static site's downloads). An animation (a figure dict, figures/animation.py)
    waits for its play button."""
    return pio.to_html(fig, include_plotlyjs="cdn" if cdn else True, full_html=True,
                       config={"displaylogo": False}, auto_play=False, validate=False)


def numbers(built: Built) -> pd.DataFrame:
    """The numbers a figure draws, as its build gives them: its records under their columns."""
    return pd.DataFrame(list(built.numbers), columns=list(built.columns))


def to_bytes(built: Built, fmt: str, **size) -> bytes:
    """Any export format as bytes (the download buttons and the CLI share this)."""
    if fmt in IMAGE_FORMATS:
        return image(built.figure, fmt, **size)
    if fmt == "html":
        return html(built.figure).encode()
    if fmt == "csv":
        return numbers(built).to_csv(index=False).encode()
    if fmt == "json":
        return json.dumps(numbers(built).to_dict(orient="records"), ensure_ascii=False, default=float).encode()
    raise ValueError(f"unknown format {fmt!r}; choose from {', '.join(FORMATS)}")


def slug(fid: str) -> str:
    """'A01' for A1: file names that sort in article order."""
    return f"{fid[0]}{int(fid[1:]):02d}"


def figure(fid: str, values: dict, *, theme="light", font_scale=1.0, size=None) -> Built:
    """The one way an export makes a figure: built with builder keyword `values`, in the look. At a
    slide size ({"width": 1920, "height": 1080}: figures.canvas.SLIDE_SIZES) it is built for that
    slide (figures/layout/slide.py), its title and text floor `font_scale` times the slide's own before
    margins and the drawing's room are set (the look then only colours it); else the builder's own
    layout, every text `font_scale` times its size."""
    at = slide_size_of((size or {}).get("width"), (size or {}).get("height"))
    return SPECS[fid].build(values, Canvas(slide=at, font_scale=font_scale, theme=theme))


def read_values(fid: str, lang: str, params=None) -> dict:
    """A figure's builder keywords from link-like `params` ({"ctx": "1M"}: read, clamped, defaulted
    through its knobs), in the language."""
    return {**FIGURES[fid].read(params or {})[0], "lang": lang}


def figure_file(fid: str, fmt: str, values: dict, *, theme="light", font_scale=1.0, size=None,
                screen: Built | None = None, pictured: Built | None = None,
                animation: dict | None = None) -> bytes:
    """A figure's file in any format, built with builder keyword `values` in the look: what a
    chart's download button and every export write. A figure that plays writes its HTML with a
    frame per step; an image at a slide size is the slide; anything else is the screen figure.
    Each comes built where the caller has it already (`animation`, `pictured`, `screen`)."""
    size = size or {}
    if fmt == "html" and SPECS[fid].play:
        return html(animation or animated(fid, Canvas(font_scale=font_scale, theme=theme), **values)).encode()
    if fmt in IMAGE_FORMATS:
        at = slide_size_of(size.get("width"), size.get("height"))
        built = (pictured or figure(fid, values, theme=theme, font_scale=font_scale, size=size)) if at else screen
        return image((built or figure(fid, values, theme=theme, font_scale=font_scale)).figure, fmt, **size)
    return to_bytes(screen or figure(fid, values, theme=theme, font_scale=font_scale), fmt)


def files(ids, formats, *, lang="ko", theme="light", font_scale=1.0, params=None,
          size=None) -> Iterator[tuple[str, str, bytes | Exception]]:
    """(figure id, file name, bytes or the error) for every figure and format, in order.
    `params` are link-like knob values ({"ctx": "1M", "groups": "2,4"}): each figure reads
    them through its own knobs (clamped to its own ranges); the others keep their defaults."""
    size = size or {}
    slides = slide_size_of(size.get("width"), size.get("height"))
    images, others = set(formats) & set(IMAGE_FORMATS), set(formats) - set(IMAGE_FORMATS)
    for fid in ids:
        try:  # built once for the screen, once as a slide, each only if some format needs it
            values = read_values(fid, lang, params)
            screen = figure(fid, values, theme=theme, font_scale=font_scale) if others or (images and not slides) \
                else None
            pictured = figure(fid, values, theme=theme, font_scale=font_scale, size=size) if slides and images \
                else None
        except Exception as e:  # noqa: BLE001 — reported per figure by the caller
            for fmt in formats:
                yield fid, f"{slug(fid)}-{lang}.{fmt}", e
            continue
        for fmt in formats:
            try:
                data = figure_file(fid, fmt, values, theme=theme, font_scale=font_scale, size=size, screen=screen,
                                   pictured=pictured)
            except Exception as e:  # noqa: BLE001
                data = e
            yield fid, f"{slug(fid)}-{lang}.{fmt}", data


# The Export page builds one zip at a time per process (images go through one kaleido server
# anyway), caps a request's files, and writes the zip to disk as files come: a session holds a
# path, not the bytes.
BUILD_LOCK = threading.Lock()
MAX_FILES = 2 * len(FIGURES)  # every figure in two formats
EXPORT_DIR = Path(tempfile.gettempdir()) / "kv-atlas-exports"
KEEP_S = 3600  # a zip whose build died before its page read it goes after this


def write_zip(items: Iterator[tuple[str, str, bytes | Exception]], progress=None) -> tuple[Path, list[str]]:
    """Stream `files(...)` items into a new zip under EXPORT_DIR (zips older than KEEP_S go);
    returns its path and the failures ('A14: …'), each also listed in the zip's FAILED.txt."""
    EXPORT_DIR.mkdir(exist_ok=True)
    for old in EXPORT_DIR.glob("*.zip"):
        if time.time() - old.stat().st_mtime > KEEP_S:
            old.unlink(missing_ok=True)
    path, failed = EXPORT_DIR / f"{uuid.uuid4().hex}.zip", []
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as z:
        for n, (fid, name, data) in enumerate(items, 1):
            if isinstance(data, Exception):
                failed.append(f"{fid}: {data}")
            else:
                z.writestr(name, data)
            if progress:
                progress(n, name)
        if failed:
            z.writestr("FAILED.txt", "\n".join(failed))
    return path, failed
