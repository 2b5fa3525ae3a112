"""What of Streamlit's internals ui/ leans on, checked against the installed Streamlit: an upgrade
that renames one fails here, by name, not as a layout gone quietly wrong in a browser."""

import re
from pathlib import Path

import streamlit

UI = Path(__file__).resolve().parents[1] / "ui"
BUNDLE = Path(streamlit.__file__).parent / "static" / "static" / "js"


def _named_test_ids() -> set[str]:
    """Every data-testid our CSS selectors and scripts name."""
    found = set()
    for path in [*UI.glob("*.py"), *UI.glob("*.js")]:
        found |= set(re.findall(r"""data-testid=["']?(st\w+)""", path.read_text(encoding="utf-8")))
    return found


def test_every_test_id_our_css_and_scripts_select_is_one_streamlits_frontend_writes():
    names = _named_test_ids()
    assert {"stMain", "stMainBlockContainer"} <= names  # the scan finds what column.js and plot.js select
    bundle = "\n".join(p.read_text(encoding="utf-8", errors="replace") for p in BUNDLE.glob("*.js"))
    written = set(re.findall(r'"data-testid":`(st\w+)`', bundle))
    assert len(written) > 100, "the frontend bundle's form changed; read it anew"
    assert not names - written, f"Streamlit no longer writes {sorted(names - written)}"


def test_the_flag_that_leaves_the_pages_folder_mode_is_still_streamlits_own():
    """ui.state.view() sets it once when a fresh process ran a page without app.py (no public API):
    Streamlit must still declare it (our own assignment would create it) and its runner read it."""
    import inspect

    from streamlit.runtime.pages_manager import PagesManager
    from streamlit.runtime.scriptrunner import script_runner

    assert "uses_pages_directory" in PagesManager.__annotations__
    assert "PagesManager.uses_pages_directory" in inspect.getsource(script_runner)
