"""Where one context-slider step goes, on any page against the one-chart baseline.

Not a goal check: a breakdown for benchmarks/RESULTS.md. For each page, in a headless Chromium,
it presses the context slider `--reps` times and records, per step:

  round trip  key press → script finished and the charts redrawn (as bench_slider)
  server      the rerun request sent → the script-finished message received (websocket frames)
  sent        bytes the server sent for the step, by element type (decoded ForwardMsg protobufs;
              a message Streamlit has cached is sent as a reference, a few bytes)
  browser     main-thread CPU by script (CDP sampling profiler): plotly's bundle, the data
              grid's, Streamlit's own, and (program) — style, layout and paint

    python -m benchmarks.profile_step [--pages app.py benchmarks/baseline_page.py] [--reps 8]
"""

from __future__ import annotations

import argparse
import collections
import itertools
import statistics
import tempfile
import time
from pathlib import Path

from playwright.sync_api import sync_playwright
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

import browser_harness as bh


def element_kind(msg: ForwardMsg) -> str:
    """'plotly_chart', 'metric', 'script_finished', 'cached ref' … for one ForwardMsg."""
    if msg.ref_hash:
        return "cached ref"
    kind = msg.WhichOneof("type") or "?"
    if kind == "delta":
        delta = msg.delta
        kind = delta.WhichOneof("type") or "?"
        if kind == "new_element":
            kind = delta.new_element.WhichOneof("type") or "?"
        elif kind == "add_block":
            kind = "block"
    return kind


def script_bucket(url: str, name: str) -> str:
    if not url:
        return name if name.startswith("(") else "(native)"
    low = url.lower()
    for key, label in (("plotly", "plotly"), ("glide", "data grid"), ("arrow", "data grid")):
        if key in low:
            return label
    return "streamlit/react"


def self_time_by_script(profile: dict) -> dict[str, float]:
    """ms of CPU per script bucket, from a CDP Profiler profile (samples × time deltas)."""
    nodes = {n["id"]: n["callFrame"] for n in profile["nodes"]}
    out: dict[str, float] = collections.Counter()
    for node_id, delta in zip(profile["samples"], profile["timeDeltas"]):
        frame = nodes[node_id]
        out[script_bucket(frame.get("url", ""), frame.get("functionName", ""))] += delta / 1000
    out.pop("(idle)", None)
    return out


def profile_page(browser, url: str, reps: int) -> dict:
    page = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="ko-KR").new_page()
    frames: list[tuple[float, str, int, bytes]] = []  # (time, direction, size, payload)

    def on_ws(ws):
        ws.on("framereceived", lambda p: frames.append((time.perf_counter(), "in", len(p), p)))
        ws.on("framesent", lambda p: frames.append((time.perf_counter(), "out", len(p), p)))

    page.on("websocket", on_ws)
    page.goto(url)
    bh.assert_ready_without_exception(page)
    bh.watch_charts(page)
    cdp = page.context.new_cdp_session(page)
    cdp.send("Profiler.enable")
    cdp.send("Profiler.setSamplingInterval", {"interval": 200})
    thumb = bh.context_slider(page).get_by_role("slider")
    keys = itertools.cycle(["ArrowLeft", "ArrowRight"])
    steps = []
    for i in range(reps + 1):
        thumb.focus()
        time.sleep(0.3)
        frames.clear()
        since = bh.page_clock(page)
        cdp.send("Profiler.start")
        t0 = time.perf_counter()
        thumb.press(next(keys))
        bh.wait_charts_redrawn(page, since)
        page.wait_for_timeout(150)  # elements after the last chart (table, metrics) finish too
        total = (time.perf_counter() - t0) * 1e3
        profile = cdp.send("Profiler.stop")["profile"]
        if i == 0:
            continue  # warm-up
        sent_at = next((t for t, d, *_ in frames if d == "out"), t0)
        by_kind: dict[str, int] = collections.Counter()
        finished_at = None
        for t, direction, size, payload in frames:
            if direction != "in" or isinstance(payload, str):
                continue
            msg = ForwardMsg()
            msg.ParseFromString(payload)
            kind = element_kind(msg)
            by_kind[kind] += size
            if kind == "script_finished" and finished_at is None:
                finished_at = t
        steps.append({"total": total, "server": ((finished_at or sent_at) - sent_at) * 1e3,
                      "bytes": by_kind, "cpu": self_time_by_script(profile)})
    bh.assert_ready_without_exception(page)
    page.context.close()
    return summarise(steps)


def summarise(steps: list[dict]) -> dict:
    med = statistics.median
    kinds = sorted({k for s in steps for k in s["bytes"]})
    buckets = sorted({k for s in steps for k in s["cpu"]})
    return {"total": med(s["total"] for s in steps), "server": med(s["server"] for s in steps),
            "bytes": {k: med(s["bytes"].get(k, 0) for s in steps) for k in kinds},
            "cpu": {k: med(s["cpu"].get(k, 0.0) for s in steps) for k in buckets}}


def report(name: str, r: dict) -> str:
    lines = [f"## {name}", f"round trip {r['total']:.0f} ms (median) · server, request → script finished "
             f"{r['server']:.0f} ms", "", "| sent by element | bytes |", "|---|---|"]
    lines += [f"| {k} | {v:,.0f} |" for k, v in sorted(r["bytes"].items(), key=lambda kv: -kv[1])]
    lines += ["", "| browser main-thread CPU | ms |", "|---|---|"]
    lines += [f"| {k} | {v:.1f} |" for k, v in sorted(r["cpu"].items(), key=lambda kv: -kv[1])]
    return "\n".join(lines)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pages", nargs="+", default=["app.py", "benchmarks/baseline_page.py"])
    parser.add_argument("--reps", type=int, default=8)
    args = parser.parse_args()
    logs = Path(tempfile.mkdtemp(prefix="profile_step-"))
    with sync_playwright() as pw:
        browser = bh.launch_chromium(pw)
        for script in args.pages:
            with bh.streamlit_server(bh.REPO_ROOT / script, logs / f"{Path(script).stem}.log") as url:
                print(report(script, profile_page(browser, f"{url}/", args.reps)), "\n")
        browser.close()


if __name__ == "__main__":
    main()
