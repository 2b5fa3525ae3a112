"""The plotly.js the charts load, from the app's static folder (Streamlit serves `static/` beside
app.py at `app/static/`).

Every figure draws with three trace types, which plotly.js's "cartesian" partial bundle holds:
1.5 MB (0.5 MB gzipped) where the full bundle the plotly package ships is 4.8 MB (1.5 MB gzipped),
the largest part of a reader's first load. `python -m publish.plotly_js` fetches that bundle, for the
plotly.js version the installed plotly package was built with, from the npm registry and checks it
against the registry's checksum; the README's run command, scripts/test.sh and the Dockerfile call
it, and `python -m publish site` fetches it when static/ lacks it. Without it (offline, or a plotly
upgrade not fetched yet) the charts load the full bundle, written from the plotly package: the
same charts, more bytes.
"""

from __future__ import annotations

import base64
import hashlib
import io
import json
import os
import sys
import tarfile
import tempfile
import urllib.request
from pathlib import Path

import plotly
from plotly.offline import get_plotlyjs, get_plotlyjs_version

STATIC = Path(__file__).resolve().parent.parent / "static"  # beside app.py
PACKAGE = "plotly.js-cartesian-dist-min"
TRACES = frozenset({"bar", "box", "contour", "heatmap", "histogram", "histogram2d", "histogram2dcontour",
                    "image", "pie", "scatter", "scatterternary", "violin"})  # what that bundle draws
REGISTRY = "https://registry.npmjs.org"
PARTIAL = STATIC / f"plotly-cartesian-{get_plotlyjs_version()}.min.js"
# versioned, so a browser never runs an older plotly.js from its cache against a newer figure
FULL = STATIC / f"plotly-{plotly.__version__}.min.js"


def bundle() -> Path:
    """The file the charts load: the partial bundle when fetched for this plotly.js, else the full one
    (written from the plotly package the first time)."""
    if PARTIAL.exists():
        return PARTIAL
    if not FULL.exists():
        _write(FULL, get_plotlyjs().encode())
    return FULL


def _write(path: Path, data: bytes) -> None:
    """Atomically: processes that share the app folder start together, and a request never sees half a file."""
    path.parent.mkdir(exist_ok=True)
    fd, partial = tempfile.mkstemp(dir=path.parent, suffix=".part")
    with os.fdopen(fd, "wb") as f:
        f.write(data)
    os.chmod(partial, 0o644)
    os.replace(partial, path)


def fetch(timeout: float = 30.0) -> Path:
    """Download the partial bundle for this plotly.js from the npm registry, checked against its
    sha512 integrity, into static/. Raises OSError or ValueError when it cannot."""
    version = get_plotlyjs_version()
    with urllib.request.urlopen(f"{REGISTRY}/{PACKAGE}/{version}", timeout=timeout) as r:
        dist = json.load(r)["dist"]
    with urllib.request.urlopen(dist["tarball"], timeout=timeout) as r:
        tarball = r.read()
    algorithm, _, digest = dist["integrity"].partition("-")
    if algorithm != "sha512" or hashlib.sha512(tarball).digest() != base64.b64decode(digest):
        raise ValueError(f"{PACKAGE}@{version}: the download does not match the registry's checksum")
    with tarfile.open(fileobj=io.BytesIO(tarball)) as tar:
        try:
            member = tar.extractfile("package/plotly-cartesian.min.js")
        except KeyError:
            member = None
        if member is None:
            raise ValueError(f"{PACKAGE}@{version} has no plotly-cartesian.min.js")
        _write(PARTIAL, member.read())
    return PARTIAL


def ensure(say=print) -> Path:
    """The bundle the charts will load, left in static/: the partial one, fetched if need be; else
    the full one, with a line through `say` saying why (the charts are the same, the bytes more)."""
    if PARTIAL.exists():
        return PARTIAL
    try:
        fetch()
        return PARTIAL
    except (OSError, ValueError, KeyError) as e:  # the full bundle then: not a failure
        full = bundle()
        say(f"plotly.js: could not fetch {PACKAGE} ({e}); the charts load the full bundle, {full.name}")
        return full


def main() -> int:
    """Leave in static/ the bundle the charts will load: the partial one, fetched if need be, else the full."""
    here = PARTIAL.exists()
    found = ensure(lambda line: print(line, file=sys.stderr))
    if found == PARTIAL:
        print(f"plotly.js: {PARTIAL.name} is here" if here else
              f"plotly.js: fetched {PARTIAL.name} ({PARTIAL.stat().st_size / 1e6:.1f} MB)")
    return 0


if __name__ == "__main__":
    sys.exit(main())
