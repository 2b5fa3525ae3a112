"""Every registered figure at its defaults, in both languages, as JSON on every canvas it is built
for — the export's own (native), the page columns (280/360/900/1,400 px), both slide sizes — and
every figure that plays as its animation on a phone's column and as 720p slides. `dump DIR` writes
them; `diff DIR OTHER` names every file whose figure differs (JSON read, floats to 9 digits), so a
change to the layout code shows where it moved anything.

    python scripts/golden_figures.py dump /tmp/before
    python scripts/golden_figures.py diff /tmp/before /tmp/after
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

import plotly.io as pio

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from figures import (  # noqa: E402  # noqa: E402
    SLIDE_SIZES,
    SPECS,  # noqa: E402
    Canvas,
    animated,
    slide_stills,
)

COLUMNS = (280, 360, 900, 1400)


def canvases() -> dict[str, Canvas]:
    return {"native": Canvas(), **{f"w{w}": Canvas(column=w) for w in COLUMNS},
            **{name: Canvas(slide=size) for name, size in SLIDE_SIZES.items()}}


def figures():
    """(file name, figure or dict) for every figure, language and canvas."""
    for fid, spec in SPECS.items():
        for lang in ("ko", "en"):
            values = {**spec.defaults, "lang": lang} if "lang" in spec.defaults else spec.defaults
            for name, canvas in canvases().items():
                yield f"{fid}.{lang}.{name}", spec.build(values, canvas).figure
            if spec.play:
                yield f"{fid}.{lang}.play360", animated(fid, canvas=Canvas(column=360), **values)
                w, h = SLIDE_SIZES["720p"]
                slides, _ = slide_stills(fid, Canvas(slide=(w, h)), **values)
                yield f"{fid}.{lang}.stills720p", {"steps": [s.to_plotly_json() for s in slides]}


def _plain(fig) -> object:
    return json.loads(pio.to_json(fig, validate=False))


def _rounded(x):
    if isinstance(x, float):
        return float(f"{x:.9g}")
    if isinstance(x, list):
        return [_rounded(v) for v in x]
    if isinstance(x, dict):
        return {k: _rounded(v) for k, v in x.items()}
    return x


def dump(out: Path) -> None:
    out.mkdir(parents=True, exist_ok=True)
    n = 0
    for name, fig in figures():
        (out / f"{name}.json").write_text(json.dumps(_rounded(_plain(fig)), sort_keys=True, ensure_ascii=False))
        n += 1
    print(f"{n} figures written to {out}")


def diff(a: Path, b: Path) -> int:
    names = sorted({p.name for p in a.glob("*.json")} | {p.name for p in b.glob("*.json")})
    changed = [n for n in names if not (a / n).exists() or not (b / n).exists()
               or json.loads((a / n).read_text()) != json.loads((b / n).read_text())]
    for n in changed:
        print("differs:", n)
    print(f"{len(names) - len(changed)} of {len(names)} equal")
    return 1 if changed else 0


if __name__ == "__main__":
    cmd, *paths = sys.argv[1:]
    sys.exit(dump(Path(paths[0])) if cmd == "dump" else diff(*map(Path, paths)))
