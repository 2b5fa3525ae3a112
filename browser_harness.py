"""The browser harness shared by tests/browser and benchmarks/bench_slider.py.

Start `streamlit run` on a free port (output to a log file), wait for its health endpoint,
launch a Chromium through Playwright, wait for a page to be fully drawn, find the context
slider, and tell when the charts have redrawn. Playwright is imported lazily so this module
imports without it. It lives at the repo root so both import it without path tricks (pytest's
pythonpath = ["."], `python -m benchmarks.…`); it is a dev tool, not part of the package.
"""

from __future__ import annotations

import os
import re
import shutil
import socket
import subprocess
import sys
import time
import urllib.request
from contextlib import contextmanager
from pathlib import Path

from figures import heading_parts, plain

REPO_ROOT = Path(__file__).resolve().parent

# Flags the machine notes call for: root needs --no-sandbox; the closed network
# refuses Chromium's background connections unless they are switched off.
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]

# the script has finished, and the column's width (ui/column.js) is reported and drawn for: the
# component's module, which can load after the script has finished, has set <html data-canvas>
# to the width class the page drew for (a page without the component, e.g. an exported file, has none)
APP_READY = ('html:not([data-canvas="pending"]):not(:has(.st-key-canvas):not([data-canvas])) '
             '[data-testid="stApp"][data-test-script-state="notRunning"]')
# A chart: on a page, ui/plot.py's component, whose plot div (.kv-plot) its module makes once it
# has loaded, which can be after the script has finished, and draws near the viewport; in a
# figure-only view, Streamlit's own element; on an exported HTML page, plotly.io.to_html's div.
_PLOT = '[data-testid="stBidiComponentRegular"]'  # ui/plot.py's component, keyed chart-<id> or play-<id>
_SITE_PLOT = "figure.chart > .plot"  # the static site's (publish/site/): its figure's id is the figure id
PLOTLY_CHART = (f'[class*="st-key-chart-"] {_PLOT}, [class*="st-key-play-"] {_PLOT}, '
                f'[data-testid="stPlotlyChart"], .plotly-graph-div, {_SITE_PLOT}')
# ui/plot.js marks its plot div data-drawn="true" once plotly has drawn the latest figure sent to
# it; the others hold plotly's SVG once drawn (their wrapper comes before it)
DRAWN = (f':is({_PLOT}:has(> .kv-plot[data-drawn="true"]), {_SITE_PLOT}[data-drawn="true"],'
         ' [data-testid="stPlotlyChart"]:has(.main-svg), .plotly-graph-div:has(.main-svg))')
EXCEPTION = '[data-testid="stException"]'
SKELETON = '[data-testid="stSkeleton"]'


def find_chromium() -> str | None:
    """$CHROMIUM if set, else a system Chromium/Chrome; None means Playwright's own."""
    if os.environ.get("CHROMIUM"):
        return os.environ["CHROMIUM"]
    for name in ("/usr/bin/chromium", "chromium", "chromium-browser", "google-chrome"):
        path = shutil.which(name)
        if path:
            return path
    return None


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def _log_tail(log_path: Path, lines: int = 40) -> str:
    try:
        return "\n".join(log_path.read_text(errors="replace").splitlines()[-lines:])
    except OSError:
        return "(no log)"


@contextmanager
def streamlit_server(script: str | Path, log_path: Path, *, cwd: Path = REPO_ROOT, timeout: float = 60.0,
                     env: dict | None = None):
    """Run `streamlit run script` on a free port (with `env` added to this process's environment); yield its base
    URL; stop it on exit."""
    port = free_port()
    cmd = [
        sys.executable, "-m", "streamlit", "run", str(script),
        "--server.headless", "true",
        "--server.port", str(port),
        "--server.address", "127.0.0.1",
        "--browser.gatherUsageStats", "false",
    ]  # fmt: skip
    with serve(cmd, log_path, f"http://127.0.0.1:{port}", cwd=cwd, timeout=timeout, env=env) as url:
        yield url


@contextmanager
def static_server(root: Path, log_path: Path, timeout: float = 60.0):
    """`python -m http.server` serving the folder `root` on loopback; yield its URL."""
    port = free_port()
    cmd = [sys.executable, "-m", "http.server", str(port), "--bind", "127.0.0.1", "--directory", str(root)]
    with serve(cmd, log_path, f"http://127.0.0.1:{port}", timeout=timeout, health="/") as url:
        yield url


@contextmanager
def serve(cmd: list[str], log_path: Path, url: str, *, cwd: Path = REPO_ROOT, timeout: float = 60.0,
          health: str = "/_stcore/health", env: dict | None = None):
    """Run `cmd` (output to `log_path`) until `url` + `health` answers (Streamlit's and nginx's: "ok");
    yield `url`; stop it on exit."""
    log_path.parent.mkdir(parents=True, exist_ok=True)
    with open(log_path, "wb") as log:
        proc = subprocess.Popen(cmd, cwd=cwd, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                                env={**os.environ, **env} if env else None)
    try:
        _wait_healthy(url + health, proc, log_path, timeout)
        yield url
    finally:
        proc.terminate()
        try:
            proc.wait(timeout=10)
        except subprocess.TimeoutExpired:
            proc.kill()
            proc.wait()


def _wait_healthy(url: str, proc: subprocess.Popen, log_path: Path, timeout: float) -> None:
    """Until `url` answers 200 (a Streamlit health check: "ok"), or the process has ended."""
    name = Path(proc.args[0]).name
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"{name} exited with {proc.returncode}; log tail:\n{_log_tail(log_path)}")
        try:
            with urllib.request.urlopen(url, timeout=2) as r:
                if r.status == 200 and (not url.endswith("/_stcore/health") or r.read().decode().strip() == "ok"):
                    return
        except OSError:
            pass
        time.sleep(0.25)
    raise TimeoutError(f"{name} not healthy after {timeout:.0f} s at {url}; log tail:\n{_log_tail(log_path)}")


# deploy/nginx.conf as shipped, in front of app processes on loopback ports (the proxy test,
# benchmarks/load.py --nginx). The lines swapped: the app servers between their markers, the
# marked listen line.
APP_SERVERS = re.compile(r"^[ \t]*# APP_SERVERS\n(?P<servers>.*?)^[ \t]*# END APP_SERVERS$", re.M | re.S)
SERVER = re.compile(r"^(?P<indent>[ \t]*)server \S+(?P<params>[^;]*);$", re.M)
LISTEN = re.compile(r"^(?P<indent>[ \t]*)listen \S+;(?P<rest>.*# LISTEN_PORT.*)$", re.M)
# nginx creates these under /var/lib/nginx unless told otherwise, which needs root
TEMP_PATHS = ("client_body", "proxy", "fastcgi", "uwsgi", "scgi")


def find_nginx() -> str | None:
    return shutil.which("nginx", path=f"{os.environ.get('PATH', '')}:/usr/sbin")


def shipped_servers(text: str) -> list[re.Match]:
    block = APP_SERVERS.search(text)
    assert block, "deploy/nginx.conf lost its APP_SERVERS markers"
    servers = list(SERVER.finditer(block["servers"]))
    assert servers, "no server lines between the APP_SERVERS markers of deploy/nginx.conf"
    return servers


def derive_config(text: str, app_ports: list[int], listen_port: int, tmp: Path) -> str:
    """The shipped config with loopback app servers (each keeping its parameters), a loopback
    listen port and nginx's temp files under `tmp`; every other line as shipped."""
    block = APP_SERVERS.search(text)
    # `resolve` (nginx >= 1.27.3) re-resolves Docker's service names; Debian 12's nginx 1.22 lacks
    # it, and a loopback address needs none.
    loopback = "".join(f"{m['indent']}server 127.0.0.1:{port}{m['params'].replace(' resolve', '')};\n"
                       for m, port in zip(shipped_servers(text), app_ports, strict=True))
    text = text[:block.start("servers")] + loopback + text[block.end("servers"):]
    text, n = LISTEN.subn(rf"\g<indent>listen 127.0.0.1:{listen_port};\g<rest>", text)
    assert n == 1, "deploy/nginx.conf needs exactly one `listen …;  # LISTEN_PORT` line"
    temp = "".join(f"    {name}_temp_path {tmp / name};\n" for name in TEMP_PATHS)
    text, n = re.subn(r"^http \{\n", lambda m: m[0] + temp, text, count=1, flags=re.M)
    assert n == 1, "no `http {` block in deploy/nginx.conf"
    return text


@contextmanager
def nginx(binary: str, conf: Path, tmp: Path, log: Path, port: int, timeout: float = 30.0):
    """Run nginx in the foreground (access and error log to `log`); yield its URL once it proxies."""
    # As root, workers would run as `nobody`, who cannot enter pytest's private temp dirs.
    directives = f"daemon off; pid {tmp / 'nginx.pid'};" + (" user root;" if os.geteuid() == 0 else "")
    cmd = [binary, "-p", str(tmp), "-c", str(conf), "-e", "stderr", "-g", directives]
    with serve(cmd, log, f"http://127.0.0.1:{port}", timeout=timeout) as url:
        yield url


SHIPPED_NGINX = REPO_ROOT / "deploy" / "nginx.conf"


@contextmanager
def shipped_nginx(apps: list[str], tmp: Path, *, conf_text: str | None = None):
    """deploy/nginx.conf as shipped (or `conf_text`) in front of the app URLs `apps` (one for each
    of its upstream servers; an app may stand for several), logs and temp files under `tmp`;
    yields its URL."""
    binary = find_nginx()
    if not binary:
        raise RuntimeError("nginx is not installed (apt-get install nginx)")
    text = conf_text or SHIPPED_NGINX.read_text()
    ports = [int(u.rsplit(":", 1)[1]) for u in apps]
    ports = (ports * len(shipped_servers(text)))[:len(shipped_servers(text))]
    port = free_port()
    tmp.mkdir(parents=True, exist_ok=True)
    conf = tmp / "nginx.conf"
    conf.write_text(derive_config(text, ports, port, tmp))
    with nginx(binary, conf, tmp, tmp / "nginx.log", port) as url:
        yield url


def launch_chromium(playwright):
    """Launch headless Chromium: the system one when found, else Playwright's download."""
    executable = find_chromium()
    kwargs = {"executable_path": executable} if executable else {}
    return playwright.chromium.launch(headless=True, args=CHROMIUM_ARGS, **kwargs)


def chart(page, which: str | int = 0, *, play: bool = False, timeout: float = 60_000):
    """The one way to read a chart: scroll it into view, wait until its latest figure is drawn
    and return it (a Locator; on a page, the plot div that plotly draws in), for the text,
    pixels or attributes inside it. `which` is a figure id (its chart on a page; its animation
    with `play`, while ▶ Play is on) or the chart's index on the page. A chart that is not drawn
    in time fails with its title.

    Charts are drawn only when they come near the viewport (ui/plot.js), so a chart below the
    fold that is read without scrolling to it is never drawn: nothing else may read one.
    """
    from playwright.sync_api import TimeoutError as PlaywrightTimeout
    from playwright.sync_api import expect

    if isinstance(which, str):
        found = page.locator(f".st-key-{'play' if play else 'chart'}-{which} {_PLOT}, figure#{which} > .plot")
    else:
        found = page.locator(PLOTLY_CHART).nth(which)
    try:
        found.scroll_into_view_if_needed(timeout=timeout)
        expect(found.and_(page.locator(DRAWN))).to_have_count(1, timeout=timeout)
    except (AssertionError, PlaywrightTimeout) as e:
        name = chart_title(found) or f"{which} (not on the page, or no figure sent to it)"
        raise AssertionError(f"chart {name!r} was not drawn within {timeout / 1000:g} s on {page.url}") from e
    plot = found.locator(":scope > .kv-plot")
    return plot if plot.count() else found


def chart_title(found) -> str:
    """A chart's title as its figure gives it (ui/plot.js keeps the figure before drawing it), tags
    stripped; "" when there is none."""
    if not found.count():
        return ""
    if found.first.evaluate("d => d.matches('figure.chart > .plot')"):  # the static site's: its figure is named
        return found.first.evaluate("d => d.parentElement.getAttribute('aria-label')")
    plot = found.locator(":scope > .kv-plot")
    if not plot.count():
        return ""
    title = plot.first.evaluate("d => d.kv?.fig?.layout?.title?.text ?? ''", timeout=5_000)
    return " · ".join(" ".join(plain(part).split()) for part in heading_parts(title) if part)


def canvas_class(page, timeout: float = 60_000) -> int:
    """The width class the page (or frame) drew for (ui/column.js's <html data-canvas>), once it has one: a state
    waited for, since a page can read as ready a moment before its column component has reported."""
    page.wait_for_function("() => /^\\d+$/.test(document.documentElement.dataset.canvas || '')", timeout=timeout)
    return int(page.evaluate("document.documentElement.dataset.canvas"))


def assert_ready_without_exception(page, timeout: float = 60_000) -> None:
    """Wait until the script has finished and every plotly chart is drawn, then assert that
    no exception is shown.

    Lazily loaded elements (plotly among them) show an `stSkeleton` until their code has
    arrived, which can be after the script state is back to notRunning: wait those out too.
    A page's charts are drawn when they come near the viewport, so each is scrolled to.
    """
    from playwright.sync_api import expect

    expect(page.locator(APP_READY)).to_have_count(1, timeout=timeout)
    expect(page.locator(SKELETON)).to_have_count(0, timeout=timeout)
    for i in range(page.locator(PLOTLY_CHART).count()):
        chart(page, i, timeout=timeout)
    exceptions = page.locator(EXCEPTION)
    n = exceptions.count()
    assert n == 0, f"{page.url} shows {n} exception(s):\n{exceptions.first.inner_text()[:3000]}"


def assert_opens_without_exception(page, url: str) -> None:
    """Open `url` and wait until it is drawn without an exception. Streamlit 1.67 shows a spurious
    "Page not found" modal on the first session after start when it opens a non-default page
    (streamlit#9992): enter through the root first."""
    root = url.split("?")[0].rsplit("/", 1)[0] + "/"
    if url.split("?")[0] != root:
        page.goto(root)
        assert_ready_without_exception(page)
    page.goto(url)
    assert_ready_without_exception(page)


# What a reader sees of a drawn chart: its width against the column it sits in, every text's size
# on screen (the smallest of its own and its tspans'), and the pairs of texts whose boxes overlap
# by more than a tenth of the smaller one.
_MEASURE_JS = """div => {
  const column = div.closest('[data-testid="stMainBlockContainer"]') || document.body;
  const style = getComputedStyle(column);
  const inner = column.getBoundingClientRect();
  const left = inner.left + parseFloat(style.paddingLeft), right = inner.right - parseFloat(style.paddingRight);
  const own = div.getBoundingClientRect();
  const hidden = s => s.display === 'none' || s.visibility === 'hidden' || s.opacity === '0';
  const shown = e => {
    for (let n = e; n && n !== div; n = n.parentElement) if (hidden(getComputedStyle(n))) return false;
    return true; };
  const texts = [...div.querySelectorAll('text')].filter(t => t.textContent.trim() && shown(t));
  const boxes = [], sizes = [];
  for (const t of texts) {
    const r = t.getBoundingClientRect();
    if (r.width === 0 || r.height === 0) continue;
    const worded = e => [...e.childNodes].some(c => c.nodeType === 3 && c.textContent.trim());
    const parts = [t, ...t.querySelectorAll('tspan')].filter(worded);
    const size = Math.min(...parts.map(e => parseFloat(getComputedStyle(e).fontSize)));
    sizes.push({text: t.textContent.trim().slice(0, 40), size});
    boxes.push({text: t.textContent.trim().slice(0, 40), x0: r.left, y0: r.top, x1: r.right, y1: r.bottom});
  }
  const cut = boxes.filter(b => b.x0 < own.left - 1 || b.x1 > own.right + 1 || b.y0 < own.top - 1
                                 || b.y1 > own.bottom + 1).map(b => b.text);
  const overlaps = [];
  for (let i = 0; i < boxes.length; i++) for (let j = i + 1; j < boxes.length; j++) {
    const a = boxes[i], b = boxes[j];
    const w = Math.min(a.x1, b.x1) - Math.max(a.x0, b.x0), h = Math.min(a.y1, b.y1) - Math.max(a.y0, b.y0);
    const smaller = Math.min((a.x1 - a.x0) * (a.y1 - a.y0), (b.x1 - b.x0) * (b.y1 - b.y0));
    if (w > 0 && h > 0 && w * h > 0.1 * smaller) overlaps.push([a.text, b.text]);
  }
  // empty bands: from the title's foot, and from the play controls' foot, down to the next thing drawn
  const foot = sel => { const els = [...div.querySelectorAll(sel)].map(e => e.getBoundingClientRect())
    .filter(r => r.height > 0); return els.length ? Math.max(...els.map(r => r.bottom)) : null; };
  const aside = '.g-gtitle, .updatemenu-container, .slider-container, .modebar-container, .hoverlayer, .bglayer, '
    + 'defs, .draglayer';
  const drawn = [...div.querySelectorAll('.main-svg text, .main-svg path, .main-svg rect')]
    .filter(e => !e.closest(aside) && shown(e)).map(e => e.getBoundingClientRect())
    .filter(r => r.width > 0 && r.height > 0 && r.width < own.width - 2);
  const controls = [...div.querySelectorAll('.updatemenu-container, .slider-container')]
    .map(e => e.getBoundingClientRect()).filter(r => r.height > 0);
  const band = (at, under) => at === null ? null
    : Math.min(...under.filter(r => r.top >= at - 1).map(r => r.top - at));
  return {width: own.width, column: right - left, overflow: Math.max(0, own.right - right, left - own.left),
          sizes, overlaps, cut, bands: {title: band(foot('.g-gtitle text'), [...drawn, ...controls]),
                                       controls: band(foot('.updatemenu-container, .slider-container'), drawn)}};
}"""


def measure(plot) -> dict:
    """What a reader sees of a drawn chart (a Locator from `chart`): `width`, the `column` it sits in,
    how far it runs past that column (`overflow`, px), its texts' on-screen `sizes`, the pairs of
    texts that `overlaps`, the texts `cut` by the chart's edge, and the empty `bands` (px) under its
    title and under its play controls (None: it has none)."""
    return plot.evaluate(_MEASURE_JS)


# Every page by its URL path, in the article's order
PAGES = ("", "v2-mla", "v3-2-dsa", "v4-flash", "v4-1-flash", "token-axis", "any-model", "glossary", "export")


BAND_PX = 40  # px: an empty band under a title or the play controls wider than this is a gap in the chart


def chart_findings(m: dict) -> dict:
    """What a reader would see wrong in one measured chart (`measure`): whether it is wider than its
    column, its texts under the screen's floor, the texts over one another, those cut by its edge,
    the empty bands wider than BAND_PX."""
    from figures import SCREEN_TEXT

    return dict(wider=m["overflow"] > 0.5, small=[s for s in m["sizes"] if s["size"] < SCREEN_TEXT - 1e-6],
                overlaps=m["overlaps"], cut=m["cut"],
                bands={k: round(v) for k, v in m["bands"].items() if v is not None and v > BAND_PX})


def chart_problems(name: str, m: dict, *, bands: bool = False) -> list[str]:
    """`chart_findings` in words, each found one a line naming the chart (with `bands`, its empty
    bands too)."""
    from figures import SCREEN_TEXT

    f = chart_findings(m)
    return [problem for problem, found in (
        (f"{name}: {m['width']:.0f} px wide in a {m['column']:.0f} px column", f["wider"]),
        (f"{name}: {len(f['small'])} texts under {SCREEN_TEXT} px, e.g. {f['small'][:3]}", f["small"]),
        (f"{name}: {len(f['overlaps'])} texts over others, e.g. {f['overlaps'][:3]}", f["overlaps"]),
        (f"{name}: texts cut by its edge: {f['cut'][:3]}", f["cut"]),
        (f"{name}: empty bands (px) under {f['bands']}", bands and f["bands"])) if found]


def axe_violations(page) -> list[str]:
    """axe-core's violations on the page as it is (axe-playwright-python, which bundles it): its
    default rules, and WCAG 2.2's touch target size (24 × 24 px, or space around), not among them."""
    from axe_playwright_python.sync_playwright import Axe

    axe, touch = Axe(), {"runOnly": {"type": "rule", "values": ["target-size"]}}
    found = [*axe.run(page).response["violations"], *axe.run(page, options=touch).response["violations"]]
    return [f"{v['id']} ({v['impact']}) at {n['target']}: {n.get('failureSummary', '')[:300]}"
            for v in found for n in v["nodes"]]


READ_LABEL = re.compile(r"read|읽는", re.IGNORECASE)


def read_metric(page):
    """The value of the first st.metric whose label mentions reading ("read" / "읽는")."""
    label = page.locator('[data-testid="stMetricLabel"]', has_text=READ_LABEL)
    return page.locator('[data-testid="stMetric"]', has=label).first.locator('[data-testid="stMetricValue"]')


def context_slider(page):
    """The sidebar's context `stSlider`: by its key class (`st-key-ctx`), else by its label.

    Its thumb is `.get_by_role("slider")` (an `<input type="range">`, so the role is implicit and
    a `[role="slider"]` CSS selector misses it); its shown value `[data-testid="stSliderThumbValue"]`.
    """
    sliders = page.locator('[data-testid="stSidebar"] [data-testid="stSlider"]')
    by_key = page.locator('[data-testid="stSidebar"] .st-key-ctx [data-testid="stSlider"]')
    if by_key.count():
        return by_key.first
    return sliders.filter(has_text=re.compile(r"context|문맥", re.IGNORECASE)).first


# One MutationObserver per page stamps the last change inside any plotly chart: the page pays a
# `closest()` per mutation record, where hashing every chart's markup on each frame slowed it.
_WATCH_CHARTS_JS = """() => {
  if (window.__chartsChangedAt !== undefined) return;
  window.__chartsChangedAt = 0;
  new MutationObserver(records => {
    for (const r of records) {
      const el = r.target.nodeType === 1 ? r.target : r.target.parentElement;
      if (el && el.closest('CHART')) { window.__chartsChangedAt = performance.now(); return; }
    }
  }).observe(document.body, {subtree: true, childList: true, attributes: true, characterData: true});
}""".replace("CHART", PLOTLY_CHART)
_REDRAWN_SINCE_JS = (
    "(since) => window.__chartsChangedAt > since"
    f" && !!document.querySelector('{APP_READY}') && !document.querySelector('{SKELETON}')"
)


def forward_messages(frames) -> list:
    """The ForwardMsgs among the websocket frames a page received (Playwright's payloads)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    return [ForwardMsg.FromString(f) for f in frames if isinstance(f, bytes)]


def finished_as(msgs) -> list[str]:
    """How each run among these messages finished: FINISHED_SUCCESSFULLY (the page),
    FINISHED_FRAGMENT_RUN_SUCCESSFULLY (fragments only), FINISHED_EARLY_FOR_RERUN …"""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    return [ForwardMsg.ScriptFinishedStatus.Name(m.script_finished) for m in msgs
            if m.WhichOneof("type") == "script_finished"]


def websocket_frames(page) -> list:
    """The frames the page's websocket receives, as a list that grows: a new connection (a
    navigation) starts it anew, so a run of a page left behind is never counted."""
    frames, latest = [], []

    def opened(ws) -> None:
        frames.clear()
        latest[:] = [ws]
        ws.on("framereceived", lambda f: frames.append(f) if latest[0] is ws else None)

    page.on("websocket", opened)
    return frames


def run_messages(page, frames: list, timeout: float = 30.0) -> list:
    """The ForwardMsgs in `frames` (`websocket_frames`) once a run
    among them has finished, not cut short for a rerun: the page may show the run's end before
    Playwright has handed over the frame that said so."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    deadline = time.monotonic() + timeout
    while True:
        msgs = forward_messages(frames)
        if any(m.WhichOneof("type") == "script_finished" and m.script_finished != ForwardMsg.FINISHED_EARLY_FOR_RERUN
               for m in msgs):
            return msgs
        assert time.monotonic() < deadline, f"no finished run among {len(msgs)} messages in {timeout:g} s"
        page.wait_for_timeout(50)  # Playwright delivers frames while it waits


def watch_charts(page) -> None:
    """Install the chart observer on the current page (once; again after a navigation)."""
    page.evaluate(_WATCH_CHARTS_JS)


def page_clock(page) -> float:
    """The page's `performance.now()`, the clock the chart observer stamps with."""
    return page.evaluate("performance.now()")


def wait_charts_settled(page, since: float, quiet_ms: float = 150, timeout: float = 60_000) -> float:
    """Wait until the script is done and no chart has changed for `quiet_ms` since a change
    after `since`; return the page-clock time of that last change."""
    page.wait_for_function(
        f"([since, quiet]) => ({_REDRAWN_SINCE_JS})(since) && performance.now() - window.__chartsChangedAt > quiet",
        arg=[since, quiet_ms], timeout=timeout)
    return page.evaluate("window.__chartsChangedAt")


def wait_charts_redrawn(page, since: float, timeout: float = 60_000) -> None:
    """Wait until the script is back to notRunning and a chart changed after `since` (page_clock)."""
    page.wait_for_function(_REDRAWN_SINCE_JS, arg=since, timeout=timeout)
