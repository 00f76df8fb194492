#!/usr/bin/env python3
"""The Python binding's overhead: tilekit.gemm against the same GEMM called from C++.

    scripts/maintainer/python_overhead.py --cpp BUILD/python/tilekit_gemm_call_time [--n 64] [--large 4096]

Both sides run an N×N×N float32 row-major GEMM (kernel auto) on the legacy default stream, in
21 batches of CALLS calls enqueued back to back (the first batch a warm-up), and report medians:
  host µs/call        the batch's host time / CALLS, no synchronisation inside: what a call costs
                      the CPU (for a small GEMM, the launch path);
  end-to-end µs/call  (batch + one synchronisation) / CALLS.
The Python side uses torch CUDA tensors on a GPU, else NumPy on the CPU backend (the C++ side
follows: GPU when there is one). The overhead is Python's host time minus C++'s, target ≤ 10 µs;
the large size compares end-to-end times (target: the C++ speed). The last lines are a summary;
--json FILE writes the figures.
"""

import argparse
import json
import statistics
import subprocess
import sys
import time

import tilekit

TARGET_US = 10.0


def torch_cuda():
    try:
        import torch
    except ImportError:
        return None
    return torch if torch.cuda.is_available() and tilekit.built_with_cuda() else None


def operands(torch, n, seed=1):
    if torch is not None:
        g = torch.Generator(device="cuda").manual_seed(seed)
        a, b = (torch.rand(n, n, device="cuda", generator=g) for _ in range(2))
        return a, b, torch.empty(n, n, device="cuda"), torch.cuda.synchronize
    import numpy as np
    rng = np.random.default_rng(seed)
    a, b = (rng.random((n, n), dtype=np.float32) for _ in range(2))
    return a, b, np.empty((n, n), np.float32), lambda: None


def time_calls(call, sync, calls, batches=21):
    """(median host µs/call, median end-to-end µs/call) over batches after the first."""
    host, e2e = [], []
    for batch in range(batches):
        sync()
        t0 = time.perf_counter()
        for _ in range(calls):
            call()
        t1 = time.perf_counter()
        sync()
        t2 = time.perf_counter()
        if batch:
            host.append((t1 - t0) / calls * 1e6)
            e2e.append((t2 - t0) / calls * 1e6)
    return statistics.median(host), statistics.median(e2e)


def run_cpp(path, n, calls):
    out = subprocess.run([path, str(n), str(calls)], check=True, capture_output=True, text=True)
    return json.loads(out.stdout.strip().splitlines()[-1])


def main():
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--cpp", required=True, help="the tilekit_gemm_call_time executable")
    p.add_argument("--n", type=int, default=64)
    p.add_argument("--calls", type=int, default=200)
    p.add_argument("--large", type=int, default=4096, help="0 skips the large comparison")
    p.add_argument("--large-calls", type=int, default=5)
    p.add_argument("--json", help="write the figures here")
    args = p.parse_args()

    torch = torch_cuda()
    backend = "cuda" if torch is not None else "cpu"
    a, b, c, sync = operands(torch, args.n)
    rows = {}
    rows["C++ tilekit::gemm"] = run_cpp(args.cpp, args.n, args.calls)
    if rows["C++ tilekit::gemm"]["backend"] != backend:
        sys.exit(f"python_overhead: C++ ran on {rows['C++ tilekit::gemm']['backend']}, "
                 f"Python on {backend}: not comparable")
    for name, call in [("tilekit.gemm(a, b, out=c)", lambda: tilekit.gemm(a, b, out=c)),
                       ("tilekit.gemm(a, b)", lambda: tilekit.gemm(a, b))]:
        host, e2e = time_calls(call, sync, args.calls)
        rows[name] = {"host_us": host, "e2e_us": e2e}
    if torch is not None:
        # The same call with nanobind calling Tensor.__dlpack__() on each tensor instead of
        # tilekit exporting through torch's C function (tilekit._FAST_TORCH_EXPORT).
        tilekit._FAST_TORCH_EXPORT = False
        host, e2e = time_calls(lambda: tilekit.gemm(a, b, out=c), sync, args.calls)
        tilekit._FAST_TORCH_EXPORT = True
        rows["tilekit.gemm(a, b, out=c) via __dlpack__"] = {"host_us": host, "e2e_us": e2e}
        host, e2e = time_calls(lambda: torch.matmul(a, b, out=c), sync, args.calls)
        rows["torch.matmul(a, b, out=c) (cuBLAS)"] = {"host_us": host, "e2e_us": e2e}

    overhead = rows["tilekit.gemm(a, b, out=c)"]["host_us"] - rows["C++ tilekit::gemm"]["host_us"]
    result = {"backend": backend, "n": args.n, "calls": args.calls, "rows": rows,
              "overhead_us": overhead, "target_us": TARGET_US}

    if args.large:
        la, lb, lc, _ = operands(torch, args.large, seed=2)
        cpp = run_cpp(args.cpp, args.large, args.large_calls)
        _, py = time_calls(lambda: tilekit.gemm(la, lb, out=lc), sync, args.large_calls, batches=6)
        result["large"] = {"n": args.large, "cpp_ms": cpp["e2e_us"] / 1e3, "python_ms": py / 1e3,
                           "ratio": py / cpp["e2e_us"]}

    print(f"Python overhead: {args.n}x{args.n}x{args.n} float32 GEMM on {backend}, legacy default "
          f"stream, median of 20 batches of {args.calls} calls")
    print(f"{'':40s} {'host us/call':>14s} {'end-to-end us/call':>20s}")
    for name, r in rows.items():
        print(f"{name:40s} {r['host_us']:14.2f} {r['e2e_us']:20.2f}")
    if "large" in result:
        L = result["large"]
        print(f"{L['n']}^3 end to end: C++ {L['cpp_ms']:.3f} ms, tilekit.gemm {L['python_ms']:.3f} ms "
              f"(x{L['ratio']:.3f})")
    verdict = "PASS" if overhead <= TARGET_US else "FAIL"
    print(f"overhead of tilekit.gemm(out=c) over C++: {overhead:+.2f} us/call "
          f"(target <= {TARGET_US:g} us): {verdict}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f, indent=2)
    return 0


if __name__ == "__main__":
    sys.exit(main())
