"""Load: a talk's audience at once, spoken over Streamlit's own websocket protocol.

A browser cannot be the load generator on this 2-core machine (30 Chromium tabs time out while
the server idles), so each reader is a protocol session (benchmarks/protocol.py), validated
against a real Chromium with `--validate`. A reader opens a page, then moves the context
slider 20 times with a think time of 2–5 s; readers start over a short ramp; pages follow a
fixed mix in which one reader in ten also exports a figure on the Export page.

Per level of concurrent readers: errors (exception elements, dropped sockets, timeouts,
anything else), p50/p95 of a step (rerun sent → script_finished) against one reader alone on
the same pages, server CPU and RSS before, at peak and after the readers have left and
`server.disconnectedSessionTTL` has passed. Capacity = the most readers with 0 errors and
p95 ≤ 3× a lone reader's.

    python -m benchmarks.load [--levels 10 25 50 100] [--check] [--json out.json]
    python -m benchmarks.load --url http://127.0.0.1:8501 --pid 1234   # a running server
    python -m benchmarks.load --nginx 2                              # 2 processes behind deploy/nginx.conf
    python -m benchmarks.load --validate                             # the client vs Chromium
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import re
import statistics
import sys
import tempfile
import time
import urllib.error
import urllib.request
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from contextlib import ExitStack
from dataclasses import asdict, dataclass, field
from pathlib import Path

import browser_harness as bh
from benchmarks.protocol import Dropped, Run, Session
from benchmarks.timing import verdict

PAGES = [f"/{p}" for p in bh.PAGES]
# Ten readers: the Overview is what a talk's link opens; the tenth exports.
MIX = ["/", "/v2-mla", "/", "/v3-2-dsa", "/v4-flash", "/", "/v4-1-flash", "/token-axis", "/any-model", "/export"]
EXPORT = {"ex_ids": 1, "ex_fmt": ["csv"]}  # the first figure, as csv: a small export
RATIO, PER_PROCESS, MEMORY = 3.0, 50, 1.2
TTL_S = 60  # server.disconnectedSessionTTL in .streamlit/config.toml


@dataclass
class Reader:
    path: str
    steps: int
    think: tuple[float, float]
    export: bool = False


@dataclass
class Tally:
    """What a level's readers saw."""

    steps: list[tuple[str, float]] = field(default_factory=list)  # (page, ms)
    loads: list[float] = field(default_factory=list)
    exports: list[float] = field(default_factory=list)
    errors: Counter = field(default_factory=Counter)  # kind → count
    details: list[str] = field(default_factory=list)

    def error(self, kind: str, detail: str) -> None:
        self.errors[kind] += 1
        if len(self.details) < 20:
            self.details.append(f"{kind}: {detail}")

    def check(self, run: Run, where: str) -> Run:
        for text in run.exceptions:
            self.error("exception", f"{where}: {text}")
        if run.page_not_found:
            self.error("page not found", where)
        if run.status not in ("FINISHED_SUCCESSFULLY", "FINISHED_FRAGMENT_RUN_SUCCESSFULLY"):
            self.error("script", f"{where}: {run.status}")
        return run


def plans(n: int, steps: int, think: tuple[float, float]) -> list[Reader]:
    return [Reader(MIX[i % len(MIX)], steps, think, export=MIX[i % len(MIX)] == "/export") for i in range(n)]


async def read(url: str, reader: Reader, rng: random.Random, tally: Tally, timeout: float) -> None:
    """One reader: open the page, export if asked, move the context slider with pauses, leave."""
    session = Session(url, timeout=timeout)
    where = reader.path
    try:
        tally.loads.append(tally.check(await session.open(reader.path), f"open {where}").ms)
        if reader.export:
            tally.exports.append(await export(session, tally))
        options = session.options("ctx", "slider")
        for _ in range(reader.steps):
            await asyncio.sleep(rng.uniform(*reader.think))
            current = session.value("ctx", "slider")[0]
            run = await session.set("ctx", [rng.choice([o for o in options if o != current])], "slider")
            tally.steps.append((reader.path, tally.check(run, f"step {where}").ms))
    except Dropped as e:
        tally.error("dropped", f"{where}: {e}")
    except TimeoutError:
        tally.error("timeout", where)
    except Exception as e:  # a refused connection, a widget not drawn, a protocol surprise
        tally.error("other", f"{where}: {type(e).__name__}: {e}")
    finally:
        await session.close()


async def export(session: Session, tally: Tally) -> float:
    """Choose one figure and csv, press the build button (as a click would: a trigger in the
    rerun) and fetch the zip its download button offers; ms of the build rerun."""
    first = session.options("ex_ids", "multiselect")[: EXPORT["ex_ids"]]
    tally.check(await session.set("ex_ids", first, "multiselect"), "export figures")
    tally.check(await session.set("ex_fmt", EXPORT["ex_fmt"], "multiselect"), "export formats")
    run = tally.check(await session.click(), "export build")
    offered = [w for w in session.widgets.values() if w.kind == "download_button"]
    if not offered:
        tally.error("export", "no download offered")
    for w in offered:
        url = await session.download_url(w)
        try:
            if not await asyncio.to_thread(fetch, session.base + "/" + url.lstrip("/"), session.timeout):
                tally.error("download", f"empty {url}")
        except urllib.error.HTTPError as e:  # see RESULTS.md, Load: a deferred file can go before it is fetched
            tally.error("download", f"{url}: HTTP {e.code}")
    return run.ms


def fetch(url: str, timeout: float) -> bytes:
    opener = urllib.request.build_opener(urllib.request.ProxyHandler({}))
    with opener.open(url, timeout=timeout) as response:
        return response.read()


# ---- the server's CPU and memory, and its own metrics


@dataclass
class Sample:
    t: float
    cpu_s: float  # user + system seconds, summed over the processes
    rss_mb: float


def sample(pids: list[int]) -> Sample | None:
    """CPU seconds and RSS of the server processes, read from /proc (None without pids)."""
    if not pids:
        return None
    cpu, rss = 0.0, 0.0
    for pid in pids:
        stat = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        cpu += (int(stat[11]) + int(stat[12])) / os.sysconf("SC_CLK_TCK")
        status = Path(f"/proc/{pid}/status").read_text()
        rss += int(next(line.split()[1] for line in status.splitlines() if line.startswith("VmRSS:"))) / 1024
    return Sample(time.monotonic(), cpu, rss)


def cpu_percent(a: Sample, b: Sample) -> float:
    """Percent of one core between two samples."""
    return 100 * (b.cpu_s - a.cpu_s) / max(b.t - a.t, 1e-9)


class Monitor:
    """Samples the server every `every` seconds while a level runs."""

    def __init__(self, pids: list[int], every: float = 1.0):
        self.pids, self.every, self.samples = pids, every, []
        self._task: asyncio.Task | None = None

    async def _loop(self) -> None:
        while True:
            self.samples.append(sample(self.pids))
            await asyncio.sleep(self.every)

    def start(self) -> None:
        self.samples = []
        if self.pids:
            self._task = asyncio.create_task(self._loop())

    def stop(self) -> tuple[float | None, float | None]:
        """(peak CPU %, peak RSS MB) over the samples since start."""
        if self._task:
            self._task.cancel()
        s = [x for x in self.samples if x]
        if len(s) < 2:
            return None, None
        return max(cpu_percent(a, b) for a, b in zip(s, s[1:])), max(x.rss_mb for x in s)


def metrics(urls: list[str]) -> dict:
    """Streamlit's /_stcore/metrics, summed over the app processes: active sessions, entries
    in `st.cache_resource` caches (Streamlit counts entries there, not bytes, unless
    server.enableExpensiveMemoryStats) and the MB its other caches hold (session state, media)."""
    out = {"sessions": 0, "resource_entries": 0, "other_mb": 0.0}
    for url in urls:
        try:
            text = fetch(url.rstrip("/") + "/_stcore/metrics", 10).decode()
        except OSError:
            return {}
        for line in text.splitlines():
            if line.startswith("active_sessions "):
                out["sessions"] += int(float(line.split()[-1]))
            elif line.startswith("cache_memory_bytes") and 'cache_type="st_cache_resource"' in line:
                out["resource_entries"] += int(float(line.split()[-1]))
            elif line.startswith("cache_memory_bytes"):
                out["other_mb"] += float(line.split()[-1]) / 2**20
    return out


# ---- one level, the lone baseline, the sweep


@dataclass
class Level:
    sessions: int
    steps: int
    errors: dict
    p50: float
    p95: float
    ratio: float  # p95 / lone p95
    load_p95: float
    export_ms: list[float]
    cpu: dict  # before / peak / after, percent of one core
    rss: dict  # before / peak / after, MB
    server: dict  # /_stcore/metrics before / peak / after
    client_cpu: float  # this process, percent of one core while the readers ran
    seconds: float
    details: list[str]


def pct(values: list[float], q: float) -> float:
    if not values:
        return float("nan")
    return statistics.quantiles(values, n=100, method="inclusive")[q - 1] if len(values) > 1 else values[0]


async def run_readers(url: str, readers: list[Reader], *, ramp: float, timeout: float, seed: int) -> Tally:
    tally = Tally()

    async def start(i: int, reader: Reader) -> None:
        await asyncio.sleep(ramp * i / max(len(readers), 1))
        await read(url, reader, random.Random(seed + i), tally, timeout)

    await asyncio.gather(*(start(i, r) for i, r in enumerate(readers)))
    return tally


async def warm(url: str, timeout: float, pages: list[str] = PAGES, stops: int | None = None) -> None:
    """Open each page and visit each context stop (or the first `stops`) once: the imports
    and caches of an app that has been running."""
    for path in pages:
        session = Session(url, timeout=timeout)
        await session.open(path)
        for option in session.options("ctx", "slider")[:stops]:
            await session.set("ctx", [option], "slider")
        await session.close()


async def lone(url: str, args) -> dict[str, list[float]]:
    """One reader at a time on each page of the mix: its step times by page."""
    by_page = {}
    for path in dict.fromkeys(MIX):
        tally = await run_readers(url, [Reader(path, args.steps, (args.lone_think, args.lone_think))],
                                  ramp=0, timeout=args.timeout, seed=args.seed)
        if tally.errors:
            raise SystemExit(f"a lone reader on {path} failed: {tally.details}")
        by_page[path] = [ms for _, ms in tally.steps]
    return by_page


def mixed(by_page: dict[str, list[float]]) -> list[float]:
    """The lone samples weighted as the mix weighs the pages."""
    return [ms for path in MIX for ms in by_page[path]]


async def level(url: str, n: int, args, pids: list[int], lone_p95: float) -> Level:
    before, server_before = sample(pids), await asyncio.to_thread(metrics, args.direct)
    await asyncio.sleep(2)
    idle = sample(pids)
    monitor = Monitor(pids)
    monitor.start()
    t0, c0 = time.monotonic(), time.process_time()
    peak_server = {}

    async def watch_sessions() -> None:
        while True:
            m = await asyncio.to_thread(metrics, args.direct)
            if m.get("sessions", 0) >= peak_server.get("sessions", 0):
                peak_server.update(m)
            await asyncio.sleep(5)

    watcher = asyncio.create_task(watch_sessions())
    tally = await run_readers(url, plans(n, args.steps, tuple(args.think)), ramp=args.ramp,
                              timeout=args.timeout, seed=args.seed)
    watcher.cancel()
    seconds, client = time.monotonic() - t0, 100 * (time.process_time() - c0) / (time.monotonic() - t0)
    peak_cpu, peak_rss = monitor.stop()
    print(f"  {n} readers done in {seconds:.0f} s; waiting {args.ttl:.0f} s for the sessions to expire", flush=True)
    await asyncio.sleep(args.ttl - 5)
    settle = sample(pids)
    await asyncio.sleep(5)
    after = sample(pids)
    steps = [ms for _, ms in tally.steps]
    return Level(
        sessions=n, steps=len(steps), errors=dict(tally.errors),
        p50=pct(steps, 50), p95=pct(steps, 95), ratio=pct(steps, 95) / lone_p95, load_p95=pct(tally.loads, 95),
        export_ms=[round(x) for x in tally.exports],
        cpu={"before": cpu_percent(before, idle) if pids else None, "peak": peak_cpu,
             "after": cpu_percent(settle, after) if pids else None},
        rss={"before": before.rss_mb if pids else None, "peak": peak_rss, "after": after.rss_mb if pids else None},
        server={"before": server_before, "peak": peak_server, "after": await asyncio.to_thread(metrics, args.direct)},
        client_cpu=client, seconds=seconds, details=tally.details)


def capacity(levels: list[Level]) -> int:
    """The most readers with 0 errors and p95 within RATIO× a lone reader's (every level below too)."""
    best = 0
    for lv in sorted(levels, key=lambda x: x.sessions):
        if lv.errors or lv.ratio > RATIO:
            break
        best = lv.sessions
    return best


def _f(x, spec: str = ".0f") -> str:
    return "–" if x is None else format(x, spec)


def report(levels: list[Level], lone_steps: list[float], start_rss: float | None) -> None:
    print(f"\nlone reader (pages weighted as the mix): p50 {pct(lone_steps, 50):.0f} ms, "
          f"p95 {pct(lone_steps, 95):.0f} ms, n={len(lone_steps)}; warm RSS {_f(start_rss)} MB")
    print("| readers | steps | errors | p50 ms | p95 ms | p95 / lone | open p95 ms | export ms p50/max "
          "| server CPU % before/peak/after | RSS MB before/peak/after | sessions peak/after "
          "| cache_resource entries after | client CPU % |")
    print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
    for lv in levels:
        errors = ", ".join(f"{k} {v}" for k, v in lv.errors.items()) or "0"
        sessions = f"{lv.server['peak'].get('sessions', '–')}/{lv.server['after'].get('sessions', '–')}"
        print(f"| {lv.sessions} | {lv.steps} | {errors} | {lv.p50:.0f} | {lv.p95:.0f} | {lv.ratio:.1f}× "
              f"| {lv.load_p95:.0f} | {_f(statistics.median(lv.export_ms)) if lv.export_ms else '–'}"
              f" / {max(lv.export_ms, default='–')} "
              f"| {_f(lv.cpu['before'])} / {_f(lv.cpu['peak'])} / {_f(lv.cpu['after'])} "
              f"| {_f(lv.rss['before'])} / {_f(lv.rss['peak'])} / {_f(lv.rss['after'])} "
              f"| {sessions} | {lv.server['after'].get('resource_entries', '–')} | {lv.client_cpu:.0f} |")
        for d in lv.details[:5]:
            print(f"    {d}")


def goals(levels: list[Level], processes: int, start_rss: float | None) -> list[str]:
    misses = []
    cap = capacity(levels)
    print(f"capacity: {cap} readers ({cap / processes:.0f} per process; goal ≥ {PER_PROCESS})")
    if cap < PER_PROCESS * processes:
        misses.append(f"capacity {cap} < {PER_PROCESS * processes}")
    misses += [f"{lv.sessions} readers: errors {lv.errors}" for lv in levels if lv.errors]
    if start_rss is not None:
        misses += [f"{lv.sessions} readers: RSS after {lv.rss['after']:.0f} MB > {MEMORY:g}× {start_rss:.0f} MB"
                   for lv in levels if lv.rss["after"] > MEMORY * start_rss]
    return misses


async def cold_start(url: str, n: int, timeout: float) -> Tally:
    """`n` readers arriving together at a process that has not run the app yet (a restart
    during a talk): each opens its page of the mix and moves the slider once."""
    tally = await run_readers(url, plans(n, 1, (0.0, 0.0)), ramp=0.0, timeout=timeout, seed=0)
    errors = ", ".join(f"{k} {v}" for k, v in tally.errors.items()) or "none"
    print(f"cold start, {n} readers at once: errors {errors}; open p95 {pct(tally.loads, 95):.0f} ms")
    for d in tally.details[:5]:
        print(f"    {d[:160]}")
    return tally


async def sweep(url: str, args, pids: list[int], cold: bool) -> None:
    misses = []
    if cold:
        tally = await cold_start(url, args.levels[0], args.timeout)
        misses += [f"cold start: errors {dict(tally.errors)}"] if tally.errors else []
    for app in args.direct:  # each process, not whichever the proxy picks
        print(f"warming {app}: every page, every context stop", flush=True)
        await warm(app, args.timeout)
    by_page = await lone(url, args)
    lone_steps = mixed(by_page)
    for path, v in by_page.items():
        print(f"  lone {path}: p50 {pct(v, 50):.0f} ms, p95 {pct(v, 95):.0f} ms")
    start = sample(pids)
    levels = []
    for n in args.levels:
        print(f"level: {n} readers", flush=True)
        levels.append(await level(url, n, args, pids, pct(lone_steps, 95)))
    start_rss = start.rss_mb if start else None
    report(levels, lone_steps, start_rss)
    if args.json:
        Path(args.json).write_text(json.dumps({"url": url, "processes": args.processes, "start_rss": start_rss,
                                               "lone": by_page, "levels": [asdict(x) for x in levels]}, indent=1))
    verdict(f"capacity ≥ {PER_PROCESS} readers per process, 0 errors at every level, RSS back within "
            f"{MEMORY - 1:.0%} of its warm start", misses + goals(levels, args.processes, start_rss), args.check)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--levels", type=int, nargs="+", default=[10, 25, 50, 100], help="readers at once")
    parser.add_argument("--steps", type=int, default=20, help="context-slider moves per reader (default 20)")
    parser.add_argument("--think", type=float, nargs=2, default=[2.0, 5.0], help="seconds between moves (2 5)")
    parser.add_argument("--ramp", type=float, default=10.0, help="seconds over which readers arrive (10)")
    parser.add_argument("--lone-think", type=float, default=0.5, help="a lone reader's pause (0.5 s)")
    parser.add_argument("--timeout", type=float, default=30.0, help="seconds before a rerun is a timeout (30)")
    parser.add_argument("--ttl", type=float, default=TTL_S + 5, help="wait after a level (disconnectedSessionTTL+5)")
    parser.add_argument("--seed", type=int, default=13)
    parser.add_argument("--url", help="a running server (default: start `streamlit run app.py`)")
    parser.add_argument("--pid", type=int, action="append", default=[], help="its process ids, for CPU and RSS")
    parser.add_argument("--processes", type=int, default=1, help="app processes behind --url (for the goal)")
    parser.add_argument("--nginx", type=int, metavar="N", help="start N app processes behind deploy/nginx.conf "
                        "(as tests/browser/test_proxy_browser.py does) and load them through it")
    parser.add_argument("--app-dir", type=Path, default=bh.REPO_ROOT, help="where to run app.py (default: the repo)")
    parser.add_argument("--json", help="write the numbers here")
    parser.add_argument("--check", action="store_true", help="exit 1 when a goal is missed")
    parser.add_argument("--validate", action="store_true", help="compare the client with Chromium and exit")
    args = parser.parse_args()

    if args.validate:
        sys.exit(validate(args.app_dir))
    if args.url:
        args.direct = [args.url]
        asyncio.run(sweep(args.url, args, args.pid, cold=False))
        return
    logs = Path(tempfile.mkdtemp(prefix="load-"))
    with ExitStack() as stack:
        apps = [stack.enter_context(bh.streamlit_server(args.app_dir / "app.py", logs / f"streamlit{i}.log",
                                                        cwd=args.app_dir)) for i in range(args.nginx or 1)]
        pids = _child_pids("streamlit")
        url = stack.enter_context(bh.shipped_nginx(apps, logs / "nginx", conf_text=(
            args.app_dir / "deploy" / "nginx.conf").read_text())) if args.nginx else apps[0]
        args.processes, args.direct = len(apps), apps
        print(f"{url}: {len(apps)} process(es), pids {pids} (logs {logs})")
        asyncio.run(sweep(url, args, pids, cold=True))


# ---- --validate: the client against a real Chromium

Frames = list[tuple[str, bytes]]  # ("sent" | "received", frame), in order


def validate(app_dir: Path) -> int:
    """Record Chromium on every page (open it, ArrowRight then ArrowLeft on the context slider;
    on the Export page also choose A1 as csv and press build), do the same with the client on
    the same server, and compare: the handshake, each rerun's BackMsg (fields, widget ids, value
    shapes and values, query string, cached hashes) and the element types the server sent back."""
    from playwright.sync_api import sync_playwright

    log = Path(tempfile.mkdtemp(prefix="load-validate-")) / "streamlit.log"
    problems: list[str] = []
    with bh.streamlit_server(app_dir / "app.py", log, cwd=app_dir) as url, sync_playwright() as pw:
        aside(_client_pass(url, "/"))  # the first session after a start gets navigation twice
        browser = bh.launch_chromium(pw)
        for path in PAGES:
            seen, handshake = _browser_pass(browser, url, path)
            mine = aside(_client_pass(url, path))
            problems += [f"{path}: {p}" for p in _handshake_problems(handshake)]
            problems += [f"{path} {n}: {p}" for n in mine for p in _compare(seen, mine, n)]
            print(f"{path}: compared {_summary(mine)}", flush=True)
        browser.close()
    for p in problems:
        print(f"  differs: {p}")
    print(f"validation: {'the client matches Chromium' if not problems else f'{len(problems)} differences'}")
    return 1 if problems else 0


def _summary(phases: dict[str, Frames]) -> str:
    """Each action: the widget states its rerun reported and the replies (refs among them)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    out = []
    for name, run in _replies(phases).items():
        sent = [BackMsg.FromString(p) for d, p in phases[name] if d == "sent"]
        widgets = len(sent[-1].rerun_script.widget_states.widgets) if sent else 0
        out.append(f"{name} ({widgets} widgets, {len(run.types)} replies, {run.refs} refs)")
    return ", ".join(out)


def aside(coroutine):
    """Run a coroutine to its end in a thread of its own: Playwright's sync API (here, or a
    browser test elsewhere in the suite) may hold this thread's running loop."""
    with ThreadPoolExecutor(1) as pool:
        return pool.submit(asyncio.run, coroutine).result()


def _browser_pass(browser, url: str, path: str) -> tuple[dict[str, Frames], list[dict]]:
    """Chromium's frames per action, and its websocket upgrade requests' headers."""
    context = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    handshake: list[dict] = []
    cdp.on("Network.webSocketWillSendHandshakeRequest", lambda e: handshake.append(e["request"]["headers"]))
    frames: Frames = []
    page.on("websocket", lambda ws: (ws.on("framesent", lambda p: frames.append(("sent", p))),
                                     ws.on("framereceived", lambda p: frames.append(("received", p)))))
    phases: dict[str, Frames] = {}

    def act(name: str, action) -> None:
        mark = len(frames)
        action()
        _wait_finished(page, frames, mark)
        phases[name] = frames[mark:]

    act("open", lambda: (page.goto(url + path), bh.assert_ready_without_exception(page)))
    thumb = bh.context_slider(page).get_by_role("slider")
    thumb.focus()
    act("right", lambda: thumb.press("ArrowRight"))
    act("left", lambda: thumb.press("ArrowLeft"))
    if path == "/export":  # a reader clears each list and picks one entry
        for key, pick in (("ex_ids", "A1 · "), ("ex_fmt", "csv")):  # by name: the list's first entry is "select all"
            box = page.locator(f".st-key-{key}")
            act(f"{key} cleared", lambda b=box: b.get_by_role("button", name="Clear all").click())
            act(key, lambda b=box, p=pick: (b.get_by_role("combobox").fill(p.strip()), page.get_by_role(
                "option", name=re.compile(f"^{re.escape(p)}")).first.click()))
            page.keyboard.press("Escape")
        act("build", lambda: page.locator('[data-testid="stBaseButton-primary"]').click())
        mark = len(frames)
        with page.expect_download():  # a deferred file is asked for over the websocket, a plain one by URL
            page.locator('[data-testid="stDownloadButton"] button').click()
        page.wait_for_timeout(300)
        phases["download"] = frames[mark:]
    bh.assert_ready_without_exception(page)
    context.close()
    return phases, handshake


def _wait_finished(page, frames: Frames, mark: int, timeout: float = 60.0) -> None:
    """Until a final script_finished (or the answer to a download's request) has arrived since `mark`."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        page.wait_for_timeout(100)
        replies = (ForwardMsg.FromString(p) for d, p in frames[mark:] if d == "received")
        if any(m.WhichOneof("type") == "backend_operation_response" or (
                m.WhichOneof("type") == "script_finished" and m.script_finished != m.FINISHED_EARLY_FOR_RERUN)
               for m in replies):
            page.wait_for_timeout(300)  # the run's last status message
            return
    raise TimeoutError(f"no script_finished within {timeout:.0f} s")


async def _client_pass(url: str, path: str) -> dict[str, Frames]:
    """The same actions through the client: its frames per action."""
    session = Session(url)
    session.transcript = []
    phases: dict[str, Frames] = {}

    async def act(name: str, action) -> None:
        mark = len(session.transcript)
        await action()
        phases[name] = session.transcript[mark:]

    await act("open", lambda: session.open(path))
    options = session.options("ctx", "slider")
    i = options.index(session.value("ctx", "slider")[0])
    await act("right", lambda: session.set("ctx", [options[i + 1]], "slider"))
    await act("left", lambda: session.set("ctx", [options[i]], "slider"))
    if path == "/export":
        await act("ex_ids", lambda: session.set("ex_ids", session.options("ex_ids")[:1], "multiselect"))
        await act("ex_fmt", lambda: session.set("ex_fmt", EXPORT["ex_fmt"], "multiselect"))
        await act("build", session.click)
        await act("download", lambda: session.download_url(session.widget("None", "download_button")))
    await session.close()
    return phases


def _handshake_problems(requests: list[dict]) -> list[str]:
    """Chromium's upgrade request carries `streamlit, <its XSRF cookie>` and an Origin: what
    Session.open sends."""
    if not requests:
        return ["no websocket handshake recorded"]
    h = {k.lower(): v for k, v in requests[-1].items()}
    cookie = dict(c.strip().split("=", 1) for c in h.get("cookie", "").split(";") if "=" in c)
    expected = f"streamlit, {cookie.get('_streamlit_xsrf')}"
    out = [] if h.get("sec-websocket-protocol") == expected else [
        f"Sec-WebSocket-Protocol {h.get('sec-websocket-protocol')!r}, expected {expected!r}"]
    return out + ([] if "origin" in h else ["no Origin header"])


def _compare(browser: dict[str, Frames], client: dict[str, Frames], name: str) -> list[str]:
    """What differs in one action: the rerun message (the last sent) and the element types."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    sent = [[p for d, p in side[name] if d == "sent"] for side in (browser, client)]
    if not all(sent):
        return [f"sent {len(sent[0])} vs {len(sent[1])} messages"] if any(sent) else []
    b, c = (BackMsg.FromString(x[-1]) for x in sent)
    if b.WhichOneof("type") != "rerun_script" or c.WhichOneof("type") != "rerun_script":
        return _compare_shape(b, c)
    b, c = b.rerun_script, c.rerun_script
    out = []
    fields = [[f.name for f, _ in m.ListFields()] for m in (b, c)]
    if fields[0] != fields[1]:
        out.append(f"fields {fields[0]} vs {fields[1]}")
    for field_name in ("query_string", "page_name", "page_script_hash", "context_info"):
        if getattr(b, field_name) != getattr(c, field_name):
            out.append(f"{field_name} {getattr(b, field_name)!r} vs {getattr(c, field_name)!r}")
    if set(b.cached_message_hashes) != set(c.cached_message_hashes):
        out.append(f"cached hashes {sorted(b.cached_message_hashes)} vs {sorted(c.cached_message_hashes)}")
    states = [{s.id: (s.WhichOneof("value"), str(getattr(s, s.WhichOneof("value")))) for s in m.widget_states.widgets}
              for m in (b, c)]
    out += [f"widget {w}: {states[0].get(w)} vs {states[1].get(w)}"
            for w in sorted(set(states[0]) | set(states[1])) if states[0].get(w) != states[1].get(w)]
    runs = [_replies(side)[name] for side in (browser, client)]
    if runs[0].types != runs[1].types and runs[0].drawn != runs[1].drawn:
        out.append(f"replies {' '.join(runs[0].types)} vs {' '.join(runs[1].types)}")
    elif runs[0].types != runs[1].types:  # the server merges updates of one element not yet sent
        print(f"  note: {name} replies differ only in how often an element was updated before it was sent")
    return out


def _compare_shape(b, c) -> list[str]:
    """A message other than a rerun (a download's request): the same type and fields set."""
    def shape(m) -> list:
        return [(f.name, shape(v) if f.message_type and not f.is_repeated else None) for f, v in m.ListFields()]

    return [] if shape(b) == shape(c) else [f"{shape(b)} vs {shape(c)}"]


def _replies(phases: dict[str, Frames]) -> dict[str, Run]:
    """Each action's replies as one Run, `ref_hash`es resolved from the earlier actions'."""
    session, out = Session("http://unused"), {}
    for name, frames in phases.items():
        run, done = Run(), False
        for d, data in frames:
            if d == "received":
                done = session.take(data, Run() if done else run) or done
        out[name] = run
    return out


def _child_pids(command: str) -> list[int]:
    """This process's children whose command line mentions `command` (browser_harness keeps its Popen)."""
    me, found = str(os.getpid()), []
    for stat in Path("/proc").glob("[0-9]*/stat"):
        try:
            if (stat.read_text().rsplit(")", 1)[1].split()[1] == me
                    and command in (stat.parent / "cmdline").read_text()):
                found.append(int(stat.parent.name))
        except OSError:
            continue
    return found


if __name__ == "__main__":
    main()
