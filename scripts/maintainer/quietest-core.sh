#!/usr/bin/env bash
# quietest-core.sh — which CPU core of this machine runs a fixed loop fastest: on a shared host
# (the H200 of docs/results.md) some cores run single-threaded code up to twice as slowly as
# others, other work sharing their physical cores, and the autotuner's per-call selection cost is
# such a figure. Prints each core's time for the loop (milliseconds, the best of three), then the
# fastest core's number alone on the last line, for PIN_CORE (tune-h200.sh evaluate).
#
#   scripts/maintainer/quietest-core.sh            # every core this process may run on
set -euo pipefail
command -v taskset >/dev/null || { echo "quietest-core.sh: taskset (util-linux) is needed" >&2; exit 1; }
probe() {  # milliseconds for 100000 iterations of a shell loop on core $1, best of three
  local best=""
  for _ in 1 2 3; do
    local t0 t1
    t0=$(date +%s%N)
    taskset -c "$1" bash -c 'i=0; while [ $i -lt 100000 ]; do i=$((i + 1)); done'
    t1=$(date +%s%N)
    local ms=$(( (t1 - t0) / 1000000 ))
    if [ -z "$best" ] || [ "$ms" -lt "$best" ]; then best=$ms; fi
  done
  echo "$best"
}
fastest="" fastest_ms=""
for core in $(taskset -pc $$ | sed 's/.*: //' | tr ',' ' '); do
  if [[ $core == *-* ]]; then cores=$(seq "${core%-*}" "${core#*-}"); else cores=$core; fi
  for c in $cores; do
    ms=$(probe "$c")
    echo "core $c: $ms ms" >&2
    if [ -z "$fastest_ms" ] || [ "$ms" -lt "$fastest_ms" ]; then fastest=$c fastest_ms=$ms; fi
  done
done
echo "$fastest"
