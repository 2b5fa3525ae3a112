"""`python -m publish export …` and `python -m publish site …`: every figure to files.

export: one file per figure and format, named so they sort in article order (A01-…, B1-…).
        Knob values (`--set groups=2,4`, `--context 1M`, `--precision bf16`) are read
        through the registry, clamped into range with a note on stderr, as a link's are.
deck:   a 16:9 PowerPoint file, one slide per figure with speaker notes (publish/deck.py).
animate: one figure with a play control, a frame per step, as a GIF or MP4 (publish/video.py).
site:   the article as a static site, a page per section and language (publish/site/).
catalogue: docs/catalogue.md from the registry.
"""

from __future__ import annotations

import argparse
import math
import sys
import time
from pathlib import Path
from urllib.parse import urlsplit

from figures import CONTEXT, FIGURES, FONT_SCALE, PRECISION, SLIDE_SIZES, THEME, Knob, ordered_ids, play_spec
from i18n import LANGS

from . import deck as talk
from .export import FORMATS, files
from .video import FPS_RANGE, VIDEO_FORMATS

# What rendering and writing a file raise when they fail (no browser, a kaleido timeout, a
# crashed browser, a full disk): one line and status 1, not a traceback.
FAILURES = (OSError, RuntimeError)


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # one clear line, exit status 2
        self.exit(2, f"error: {message}\n")


def parse_ids(text: str | None) -> list[str]:
    """Figure ids from 'A1,A14,B2' (None: all of them; an empty list is refused)."""
    if text is None:
        return ordered_ids()
    ids = [x.strip().upper() for x in text.split(",") if x.strip()]
    if not ids:
        raise argparse.ArgumentTypeError("names no figure; give ids like A1,A14,B2, or leave it out for all")
    unknown = [x for x in ids if x not in FIGURES]
    if unknown:
        raise argparse.ArgumentTypeError(f"unknown figure id(s) {', '.join(unknown)}; known: A1…A27, B1…B4")
    return ids


def _setting(text: str) -> tuple[str, str]:
    key, sep, value = text.partition("=")
    if not sep or not key.strip():
        raise argparse.ArgumentTypeError(f"--set takes KEY=VALUE (e.g. groups=2,4), got {text!r}")
    return key.strip(), value


def _known_keys(ids: list[str]) -> set[str]:
    """Every key the chosen figures' knobs read, a precision's roles and a tuple's items too."""
    return {key for fid in ids for knob in FIGURES[fid].knobs for leaf in (knob, *knob.parts) for key in leaf.keys}


def _formats(text: str) -> list[str]:
    fmts = [x.strip().lower() for x in text.split(",") if x.strip()]
    bad = [x for x in fmts if x not in FORMATS]
    if bad or not fmts:
        raise argparse.ArgumentTypeError(
            f"unknown format(s) {', '.join(bad) or '(none)'}; choose from {', '.join(FORMATS)}")
    return fmts


def _out_dir(text: str) -> Path:
    """A directory to write files in, made if missing."""
    path = Path(text)
    try:
        path.mkdir(parents=True, exist_ok=True)
        probe = path / ".write-test"
        probe.write_text("")
        probe.unlink()
    except OSError as e:
        raise argparse.ArgumentTypeError(f"cannot write to {text}: {e.strerror or e}") from None
    return path


def _out_file(text: str) -> Path:
    """A file to write, checked before anything renders: not a directory, and in a directory
    that exists and takes files."""
    path = Path(text)
    if path.is_dir():
        raise argparse.ArgumentTypeError(f"{text} is a directory; name the file to write in it")
    if not path.parent.is_dir():
        raise argparse.ArgumentTypeError(f"no directory {path.parent} to write {path.name} in")
    _out_dir(str(path.parent))
    return path


def _pptx(text: str) -> Path:
    path = Path(text)
    if path.suffix.lower() != ".pptx":
        raise argparse.ArgumentTypeError(f"--out names the deck file, e.g. talk.pptx; got {text!r}")
    return _out_file(text)


def _animated_id(text: str) -> str:
    ids = parse_ids(text)
    if len(ids) != 1:
        raise argparse.ArgumentTypeError(f"--id takes one figure, got {text!r}")
    try:
        return play_spec(ids[0]).id
    except ValueError as e:
        raise argparse.ArgumentTypeError(str(e)) from None


def _fps(text: str) -> float:
    try:
        fps = float(text)
    except ValueError:
        fps = math.nan
    if not FPS_RANGE[0] <= fps <= FPS_RANGE[1]:  # nan fails too
        raise argparse.ArgumentTypeError(f"takes frames per second from {FPS_RANGE[0]:g} to {FPS_RANGE[1]:g}, "
                                         f"got {text!r}")
    return fps


def _pixels(text: str) -> int:
    if not text.isdigit() or not 16 <= int(text) <= 7680:
        raise argparse.ArgumentTypeError(f"takes pixels from 16 to 7680, got {text!r}")
    return int(text)


def _params(args) -> dict | None:
    """Link-like knob values from --context, --precision and --set, clamping notes on stderr;
    None (after one error line) when --set names no knob of the chosen figures."""
    unknown = [key for key, _ in args.set if key not in _known_keys(args.ids)]
    if unknown:  # --set must name a knob; --context and --precision apply where a figure has them
        print(f"error: no figure among {', '.join(args.ids)} has a knob {unknown[0]!r}", file=sys.stderr)
        return None
    common = ((CONTEXT.key, args.context), (PRECISION.parts[0].key, args.precision))
    params = {key: value for key, value in (*common, *args.set) if value}
    notes = {f"{fid}: {n.text('en')}" for fid in args.ids for n in FIGURES[fid].read(params)[1]}
    for note in sorted(notes):
        print(f"note: {note}", file=sys.stderr)
    return params


def export(args) -> int:
    params = _params(args)
    if params is None:
        return 2
    slide = SLIDE_SIZES.get(args.size, (None, None))  # a slide size lays the images out as slides
    size = {"width": args.width or slide[0], "height": args.height or slide[1], "scale": args.scale}
    t0, written, failed = time.perf_counter(), 0, []
    for n, (fid, name, data) in enumerate(files(args.ids, args.format, lang=args.lang, theme=args.theme,
                                                 font_scale=args.font_scale, params=params, size=size), 1):
        if isinstance(data, Exception):  # one figure failing must not stop the rest
            failed.append(f"{fid}: {data}")
        else:
            (args.out / name).write_bytes(data)
            written += 1
        _progress(n, len(args.ids) * len(args.format), fid)
    print(f"\n{written} files in {time.perf_counter() - t0:.1f} s → {args.out}"
          + (f"; {len(failed)} failed: {'; '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def deck(args) -> int:
    """A .pptx: a title slide, then one slide per figure in article order (publish/deck.py).
    Nothing is written when no figure renders."""
    params = _params(args)
    if params is None:
        return 2
    t0, total = time.perf_counter(), len(set(args.ids))
    try:
        data, failed = talk.build(args.ids, lang=args.lang, theme=args.theme, font_scale=args.font_scale,
                                  params=params, size=args.size, progress=lambda n, fid: _progress(n, total, fid))
        if len(failed) == total:
            return _fail(f"no figure rendered, no deck written: {'; '.join(failed)}")
        args.out.write_bytes(data)
    except FAILURES as e:
        return _fail(e)
    print(f"\n{1 + total - len(failed)} slides, {len(data) / 1e6:.1f} MB in {time.perf_counter() - t0:.1f} s → "
          f"{args.out}" + (f"; {len(failed)} failed: {'; '.join(failed)}" if failed else ""))
    return 1 if failed else 0


def animate(args) -> int:
    """One figure's steps as a video: each still rendered through the warm image path, encoded."""
    from .video import frames, write

    suffix = args.out.suffix.lower().lstrip(".")
    fmt = args.format or suffix
    if fmt not in VIDEO_FORMATS or suffix not in (fmt, ""):
        said = f"--format {args.format}, but --out {args.out}" if args.format else f"--out {args.out}"
        print(f"error: {said}: name a .gif or .mp4 file (or give --format gif or mp4)", file=sys.stderr)
        return 2
    args.ids = [args.id]
    params = _params(args)
    if params is None:
        return 2
    values = {**FIGURES[args.id].read(params)[0], "lang": args.lang}
    slide = SLIDE_SIZES.get(args.size, (None, None))
    t0 = time.perf_counter()
    try:
        images = frames(args.id, values, theme=args.theme, font_scale=args.font_scale,
                        width=args.width or slide[0], height=args.height or slide[1],
                        progress=lambda n, total: _progress(n, total, args.id))
        write(args.out, images, fmt, args.fps)
    except FAILURES as e:
        return _fail(e)
    h, w = images[0].shape[:2]
    print(f"\n{len(images)} frames, {w}×{h}, {len(images) / args.fps:.1f} s at {args.fps:g} fps in "
          f"{time.perf_counter() - t0:.1f} s → {args.out}")
    return 0


def site(args) -> int:
    """The article as a static site: a page per section and language (publish/site/)."""
    from .site import build

    t0 = time.perf_counter()
    try:
        pages = build(args.out, base_url=args.base_url, app_url=args.app_url, images=args.images,
                      precisions=args.precisions,
                      progress=_page_written, say=_note)
    except FAILURES as e:
        return _fail(e)
    size = sum(p.stat().st_size for p in args.out.rglob("*") if p.is_file()) / 1e6
    print(f"{len(pages)} pages, {size:.1f} MB in {time.perf_counter() - t0:.1f} s → {args.out}/index.html")
    return 0


def _page_written(name: str) -> None:
    print(f"  {name}.html", flush=True)


def _note(text: str) -> None:
    """What a build left out or fell back on: one line on stderr; the build goes on."""
    print(f"note: {text}", file=sys.stderr, flush=True)


def _address(text: str) -> str:
    """An http(s) address with a host, as a page can link to it."""
    parts = urlsplit(text.strip())
    if parts.scheme not in ("http", "https") or not parts.netloc or parts.query or parts.fragment:
        raise argparse.ArgumentTypeError(f"not an http(s) address without ?query or #fragment: {text!r}")
    return text.strip().rstrip("/")


def _look(knob: Knob):
    def read(text: str):
        value, notes = knob.read({knob.key: text})
        if notes:
            raise argparse.ArgumentTypeError(notes[0].text("en"))
        return value

    return read


def _fail(error: Exception | str) -> int:
    """A failure after the arguments were read: one line on stderr (after the progress bar's),
    status 1."""
    text = " ".join(str(error).split()) or type(error).__name__
    print(f"\nerror: {text}", file=sys.stderr)
    return 1


def _progress(done: int, total: int, label: str) -> None:
    bar = "#" * (30 * done // total)
    sys.stdout.write(f"\r[{bar:<30}] {done}/{total} {label:<6}")
    sys.stdout.flush()


def main(argv=None) -> int:
    p = _Parser(prog="python -m publish", description="Export KV Atlas figures.")
    sub = p.add_subparsers(dest="command", required=True, parser_class=_Parser)
    e = sub.add_parser("export", help="one file per figure and format")
    e.add_argument("--out", type=_out_dir, required=True)
    e.add_argument("--format", type=_formats, default=["svg"], help=f"comma list of {', '.join(FORMATS)}")
    e.add_argument("--size", choices=SLIDE_SIZES, help="images as slides of this size (a layout for projection)")
    e.add_argument("--width", type=int, help="overrides --size")
    e.add_argument("--height", type=int, help="overrides --size")
    e.add_argument("--scale", type=float, default=1.0)
    d = sub.add_parser("deck", help="a 16:9 .pptx: a title slide, one slide per figure with speaker notes")
    d.add_argument("--out", type=_pptx, required=True, help="the deck file, e.g. talk.pptx")
    d.add_argument("--size", choices=SLIDE_SIZES, default=talk.DEFAULT_SIZE, help="the pictures' size in pixels")
    a = sub.add_parser("animate", help="one figure's steps as a GIF or MP4 (the figures with a ▶ play control)")
    a.add_argument("--id", type=_animated_id, required=True, help="a figure with a play control, e.g. A14")
    a.add_argument("--out", type=_out_file, required=True, help="the video file, e.g. a14.mp4")
    a.add_argument("--format", choices=VIDEO_FORMATS, help=f"{' or '.join(VIDEO_FORMATS)} (default: from --out)")
    a.add_argument("--fps", type=_fps, default=2.0, help="steps per second (default 2)")
    a.add_argument("--size", choices=SLIDE_SIZES, help="the frames' size in pixels (default: the figure's own)")
    a.add_argument("--width", type=_pixels, help="overrides --size")
    a.add_argument("--height", type=_pixels, help="overrides --size")
    for q in (e, d, a):
        _figure_options(q, ids=q is not a)  # animate names its one figure with --id
    s = sub.add_parser("site", help="the article as a static site: a page per section and language")
    s.add_argument("--out", type=_out_dir, required=True)
    s.add_argument("--app-url", type=_address, help="where the app is served (e.g. https://kv-atlas.streamlit.app): "
                   "each page, and each figure whose controls only the app has, links to the same view there")
    s.add_argument("--base-url", help="where the site will be served (canonical links, the link previews' "
                                      "absolute image addresses)")
    s.add_argument("--images", action="store_true", help="each figure's SVG/PNG downloads too (needs Chromium, as "
                                                         "the link previews do)")
    s.add_argument("--precisions", action="store_true",
                   help="every per-component precision too, not only the presets (minutes, not seconds)")
    c = sub.add_parser("catalogue", help="the figure catalogue as markdown")
    c.add_argument("--out", type=Path, help="write it here (default: print it)")
    args = p.parse_args(argv)
    return {"export": export, "deck": deck, "animate": animate, "site": site,
            "catalogue": catalogue}[args.command](args)


def _figure_options(p: argparse.ArgumentParser, *, ids: bool = True) -> None:
    """Which figures (--ids), in which language and look, with which knob values (export, deck
    and animate)."""
    if ids:
        p.add_argument("--ids", type=parse_ids, default=ordered_ids(), help="e.g. A1,A14,B2 (default: all)")
    p.add_argument("--lang", choices=LANGS, default="ko")
    p.add_argument("--theme", type=_look(THEME), default=THEME.default, help=", ".join(THEME.choices))
    p.add_argument("--font-scale", type=_look(FONT_SCALE), default=FONT_SCALE.default,
                   help=", ".join(map(str, FONT_SCALE.choices)))
    p.add_argument("--context", help="context length N for the bar charts (e.g. 131072, 128K, 1M)")
    p.add_argument("--precision", help="deployed or bf16 (per role: --set main=fp8 --set ikey=fp4 …)")
    p.add_argument("--set", type=_setting, action="append", default=[], metavar="KEY=VALUE",
                   help="a figure knob by its link key or name, e.g. --set groups=2,4 --set t=9 (animate: the "
                        "stepped knob's value joins the steps)")


def catalogue(args) -> int:
    from .catalogue import markdown

    text = markdown()
    if args.out:
        args.out.write_text(text, encoding="utf-8")
    else:
        sys.stdout.write(text)
    return 0
