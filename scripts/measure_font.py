"""Measure the figures' font once and write the table figures/text.py measures every label with.

The charts name Noto Sans CJK KR first (figures.text.FONT); Chromium, kaleido and the readers who
have it draw with it. This reads each character's advance width from the installed font (regular
and bold, found by fontconfig, read by fontTools) for every code point a label may hold outside the
Hangul/CJK blocks, whose characters are all one em wide, and writes them in thousandths of an em:

    python scripts/measure_font.py            # writes figures/font_widths.json
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from fontTools.ttLib import TTFont

ROOT = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(ROOT))

from figures import FONT, WIDTHS_FILE  # noqa: E402

EM = 1000
BLOCKS = [(0x20, 0x7E), (0xA0, 0x24F), (0x370, 0x3FF), (0x2000, 0x206F), (0x2070, 0x209F), (0x20A0, 0x20CF),
          (0x2100, 0x214F), (0x2150, 0x218F), (0x2190, 0x21FF), (0x2200, 0x22FF), (0x2300, 0x23FF),
          (0x2460, 0x24FF), (0x2500, 0x257F), (0x25A0, 0x25FF), (0x2600, 0x26FF), (0x2700, 0x27BF)]


def face(style: str) -> TTFont:
    found = subprocess.run(["fc-match", "-f", "%{file}\n%{index}", FONT.split(",")[0] + style],
                           capture_output=True, text=True, check=True).stdout
    path, index = found.split("\n")
    return TTFont(path, fontNumber=int(index), lazy=True)


def widths(font: TTFont) -> dict[str, int]:
    """Advance widths in thousandths of an em of the characters in BLOCKS the font has."""
    cmap, advances = font.getBestCmap(), font["hmtx"].metrics
    per_em = font["head"].unitsPerEm
    return {chr(c): round(advances[cmap[c]][0] * EM / per_em) for lo, hi in BLOCKS for c in range(lo, hi + 1)
            if c in cmap}


def main() -> None:
    regular, bold = face(""), face(":bold")
    table = {"font": FONT.split(",")[0], "em": EM, "regular": widths(regular), "bold": widths(bold)}
    (ROOT / WIDTHS_FILE).write_text(json.dumps(table, ensure_ascii=False, indent=0, sort_keys=True) + "\n",
                                    encoding="utf-8")
    print(f"{len(table['regular'])} regular and {len(table['bold'])} bold widths written to {WIDTHS_FILE}")


if __name__ == "__main__":
    main()
