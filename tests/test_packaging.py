"""pyproject.toml describes the package; requirements.txt (Streamlit Community Cloud installs it
as is) and requirements-dev.txt (scripts/test.sh installs it) must say the same, so a pin changed
in one place cannot drift from the other."""

import re
import tomllib
import warnings
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name
from setuptools.config.pyprojecttoml import read_configuration

ROOT = Path(__file__).resolve().parent.parent
DEV_ONLY = {"benchmarks"}  # importable from the repo root, never installed


def pyproject() -> dict:
    return tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))


def requirement_set(lines) -> set[tuple]:
    """What a requirement means: name, extras, version specifiers and markers; spelling,
    order and comments do not count."""
    out = set()
    for line in lines:
        r = Requirement(line)
        out.add((canonicalize_name(r.name), frozenset(r.extras), r.specifier, str(r.marker or "")))
    return out


def read_requirements(text: str) -> tuple[set[tuple], list[str]]:
    """A pip requirements file: its requirements and the files it includes with `-r`."""
    lines = [re.sub(r"(^|\s)#.*", "", line).strip() for line in text.splitlines()]
    includes = [line.split(maxsplit=1)[1] for line in lines if line.startswith("-r ")]
    return requirement_set(line for line in lines if line and not line.startswith("-")), includes


def test_pyproject_parses_and_builds_with_setuptools():
    project = pyproject()
    assert project["build-system"]["build-backend"] == "setuptools.build_meta"
    assert project["project"]["name"] == "kv-atlas"
    assert project["tool"]["pytest"]["ini_options"]["pythonpath"] == ["."]


def test_requirements_txt_lists_exactly_the_project_dependencies():
    listed, includes = read_requirements((ROOT / "requirements.txt").read_text(encoding="utf-8"))
    declared = requirement_set(pyproject()["project"]["dependencies"])
    assert includes == []
    assert listed == declared, {"only in requirements.txt": listed - declared,
                                "only in pyproject.toml": declared - listed}


def test_requirements_dev_txt_is_requirements_txt_plus_the_dev_extra():
    listed, includes = read_requirements((ROOT / "requirements-dev.txt").read_text(encoding="utf-8"))
    declared = requirement_set(pyproject()["project"]["optional-dependencies"]["dev"])
    assert includes == ["requirements.txt"]
    assert listed == declared, {"only in requirements-dev.txt": listed - declared,
                                "only in pyproject.toml": declared - listed}


@pytest.mark.parametrize("a, b, same", [
    ("numpy>=2.0,<3  # comment", "numpy <3, >=2.0", True),
    ("ml_dtypes>=0.5", "ML-DTYPES>=0.5", True),
    ("numpy>=2.0,<3", "numpy>=2.1,<3", False),
    ("numpy>=2.0", "numpy>=2.0; python_version < '3.13'", False),
    ("kaleido>=1.0", "kaleido[extra]>=1.0", False),
])
def test_the_comparison_ignores_spelling_and_comments_but_not_meaning(a, b, same):
    assert (read_requirements(a)[0] == read_requirements(b)[0]) is same


def test_the_package_is_every_top_level_package_but_the_dev_tools():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # "[tool.setuptools] support is beta"
        config = read_configuration(ROOT / "pyproject.toml", expand=True)
    found = {p.split(".")[0] for p in config["tool"]["setuptools"]["packages"]}
    on_disk = {d.name for d in ROOT.iterdir() if (d / "__init__.py").is_file()}
    assert {"core", "figures", "publish", "ui", "i18n"} <= found
    assert found == on_disk - DEV_ONLY
