"""How much each section explains: characters of prose (headings and texts, outside figures,
metrics and tables) per section and language, as the static site shows them at its defaults.
`python -m benchmarks.prose_length` prints a table (issue 25 measured the Korean pages against the
article's own sections)."""

from __future__ import annotations

import re

from article import SECTIONS, Heading, Text
from core import Precision
from figures import CONTEXT
from i18n import LANGS
from publish import SiteView, blocks

ARTICLE_KO = {"overview": 2700, "v2-mla": 4900, "v3-2-dsa": 5000, "v4-flash": 8400, "v4-1-flash": 8400,
              "token-axis": 5900}  # ≈ characters of the articles' own sections (issue 25)


def prose_chars(slug: str, lang: str) -> int:
    """Visible characters of the section's headings and texts (Markdown marks and tags left out)."""
    shown = blocks(slug, SiteView(lang, CONTEXT.default, Precision()))
    text = "\n".join(b.text for b in shown if isinstance(b, (Heading, Text)))
    text = re.sub(r"<[^>]+>|\]\([^)]*\)|[*_#`\[]|^\s*[-•] ", "", text, flags=re.M)  # tags, link targets, marks
    return len(re.sub(r"\s+", " ", text).strip())


def main() -> None:
    print(f"{'section':<12}" + "".join(f"{lang:>8}" for lang in LANGS) + f"{'article ko':>12}")
    for slug in SECTIONS:
        row = "".join(f"{prose_chars(slug, lang):>8,}" for lang in LANGS)
        print(f"{slug:<12}{row}{ARTICLE_KO.get(slug, 0):>12,}")


if __name__ == "__main__":
    main()
