"""The two commands that write one file, `python -m publish deck` and `… animate`, fail alike:
bad input is one error line and status 2, an --out that cannot be written is refused before
anything renders, and a render or write failure is one line and status 1, leaving no file.
Through `main()`, in this process (the old name `python -m figures` once, as a process)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from publish import deck, video
from publish.cli import main
from publish.video import FPS_RANGE

ROOT = Path(__file__).resolve().parent.parent
# each command: its file, the arguments that pick a small job, and the module it renders through
COMMANDS = {
    "deck": ("talk.pptx", ["--ids", "A1,B2"], deck),
    "animate": ("a14.gif", ["--id", "A14", "--width", "320", "--height", "180"], video),
}


def one_line(capsys) -> str:
    err = capsys.readouterr().err.strip()
    assert len(err.splitlines()) == 1, err
    return err


@pytest.mark.parametrize("command, argv, says", [
    ("deck", ["--ids", "A1,Z9"], "unknown figure id(s) Z9"),
    ("deck", ["--set", "bogus=1", "--ids", "A14"], "no figure among A14 has a knob 'bogus'"),
    ("deck", ["--theme", "neon"], "theme=neon"),
    ("deck", ["--size", "4k"], "invalid choice: '4k'"),
    ("deck", ["--lang", "fr"], "invalid choice: 'fr'"),
    ("deck", ["--set", "ctx"], "--set takes KEY=VALUE"),
    ("deck", ["--ids", ""], "names no figure"),
    ("deck", ["--out", "talk.txt"], "talk.pptx"),
    ("animate", ["--id", "Z9"], "unknown figure id"),
    ("animate", ["--id", "A1"], "A1 has no play control"),
    ("animate", ["--id", "A14", "--fps", "0"], "--fps"),
    ("animate", ["--id", "A14", "--fps", "fast"], "--fps"),
    ("animate", ["--id", "A14", "--fps", str(FPS_RANGE[1] * 2)], "--fps"),
    ("animate", ["--id", "A14", "--width", "-3"], "--width"),
    ("animate", ["--id", "A14", "--out", "a.avi"], "name a .gif or .mp4"),
    ("animate", ["--id", "A14", "--out", "a.mp4", "--format", "gif"], "--format gif, but"),
    ("animate", ["--id", "A14", "--set", "zz=1"], "has a knob 'zz'"),
])
def test_bad_input_is_one_error_line_and_status_2(command, argv, says, tmp_path, capsys, monkeypatch):
    monkeypatch.chdir(tmp_path)
    name = COMMANDS[command][0]
    try:
        status = main([command, "--out", name, *argv])  # a later --out wins
    except SystemExit as e:  # argparse's own refusals
        status = e.code
    assert status == 2 and says in one_line(capsys)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]  # nothing written (--out checked, as a folder, first)


@pytest.mark.parametrize("url", ["javascript:alert(1)", "https://app.example/?x=1", "app.example", "https:///x"])
def test_the_sites_app_address_must_be_an_http_address(url, tmp_path, capsys):
    with pytest.raises(SystemExit) as refused:  # argparse's own refusal, before anything is built
        main(["site", "--out", str(tmp_path / "site"), "--app-url", url])
    assert refused.value.code == 2 and "not an http(s) address" in one_line(capsys)
    assert not [p for p in tmp_path.rglob("*") if p.is_file()]


@pytest.mark.parametrize("command", COMMANDS)
def test_an_out_that_is_a_directory_or_in_a_missing_one_is_refused_before_rendering(command, tmp_path, capsys):
    name, argv, _ = COMMANDS[command]
    (tmp_path / name).mkdir()
    for out, says in ((tmp_path / name, "is a directory"), (tmp_path / "no" / name, "no directory")):
        with pytest.raises(SystemExit) as e:
            main([command, "--out", str(out), *argv])
        assert e.value.code == 2 and says in one_line(capsys)
    assert not (tmp_path / "no").exists()


@pytest.mark.parametrize("command", COMMANDS)
def test_a_render_error_is_one_line_and_status_1(command, blank_pictures, monkeypatch, tmp_path, capsys):
    name, argv, renders = COMMANDS[command]

    def timed_out(*args, **kwargs):
        raise RuntimeError("kaleido timed out\n  after 60 s")

    monkeypatch.setattr(renders, "image", timed_out)
    assert main([command, "--out", str(tmp_path / name), *argv]) == 1
    assert "kaleido timed out after 60 s" in one_line(capsys)
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", COMMANDS)
def test_a_failed_write_is_one_line_and_status_1(command, blank_pictures, monkeypatch, tmp_path, capsys):
    name, argv, renders = COMMANDS[command]

    def full_disk(*args, **kwargs):
        raise OSError(28, "No space left on device")

    monkeypatch.setattr(renders, "image", blank_pictures)
    monkeypatch.setattr(video, "write", full_disk)
    monkeypatch.setattr(Path, "write_bytes", full_disk)
    assert main([command, "--out", str(tmp_path / name), *argv]) == 1
    assert "No space left on device" in one_line(capsys)


def test_the_old_command_name_still_runs(tmp_path):
    """`python -m figures …` hands over to publish: links and commands people keep work."""
    out = tmp_path / "catalogue.md"
    done = subprocess.run([sys.executable, "-m", "figures", "catalogue", "--out", str(out)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    assert out.read_text().startswith("# Figure catalogue")



# --- `python -m publish site`: one command is the deploy ---

def test_without_chromium_the_site_builds_and_says_what_it_left_out(monkeypatch, tmp_path):
    """No Chrome or Chromium, no partial plotly.js to fetch: the pages are written all the same,
    with the full bundle and without preview pictures or SVG/PNG downloads, and each thing left out
    is said once (one section built, as every section is)."""
    from publish import export, plotly_js, site

    monkeypatch.setattr(export, "image_browser", lambda: None)
    monkeypatch.setattr(plotly_js, "PARTIAL", tmp_path / "cache" / "partial.min.js")
    monkeypatch.setattr(plotly_js, "FULL", tmp_path / "cache" / "full.min.js")

    def offline(*args, **kwargs):
        raise OSError("no network")

    monkeypatch.setattr(plotly_js.urllib.request, "urlopen", offline)
    said = []
    out = tmp_path / "site"
    pages = site.build(out, images=True, say=said.append, slugs=("token-axis",))
    assert [p.relative_to(out).as_posix() for p in pages] == ["ko/token-axis.html", "en/token-axis.html"]
    assert len(said) == 2 and "full bundle" in said[0] and "no network" in said[0], said
    assert "link-preview pictures" in said[1] and "SVG/PNG" in said[1] and "Chromium" in said[1], said
    assert (out / "plotly.min.js").read_bytes() == plotly_js.FULL.read_bytes()
    html = pages[0].read_text(encoding="utf-8")
    assert "og:image" not in html and 'content="summary"' in html and "og:description" in html
    files = {p.suffix for p in (out / "ko" / "files" / "token-axis").iterdir()}
    assert files == {".csv", ".html"}, files


def test_the_site_commands_notes_go_to_stderr_a_line_each(monkeypatch, tmp_path, capsys):
    from publish import site

    def build(out, say, **kwargs):
        say("built without the link-preview pictures: no Chromium")
        return []

    monkeypatch.setattr(site, "build", build)
    assert main(["site", "--out", str(tmp_path)]) == 0
    err = capsys.readouterr().err
    assert err == "note: built without the link-preview pictures: no Chromium\n", err
