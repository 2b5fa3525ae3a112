"""The one text measurer (figures/text.py): a label as wide as the figures' font draws it."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from figures.text import SUP, WIDTHS_FILE, ems, text_px, wrap

ROOT = Path(__file__).resolve().parent.parent


def _noto() -> bool:
    if not shutil.which("fc-match"):
        return False
    found = subprocess.run(["fc-match", "-f", "%{family}", "Noto Sans CJK KR"], capture_output=True, text=True)
    return "Noto Sans CJK" in found.stdout


@pytest.mark.skipif(not _noto(), reason="Noto Sans CJK (apt install fonts-noto-cjk) is not installed")
def test_the_table_is_the_installed_fonts_advances(tmp_path, monkeypatch):
    """scripts/measure_font.py, run again on this machine's font, writes the table that ships."""
    sys.path.insert(0, str(ROOT / "scripts"))
    import measure_font

    out = tmp_path / "widths.json"
    monkeypatch.setattr(measure_font, "WIDTHS_FILE", out)
    monkeypatch.setattr(measure_font, "ROOT", tmp_path)
    measure_font.main()
    assert out.read_text(encoding="utf-8") == WIDTHS_FILE.read_text(encoding="utf-8")


def test_a_label_is_its_characters_at_the_sizes_its_tags_give():
    assert text_px("", 20) == 0
    assert text_px("저장", 20) == pytest.approx(40)  # Hangul: one em each
    assert text_px("KV", 20) == pytest.approx(20 * ems("KV"))
    assert text_px("<b>KV</b>", 20) > text_px("KV", 20)  # bold is wider
    assert text_px("r<sub>kv</sub>", 20) == pytest.approx(20 * ems("r") + SUP * 20 * ems("kv"))
    assert text_px("a <span style='font-size:11px'>[8 × 4]</span>", 20) == pytest.approx(
        20 * ems("a ") + 11 * ems("[8 × 4]"))
    assert text_px("a &lt; b", 20) == pytest.approx(20 * ems("a < b"))  # entities as drawn
    assert ems("W") > ems("i") > 0  # proportional: each letter its own advance


def test_a_number_an_equals_sign_or_a_separator_never_starts_a_line():
    measure = len
    lines = wrap("window · t = 11, k = 2 · seed 1", 12, measure)
    assert all(not line.split(" ")[0][:1].isdigit() and line[:1] not in "=·" for line in lines), lines
    assert "seed 1" in lines[-1]


def test_a_unit_stays_with_its_number():
    lines = wrap("6 requests · 6.30 GB each", 16, len)
    assert any(line.endswith("6.30 GB") or "6.30 GB " in line for line in lines), lines
    assert wrap("read 191 MB per token", 8, len)[:2] == ["read 191 MB", "per"]  # a word that is no unit breaks
    assert "(240 GB)" in " ".join(line for line in wrap("the weights (240 GB) do not fit", 16, len) if "GB" in line)
    assert all(not line.startswith("GB") for line in wrap("the weights (240 GB) do not fit", 16, len))
