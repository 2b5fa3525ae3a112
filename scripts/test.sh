#!/usr/bin/env bash
# The project's one test command: ./scripts/test.sh [pytest args...]
# Makes .venv, installs requirements-dev.txt, finds or installs a Chromium, runs pytest.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

say() { echo "test.sh: $*"; }

# Root, or passwordless sudo, for apt-get.
SUDO=""
CAN_APT=false
if command -v apt-get >/dev/null; then
  if [ "$(id -u)" = 0 ]; then CAN_APT=true
  elif command -v sudo >/dev/null && sudo -n true 2>/dev/null; then SUDO="sudo -n"; CAN_APT=true
  fi
fi
APT_UPDATED=false
apt_install() {
  if ! $APT_UPDATED; then $SUDO apt-get update -qq </dev/null; APT_UPDATED=true; fi
  $SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "$@" </dev/null >/dev/null
}

# 1. Virtual environment.
if [ ! -x .venv/bin/python ]; then
  say "creating .venv"
  if ! python3 -m venv .venv; then
    rm -rf .venv
    if $CAN_APT; then
      say "installing python3-venv"
      apt_install python3-venv
      python3 -m venv .venv
    else
      echo "test.sh: 'python3 -m venv' failed; install python3-venv (e.g. sudo apt-get install python3-venv)" >&2
      exit 1
    fi
  fi
fi
say "installing requirements-dev.txt"
.venv/bin/python -m pip install -q --disable-pip-version-check -r requirements-dev.txt
.venv/bin/python -m publish.plotly_js  # the charts' plotly.js bundle (the full one if this cannot fetch it)

# 2. A Chromium for the browser tests (Debian's, when we can; Playwright's download otherwise).
find_chromium() {
  if [ -n "${CHROMIUM:-}" ] && [ -x "$CHROMIUM" ]; then echo "$CHROMIUM"; return; fi
  for c in /usr/bin/chromium chromium chromium-browser google-chrome; do
    if command -v "$c" >/dev/null; then command -v "$c"; return; fi
  done
}
CHROMIUM="$(find_chromium || true)"
if [ -z "$CHROMIUM" ] && $CAN_APT; then
  say "installing Debian's chromium"
  apt_install chromium fonts-noto-cjk || say "apt-get could not install chromium"
  CHROMIUM="$(find_chromium || true)"
fi
if [ -z "$CHROMIUM" ]; then
  say "no system Chromium; using Playwright's"
  if $CAN_APT; then .venv/bin/python -m playwright install --with-deps chromium
  else .venv/bin/python -m playwright install chromium; fi
fi
# Korean labels need a CJK font in screenshots.
if ! { fc-list :lang=ko 2>/dev/null | grep -q . || dpkg -s fonts-noto-cjk >/dev/null 2>&1; }; then
  if $CAN_APT; then say "installing fonts-noto-cjk"; apt_install fonts-noto-cjk || say "apt-get could not install fonts-noto-cjk"
  else say "note: no Korean font (fonts-noto-cjk); screenshots show boxes for Hangul"; fi
fi
# nginx for the proxy test (tests/browser/test_proxy_browser.py); it skips without one.
if ! command -v nginx >/dev/null && [ ! -x /usr/sbin/nginx ]; then
  if $CAN_APT; then say "installing nginx"; apt_install nginx || say "apt-get could not install nginx"
  else say "note: no nginx; the proxy test is skipped"; fi
fi
export CHROMIUM
say "chromium: ${CHROMIUM:-Playwright download}"

# 3. The tests: two workers (pytest-xdist), each test file on one of them, so a file's tests share
# its server and browser; $PYTEST_WORKERS changes the count (0: one process).
exec .venv/bin/python -m pytest -n "${PYTEST_WORKERS:-2}" --dist loadfile "$@"
