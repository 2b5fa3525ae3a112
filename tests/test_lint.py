"""Style is part of the suite: ruff (configured in pyproject.toml, installed by requirements-dev.txt)
must pass on the tree; without ruff this fails rather than skips."""

import pathlib
import subprocess
import sys

ROOT = pathlib.Path(__file__).resolve().parent.parent


def test_ruff_finds_nothing():
    done = subprocess.run([sys.executable, "-m", "ruff", "check", "."], cwd=ROOT, capture_output=True, text=True)
    assert done.returncode == 0, done.stdout + done.stderr
