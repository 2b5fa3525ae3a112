#!/usr/bin/env bash
# The browser suite, several times in a row, while every core is kept busy by a spinning
# process: a browser test that passes only on an idle machine fails here.
#   ./scripts/loaded-browser-runs.sh [runs, default 3] [pytest args...]
# Uses the .venv that ./scripts/test.sh makes. Prints each run's summary line; exits 1 if any
# run failed or passed nothing, 2 on a bad argument.
set -uo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

runs="${1:-3}"
if ! [[ "$runs" =~ ^[1-9][0-9]*$ ]]; then
  echo "usage: $0 [runs (a whole number, at least 1)] [pytest args...]" >&2
  exit 2
fi
shift $(( $# > 0 ? 1 : 0 ))
busy=()
pytest_pid=""
stop() {
  [ -n "$pytest_pid" ] && kill "$pytest_pid" 2>/dev/null
  kill "${busy[@]}" 2>/dev/null
}
trap stop EXIT
trap 'exit 130' INT TERM
[ -x .venv/bin/python ] || { echo "no .venv: run scripts/test.sh once first" >&2; exit 2; }
for _ in $(seq "$(nproc)"); do
  .venv/bin/python -c "while True: pass" &
  busy+=("$!")
done
echo "loaded: ${#busy[@]} spinning processes (${busy[*]}) on $(nproc) cores"

failed=0
for i in $(seq "$runs"); do
  log="$(mktemp -t loaded-run-"$i"-XXXX.log)"
  start=$SECONDS
  .venv/bin/python -m pytest tests/browser -q -p no:cacheprovider "$@" >"$log" 2>&1 &
  pytest_pid=$!
  wait "$pytest_pid"
  rc=$?
  pytest_pid=""
  summary="$(tail -n 1 "$log")"
  echo "run $i/$runs: exit $rc in $((SECONDS - start)) s: $summary  (log: $log)"
  if [ "$rc" -ne 0 ] || [[ "$summary" != *passed* ]]; then
    failed=1
    grep -E "^(FAILED|ERROR) " "$log" || true
  fi
done
exit "$failed"
