"""The charts' plotly.js (publish/plotly_js.py): the partial bundle draws every trace type the
figures use, a download is kept only when it matches the registry's checksum, and without it
the charts load the plotly package's full bundle."""

from __future__ import annotations

import base64
import hashlib
import io
import json
import tarfile

import pytest

from figures import SPECS
from figures.canvas import NATIVE
from publish import plotly_js


def test_the_partial_bundle_draws_every_trace_type_the_figures_use():
    used = {tr.type for spec in SPECS.values() for tr in spec.build({}, NATIVE).figure.data}
    assert used and used <= plotly_js.TRACES, used - plotly_js.TRACES


def tarball(js: bytes) -> bytes:
    out = io.BytesIO()
    with tarfile.open(fileobj=out, mode="w:gz") as tar:
        info = tarfile.TarInfo("package/plotly-cartesian.min.js")
        info.size = len(js)
        tar.addfile(info, io.BytesIO(js))
    return out.getvalue()


@pytest.fixture
def registry(monkeypatch, tmp_path):
    """The npm registry answering with a tarball of one small file; `integrity` may be spoilt."""
    monkeypatch.setattr(plotly_js, "PARTIAL", tmp_path / "plotly-cartesian.min.js")
    monkeypatch.setattr(plotly_js, "FULL", tmp_path / "plotly-full.min.js")
    served = {"tgz": tarball(b"window.Plotly = {};")}
    served["integrity"] = "sha512-" + base64.b64encode(hashlib.sha512(served["tgz"]).digest()).decode()

    def urlopen(url, timeout):
        if url.endswith(".tgz"):
            return io.BytesIO(served["tgz"])
        dist = {"tarball": "https://registry.test/x.tgz", "integrity": served["integrity"]}
        return io.BytesIO(json.dumps({"dist": dist}).encode())

    monkeypatch.setattr(plotly_js.urllib.request, "urlopen", urlopen)
    return served


def test_a_fetched_bundle_is_the_one_the_charts_load(registry):
    assert plotly_js.fetch() == plotly_js.PARTIAL
    assert plotly_js.PARTIAL.read_bytes() == b"window.Plotly = {};"
    assert plotly_js.bundle() == plotly_js.PARTIAL and not plotly_js.FULL.exists()


def test_a_download_that_does_not_match_its_checksum_is_not_kept(registry, capsys):
    registry["integrity"] = "sha512-" + base64.b64encode(b"\0" * 64).decode()
    with pytest.raises(ValueError, match="checksum"):
        plotly_js.fetch()
    assert plotly_js.main() == 0 and "full bundle" in capsys.readouterr().err  # the app goes on without it
    assert not plotly_js.PARTIAL.exists() and plotly_js.FULL.exists()  # what the charts load is written now
    assert plotly_js.bundle() == plotly_js.FULL and b"Plotly" in plotly_js.FULL.read_bytes()[:100_000]
