#!/usr/bin/env bash
# The browser suite, several times in a row, while every core is kept busy by a spinning
# process: a browser test that passes only on an idle machine fails here.
#   ./scripts/loaded-browser-runs.sh [runs, default 3] [pytest args...]
# Uses the .venv that ./scripts/test.sh makes. Prints each run's summary line; exits 1 if any failed.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

runs="${1:-3}"
shift $(( $# > 0 ? 1 : 0 ))
busy=()
trap 'kill "${busy[@]}" 2>/dev/null' EXIT
for _ in $(seq "$(nproc)"); do
  .venv/bin/python -c "while True: pass" &
  busy+=("$!")
done
echo "loaded: ${#busy[@]} spinning processes (${busy[*]}) on $(nproc) cores"

failed=0
for i in $(seq "$runs"); do
  log="$(mktemp -t loaded-run-"$i"-XXXX.log)"
  start=$SECONDS
  .venv/bin/python -m pytest tests/browser -q -p no:cacheprovider "$@" >"$log" 2>&1
  rc=$?
  echo "run $i/$runs: exit $rc in $((SECONDS - start)) s: $(tail -n 1 "$log")  (log: $log)"
  if [ "$rc" -ne 0 ]; then
    failed=1
    grep -E "^(FAILED|ERROR) " "$log" || true
  fi
done
exit "$failed"
