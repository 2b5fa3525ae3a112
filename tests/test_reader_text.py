"""What a reader is shown is written for a reader: every text of every section, as the app and the
static site show it, names no file of this repository, points at no figure by a number the figures
do not carry, and on a Korean page holds no English phrase; terms follow the glossary
(article/prose/glossary.toml), and the site never asks for a control it does not have."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from article import SECTIONS, Heading, Metrics, Table, Text, Title
from article.glossary import groups, terms
from core.cost import DEPLOYED
from figures.knobs import CONTEXT
from i18n import LANGS
from publish.site import SiteView, blocks

ROOT = Path(__file__).resolve().parents[1]


def shown(slug: str, lang: str, app: bool) -> list[str]:
    """Every text a section shows at the default view, in the app or on the site."""
    out = []
    for b in blocks(slug, SiteView(lang, CONTEXT.default, DEPLOYED), app=app):
        match b:
            case Title(text) | Heading(text) | Text(text):
                out.append(text)
            case Metrics(items):
                out.extend(f"{label} {value}" for label, value in items)
            case Table(columns):
                out.extend(str(c) for c in columns)
                out.extend(str(v) for values in columns.values() for v in values if isinstance(v, str))
    return out


def visible(text: str) -> str:
    """What a reader sees of a text: link targets, autolinks, HTML tags and code spans left out."""
    text = re.sub(r"\]\([^)]*\)", "]", text)  # [label](url) → [label]
    text = re.sub(r"<https?://[^>]*>|https?://\S+", " ", text)
    text = re.sub(r"</?[a-z]+[^>]*>", "", text)
    return re.sub(r"`[^`]*`", " ", text)


# this repository's paths and file names; another project's (an engine's file:line a rule cites) are sources
_DIRS = sorted(p.name for p in ROOT.iterdir() if p.is_dir() and not p.name.startswith("."))
_FILES = sorted({p.name for ext in ("py", "md") for p in ROOT.rglob(f"*.{ext}")
                 if ".venv" not in p.parts and p.name != "__init__.py"})
_ANY = "|".join(map(re.escape, _FILES))
REPO_PATH = re.compile(rf"(?<![\w/.-])(?:(?:{'|'.join(map(re.escape, _DIRS))})/|(?:{_ANY})\b)")
FIGURE_NUMBER = re.compile(r"\((?:그림|figure|fig\.)\s*\d+\)", re.I)
# English on a Korean page shows in its little words; names of things (Kimi Delta Attention) have none
ENGLISH = re.compile(r"(?<![\w-])(?:the|of|and|its|is|are|to|for|with|an|by|at|from|on|as|or|not|that|this|be|it|"
                     r"in|into|per|when|which|what|how|has|have|only|all)(?![\w-])", re.I)


def sections():
    return [(slug, lang) for slug in SECTIONS for lang in LANGS]


@pytest.mark.parametrize(("slug", "lang"), sections())
def test_no_text_names_a_file_of_this_repository_or_a_figure_by_number(slug, lang):
    for app in (True, False):
        for text in shown(slug, lang, app):
            seen = visible(re.sub(r"\[[^\]]*\]\([^)]*\)", " ", text))  # a linked name is a source's
            assert not REPO_PATH.search(seen), f"{slug}/{lang}: {REPO_PATH.search(seen)[0]!r} in {seen[:160]!r}"
            assert not FIGURE_NUMBER.search(seen), f"{slug}/{lang}: {FIGURE_NUMBER.search(seen)[0]!r}"


@pytest.mark.parametrize("slug", list(SECTIONS))
def test_a_korean_page_holds_no_english_phrase(slug):
    for app in (True, False):
        for text in shown(slug, "ko", app):
            seen = visible(text)
            if found := ENGLISH.search(seen):
                raise AssertionError(f"{slug}: English {found[0]!r} in {around(seen, found)}")


def test_the_glossary_names_and_defines_every_term_in_both_languages_once():
    ids = [term.id for term in terms()]
    assert len(ids) == len(set(ids))
    for lang in LANGS:
        names = [term.name[lang].lower() for term in terms()]
        assert len(names) == len(set(names)), f"two terms named alike in {lang}"
        for term in terms():
            assert term.name[lang].strip() and term.definition[lang].strip(), (term.id, lang)
            assert term.group in groups() and groups()[term.group][lang].strip()
            assert term.name[lang] not in term.avoid[lang], term.id


def around(text: str, found: re.Match) -> str:
    return f"…{text[max(0, found.start() - 80):found.end() + 80]}…"


@pytest.mark.parametrize(("slug", "lang"), [(s, lang) for s, lang in sections() if s != "glossary"])  # it names both
def test_the_prose_uses_the_glossarys_words_not_other_words_for_them(slug, lang):
    text = "\n".join(visible(t) for t in shown(slug, lang, True))
    for term in terms():
        for other in term.avoid[lang]:
            pattern = rf"(?<![\w-]){re.escape(other)}(?![\w-])" if other.isascii() else re.escape(other)
            found = re.search(pattern, text)
            assert not found, f"{slug}/{lang}: {other!r} for the glossary's {term.name[lang]!r}: {around(text, found)}"


# Words that ask the reader to work a control, and the controls the static site has (the context
# length, the precision and ▶): a site text may ask for the latter only.
ASKS = {"en": re.compile(r"\b(you can|try|if you|change the|move the|drag|turn (on|off)|switch (on|off)|toggle|"
                         r"controls?|slider|seed)\b", re.I),
        "ko": re.compile(r"바꾸면|바꿔 보|바꾸어 보|움직이면|움직여 보|켜면|끄면|올리면|내리면|조절|슬라이더|시드|"
                         r"seed")}
SITE_HAS = {"en": re.compile(r"context|precision|BF16|FP8|FP4|▶|play", re.I),
            "ko": re.compile(r"문맥|정밀도|BF16|FP8|FP4|▶|재생")}


@pytest.mark.parametrize(("slug", "lang"), sections())
def test_the_site_asks_for_no_control_it_does_not_have(slug, lang):
    """Each sentence the site shows that asks the reader to work a control names one the site has."""
    from publish.site.states import AppControls

    site = blocks(slug, SiteView(lang, CONTEXT.default, DEPLOYED))
    for text in shown(slug, lang, app=False):
        for sentence in re.split(r"(?<=[.!?。])\s+|\n", visible(text)):
            if ASKS[lang].search(sentence):
                assert SITE_HAS[lang].search(sentence), f"{slug}/{lang}: the site asks for a control it lacks " \
                    f"(make the passage app-only: <!-- name app -->): {sentence!r}"
    assert all(b.figure_id for b in site if isinstance(b, AppControls)), "an app-only control names no figure"
