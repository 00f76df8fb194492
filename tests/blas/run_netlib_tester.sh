#!/usr/bin/env bash
# run_netlib_tester.sh — runs a netlib level-3 BLAS tester of Debian's libblas-test (xblat3s: the
# Fortran interface; xscblat3: CBLAS) with libtilekit_blas preloaded over the reference BLAS, for
# SGEMM only, and decides from its output whether it passed:
#   - the tester exited 0 and printed "END OF TESTS";
#   - every SGEMM verdict it prints is there (error exits, and the computational tests: once for
#     Fortran, column- and row-major for CBLAS) and says PASSED; no line says FAIL, SUSPECT or
#     FATAL, or carries the tester's "******" alarm;
#   - libtilekit_blas itself served the calls (TILEKIT_BLAS_LOG=1 prints its counters at exit):
#     at least as many sgemm_ / cblas_sgemm calls as the tester reports, the argument errors
#     reported by tilekit, none failed; with --gpu every product ran on the GPU, else on the CPU.
#
#   run_netlib_tester.sh fortran|cblas LIBTILEKIT_BLAS TESTER_DIR [--gpu]
#   run_netlib_tester.sh --check fortran|cblas LOGFILE [--gpu]    (the verdict on a saved log)
#   run_netlib_tester.sh --self-test SAMPLES_DIR                  (the verdicts on known logs)
#
# TESTER_DIR holds xblat3s, xscblat3, sblat3.in, sin3 and the reference libblas.so.3 (with its
# CBLAS): /usr/lib/x86_64-linux-gnu/blas on Debian, or a folder made by
# scripts/maintainer/pack-blas-gpu-tools.sh. Exit 0 pass, 1 fail, 2 bad usage or a missing tester.
set -uo pipefail

fail() { echo "netlib-tester: FAIL: $*"; return 1; }

# check KIND LOG GPU: the verdict on a tester's combined output (stdout, stderr, summary file).
check() {
  local kind=$1 log=$2 gpu=$3 calls served
  local -a verdicts
  if [ "$kind" = fortran ]; then
    verdicts=("SGEMM  PASSED THE TESTS OF ERROR-EXITS" "SGEMM  PASSED THE COMPUTATIONAL TESTS")
  else
    verdicts=("cblas_sgemm  PASSED THE TESTS OF ERROR-EXITS"
              "cblas_sgemm  PASSED THE COLUMN-MAJOR COMPUTATIONAL TESTS"
              "cblas_sgemm  PASSED THE ROW-MAJOR    COMPUTATIONAL TESTS")
  fi
  for v in "${verdicts[@]}"; do
    grep -qF " $v" "$log" || { fail "no line '$v' (SGEMM was not tested, or did not pass)"; return 1; }
  done
  grep -qF "END OF TESTS" "$log" || { fail "the tester did not reach END OF TESTS"; return 1; }
  if grep -nE 'FAIL|SUSPECT|FATAL|\*\*\*\*\*\*' "$log"; then
    fail "the tester reported the failures above"; return 1
  fi
  # Calls the tester counted in its computational tests, and what libtilekit_blas served.
  calls=$(grep -oE 'COMPUTATIONAL TESTS \( *[0-9]+ CALLS\)' "$log" | grep -oE '[0-9]+' |
          awk '{s += $1} END {print s + 0}')
  local summary
  summary=$(grep -E '^tilekit_blas: summary:' "$log" | tail -1)
  [ -n "$summary" ] || { fail "no 'tilekit_blas: summary' line: the library was not preloaded"; return 1; }
  field() { sed -nE "s/.*[ |]$1 ([0-9]+).*/\1/p" <<<"$summary"; }
  served=$([ "$kind" = fortran ] && field sgemm_ || field cblas_sgemm)
  echo "netlib-tester: tester counted $calls computational calls; $summary"
  [ "$calls" -gt 0 ] || { fail "the tester ran no SGEMM calls"; return 1; }
  [ "${served:-0}" -ge "$calls" ] || { fail "libtilekit_blas served ${served:-0} calls, fewer than the tester's $calls"; return 1; }
  [ "$(field errors)" -gt 0 ] || { fail "no argument error went through libtilekit_blas"; return 1; }
  [ "$(field failed)" -eq 0 ] || { fail "libtilekit_blas reported failed calls"; return 1; }
  if [ "$gpu" = 1 ]; then
    [ "$(field gpu)" -gt 0 ] && [ "$(field cpu)" -eq 0 ] ||
      { fail "with the GPU forced, products ran on the CPU (or none on the GPU)"; return 1; }
  else
    [ "$(field cpu)" -gt 0 ] && [ "$(field gpu)" -eq 0 ] ||
      { fail "expected every product on the CPU"; return 1; }
  fi
  echo "netlib-tester: PASS ($kind, $([ "$gpu" = 1 ] && echo GPU || echo CPU))"
}

# The checker must reject each way a run can go wrong: derived from a passing log.
self_test() {
  local dir=$1 tmp rc=0
  tmp=$(mktemp -d)
  trap 'rm -rf "$tmp"' RETURN
  expect() {  # expect pass|fail KIND FILE GPU WHAT
    local want=$1 got
    if check "$2" "$3" "$4" >"$tmp/out" 2>&1; then got=pass; else got=fail; fi
    if [ "$got" = "$want" ]; then echo "self-test ok: $5 -> $got"
    else echo "self-test WRONG: $5 -> $got, expected $want"; cat "$tmp/out"; rc=1; fi
  }
  local f=$dir/fortran_pass.log c=$dir/cblas_pass.log
  expect pass fortran "$f" 0 "Fortran, passing"
  expect pass cblas "$c" 0 "CBLAS, passing"
  sed 's/SGEMM  PASSED THE COMPUTATIONAL/SGEMM  FAILED THE COMPUTATIONAL/' "$f" >"$tmp/1"
  expect fail fortran "$tmp/1" 0 "Fortran, computational tests failed"
  sed '/cblas_sgemm  PASSED THE ROW-MAJOR/d' "$c" >"$tmp/2"
  expect fail cblas "$tmp/2" 0 "CBLAS, row-major verdict missing"
  sed 's/^ SGEMM  T PUT/ SGEMM  F PUT/; s/SGEMM  PASSED.*/SGEMM  WAS NOT TESTED/' "$f" >"$tmp/3"
  expect fail fortran "$tmp/3" 0 "Fortran, SGEMM not tested"
  printf ' ******* FATAL ERROR - TESTS ABANDONED *******\n' | cat "$f" - >"$tmp/4"
  expect fail fortran "$tmp/4" 0 "Fortran, fatal error line"
  sed '/^tilekit_blas: summary/d' "$f" >"$tmp/5"
  expect fail fortran "$tmp/5" 0 "Fortran, library not preloaded"
  sed -E 's/sgemm_ [0-9]+/sgemm_ 12/' "$f" >"$tmp/6"
  expect fail fortran "$tmp/6" 0 "Fortran, calls served by another BLAS"
  expect fail fortran "$f" 1 "Fortran, GPU expected but all on the CPU"
  sed -E 's/failed 0/failed 3/' "$c" >"$tmp/7"
  expect fail cblas "$tmp/7" 0 "CBLAS, failed calls"
  sed '/END OF TESTS/d' "$c" >"$tmp/8"
  expect fail cblas "$tmp/8" 0 "CBLAS, tester stopped early"
  return $rc
}

run() {
  local kind=$1 lib=$2 dir=$3 gpu=$4 tester input work rc
  if [ "$kind" = fortran ]; then tester=xblat3s; input=sblat3.in; else tester=xscblat3; input=sin3; fi
  for f in "$dir/$tester" "$dir/$input" "$dir/libblas.so.3"; do
    [ -e "$f" ] || { echo "netlib-tester: $f is missing: install Debian's libblas-test and libblas3 (scripts/setup.sh)"; return 2; }
  done
  [ -e "$lib" ] || { echo "netlib-tester: $lib is missing (build tilekit_blas)"; return 2; }
  lib=$(realpath "$lib"); dir=$(realpath "$dir")  # the tester runs in a folder of its own
  work=$(mktemp -d)
  trap 'rm -rf "$work"' RETURN
  # The package's parameters, with every routine but SGEMM switched off: the others are the
  # reference BLAS's own code, which libtilekit_blas does not replace.
  sed -E '/^(S|cblas_s)(SYMM|TRMM|TRSM|SYRK|SYR2K|symm|trmm|trsm|syrk|syr2k) /s/ T / F /' \
    "$dir/$input" >"$work/input"
  local -a env=(TILEKIT_BLAS_LOG=1 "LD_LIBRARY_PATH=$dir${LD_LIBRARY_PATH:+:$LD_LIBRARY_PATH}"
                "LD_PRELOAD=$lib")
  if [ "$gpu" = 1 ]; then env+=(TILEKIT_BLAS_DEVICE=gpu TILEKIT_BLAS_MIN_FLOPS=0)
  else env+=(TILEKIT_BLAS_DEVICE=cpu); fi
  echo "netlib-tester: (cd $work && env ${env[*]} $dir/$tester < input)"
  (cd "$work" && env "${env[@]}" "$dir/$tester" <"$work/input" >"$work/log" 2>&1)
  rc=$?
  [ -f "$work/sblat3.out" ] && cat "$work/sblat3.out" >>"$work/log"  # Fortran's summary file
  cat "$work/log"
  [ "$rc" -eq 0 ] || { fail "$tester exited with $rc"; return 1; }
  check "$kind" "$work/log" "$gpu"
}

case "${1:-}" in
  --self-test) self_test "$2" ;;
  --check) check "$2" "$3" "$([ "${4:-}" = --gpu ] && echo 1 || echo 0)" ;;
  fortran|cblas)
    [ $# -ge 3 ] || { echo "usage: $0 fortran|cblas LIB TESTER_DIR [--gpu]"; exit 2; }
    run "$1" "$2" "$3" "$([ "${4:-}" = --gpu ] && echo 1 || echo 0)" ;;
  *) sed -n '2,22p' "$0"; exit 2 ;;
esac
