#!/usr/bin/env bash
# Times the test command cold, as issue 14's budget is stated: a fresh clone
# of HEAD, an empty ccache, XFFI_JOBS=2. Prints each stage's start (seconds
# since the start) and the CPU seconds the command's children had used by
# then (user + sys, from /proc/PID/stat), then the exit code and the total.
# Run it on an otherwise idle machine; the figures go in bench/README.md
# ("Build and test-command time").
#   scripts/time_test_command.sh [WORKDIR]   (default: a new directory in /tmp)
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
work=${1:-$(mktemp -d /tmp/xffi-cold.XXXXXX)}
[ -e "$work/clone" ] && { echo "$work/clone exists; give an empty WORKDIR" >&2; exit 2; }
git clone -q "$root" "$work/clone"
export CCACHE_DIR="$work/ccache"  # empty: every compile is a miss
cd "$work/clone"
echo "timing $(git log --oneline -1) in $work (log: $work/test.log)"
start=$(date +%s)
XFFI_JOBS=2 scripts/test.sh > "$work/test.log" 2>&1 &
pid=$!
last=""
while kill -0 "$pid" 2>/dev/null; do
  line=$(grep '^== ' "$work/test.log" | tail -n 1 || true)
  if [ -n "$line" ] && [ "$line" != "$last" ]; then
    read -r cutime cstime < <(awk '{print $16, $17}' "/proc/$pid/stat" 2>/dev/null || echo "0 0")
    ticks=$(getconf CLK_TCK)
    echo "$(( $(date +%s) - start )) s, children's CPU $(( (cutime + cstime) / ticks )) s :: $line"
    last=$line
  fi
  sleep 2
done
rc=0
wait "$pid" || rc=$?
echo "exit $rc after $(( $(date +%s) - start )) s"
exit "$rc"
