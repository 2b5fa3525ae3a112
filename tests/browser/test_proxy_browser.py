"""Scale-out through nginx: deploy/nginx.conf as shipped, in front of as many `streamlit run`
processes as it lists, on loopback ports. Through the proxy the health check answers, and in two
browsers at once the Overview draws and a context step changes the read total; each browser's
requests, its websocket included, reach one process, and browsers spread over all of them.

nginx comes from apt when it is missing and the test runs as root (scripts/test.sh installs it
too, with sudo when it has to).
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import time
import urllib.request
from contextlib import ExitStack
from pathlib import Path

import pytest

pytest.importorskip("playwright.sync_api", reason="playwright is not installed (scripts/test.sh installs it)")
from playwright.sync_api import expect  # noqa: E402

import browser_harness  # noqa: E402
from browser_harness import (  # noqa: E402
    assert_ready_without_exception,
    context_slider,
    read_metric,
    shipped_servers,
)

pytestmark = [pytest.mark.browser, pytest.mark.slow]

ROUTE_COOKIE = "kvatlas_route"
# deploy/nginx.conf's log_format kv_atlas
ACCESS = re.compile(r'"(?P<method>\S+) (?P<path>\S+) [^"]*" (?P<status>\d{3}) .* upstream=(?P<upstream>.*) '
                    r"route=(?P<route>\S+)$")


@pytest.fixture(scope="module")
def nginx_bin():
    found = browser_harness.find_nginx()
    if found:
        return found
    if os.geteuid() != 0 or not shutil.which("apt-get"):
        pytest.skip("nginx is not installed, and installing it needs root and apt-get (scripts/test.sh does it)")
    env = {**os.environ, "DEBIAN_FRONTEND": "noninteractive"}
    for cmd in (["apt-get", "update", "-qq"], ["apt-get", "install", "-y", "-qq", "--no-install-recommends", "nginx"]):
        done = subprocess.run(cmd, env=env, stdin=subprocess.DEVNULL, capture_output=True, text=True, timeout=600)
        if done.returncode:
            pytest.skip(f"nginx is not installed and `{' '.join(cmd)}` failed: {done.stderr.strip()[-500:]}")
    return browser_harness.find_nginx() or pytest.skip("apt-get installed nginx, but no nginx on PATH or in /usr/sbin")


def fetch(url: str, cookie: str | None = None) -> str:
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    with urllib.request.urlopen(request, timeout=10) as response:
        return response.read().decode()


def access_entries(log: Path) -> list[re.Match]:
    return [m for line in log.read_text(errors="replace").splitlines() if (m := ACCESS.search(line))]


def assert_overview_steps(page, url: str) -> None:
    page.goto(f"{url}/")
    assert_ready_without_exception(page)
    value = read_metric(page)
    before = value.inner_text()
    thumb = context_slider(page).get_by_role("slider")
    thumb.focus()
    thumb.press("ArrowLeft")
    expect(value).not_to_have_text(before)
    assert_ready_without_exception(page)


def test_two_browsers_through_the_shipped_nginx_config_each_stay_on_one_process(nginx_bin, browser, tmp_path):
    shipped = browser_harness.SHIPPED_NGINX.read_text()
    log = tmp_path / "nginx.log"
    with ExitStack() as servers:
        apps = [servers.enter_context(browser_harness.streamlit_server(browser_harness.REPO_ROOT / "app.py",
                                                                       tmp_path / f"app{i}.log"))
                for i in range(len(shipped_servers(shipped)))]
        app_ports = [int(url.rsplit(":", 1)[1]) for url in apps]
        upstreams = {f"127.0.0.1:{p}" for p in app_ports}  # as nginx logs them
        proxy = servers.enter_context(browser_harness.shipped_nginx(apps, tmp_path))  # its log: tmp_path/nginx.log

        assert fetch(f"{proxy}/_stcore/health") == "ok"
        for i in range(20):  # as many browsers, by their route cookies
            fetch(f"{proxy}/", cookie=f"{ROUTE_COOKIE}=probe{i}")

        routes = []
        with ExitStack() as contexts:
            for _ in range(2):  # both open at once
                context = browser.new_context(viewport={"width": 1400, "height": 1000}, locale="ko-KR")
                contexts.callback(context.close)
                context.set_default_timeout(30_000)
                assert_overview_steps(context.new_page(), proxy)
                routes += [c["value"] for c in context.cookies() if c["name"] == ROUTE_COOKIE]
        assert len(set(routes)) == 2, f"each browser gets its own route cookie: {routes}"

        # A websocket is logged when it closes: wait for both.
        deadline = time.monotonic() + 60  # a deadline for the state, not a wait
        while {m["route"] for m in access_entries(log) if m["path"].startswith("/_stcore/stream")} < set(routes):
            assert time.monotonic() < deadline, f"no websocket in the access log for {routes}:\n{log.read_text()}"
            time.sleep(0.2)

    entries = access_entries(log)
    refused = [m[0] for m in entries if m["status"] == "429" or m["status"] >= "500"]
    assert not refused, "requests refused or failed through the proxy:\n" + "\n".join(refused)
    probed = {m["upstream"] for m in entries if m["route"].startswith("probe")}
    assert probed == upstreams, f"20 browsers reached {probed}, not every process {upstreams}"
    for route in routes:
        served_by = {m["upstream"] for m in entries if m["route"] == route}
        assert len(served_by) == 1 and served_by <= upstreams, f"browser {route} was served by {served_by}"
