#!/usr/bin/env bash
# tune-h200.sh — issue 13 on the H200 in two phases, each one call of the device tool:
#
#   scripts/tune-h200.sh train [BIN_DIR]     `tilekit tune` over the TRAINING shapes (f32 and
#        bf16, all four ops) into a fresh cache folder; the cache file is what
#        src/core/tune_tables/nvidia-h200.json ships (copy it there and rebuild). About 55
#        minutes in all: split it over calls with DTYPES (default "f32 bf16"), TRAIN_OPS
#        (default NN,NT,TN,TT), TRAIN_SIZES (shapes, or one set's name such as TRAIN_GRID;
#        default: every set), COMPUTE (compute modes, e.g. "tf32,f32_3xtf32" with DTYPES=f32;
#        default: the tuner's, f32 for f32 and bf16 for 16-bit inputs) and LIMIT (seconds before
#        the tuner is interrupted, keeping what finished), carrying the cache folder along as
#        CACHE_FROM. KERNELS (globs, comma-separated) measures only those kernels
#        (`tilekit tune --kernels`): new kernels and the table's choices as anchors, for
#        `scripts/merge-tune-tables.py --anchored` (docs/tuning.md, "Adding kernels to the
#        shipped table").
#   scripts/tune-h200.sh evaluate DTYPE [BIN_DIR]   `tilekit tune --evaluate` over the EVALUATION
#        shapes (none of them in the training set) with an empty cache folder, so kernel "auto"
#        decides from the shipped table: auto against the fastest own kernel, same run. COMPUTE
#        (one mode, e.g. tf32 or f32_3xtf32 for DTYPE f32) evaluates that mode. OPS
#        (default "NN NT TN TT") runs a subset, so the run fits the device tool's 10-minute calls.
#        PIN_CORE: a CPU core to run it on (taskset). The selection's cost per call is a host CPU
#        figure, and the H200 machine's cores ran it up to 1.9x apart (other work shares them);
#        PIN_CORE=$(scripts/quietest-core.sh) starts on the least slowed one (the other work
#        moves, so some rows still run at half speed: their repeated calls show it).
#
# BIN_DIR defaults to build/bin. Logs, the cache and the JSON rows go to $OUT (or ./tune-logs).
set -uo pipefail
PHASE=${1:?usage: tune-h200.sh train|evaluate [DTYPE] [BIN_DIR]}
shift
LOGS=${OUT:-tune-logs}
mkdir -p "$LOGS"

# Training: squares at every half power of two from 256 to 8192 (the selector scales the
# candidates' times of the nearest shapes, so it needs them between the powers of two too), odd
# squares and odd shapes (another class: ld not in 16-byte units), skinny, wide, k-heavy and
# k-light shapes. None is an evaluation shape.
TRAIN="256,384,512,768,1024,1408,2048,2816,4096,8192,255,513,769,1025,2049,3073,4097,\
64x4096x4096,4096x64x4096,8x8192x2048,1x4096x4096,256x8192x8192,8192x8192x256,4096x4096x64,\
2048x2048x256,128x128x16384,512x512x8192,1024x1024x4096,1024x4096x1024,4096x1024x2048,\
63x4097x4097,4097x4097x63,257x257x8193,4097x1025x2049"
# Training, added after the first evaluation (see docs/results.md): sizes that are multiples of
# 8 but not of 16, where the cp.async steps leave their fast path; their own training call.
TRAIN_NOT16="600,1000,1720,2360,3400,5000,200x3000x3000,3000x3000x200,1000x1000x7000"
# Training, added after the ensemble's evaluation (docs/results.md): a coarse grid between the
# others, since auto's accuracy grew with the table's density in the offline replay
# (scripts/tune-replay.py on half the table: bf16 38 -> 33 of 48). Squares at the half powers
# past 4096; sizes that are multiples of 4 but not of 8 (rows not in 16-byte units for bf16:
# that class had 11 or 12 shapes an op, and 4 of bf16's 5 misses fell in it), squares and
# rectangles of them; wide, skinny, k-heavy and k-light aligned rectangles. None is an
# evaluation shape.
TRAIN_GRID="5792,11584,452,1156,2892,5788,6145,452x2892x1156,2892x452x8188,1156x8188x452,\
8188x1156x2892,116x8188x2892,8188x116x2892,2892x2892x116,116x116x16388,1024x8192x2048,\
8192x1024x1024,2048x2048x8192,32x8192x4096,8192x32x4096,6144x6144x128"
# Evaluation, per ops (48 shapes a type): squares from 200 to 12000 with primes, skinny, k-heavy,
# wide and odd shapes; none is a training shape, and none was in the first evaluation set
# (the set of commit 1d08643's script), whose every kernel time the tile model's design saw.
EVAL_NN="216,700,1009,1800,2500,3300,4800,6500,9500,80x5000x5000,5000x5000x80,2000x6000x1500"
EVAL_NT="320,888,1300,2200,3700,5200,7100,10500,3x9000x3000,400x400x16000,7000x200x3000,\
1500x1500x500"
EVAL_TN="500,1100,1601,2700,4400,6007,8500,11500,48x8000x8000,8000x8000x48,900x3000x9000,\
2048x512x512"
EVAL_TT="650,1250,2100,3301,3900,6200,9100,100x100x30000,6x10000x4000,6000x1000x1000,\
1300x2600x700,2400x2400x64"

case "$PHASE" in
  train)
    BIN=${1:-build/bin}
    # CACHE_FROM: a cache folder of an earlier (partial) call to add to; the tuner merges.
    export TILEKIT_CACHE_DIR="$LOGS/cache"
    rm -rf "$TILEKIT_CACHE_DIR" && mkdir -p "$TILEKIT_CACHE_DIR"
    [ -n "${CACHE_FROM:-}" ] && cp "$CACHE_FROM"/*.json "$TILEKIT_CACHE_DIR"/
    for dtype in ${DTYPES:-f32 bf16}; do
      ops=${TRAIN_OPS:-NN,NT,TN,TT}
      sizes=${TRAIN_SIZES:-$TRAIN,$TRAIN_NOT16,$TRAIN_GRID}
      [[ $sizes =~ ^TRAIN[A-Z0-9_]*$ ]] && sizes=${!sizes}  # a set by name: TRAIN_SIZES=TRAIN_GRID
      echo "== tilekit tune --dtype $dtype${COMPUTE:+ --compute $COMPUTE} --ops $ops --sizes $sizes --budget 3000${KERNELS:+ --kernels $KERNELS}"
      # LIMIT: seconds before an interrupt (the tuner keeps every finished shape), so that a
      # call ends inside the device tool's 10 minutes with its cache written.
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
