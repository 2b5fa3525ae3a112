"""Style is part of the suite: ruff (configured in pyproject.toml) must pass on the tree."""

import pathlib
import subprocess
import sys

import pytest

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing():
    pytest.importorskip("ruff", reason="ruff comes with requirements-dev.txt")
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
