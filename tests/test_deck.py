"""The talk deck (publish/deck.py, `python -m publish deck`, the Export page's Deck), opened
with python-pptx: slides, pictures, titles and notes in the chosen language, numbers from core,
the look, the CLI's refusals, and a slide drawn by LibreOffice where it is installed."""

import io
import re
import shutil
import subprocess
import sys
import threading
from pathlib import Path

import pytest
from PIL import Image, ImageColor
from pptx import Presentation
from pptx.enum.shapes import MSO_SHAPE_TYPE
from streamlit.runtime.memory_media_file_storage import MemoryMediaFileStorage
from streamlit.testing.v1 import AppTest

import publish
from article import article_title
from core import DEPLOYED, MODELS, storage_per_token
from core.summary import summarise
from core.units import fmt_bytes, fmt_exact
from figures import FIGURES
from figures.canvas import NATIVE, SLIDE_SIZES
from figures.contrast import READABLE, contrast
from figures.registry import FigureSpec
from figures.style import BACKGROUNDS, THEMES
from figures.text import plain
from i18n import t
from publish import deck, export
from publish.export import image_browser

ROOT = Path(__file__).resolve().parent.parent
IDS = ["B2", "A24", "A3", "A1"]  # out of order on purpose: the deck puts them in article order
ORDER = ["A1", "A3", "A24", "B2"]
PARAMS = {"ctx": "1M"}
HANGUL = re.compile(r"[\uac00-\ud7a3]")

needs_browser = pytest.mark.skipif(not image_browser(), reason="no Chrome/Chromium to render the pictures")


@pytest.fixture(scope="module")
def decks() -> dict[str, Presentation]:
    """The same four figures at 1M context: English on dark, Korean on light."""
    if not image_browser():
        pytest.skip("no Chrome/Chromium to render the pictures")
    out = {}
    for lang, theme in (("en", "dark"), ("ko", "light")):
        data, failed = deck.build(IDS, lang=lang, theme=theme, params=PARAMS)
        assert not failed
        out[lang] = Presentation(io.BytesIO(data))
    return out


def figure_slides(prs) -> list:
    return list(prs.slides)[1:]


def notes_of(slide) -> str:
    return slide.notes_slide.notes_text_frame.text


def test_a_title_slide_then_one_slide_per_figure_in_article_order(decks):
    for lang, prs in decks.items():
        slides = list(prs.slides)
        assert len(slides) == 1 + len(IDS)
        assert slides[0].shapes.title.text == article_title(lang)
        assert [s.shapes.title.text for s in slides[1:]] == [plain(FIGURES[f].title(lang)) for f in ORDER]
        assert prs.slide_width * 9 == prs.slide_height * 16


def test_each_figure_is_one_slide_size_picture_that_fits_the_slide(decks):
    width, height = SLIDE_SIZES[deck.DEFAULT_SIZE]
    for prs in decks.values():
        for slide in figure_slides(prs):
            pictures = [sh for sh in slide.shapes if sh.shape_type == MSO_SHAPE_TYPE.PICTURE]
            assert len(pictures) == 1
            pic = pictures[0]
            assert Image.open(io.BytesIO(pic.image.blob)).size == (width, height)  # pixels embedded
            assert 0 <= pic.left and pic.left + pic.width <= prs.slide_width
            assert 0 <= pic.top and pic.top + pic.height <= prs.slide_height
            assert abs(pic.width / pic.height - width / height) < 1e-3  # not stretched


def test_titles_credit_and_notes_are_in_the_chosen_language(decks):
    for lang, prs in decks.items():
        for fid, slide in zip(ORDER, figure_slides(prs)):
            text = notes_of(slide)
            assert text.splitlines()[0] == slide.shapes.title.text
            shown = [sh.text_frame.text for sh in slide.shapes if sh.has_text_frame and sh != slide.shapes.title]
            assert any(line.startswith(t("deck.credit", lang, fid=fid)) for line in shown)
            assert bool(HANGUL.search(text)) == (lang == "ko"), (lang, fid, text)


def test_notes_carry_the_figure_s_own_subtitle_and_captions(decks):
    for lang, prs in decks.items():
        for fid, slide in zip(ORDER, figure_slides(prs)):
            built = FIGURES[fid].build({**FIGURES[fid].read(PARAMS)[0], "lang": lang}, NATIVE)
            for part in (built.title, built.subtitle, *map(plain, built.captions)):
                assert part in notes_of(slide)


def test_notes_hold_numbers_core_gives(decks):
    a1, a3, a24 = (notes_of(s) for s in figure_slides(decks["en"])[:3])
    context = FIGURES["A1"].read(PARAMS)[0]["context"]
    for model in ("mha", "v4.1-flash"):
        assert fmt_exact(storage_per_token(model).total) in a1
        assert fmt_bytes(summarise(model, context, DEPLOYED).read.total) in a1
    assert f"{context:,}" in a1  # the knob reached the figure
    assert f"C^KV ({MODELS['v2'].dims.kv_lora_rank} dims)" in a3
    assert f"top {MODELS['v4.1-flash'].index_topk}" in a24


def test_the_knobs_chosen_show_on_the_slides_they_change(decks):
    prs = decks["en"]
    assert "ctx=1M" in prs.slides[0].placeholders[1].text_frame.text
    credits = {fid: " ".join(sh.text_frame.text for sh in s.shapes if sh.has_text_frame)
               for fid, s in zip(ORDER, figure_slides(prs))}
    assert "ctx=1M" in credits["A1"] and "ctx=" not in credits["B2"]  # B2 has no context knob


@pytest.mark.parametrize("lang, theme", [("en", "dark"), ("ko", "light")])
def test_the_look_colours_slides_and_pictures(decks, lang, theme):
    paper = ImageColor.getrgb(BACKGROUNDS[theme][0])  # the look's paper, as style defines it
    for slide in decks[lang].slides:
        assert tuple(slide.background.fill.fore_color.rgb) == paper[:3]
    pic = next(sh for sh in figure_slides(decks[lang])[0].shapes if sh.shape_type == MSO_SHAPE_TYPE.PICTURE)
    corner = Image.open(io.BytesIO(pic.image.blob)).convert("RGB").getpixel((0, 0))
    assert corner == paper[:3]


def slide_backgrounds(slide, theme: str) -> tuple[str, ...]:
    """What a slide's text sits on: its own fill, or (a transparent look's slide keeps the
    master's) every background the look promises to read on, white and black alike."""
    if slide.follow_master_background:
        assert theme == "transparent"
        return BACKGROUNDS[theme]
    return (f"#{slide.background.fill.fore_color.rgb}",)


@pytest.mark.parametrize("theme", THEMES)
def test_every_text_run_reads_at_4_5_to_1_on_its_slide_background(blank_pictures, tmp_path, theme):
    data, failed = deck.build(["A1", "A14"], lang="en", theme=theme, params=PARAMS)
    assert not failed
    (tmp_path / "talk.pptx").write_bytes(data)
    prs = Presentation(str(tmp_path / "talk.pptx"))
    runs = [(slide, run) for slide in prs.slides for shape in slide.shapes if shape.has_text_frame
            for para in shape.text_frame.paragraphs for run in para.runs]
    assert len(runs) >= 2 + 2 * 2  # the title slide's title and subtitle, each figure's title and credit
    for slide, run in runs:
        assert run.font.color.rgb is not None, run.text  # its own colour, not the template's dark default
        worst = min(contrast(f"#{run.font.color.rgb}", bg) for bg in slide_backgrounds(slide, theme))
        assert worst >= READABLE, (theme, run.text, str(run.font.color.rgb), round(worst, 2))


def test_each_figure_is_built_once_for_its_picture_title_and_notes(blank_pictures, monkeypatch):
    built, pictured, real = [], [], FigureSpec.build

    def counted(self, values, canvas):
        built.append((self.id, real(self, values, canvas)))
        return built[-1][1]

    monkeypatch.setattr(FigureSpec, "build", counted)
    monkeypatch.setattr(deck, "image", lambda fig, *a, **k: pictured.append(fig) or blank_pictures(fig, *a, **k))
    data, failed = deck.build(["B2", "A14", "A1"], lang="en", params=PARAMS)
    assert not failed and [fid for fid, _ in built] == ["A1", "A14", "B2"] and len(pictured) == 3  # article order
    for (_, b), slide in zip(built, figure_slides(Presentation(io.BytesIO(data)))):
        assert notes_of(slide).startswith(f"{b.title}\n{b.subtitle}")  # the notes read the pictured build


def test_no_figures_chosen_is_a_title_slide_alone(blank_pictures):
    data, failed = deck.build([], lang="en")
    assert not failed and len(Presentation(io.BytesIO(data)).slides) == 1


def test_plain_keeps_sub_and_superscripts_readable():
    assert plain("C<sup>KV</sup> · W<sub>u</sub><br>&lt;b&gt; <b>x</b>") == "C^KV · W_u\n<b> x"


def test_without_a_browser_the_deck_says_so_once(monkeypatch):
    monkeypatch.setattr(deck, "image_browser", lambda: None)
    with pytest.raises(export.ImagesUnavailable, match="Chrome or Chromium"):
        deck.build(["A1"])


def test_a_figure_that_fails_is_listed_in_one_line_and_the_others_keep_their_slides(blank_pictures, monkeypatch):
    a3 = plain(FIGURES["A3"].title("en"))

    def one_broken(fig, *args, **kwargs):
        if " ".join(plain(fig.layout.title.text).split()).startswith(a3):  # its slide title, in lines
            raise RuntimeError("render timed out\n  after 60 s")
        return blank_pictures(fig, *args, **kwargs)

    monkeypatch.setattr(deck, "image", one_broken)
    data, failed = deck.build(["A3", "B2"], lang="en")
    assert failed == ["A3: render timed out after 60 s"]
    slides = list(Presentation(io.BytesIO(data)).slides)
    assert [s.shapes.title.text for s in slides[1:]] == [plain(FIGURES["B2"].title("en"))]


# --- the command ---------------------------------------------------------------------------

def run_cli(*args: str, timeout: int = 180) -> subprocess.CompletedProcess:
    return subprocess.run([sys.executable, "-m", "publish", "deck", *args], cwd=ROOT, capture_output=True,
                          text=True, timeout=timeout)


@needs_browser
def test_the_command_writes_the_deck(tmp_path):
    out = tmp_path / "talk.pptx"
    done = run_cli("--out", str(out), "--ids", "A14,B4", "--lang", "en", "--theme", "dark", "--set", "t=9",
                   "--size", "720p")
    assert done.returncode == 0, done.stderr
    prs = Presentation(str(out))
    assert len(prs.slides) == 3
    pic = next(sh for sh in prs.slides[1].shapes if sh.shape_type == MSO_SHAPE_TYPE.PICTURE)
    assert Image.open(io.BytesIO(pic.image.blob)).size == SLIDE_SIZES["720p"]
    assert "t=9" in " ".join(sh.text_frame.text for sh in prs.slides[1].shapes if sh.has_text_frame)


# --- the Export page's Deck -----------------------------------------------------------------

def deck_page() -> AppTest:
    at = AppTest.from_file(str(ROOT / "pages/export.py"), default_timeout=120).run()
    at.radio(key="ex_kind").set_value("deck").run()
    return at


@needs_browser
def test_the_export_page_builds_a_deck_under_the_build_lock_and_hands_over_its_bytes(monkeypatch):
    held, stored = [], []
    real_build, real_store = deck.build, MemoryMediaFileStorage.load_and_get_id

    def spy(*args, **kwargs):
        held.append(export.BUILD_LOCK.locked())
        return real_build(*args, **kwargs)

    def store(self, path_or_data, mimetype, kind, filename=None):
        stored.append((mimetype, path_or_data))
        return real_store(self, path_or_data, mimetype, kind, filename)

    monkeypatch.setattr(publish, "make_deck", spy)  # the page's name for it, from publish's front door
    monkeypatch.setattr(MemoryMediaFileStorage, "load_and_get_id", store)
    at = deck_page()
    at.multiselect(key="ex_ids").set_value(["B2", "A1"]).run()
    at.button(key="ex_deck_build").click().run(timeout=180)
    assert not at.exception and not at.warning
    assert held == [True]
    button = at.get("download_button")[0].proto
    assert "슬라이드 3장" in button.label and button.url and not button.deferred_file_id  # bytes, not deferred
    data = next(d for mime, d in stored if mime == deck.MIME)
    slides = list(Presentation(io.BytesIO(data)).slides)
    assert [s.shapes.title.text for s in slides[1:]] == [plain(FIGURES[f].title("ko")) for f in ("A1", "B2")]
    assert at.get("progress")  # progress was shown


@needs_browser
def test_the_export_page_s_deck_waits_for_another_build():
    at = deck_page()
    at.multiselect(key="ex_ids").set_value(["B2"]).run()
    export.BUILD_LOCK.acquire()  # another reader's build
    threading.Timer(2, export.BUILD_LOCK.release).start()  # ends after two seconds
    at.button(key="ex_deck_build").click().run(timeout=180)
    assert any(t("ex.waiting", "ko") in i.value for i in at.info)
    assert at.get("download_button") and not at.exception and not export.BUILD_LOCK.locked()


def test_the_export_page_s_deck_is_capped_like_the_zip(monkeypatch):
    for room in (export, publish):  # the module's own use, and the page's through the front door
        monkeypatch.setattr(room, "MAX_FILES", 1)
        monkeypatch.setattr(room, "image_browser", lambda: "chromium")
    at = deck_page()
    at.multiselect(key="ex_ids").set_value(["A1", "B2"]).run()
    assert not at.exception and not at.button
    assert at.warning[0].value == t("ex.cap", "ko", n=2, cap=1)


def test_without_a_browser_the_export_page_s_deck_says_why(monkeypatch):
    for room in (export, publish):
        monkeypatch.setattr(room, "image_browser", lambda: None)
    at = deck_page()
    assert "Chromium" in at.warning[0].value and not at.button


# --- what a slide looks like ------------------------------------------------------------------

@pytest.mark.skipif(not shutil.which("soffice"), reason="LibreOffice (soffice; apt install libreoffice-impress) "
                    "is not installed")
def test_libreoffice_draws_a_figure_slide_that_is_not_blank(decks, tmp_path):
    path = tmp_path / "talk.pptx"
    decks["en"].save(str(path))
    profile = f"-env:UserInstallation={(tmp_path / 'profile').as_uri()}"  # apart from any other soffice
    second = 'pdf:impress_pdf_Export:{"PageRange":{"type":"string","value":"2"}}'  # the first figure's slide
    for target, src in ((second, path), ("png", tmp_path / "talk.pdf")):
        subprocess.run(["soffice", profile, "--headless", "--convert-to", target, "--outdir", str(tmp_path), str(src)],
                       check=True, capture_output=True, timeout=180)
    png = Image.open(tmp_path / "talk.png").convert("L")
    assert png.width > 1000 and png.width * 9 == pytest.approx(png.height * 16, rel=0.01)
    counts = png.histogram()
    background = max(range(len(counts)), key=counts.__getitem__)
    assert background < 64  # the dark look's slide
    drawn = sum(c for value, c in enumerate(counts) if abs(value - background) > 30) / (png.width * png.height)
    assert drawn > 0.05  # bars, labels and the title cover a good part of it, not a blank slide
