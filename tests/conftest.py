"""AppTest reads .streamlit/config.toml, which redacts error details for a hosted audience;
tests want the real message when a page raises."""

import io
import sys

import pytest
from PIL import Image
from streamlit import config

config.set_option("client.showErrorDetails", "full")


@pytest.fixture(autouse=True)
def main_module_kept():
    """AppTest leaves the script it ran as sys.modules["__main__"]; a process pool's spawned worker
    imports __main__ again, so it would run a Streamlit page and die (the site build's pool did).
    Each test ends with pytest's own __main__ back."""
    main = sys.modules["__main__"]
    yield
    sys.modules["__main__"] = main


@pytest.fixture
def blank_pictures(monkeypatch):
    """Pictures without a browser: each a blank PNG of the asked size (for tests about what is
    around a picture: a deck's text, a command's failures). The deck finds a browser and draws
    with it; returns the stand-in, for other modules that draw."""
    from publish import deck

    def png(fig=None, fmt="png", *, width=None, height=None, **_) -> bytes:
        out = io.BytesIO()
        Image.new("RGB", (width or 320, height or 180)).save(out, "png")
        return out.getvalue()

    monkeypatch.setattr(deck, "image_browser", lambda: "chromium")
    monkeypatch.setattr(deck, "image", png)
    return png


@pytest.fixture(scope="session")
def hub_url():
    """The fake Hugging Face Hub of tests/fakehub.py on loopback: its URL and the requests it answered."""
    from fakehub import fake_hub

    with fake_hub() as (url, calls):
        yield url, calls


@pytest.fixture
def fake(hub_url, monkeypatch, tmp_path):
    """core.hub asking the fake Hub, with an empty cache of its own; yields the Hub's list of requests, cleared."""
    from core import hub

    url, calls = hub_url
    monkeypatch.setenv("HF_ENDPOINT", url)
    monkeypatch.setattr(hub, "CACHE_DIR", tmp_path)
    hub.forget_fetched()
    calls.clear()
    yield calls
    hub.forget_fetched()
