#!/bin/bash
# The suite on an oversubscribed machine (docs/BENCHMARKS.md "The test suite"): 8 busy processes
# on the machine's cores while `make test` runs RUNS times in a row (default 3), stopping at the
# first failure. Run it on a fresh clone: `sh .ci/oversubscribed.sh`.
set -u
cd "$(dirname "$0")/.." || exit 1
runs=${RUNS:-3}
pids=""
for _ in $(seq 8); do nice -n 5 sh -c 'while :; do :; done' & pids="$pids $!"; done
trap 'kill $pids 2>/dev/null' EXIT
for n in $(seq "$runs"); do
  s=$(date +%s)
  GOFLAGS=-count=1 make test > "/tmp/oversubscribed-$n.log" 2>&1
  rc=$?
  echo "run $n: rc=$rc wall=$(( $(date +%s) - s ))s load=$(cut -d' ' -f1-3 /proc/loadavg) (log /tmp/oversubscribed-$n.log)"
  [ $rc -ne 0 ] && exit $rc
done
