"""What a hosted app must never do with what a visitor sends: render it as HTML, evaluate it,
write outside the chosen directory, or hand it back under an unsafe name or MIME type."""

import ast
import pathlib
import re
import subprocess
import sys

import pytest
from streamlit.testing.v1 import AppTest

from figures import SPECS, ordered_ids
from figures.canvas import NATIVE
from publish.export import MAX_FILES, write_zip
from ui.charts import download_files

ROOT = pathlib.Path(__file__).resolve().parent.parent
CODE = sorted(p for d in ("core", "figures", "publish", "ui", "pages", "i18n") for p in (ROOT / d).rglob("*.py")) + \
    [ROOT / "app.py"]
SAFE_NAME = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


def calls(path: pathlib.Path):
    tree = ast.parse(path.read_text(encoding="utf-8"))
    constants = {t.id: node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)
                 for t in node.targets if isinstance(t, ast.Name) and isinstance(node.value, ast.Constant)}
    return [(node, constants) for node in ast.walk(tree) if isinstance(node, ast.Call)]


@pytest.mark.parametrize("path", CODE, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_html_is_only_ever_our_own_constant_text(path):
    for node, constants in calls(path):
        if any(k.arg == "unsafe_allow_html" and getattr(k.value, "value", False) is True for k in node.keywords):
            text = node.args[0] if node.args else None
            ours = isinstance(text, ast.Constant) or (isinstance(text, ast.Name) and text.id in constants) or (
                # the article's prose through article.prose.notation, which lets only <sub>/<sup> through
                isinstance(text, ast.Call) and getattr(text.func, "id", "") == "notation")
            assert ours, f"{path.name}:{node.lineno} renders HTML that is not a constant of the module"


@pytest.mark.parametrize("path", CODE, ids=lambda p: p.relative_to(ROOT).as_posix())
def test_nothing_is_evaluated_or_unpickled(path):
    for node, _ in calls(path):
        name = node.func.id if isinstance(node.func, ast.Name) else ""  # the builtins, not re.compile
        assert name not in {"eval", "exec", "compile", "__import__"}, f"{path.name}:{node.lineno} {name}"
    tree = ast.parse(path.read_text(encoding="utf-8"))
    imported = {a.name.split(".")[0] for n in ast.walk(tree) if isinstance(n, ast.Import | ast.ImportFrom)
                for a in (n.names if isinstance(n, ast.Import) else [ast.alias(n.module or "")])}
    assert not imported & {"pickle", "marshal", "shelve", "dill"}, imported


@pytest.mark.parametrize("ids", ["../A1", "A1/../B2", "A1/", "/etc/passwd", "..", "A1\\..\\B2", "A 1"])
def test_export_refuses_ids_that_are_paths(tmp_path, ids):
    done = subprocess.run([sys.executable, "-m", "publish", "export", "--out", str(tmp_path), "--ids", ids],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 2 and "unknown figure id" in done.stderr
    assert not any(tmp_path.iterdir())  # nothing written, not even outside


def test_export_refuses_a_nul_in_an_id():
    from publish.cli import parse_ids  # argparse's type function, tested directly: argv cannot hold a NUL
    with pytest.raises(Exception, match="unknown figure id"):
        parse_ids("A1\x00")


def test_export_and_site_write_only_names_they_make(tmp_path):
    done = subprocess.run([sys.executable, "-m", "publish", "export", "--out", str(tmp_path), "--ids", "A1,B2",
                           "--format", "csv,json"], cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert all(SAFE_NAME.fullmatch(p.name) and p.parent == tmp_path for p in tmp_path.iterdir())


@pytest.mark.parametrize("figure_id", sorted(SPECS))
def test_downloads_have_safe_names_and_their_format_s_mime_type(figure_id):
    mime = {"svg": "image/svg+xml", "png": "image/png", "html": "text/html", "csv": "text/csv"}
    for _, fmt, kind, _, name in download_files(figure_id):
        assert SAFE_NAME.fullmatch(name) and name.endswith(f".{fmt}") and kind == mime[fmt]


def test_an_export_over_the_cap_is_refused_with_a_line_saying_so():
    at = AppTest.from_file(str(ROOT / "pages" / "export.py"), default_timeout=60).run()
    at.multiselect(key="ex_fmt").set_value(["svg", "png", "csv"]).run()
    assert len(ordered_ids()) * 3 > MAX_FILES
    assert str(MAX_FILES) in at.warning[0].value and not at.button


def test_a_zip_is_streamed_to_disk_with_its_failures_listed(tmp_path):
    import zipfile
    items = iter([("A1", "A01-en.csv", b"x"), ("A2", "A02-en.csv", ValueError("no browser")),
                  ("B1", "B01-en.csv", b"y")])
    seen = []
    path, failed = write_zip(items, lambda n, name: seen.append(n))
    with zipfile.ZipFile(path) as z:
        assert z.namelist() == ["A01-en.csv", "B01-en.csv", "FAILED.txt"]
        assert "A2: no browser" in z.read("FAILED.txt").decode()
    assert failed == ["A2: no browser"] and seen == [1, 2, 3]
    path.unlink()


def test_without_a_browser_images_fail_with_one_clear_message_and_the_pages_say_so(monkeypatch):
    import publish
    from figures import FIGURES
    from publish import export
    for room in (export, publish):  # the module's own use, and the page's through the front door
        monkeypatch.setattr(room, "image_browser", lambda: None)
    with pytest.raises(export.ImagesUnavailable, match="Chrome or Chromium"):
        export.image(FIGURES["A1"].build({}, NATIVE).figure)
    at = AppTest.from_file(str(ROOT / "pages" / "export.py"), default_timeout=60).run()
    assert "Chromium" in at.warning[0].value and not at.button  # the page says why, offers no build
    at.multiselect(key="ex_fmt").set_value(["html", "csv"]).run()
    assert at.button  # HTML and the numbers still export
