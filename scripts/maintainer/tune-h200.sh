#!/usr/bin/env bash
# tune-h200.sh — the autotuner on the H200 in two phases:
#
#   scripts/maintainer/tune-h200.sh train [BIN_DIR]
#        `tilekit tune` over the TRAINING shapes (f32 and bf16, all four ops) into a fresh
#        cache folder; the cache file is what
#        src/core/tune_tables/nvidia-h200.json ships (copy it there and rebuild). About 55
#        minutes in all: split it over runs with DTYPES (default "f32 bf16"), TRAIN_OPS
#        (default NN,NT,TN,TT), TRAIN_SIZES (shapes, or one set's name such as TRAIN_GRID;
#        default: every set), COMPUTE (compute modes, e.g. "tf32,f32_3xtf32" with DTYPES=f32;
#        default: the tuner's, f32 for f32 and bf16 for 16-bit inputs) and LIMIT (seconds before
#        the tuner is interrupted, keeping what finished), carrying the cache folder along as
#        CACHE_FROM. KERNELS (globs, comma-separated) measures only those kernels
#        (`tilekit tune --kernels`): new kernels and the table's choices as anchors, for
#        `scripts/maintainer/merge-tune-tables.py --anchored` (docs/tuning.md, "Adding kernels
#        to the shipped table").
#   scripts/maintainer/tune-h200.sh evaluate DTYPE [BIN_DIR]
#        `tilekit tune --evaluate` over the EVALUATION shapes (none of them in the training set)
#        with an empty cache folder, so kernel "auto"
#        decides from the shipped table: auto against the fastest own kernel, same run. COMPUTE
#        (one mode, e.g. tf32 or f32_3xtf32 for DTYPE f32) evaluates that mode. OPS
#        (default "NN NT TN TT") runs a subset, to split the run into shorter ones.
#        PIN_CORE: a CPU core to run it on (taskset). The selection's cost per call is a host CPU
#        figure, and on a shared host cores run it up to 1.9x apart (the H200's did: other work
#        shares them); PIN_CORE=$(scripts/maintainer/quietest-core.sh) starts on the least
#        slowed one (the other work moves, so some rows still run at half speed: their repeated
#        calls show it).
#
# BIN_DIR defaults to build/bin. Logs, the cache and the JSON rows go to $OUT (or ./tune-logs).
set -uo pipefail
PHASE=${1:?usage: tune-h200.sh train|evaluate [DTYPE] [BIN_DIR]}
shift
LOGS=${OUT:-tune-logs}
mkdir -p "$LOGS"

source "$(dirname "$0")/tune-shapes.sh"  # TRAIN*, EVAL_*

case "$PHASE" in
  train)
    BIN=${1:-build/bin}
    # CACHE_FROM: a cache folder of an earlier (partial) run to add to; the tuner merges.
    export TILEKIT_CACHE_DIR="$LOGS/cache"
    rm -rf "$TILEKIT_CACHE_DIR" && mkdir -p "$TILEKIT_CACHE_DIR"
    [ -n "${CACHE_FROM:-}" ] && cp "$CACHE_FROM"/*.json "$TILEKIT_CACHE_DIR"/
    for dtype in ${DTYPES:-f32 bf16}; do
      ops=${TRAIN_OPS:-NN,NT,TN,TT}
      sizes=${TRAIN_SIZES:-$TRAIN,$TRAIN_NOT16,$TRAIN_GRID,$TRAIN_SHORT}
      [[ $sizes =~ ^TRAIN[A-Z0-9_]*$ ]] && sizes=${!sizes}  # a set by name: TRAIN_SIZES=TRAIN_GRID
      echo "== tilekit tune --dtype $dtype${COMPUTE:+ --compute $COMPUTE} --ops $ops --sizes $sizes --budget 3000${KERNELS:+ --kernels $KERNELS}"
      # LIMIT: seconds before an interrupt (the tuner keeps every finished shape), so that a
      # run ends by a deadline with its cache written.
      log="$LOGS/tune-$dtype${COMPUTE:+-${COMPUTE//,/-}}.log"
      timeout -s INT "${LIMIT:-100000}" "$BIN/tilekit" tune --dtype "$dtype" --ops "$ops" \
        --sizes "$sizes" --budget 3000 ${KERNELS:+--kernels "$KERNELS"} \
        ${COMPUTE:+--compute "$COMPUTE"} >"$log" 2>&1 || echo "   (exit $?)"
      tail -2 "$log"
    done
    "$BIN/tilekit" tune --show >"$LOGS/show.log" 2>&1
    ls -l "$TILEKIT_CACHE_DIR"
    ;;
  evaluate)
    DTYPE=${1:?evaluate needs a DTYPE (f32 or bf16)}
    BIN=${2:-build/bin}
    # No cache, so that the shipped table decides; EVAL_CACHE: a cache folder to decide instead.
    export TILEKIT_CACHE_DIR="${EVAL_CACHE:-$LOGS/empty-cache}"
    [ -z "${EVAL_CACHE:-}" ] && rm -rf "$TILEKIT_CACHE_DIR" && mkdir -p "$TILEKIT_CACHE_DIR"
    pin=()
    [ -n "${PIN_CORE:-}" ] && pin=(taskset -c "$PIN_CORE") && echo "== pinned to core $PIN_CORE"
    mode=$DTYPE${COMPUTE:+-$COMPUTE}  # names the files: f32, f32-tf32, bf16
    for ops in ${OPS:-NN NT TN TT}; do  # OPS: a subset, to split the run over calls
      var=EVAL_$ops
      echo "== tilekit tune --evaluate --dtype $DTYPE${COMPUTE:+ --compute $COMPUTE} --ops $ops --sizes ${!var}"
      "${pin[@]}" "$BIN/tilekit" tune --evaluate --dtype "$DTYPE" ${COMPUTE:+--compute "$COMPUTE"} \
        --ops "$ops" --sizes "${!var}" --json "$LOGS/evaluate-$mode-$ops.json" \
        >"$LOGS/evaluate-$mode-$ops.log" 2>&1 || echo "   (exit $?)"
      tail -1 "$LOGS/evaluate-$mode-$ops.log"
    done
    # One summary over the four ops.
    python3 - "$LOGS" "$mode" <<'PY'
import glob, json, re, sys
logs, dtype = sys.argv[1], sys.argv[2]
rows = []
for f in sorted(glob.glob(f"{logs}/evaluate-{dtype}-*.json")):
    if not re.fullmatch(r"(NN|NT|TN|TT)\.json", f[len(f"{logs}/evaluate-{dtype}-"):]):
        continue  # evaluate-f32-tf32-NN.json is not f32's
    rows += [r for r in json.load(open(f))["rows"] if r["auto_s"] > 0 and r["best_s"] > 0]
if not rows:
    sys.exit("no rows")
within = sum(r["ratio"] <= 1.05 for r in rows)
within13 = sum(r["ratio"] <= 1.3 for r in rows)
worst = max(rows, key=lambda r: r["ratio"])
select = max(r["select_us"] for r in rows)
search = max(r.get("select_search_us", 0) for r in rows)
explain = max(r.get("select_explain_us", 0) for r in rows)
print(f"{dtype}: {len(rows)} shapes; auto within 1.05x of the fastest own kernel on {within} "
      f"({100 * within / len(rows):.1f}%), within 1.3x on {within13}; worst {worst['ratio']:.3f}x "
      f"at {worst['ops']} {worst['m']}x{worst['n']}x{worst['k']}; selection at most {select:.2f} us ({search:.2f} us searching, "
      f"{explain:.2f} us with the explanation)")
# The sweep's own ratios (one block of samples per row), for comparison with the paired ones.
sweep = [r["sweep_auto_s"] / r["sweep_best_s"] for r in rows if r.get("sweep_best_s", 0) > 0]
if sweep:
    print(f"{dtype} in the sweep alone: within 1.05x on {sum(x <= 1.05 for x in sweep)}, within 1.3x "
          f"on {sum(x <= 1.3 for x in sweep)}; worst {max(sweep):.3f}x")
PY
    ;;
  *) echo "unknown phase $PHASE" >&2; exit 2 ;;
esac
