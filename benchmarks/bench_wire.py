"""What a reader's first load moves over the wire: every response's encoded bytes (what crossed
the network, after compression) for a fresh browser opening a page through deploy/nginx.conf as
shipped, every chart scrolled into view and drawn. A phone profile by default.

Goal (issue 20): the Overview's first load ≤ 2.5 MB.

    python -m benchmarks.bench_wire [--device "iPhone 13"] [--path /] [--direct] [--top 12]
"""

from __future__ import annotations

import argparse
import base64
import tempfile
from contextlib import ExitStack
from pathlib import Path

from playwright.sync_api import sync_playwright

import browser_harness as bh

GOAL = 2.5e6


def _frame_bytes(frame: dict) -> int:
    """A websocket frame's size: CDP hands a binary frame (Streamlit's protobufs) over in base64."""
    data = frame["payloadData"]
    return len(data.encode()) if frame.get("opcode") == 1 else len(base64.b64decode(data))


def load(browser, device: dict, url: str) -> dict[str, int]:
    """{request URL: encoded bytes received} for one fresh load of `url`, every chart drawn."""
    context = browser.new_context(**device)
    page = context.new_page()
    cdp = context.new_cdp_session(page)
    cdp.send("Network.enable")
    urls, sizes = {}, {}
    cdp.on("Network.requestWillBeSent", lambda e: urls.__setitem__(e["requestId"], e["request"]["url"]))
    cdp.on("Network.loadingFinished", lambda e: sizes.__setitem__(e["requestId"], e["encodedDataLength"]))
    cdp.on("Network.webSocketFrameReceived",
           lambda e: sizes.__setitem__(f"ws{len(sizes)}", _frame_bytes(e["response"])))
    page.goto(url)
    bh.assert_ready_without_exception(page)
    out: dict[str, int] = {}
    for rid, n in sizes.items():
        key = urls.get(rid, "websocket frames")
        out[key] = out.get(key, 0) + n
    context.close()
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--device", default="iPhone 13", help="a Playwright device profile (default iPhone 13)")
    parser.add_argument("--path", default="/", help="the page (default the Overview)")
    parser.add_argument("--direct", action="store_true", help="to the app itself, without nginx")
    parser.add_argument("--top", type=int, default=12, help="how many of the largest responses to list")
    args = parser.parse_args()

    logs = Path(tempfile.mkdtemp(prefix="bench_wire-"))
    with sync_playwright() as pw, ExitStack() as servers:
        browser = bh.launch_chromium(pw)
        app = servers.enter_context(bh.streamlit_server(bh.REPO_ROOT / "app.py", logs / "app.log"))
        url = app if args.direct else servers.enter_context(bh.shipped_nginx([app], logs / "nginx"))
        load(browser, pw.devices[args.device], url + args.path)  # the server warm: first runs build caches
        sizes = load(browser, pw.devices[args.device], url + args.path)
        browser.close()

    total = sum(sizes.values())
    verdict = "met" if total <= GOAL else "MISSED"
    print(f"{args.path} on {args.device} {'direct' if args.direct else 'through nginx'}: "
          f"{total / 1e6:.2f} MB in {len(sizes)} responses (goal ≤ {GOAL / 1e6:g} MB: {verdict})")
    for name, n in sorted(sizes.items(), key=lambda kv: -kv[1])[:args.top]:
        print(f"  {n / 1e3:9.1f} kB  {name.rsplit('/', 1)[-1][:70]}")


if __name__ == "__main__":
    main()
