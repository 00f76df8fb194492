#!/usr/bin/env python3
"""End-to-end tests of the `tilekit` CLI: exit codes, .npy files made by NumPy, Ctrl-C.

Usage: test_cli.py PATH/TO/tilekit   (CTest passes it). Runs on the CPU backend.
"""
import io
import json
import math
import os
import re
import signal
import stat
import struct
import subprocess
import sys
import tempfile
import threading
import time
import unittest

import numpy as np

TILEKIT = None


def run(*args, **kw):
    return subprocess.run([TILEKIT, *args], capture_output=True, text=True, timeout=300, **kw)


def interrupt_after_first_row(p):
    """Ctrl-C once the progress line on stderr ("[3/12] kernel size (4 s)") counts a finished
    row, rather than after a fixed sleep that a slow machine or a sanitizer build outlasts.
    Returns the stderr read so far."""
    seen = []
    # Whatever the progress line says (or if it never says it), Ctrl-C after 90 s, and kill the
    # process after 240 s: a stuck test must not leave a sweep running for hours.
    fallback = threading.Timer(90, lambda: p.poll() is None and p.send_signal(signal.SIGINT))
    killer = threading.Timer(240, lambda: p.poll() is None and p.kill())
    fallback.daemon = killer.daemon = True
    fallback.start()
    killer.start()
    for line in iter(p.stderr.readline, ""):
        seen.append(line)
        done = re.match(r"\[(\d+)/\d+\] ", line)
        if done and int(done.group(1)) >= 1:
            break
    fallback.cancel()
    if p.poll() is None:
        p.send_signal(signal.SIGINT)
    return "".join(seen)


class TempDirTest(unittest.TestCase):
    """A fresh folder per test, removed afterwards; path(name) is a file in it."""

    def setUp(self):
        self.dir = tempfile.TemporaryDirectory()

    def tearDown(self):
        self.dir.cleanup()

    def path(self, name):
        return os.path.join(self.dir.name, name)


class Cli(TempDirTest):
    def setUp(self):
        super().setUp()
        self.rng = np.random.default_rng(int(time.time()))

    def save(self, name, array):
        np.save(self.path(name), array)
        return self.path(name)

    def assert_usage_error(self, r, fragment, out=None):
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn(fragment, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, "error should be one line: " + r.stderr)
        if out:
            self.assertFalse(os.path.exists(out), "no output file on error")
            self.assertEqual([f for f in os.listdir(os.path.dirname(out))
                              if ".tmp" in f or ".tilekit-" in f], [])

    # ---- devices / list ----
    def test_devices_exits_zero_and_names_the_cpu(self):
        r = run("devices")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("CPU:", r.stdout)
        self.assertIn("GPU", r.stdout)

    def test_list_json_gives_each_kernels_tiling(self):
        r = run("list", "--json", "gemm.cpu.*")
        self.assertEqual(r.returncode, 0, r.stderr)
        kernels = {k["id"]: k for k in json.loads(r.stdout)}
        self.assertIn("gemm.cpu.blocked.f32.6x16_kc256", kernels)
        self.assertTrue(all(k["id"].startswith("gemm.cpu.") for k in kernels.values()))
        tiling = kernels["gemm.cpu.reference.f32"]["tiling"]
        self.assertEqual(set(tiling), {"block_m", "block_n", "block_k", "threads", "stages",
                                       "split_k", "max_split_k", "chosen_at_run_time",
                                       "schedule"})
        self.assertEqual(tiling["schedule"], "unmodelled")
        self.assertEqual(kernels["gemm.cpu.reference.f32"]["role"], "reference")
        # Blocks per SM belong to GPU kernels on a GPU: null for every CPU kernel.
        self.assertTrue(all(k["blocks_per_sm"] is None for k in kernels.values()))

    def test_list_shows_cpu_kernels_and_filters(self):
        r = run("list")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("gemm.cpu.reference.f32", r.stdout)
        self.assertIn("gemm.cpu.openblas.f32", r.stdout)
        # The input rounding column: a word where the mode rounds float32 inputs, else "-".
        lines = r.stdout.splitlines()
        col = lines[0].index("rounding")
        rounding = {line.split()[0]: line[col:].split()[0] for line in lines[1:] if line.strip()}
        self.assertEqual(rounding["gemm.cpu.reference.f32_tf32"], "nearest")
        self.assertEqual(rounding["gemm.cpu.reference.f32_3xtf32"], "nearest")
        for kernel in ("gemm.cpu.reference.f32", "gemm.cpu.reference.bf16", "transpose.cpu.reference.f32"):
            self.assertEqual(rounding[kernel], "-", kernel)
        if "gemm.cuda.cublas.f32_tf32" in rounding:
            self.assertEqual(rounding["gemm.cuda.cublas.f32_tf32"], "faithful")
        r = run("list", "gemm.cpu.open*")
        self.assertNotIn("gemm.cpu.reference.f32", r.stdout)
        self.assertEqual(run("list", "nothing*").returncode, 2)

    def test_no_subcommand_is_usage_error(self):
        self.assertEqual(run().returncode, 2)
        self.assertEqual(run("frobnicate").returncode, 2)
        self.assertEqual(run("--help").returncode, 0)

    # ---- gemm on .npy files ----
    def check_npy_product(self, a, b, extra=(), expect=None):
        out = self.path("out.npy")
        r = run("gemm", "--backend", "cpu", "--a", self.save("a.npy", a), "--b", self.save("b.npy", b),
                "--out", out, "--check", *extra)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("check: PASS", r.stdout)
        got = np.load(out)
        self.assertEqual(got.dtype, np.float32)
        want = expect if expect is not None else a.astype(np.float64) @ b.astype(np.float64)
        k = a.shape[1]
        bound = 2 * (k + 2) * 2.0**-24 * (np.abs(a).astype(np.float64) @ np.abs(b).astype(np.float64)) + 1e-30
        self.assertTrue(np.all(np.abs(got - want) <= bound + 1e-6 * np.abs(want)), np.max(np.abs(got - want)))
        return got

    def test_float32_c_order(self):
        self.check_npy_product(self.rng.standard_normal((37, 20)).astype(np.float32),
                               self.rng.standard_normal((20, 11)).astype(np.float32))

    def test_float64_fortran_order(self):
        a = np.asfortranarray(self.rng.standard_normal((33, 17)))
        b = np.asfortranarray(self.rng.standard_normal((17, 9)))
        self.check_npy_product(a, b, expect=a.astype(np.float32).astype(np.float64) @ b.astype(np.float32).astype(np.float64))

    def test_transposes_alpha_beta_and_c(self):
        a = self.rng.standard_normal((20, 30)).astype(np.float32)  # used as Aᵀ: 30 × 20
        b = self.rng.standard_normal((15, 20)).astype(np.float32)  # used as Bᵀ: 20 × 15
        c = self.rng.standard_normal((30, 15)).astype(np.float32)
        want = 0.5 * (a.T.astype(np.float64) @ b.T.astype(np.float64)) - 2.0 * c
        out = self.path("out.npy")
        r = run("gemm", "--backend", "cpu", "--a", self.save("a.npy", a), "--b", self.save("b.npy", b),
                "--c", self.save("c.npy", c), "--trans-a", "--trans-b", "--alpha", "0.5", "--beta", "-2",
                "--out", out, "--check")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        np.testing.assert_allclose(np.load(out), want, rtol=1e-5, atol=1e-5)

    def test_every_cpu_kernel_by_id(self):
        # `gemm` runs float32 problems: every float32 kernel by id, and a kernel of other types
        # (a TF32 or BF16 reference) is refused in one line naming both.
        ids = [line.split()[0] for line in run("list", "gemm.cpu.*").stdout.splitlines()[1:] if line.startswith("gemm.")]
        f32 = [kid for kid in ids if kid.split(".")[3] == "f32"]
        self.assertGreaterEqual(len(f32), 3)
        a = self.rng.standard_normal((9, 8)).astype(np.float32)
        b = self.rng.standard_normal((8, 7)).astype(np.float32)
        for kid in f32:
            self.check_npy_product(a, b, extra=("--kernel", kid))
        for kid in sorted(set(ids) - set(f32))[:1]:
            self.assert_usage_error(run("gemm", "--backend", "cpu", "--m", "4", "--n", "4", "--k", "4",
                                        "--kernel", kid), "implements")

    def test_random_inputs_with_check(self):
        r = run("gemm", "--backend", "cpu", "--m", "65", "--n", "33", "--k", "17", "--check", "--layout", "col")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("check: PASS", r.stdout)
        self.assertIn("max abs error", r.stdout)

    # ---- gemm: bad input gives one line, exit 2, no output ----
    def test_shape_mismatch(self):
        out = self.path("out.npy")
        r = run("gemm", "--backend", "cpu", "--a", self.save("a.npy", np.ones((4, 5), np.float32)),
                "--b", self.save("b.npy", np.ones((6, 3), np.float32)), "--out", out)
        self.assert_usage_error(r, "shape mismatch", out)

    def test_c_shape_mismatch(self):
        out = self.path("out.npy")
        r = run("gemm", "--backend", "cpu", "--a", self.save("a.npy", np.ones((4, 5), np.float32)),
                "--b", self.save("b.npy", np.ones((5, 3), np.float32)),
                "--c", self.save("c.npy", np.ones((3, 4), np.float32)), "--beta", "1", "--out", out)
        self.assert_usage_error(r, "C must be 4 x 3", out)

    def test_malformed_npy(self):
        bad = self.path("bad.npy")
        with open(bad, "wb") as f:
            f.write(b"\x93NUMPY\x01\x00garbage")
        out = self.path("out.npy")
        r = run("gemm", "--a", bad, "--b", self.save("b.npy", np.ones((5, 3), np.float32)), "--out", out)
        self.assert_usage_error(r, "bad.npy", out)

    def test_unsupported_dtype(self):
        out = self.path("out.npy")
        r = run("gemm", "--a", self.save("a.npy", np.ones((2, 2), np.int32)),
                "--b", self.save("b.npy", np.ones((2, 2), np.float32)), "--out", out)
        self.assert_usage_error(r, "unsupported dtype", out)

    # ---- types, compute modes and the kernel choice (kernel contract v2) ----
    def test_compute_modes_explain_and_check(self):
        for extra, chosen in [((), "gemm.cpu.blocked.f32."),
                              (("--dtype", "bf16"), "gemm.cpu.reference.bf16"),
                              (("--dtype", "f16"), "gemm.cpu.reference.f16"),
                              (("--compute", "tf32"), "gemm.cpu.reference.f32_tf32"),
                              (("--compute", "f32_3xtf32"), "gemm.cpu.reference.f32_3xtf32")]:
            r = run("gemm", "--m", "37", "--n", "29", "--k", "41", "--backend", "cpu",
                    "--explain", "--check", *extra)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn("explain: " + chosen, r.stdout, extra)
            self.assertIn("check: PASS", r.stdout, extra)

    def test_vendor_kernels_only_when_allowed(self):
        r = run("gemm", "--m", "16", "--n", "16", "--k", "16", "--backend", "cpu", "--explain")
        self.assertNotIn("openblas", r.stdout)
        r = run("gemm", "--m", "16", "--n", "16", "--k", "16", "--backend", "cpu",
                "--kernel", "gemm.cpu.openblas.f32", "--explain")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("named by --kernel", r.stdout)

    def test_a_kernel_of_other_types_or_an_unserved_mode_is_exit_2(self):
        r = run("gemm", "--m", "8", "--n", "8", "--k", "8", "--backend", "cpu",
                "--kernel", "gemm.cpu.reference.f32_tf32")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("compute tf32", r.stderr)
        r = run("gemm", "--m", "8", "--n", "8", "--k", "8", "--backend", "cpu",
                "--dtype", "f16", "--compute", "f32")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--compute", r.stderr)
        r = run("gemm", "--m", "8", "--n", "8", "--k", "8", "--dtype", "fp8")
        self.assertEqual(r.returncode, 2, r.stderr)
        self.assertIn("--dtype", r.stderr)

    def test_bench_auto_row_names_the_kernel_it_ran(self):
        r = run("bench", "gemm", "--backend", "cpu", "--sizes", "32", "--kernels", "auto",
                "--no-baseline", "--min-samples", "2", "--max-time", "0.05")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"auto .* ran gemm\.cpu\.blocked\.f32")

    # ---- tune: the autotuner's cache (docs/tuning.md) ----
    def tune_env(self):
        env = dict(os.environ, TILEKIT_CACHE_DIR=self.path("cache"))
        return env

    def cache_files(self):
        d = self.path("cache")
        return [os.path.join(d, f) for f in os.listdir(d) if f.endswith(".json")] if os.path.isdir(d) else []

    def test_gemm_tune_budget_measures_a_new_shape_into_the_cache_once(self):
        args = ("gemm", "--backend", "cpu", "--m", "70", "--n", "50", "--k", "60", "--allow-vendor",
                "--tune-budget", "100", "--explain", "--check")
        r = run(*args, env=self.tune_env())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"explain: \S+ — cache .* measured at 70x50x60")
        self.assertIn("check: PASS", r.stdout)
        files = self.cache_files()
        self.assertEqual(len(files), 1)
        with open(files[0]) as f:
            before = f.read()
        entries = json.loads(before)["entries"]
        self.assertEqual([(e["m"], e["n"], e["k"]) for e in entries], [(70, 50, 60)])
        self.assertEqual(len(entries[0]["candidates"]), 2)  # the blocked kernel and OpenBLAS
        r = run(*args, env=self.tune_env())
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(files[0]) as f:
            self.assertEqual(f.read(), before)

    def test_gemm_tune_budget_refuses_bad_values_and_a_missing_cache_dir(self):
        for bad in ("-1", "abc", "nan"):
            r = run("gemm", "--backend", "cpu", "--m", "8", "--n", "8", "--k", "8", "--tune-budget", bad)
            self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
            self.assertIn("--tune-budget: must be milliseconds >= 0", r.stderr)
        r = run("gemm", "--backend", "cpu", "--m", "8", "--n", "8", "--k", "8", "--tune-budget", "5",
                "--kernel", "gemm.cpu.blocked.f32.6x16_kc256", env=self.tune_env())
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("--tune-budget: tunes --kernel auto's choice", r.stderr)
        self.assertEqual(self.cache_files(), [])
        env = {k: v for k, v in os.environ.items() if k not in ("TILEKIT_CACHE_DIR", "XDG_CACHE_HOME", "HOME")}
        r = run("gemm", "--backend", "cpu", "--m", "8", "--n", "8", "--k", "8", "--tune-budget", "5", env=env)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("no tune cache to record in", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_tune_writes_a_cache_that_auto_and_show_use(self):
        env = self.tune_env()
        r = run("tune", "--backend", "cpu", "--sizes", "32,48x40x24", "--ops", "NN,TT",
                "--budget", "30", env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stderr, r"\[4/4\] TT 48x40x24 f32: gemm\.cpu\.blocked\.f32\S* [0-9.e-]+ ms")
        [path] = self.cache_files()
        self.assertIn("wrote 4 entries to " + path, r.stdout)
        with open(path) as f:
            cache = json.load(f)
        self.assertEqual(cache["schema"], "tilekit-tune-cache")
        self.assertEqual(cache["device"]["backend"], "cpu")
        self.assertEqual(len(cache["entries"]), 4)
        self.assertEqual({(e["op_a"], e["op_b"]) for e in cache["entries"]}, {("N", "N"), ("T", "T")})
        self.assertTrue(all(e["time_s"] > 0 for e in cache["entries"]))
        self.assertEqual([f for f in os.listdir(self.path("cache")) if ".tmp" in f], [])
        r = run("tune", "--backend", "cpu", "--show", env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("entries: 4", r.stdout)
        self.assertEqual(r.stdout.count("auto: gemm.cpu.blocked.f32"), 4, r.stdout)
        self.assertIn("(this shape)", r.stdout)
        # 64³ is nearest the 32³ measured (a log2 distance of 3; 48x40x24 is 2.5 away, plus half
        # an octave for each of 40 and 24, which do not divide by 16 as 64 does).
        r = run("gemm", "--backend", "cpu", "--m", "64", "--n", "64", "--k", "64", "--explain",
                "--check", env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("cache " + path + ", row NN 2^5x2^5x2^5", r.stdout)
        self.assertIn("measured at 32x32x32", r.stdout)
        self.assertIn("(nearest shape, distance 3)", r.stdout)

    def test_gemm_auto_runs_the_tuned_split_on_a_gpu(self):
        # A tuned choice of a split-K kernel carries its k split; `tilekit gemm` must run it so
        # (it once ran the kernel at its default split while --explain named the tuned one).
        if "GPU 0:" not in run("devices").stdout:
            self.skipTest("no GPU: no kernel takes a run-time split on the CPU")
        env = self.tune_env()
        r = run("tune", "--sizes", "512", "--budget", "30", env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        r = run("gemm", "--m", "512", "--n", "512", "--k", "512", "--explain", "--check", env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        explain = re.search(r"^explain: (\S+) .*?: \1( with split-k (\d+))? took", r.stdout, re.M)
        ran = re.search(r"^kernel: (\S+)( with split-k (\d+))? on cuda$", r.stdout, re.M)
        self.assertTrue(explain and ran, r.stdout)
        self.assertEqual(ran.group(1), explain.group(1), r.stdout)
        self.assertEqual(ran.group(3), explain.group(3), r.stdout)
        self.assertIn("check: PASS", r.stdout)

    def test_tune_evaluate_times_auto_against_every_own_kernel_and_writes_nothing(self):
        env = self.tune_env()
        out = self.path("eval.json")
        r = run("tune", "--backend", "cpu", "--evaluate", "--sizes", "24,40x8x16", "--ops", "NN,TN",
                "--json", out, env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(self.cache_files(), [])  # evaluating writes no cache
        self.assertRegex(r.stdout, r"f32: 4 shapes; auto within 1\.05x of the fastest own kernel on \d+")
        with open(out) as f:
            rows = json.load(f)["rows"]
        self.assertEqual(len(rows), 4)
        for row in rows:
            self.assertEqual(row["source"], "ranking")  # no cache, no CPU table shipped
            self.assertGreater(row["auto_s"], 0)
            self.assertIn(row["best_kernel"], row["kernel_times_s"])
            self.assertAlmostEqual(row["ratio"], row["auto_s"] / row["best_s"])
            # The ratio is the paired timing's; the sweep's fastest is kept beside it, and the
            # paired fastest is one of the sweep's close contenders.
            self.assertIn(row["sweep_best_kernel"], row["kernel_times_s"])
            self.assertEqual(row["sweep_best_s"], min(row["kernel_times_s"].values()))
            self.assertGreater(row["sweep_auto_s"], 0)
            self.assertLessEqual(row["kernel_times_s"][row["best_kernel"]], 1.1 * row["sweep_best_s"])
            self.assertGreater(row["select_us"], 0)
            self.assertGreater(row["select_search_us"], 0)
            self.assertGreater(row["select_explain_us"], 0)
        self.assertRegex(r.stdout, r"selection at most [0-9.]+ us per call \([0-9.]+ us when it searches, "
                                   r"[0-9.]+ us searching with the explanation\)")

    def test_tune_ignores_a_corrupt_cache_with_one_warning_and_replaces_it(self):
        env = self.tune_env()
        r = run("tune", "--backend", "cpu", "--sizes", "16", "--budget", "30", env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        [path] = self.cache_files()
        with open(path, "w") as f:
            f.write('{"schema": "tilekit-tune-cache", "version": 1, "entr')
        r = run("gemm", "--backend", "cpu", "--m", "16", "--n", "16", "--k", "16", "--explain", env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertEqual(r.stderr.count("warning"), 1, r.stderr)
        self.assertIn(path, r.stderr)
        self.assertIn("ranking:", r.stdout)
        r = run("tune", "--backend", "cpu", "--sizes", "16", "--budget", "30", env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("it will be replaced", r.stderr)
        with open(path) as f:
            self.assertEqual(len(json.load(f)["entries"]), 1)

    def test_tune_kernels_measures_only_those_and_keeps_the_other_shapes(self):
        env = self.tune_env()
        r = run("tune", "--backend", "cpu", "--sizes", "32,40", "--budget", "30", env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        [path] = self.cache_files()
        with open(path) as f:
            before = {e["m"]: e for e in json.load(f)["entries"]}
        r = run("tune", "--backend", "cpu", "--sizes", "32", "--kernels", "gemm.cpu.blocked*",
                "--budget", "30", env=env)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stderr, r"\[1/1\] NN 32 f32: gemm\.cpu\.blocked\.f32\S* [0-9.e-]+ ms")
        with open(path) as f:
            after = {e["m"]: e for e in json.load(f)["entries"]}
        self.assertEqual(after[40], before[40])  # not measured: as it was
        ids = [c["kernel"] for c in after[32]["candidates"]]
        self.assertEqual(len(ids), len(set(ids)), ids)  # measured again: replaced, not added
        self.assertTrue(all(i.startswith("gemm.cpu.blocked") for i in ids), ids)

    def test_tune_usage_errors(self):
        env = self.tune_env()
        self.assert_usage_error(run("tune", "--backend", "cpu", "--ops", "NX", env=env), "--ops")
        self.assert_usage_error(run("tune", "--backend", "cpu", "--dtype", "fp8", env=env), "--dtype")
        self.assert_usage_error(run("tune", "--backend", "cpu", "--budget", "0", env=env), "--budget")
        self.assert_usage_error(run("tune", "--backend", "cpu", "--kernels", "gemm.cpu.nothing*", env=env),
                                "gemm.cpu.nothing*")
        self.assert_usage_error(run("tune", "--backend", "cpu", "--kernels", "gemm.cpu.reference*", env=env),
                                "names no own cpu GEMM kernel")
        self.assert_usage_error(run("tune", "--backend", "cpu", "--evaluate", "--kernels", "gemm.cpu.*",
                                    env=env), "--kernels")
        self.assertEqual(self.cache_files(), [])

    def replay_table(self, kernel="gemm.cpu.blocked.f32.6x16_kc256", **fields):
        """A made-up CPU table: `kernel` measured at 64³, 128³ and 256³ (NN, f32), beside a faster
        kernel that no build registers."""
        def entry(size):
            t = 1e-9 * size ** 3
            return {"log2_m": size.bit_length() - 1, "log2_n": size.bit_length() - 1,
                    "log2_k": size.bit_length() - 1, "op_a": "N", "op_b": "N", "layout": "row",
                    "aligned16": True, "ld16": True,
                    "types": {"a": "f32", "b": "f32", "c": "f32", "compute": "f32"},
                    "kernel": kernel, "time_s": t, "m": size, "n": size, "k": size,
                    "candidates": [{"kernel": kernel, "split_k": 0, "time_s": t},
                                   {"kernel": "gemm.cpu.gone", "split_k": 0, "time_s": t / 2}]}
        table = {"schema": "tilekit-tune-cache", "version": 2,
                 "device": {"backend": "cpu", "name": "made up", "sm_count": 2,
                            "compute_capability": 0, "driver_version": 0},
                 "build": "0.0.0+made-up", "entries": [entry(s) for s in (64, 128, 256)]}
        table.update(fields)
        path = self.path("table.json")
        with open(path, "w") as f:
            json.dump(table, f)
        return path

    def test_tune_replay_scores_a_table_and_leaves_it_as_it_was(self):
        # Each entry chosen from the other two: the one own kernel, its own fastest of those this
        # build registers (the faster unregistered one is left out, with a note).
        path = self.replay_table()

        def state():
            with open(path, "rb") as f:
                return os.stat(path).st_mtime_ns, f.read()
        before = state()
        r = run("tune", "--replay", path)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"f32 leave-one-out +3 shapes +within 1\.05x +3 \(100\.0%\) +"
                                   r"above 1\.3x +0 +geomean 1\.000")
        self.assertIn("3 of 6 candidates name kernels this build does not register", r.stderr)
        self.assertEqual(state(), before)  # read, never written
        # An evaluation's rows: chosen over the whole table, scored by their sweep medians.
        evaluation = self.path("eval.json")
        with open(evaluation, "w") as f:
            json.dump({"rows": [{"ops": "NN", "m": 100, "n": 100, "k": 100, "types": "f32",
                                 "kernel_times_s": {"gemm.cpu.blocked.f32.6x16_kc256": 2e-3,
                                                    "gemm.cpu.other": 1e-3}}]}, f)
        r = run("tune", "--replay", path, "--types", "f32,f32:tf32", "--evaluate-json", evaluation)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertRegex(r.stdout, r"f32 evaluation \(sweep\) +1 shapes +within 1\.05x +0 \(  0\.0%\) +"
                                   r"above 1\.3x +1 +geomean 2\.000")
        self.assertIn("f32_tf32 leave-one-out", r.stdout)

    def test_tune_replay_bad_input(self):
        # A file that cannot be read is an I/O failure (4); one that is not a table, or names no
        # kernel of this build, is bad input (2). One line each.
        r = run("tune", "--replay", self.path("nope.json"))
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("nope.json", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        bad = self.path("bad.json")
        with open(bad, "w") as f:
            f.write('{"schema": "tilekit-tune-cache", "version": 2, "entr')
        self.assert_usage_error(run("tune", "--replay", bad), "not valid JSON")
        self.assert_usage_error(run("tune", "--replay", self.replay_table(schema="tilekit-suite")),
                                'schema is "tilekit-suite"')
        self.assert_usage_error(run("tune", "--replay", self.replay_table(kernel="gemm.cuda.nothing")),
                                "registered in this build")
        with open(bad, "w") as f:
            json.dump({"rows": [{"ops": "NX", "m": 1, "n": 1, "k": 1}]}, f)
        self.assert_usage_error(run("tune", "--replay", self.replay_table(), "--evaluate-json", bad),
                                "not one of NN, NT, TN, TT")
        self.assert_usage_error(run("tune", "--replay", self.replay_table(), "--types", "bf16:tf32"),
                                "--types")
        self.assert_usage_error(run("tune", "--types", "f32"), "--replay")
        self.assert_usage_error(run("tune", "--replay", self.replay_table(), "--show"), "--replay")

    def test_tune_interrupted_keeps_what_finished(self):
        env = self.tune_env()
        p = subprocess.Popen([TILEKIT, "tune", "--backend", "cpu", "--sizes", "16,700,800,900,1000",
                              "--ops", "NN,NT,TN,TT"], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True, env=env)
        seen = interrupt_after_first_row(p)
        out, err = p.communicate(timeout=240)
        self.assertEqual(p.returncode, 130, seen + err)
        self.assertIn("interrupted; kept", err)
        [path] = self.cache_files()
        with open(path) as f:
            self.assertGreaterEqual(len(json.load(f)["entries"]), 1)

    def test_three_dimensional_array(self):
        out = self.path("out.npy")
        r = run("gemm", "--a", self.save("a.npy", np.ones((2, 2, 2), np.float32)),
                "--b", self.save("b.npy", np.ones((2, 2), np.float32)), "--out", out)
        self.assert_usage_error(r, "2-D", out)

    def test_missing_file(self):
        # A file the system cannot open is an I/O failure (4), not bad input (2).
        r = run("gemm", "--a", self.path("nope.npy"), "--b", self.path("nope2.npy"))
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("nope.npy", r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)

    def test_negative_size(self):
        self.assert_usage_error(run("gemm", "--m", "-4", "--n", "2", "--k", "2"), "--m: must be >= 0, got -4")

    def test_unknown_option_is_one_line(self):
        self.assert_usage_error(run("gemm", "--frobnicate"), "--frobnicate")

    def test_missing_sizes(self):
        self.assert_usage_error(run("gemm", "--m", "4"), "--k")

    def test_sizes_and_files_together(self):
        self.assert_usage_error(run("gemm", "--m", "4", "--n", "4", "--k", "4", "--a", "x.npy", "--b", "y.npy"),
                                "not both")

    def test_beta_without_c(self):
        r = run("gemm", "--a", self.save("a.npy", np.ones((2, 2), np.float32)),
                "--b", self.save("b.npy", np.ones((2, 2), np.float32)), "--beta", "1")
        self.assert_usage_error(r, "needs --c")

    def test_unknown_kernel(self):
        self.assert_usage_error(run("gemm", "--m", "4", "--n", "4", "--k", "4", "--kernel", "gemm.nope"), "gemm.nope")

    def test_cuda_backend_without_gpu(self):
        if "GPU 0:" in run("devices").stdout:
            self.skipTest("a GPU is present")
        self.assertEqual(run("gemm", "--m", "4", "--n", "4", "--k", "4", "--backend", "cuda").returncode, 2)

    def test_unwritable_output(self):
        r = run("gemm", "--backend", "cpu", "--m", "4", "--n", "4", "--k", "4", "--out", "/nonexistent/dir/o.npy")
        self.assertEqual(r.returncode, 2, r.stderr)

    # ---- occupancy / banks / inspect ----
    def test_occupancy_json_for_every_arch(self):
        import json
        for arch in ["sm_61", "sm_70", "sm_75", "sm_80", "sm_86", "sm_87", "sm_89", "sm_90", "sm_100", "sm_120"]:
            r = run("occupancy", "--arch", arch, "--threads", "256", "--regs", "64", "--smem", "8192",
                    "--dyn-smem", "0", "--json")
            self.assertEqual(r.returncode, 0, arch + r.stderr)
            doc = json.loads(r.stdout)
            for key in ["arch", "threads", "regs", "smem", "dyn_smem", "blocks_per_sm", "warps_per_sm",
                        "occupancy", "limiters"]:
                self.assertIn(key, doc)
            self.assertEqual(doc["arch"], arch)
            self.assertTrue(0 <= doc["occupancy"] <= 1)
        doc = json.loads(run("occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64",
                             "--smem", "8192", "--json").stdout)
        self.assertEqual((doc["blocks_per_sm"], doc["warps_per_sm"], doc["limiters"]), (4, 32, ["registers"]))

    def test_occupancy_text_has_the_sheffield_formula(self):
        r = run("occupancy", "--arch", "sm_90", "--threads", "256", "--regs", "64", "--smem", "8192")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("(4·132)·256 / (2048·132)", r.stdout)
        self.assertIn("50.0%", r.stdout)

    def test_occupancy_sweep_and_plot(self):
        r = run("occupancy", "--arch", "sm_86", "--regs", "40", "--sweep")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertEqual(sum(1 for l in r.stdout.splitlines() if l.strip()[:1].isdigit()), 32)
        png = self.path("occ.png")
        r = run("occupancy", "--arch", "sm_86", "--regs", "40", "--plot", png)
        self.assertEqual(r.returncode, 0, r.stderr)
        with open(png, "rb") as f:
            self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")

    def test_occupancy_carveout(self):
        import json
        doc = json.loads(run("occupancy", "--arch", "sm_90", "--threads", "64", "--regs", "0",
                             "--dyn-smem", "20000", "--carveout", "50", "--json").stdout)
        self.assertEqual((doc["smem_config_per_sm"], doc["limit_shared_memory"]), (135168, 6))

    def test_occupancy_cannot_launch_says_why(self):
        r = run("occupancy", "--arch", "sm_90", "--threads", "1024", "--regs", "255")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("cannot launch", r.stdout)

    def test_occupancy_bad_input(self):
        for args, frag in [(["--arch", "sm_42"], "unknown architecture"),
                           (["--arch", "sm_90", "--threads", "0"], "--threads 0"),
                           (["--arch", "sm_90", "--threads", "2048"], "--threads 2048"),
                           (["--arch", "sm_90", "--regs", "300"], "--regs 300"),
                           (["--arch", "sm_90", "--regs", "-1"], "--regs -1"),
                           (["--arch", "sm_90", "--dyn-smem", "300000"], "per-block limit"),
                           (["--arch", "sm_90", "--smem", "-5"], ">= 0"),
                           (["--arch", "sm_90", "--carveout", "101"], "--carveout 101")]:
            self.assert_usage_error(run("occupancy", *args), frag)

    def test_banks_lecture_cases(self):
        cases = [(["--shape", "32x32", "--index", "y,x"], "conflict-free"),
                 (["--shape", "32x32", "--index", "x,y"], "32-way"),
                 (["--shape", "16x16", "--index", "x,y"], "8-way"),
                 (["--shape", "64x64", "--index", "x,y"], "32-way"),
                 (["--shape", "32x32", "--pad", "1", "--index", "x,y"], "conflict-free")]
        for args, verdict in cases:
            r = run("banks", *args)
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertIn(verdict, r.stdout, args)

    def test_banks_bad_input(self):
        self.assert_usage_error(run("banks", "--shape", "32"), "--shape")
        self.assert_usage_error(run("banks", "--elem", "3"), "--elem 3")
        self.assert_usage_error(run("banks", "--index", "x+1,y"), "lane 31")

    def test_inspect_without_gpu(self):
        if "GPU 0:" in run("devices").stdout:
            self.skipTest("a GPU is present")
        r = run("inspect")
        self.assertEqual(r.returncode, 2)  # a request this machine cannot serve: not supported
        self.assertIn("tilekit occupancy", r.stderr)

    # ---- report ----
    def test_report_quick_writes_markdown_plots_and_csv(self):
        out = self.path("report")
        r = run("report", "--quick", "--backend", "cpu", "--out", out)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        files = os.listdir(out)
        self.assertIn("report.md", files)
        self.assertIn("rows.csv", files)
        self.assertIn("report.json", files)
        pngs = [f for f in files if f.endswith(".png")]
        self.assertGreaterEqual(len(pngs), 3, files)
        for png in pngs:
            with open(os.path.join(out, png), "rb") as f:
                self.assertEqual(f.read(8), b"\x89PNG\r\n\x1a\n")
        with open(os.path.join(out, "report.md")) as f:
            md = f.read()
        for section in ["Ceilings (measured)", "GFLOP/s over n", "Speedup", "Global-memory traffic",
                        "Occupancy against block size"]:
            self.assertIn(section, md)
        import json
        with open(os.path.join(out, "report.json")) as f:
            meta = json.load(f)
        self.assertGreater(meta["ceilings"]["peak_gflops"], 0)
        self.assertGreater(meta["ceilings"]["bandwidth_gbps"], 0)
        self.assertTrue(meta["occupancy"], "no occupancy curve")
        for curve in meta["occupancy"]:
            self.assertEqual(len(curve["threads"]), 32, curve["kernel"])

    def test_report_ctrl_c_still_writes_the_report(self):
        out = self.path("partial")
        p = subprocess.Popen([TILEKIT, "report", "--backend", "cpu", "--sizes", "64:1024:64", "--out", out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        progress = interrupt_after_first_row(p)
        stdout, stderr = p.communicate(timeout=300)
        stderr = progress + stderr
        self.assertEqual(p.returncode, 130, stdout + stderr)
        with open(os.path.join(out, "report.md")) as f:
            self.assertIn("Interrupted", f.read())
        with open(os.path.join(out, "rows.csv")) as f:
            self.assertGreaterEqual(len(f.read().splitlines()), 2)  # header and finished rows

    def test_report_needs_out_and_refuses_a_file(self):
        self.assertEqual(run("report", "--quick").returncode, 2)
        blocker = self.path("file")
        with open(blocker, "w") as f:
            f.write("x")
        self.assert_usage_error(run("report", "--quick", "--out", blocker), "not a folder")

    def test_transpose_and_dot_commands(self):
        a = self.rng.standard_normal((7, 5)).astype(np.float32)
        out = self.path("t.npy")
        r = run("transpose", "--backend", "cpu", "--a", self.save("a.npy", a), "--out", out, "--check")
        self.assertEqual(r.returncode, 0, r.stderr)
        np.testing.assert_array_equal(np.load(out), a.T)
        x = self.rng.standard_normal(1000)
        y = self.rng.standard_normal((1000, 1)).astype(np.float32)
        r = run("dot", "--backend", "cpu", "--x", self.save("x.npy", x), "--y", self.save("y.npy", y), "--check")
        self.assertEqual(r.returncode, 0, r.stderr)
        value = float(r.stdout.split()[-1])
        want = float(x.astype(np.float32).astype(np.float64) @ y[:, 0].astype(np.float64))
        self.assertLess(abs(value - want), 1e-3 * (1 + abs(want)))
        self.assert_usage_error(run("dot", "--x", self.save("x3.npy", np.ones(3, np.float32)),
                                    "--y", self.save("y4.npy", np.ones(4, np.float32))), "length mismatch")
        self.assert_usage_error(run("transpose", "--a", self.save("b3.npy", np.ones((2, 2, 2), np.float32)),
                                    "--out", self.path("o.npy")), "2-D", self.path("o.npy"))
        self.assertEqual(run("bench", "transpose", "--backend", "cpu", "--sizes", "64,33x17",
                             "--max-time", "0.05").returncode, 0)
        self.assertEqual(run("bench", "dot", "--backend", "cpu", "--sizes", "2^12", "--max-time", "0.05").returncode, 0)
        self.assertEqual(run("bench", "copy", "--backend", "cpu", "--sizes", "4096", "--max-time", "0.05").returncode, 0)

    # ---- bench gemm ----
    def test_bench_table_csv_json(self):
        csv, js = self.path("b.csv"), self.path("b.json")
        r = run("bench", "gemm", "--backend", "cpu", "--sizes", "32,48x16x40", "--kernels", "gemm.cpu.*",
                "--csv", csv, "--json", js, "--max-time", "0.05", "--min-samples", "3")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("gemm.cpu.openblas.f32", r.stdout)
        self.assertIn("PASS", r.stdout)
        import csv as csvmod
        import json
        with open(csv) as f:
            rows = list(csvmod.DictReader(f))
        # Three float32 kernels (reference, blocked, OpenBLAS) run at both sizes; kernels of other
        # types are listed as skipped with the reason.
        ran = [row for row in rows if row["outcome"] == "ok"]
        self.assertEqual(len(ran), 2 * 3)
        for row in ran:
            self.assertGreater(float(row["gflops"]), 0)
            self.assertIn("bench gemm", row["command"])
        for row in rows:
            if row["outcome"] != "ok":
                self.assertEqual(row["outcome"], "skipped")
                self.assertIn("this sweep runs f32 problems", row["detail"])
        with open(js) as f:
            doc = json.load(f)
        self.assertEqual(len(doc["rows"]), len(rows))
        self.assertEqual(doc["environment"]["backend"], "cpu")

    def test_bench_interleave_takes_each_rows_samples_in_rounds(self):
        # A time cap below one sample's time ends each round after one sample: five rounds give
        # five samples per row, where one block gives one.
        js = self.path("i.json")
        r = run("bench", "gemm", "--backend", "cpu", "--sizes", "24", "--kernels", "gemm.cpu.*",
                "--interleave", "5", "--max-time", "1e-9", "--json", js)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        with open(js) as f:
            ran = [row for row in json.load(f)["rows"] if row["outcome"] == "ok"]
        self.assertEqual(len(ran), 3)
        self.assertEqual([row["samples"] for row in ran], [5, 5, 5])
        r = run("bench", "gemm", "--backend", "cpu", "--sizes", "24", "--interleave", "0")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--interleave", r.stderr)
        r = run("bench", "gemm", "--gpus", "2", "--interleave", "2")
        self.assertEqual(r.returncode, 2)
        self.assertIn("leave --interleave out", r.stderr)

    def test_bench_compute_modes_compare_with_the_modes_baseline(self):
        # f32 inputs in another mode: OpenBLAS SGEMM runs beside it, in f32, as the 100% row.
        for mode, kernel in (("tf32", "gemm.cpu.reference.f32_tf32"),
                             ("f32_3xtf32", "gemm.cpu.reference.f32_3xtf32")):
            r = run("bench", "gemm", "--backend", "cpu", "--sizes", "24", "--compute", mode,
                    "--dtype", "f32", "--kernels", kernel, "--max-time", "0.02", "--min-samples", "2")
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            self.assertIn(kernel, r.stdout)
            self.assertRegex(r.stdout, r"gemm\.cpu\.openblas\.f32 .* 100\.0 ")
            self.assertIn("relative to gemm.cpu.openblas.f32", r.stdout)
        # 16-bit inputs: OpenBLAS cannot read them; the mode's reference runs alone.
        r = run("bench", "gemm", "--backend", "cpu", "--sizes", "24", "--dtype", "bf16",
                "--kernels", "gemm.cpu.reference.bf16", "--max-time", "0.02", "--min-samples", "2")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotRegex(r.stdout, r"(?m)^gemm\.cpu\.openblas")
        self.assertIn("gemm.cpu.openblas.f32 (not in this run)", r.stdout)
        # A mode no selected kernel implements: exit 2, saying which types.
        r = run("bench", "gemm", "--backend", "cpu", "--sizes", "24", "--compute", "tf32")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("compute tf32", r.stderr)

    # ---- accuracy ----
    def test_accuracy_table_csv_json(self):
        csv, js = self.path("acc.csv"), self.path("acc.json")
        r = run("accuracy", "--backend", "cpu", "--kernels",
                "gemm.cpu.openblas*,gemm.cpu.reference.f32_3xtf32,gemm.cpu.reference.f32_tf32,gemm.cpu.reference.bf16",
                "--k", "16,2^9", "--m", "16", "--n", "24", "--csv", csv, "--json", js)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        for text in ("normwise error", "bound ratio", "k=16", "k=512", "gemm.cpu.reference.f32_tf32"):
            self.assertIn(text, r.stdout)
        import csv as csvmod
        with open(csv) as f:
            rows = list(csvmod.DictReader(f))
        self.assertEqual(len(rows), 4 * 2)
        by = {(row["kernel"], int(row["k"])): row for row in rows}
        for k in (16, 512):
            sgemm = float(by[("gemm.cpu.openblas.f32", k)]["normwise_error"])
            tf32 = float(by[("gemm.cpu.reference.f32_tf32", k)]["normwise_error"])
            bf16 = float(by[("gemm.cpu.reference.bf16", k)]["normwise_error"])
            self.assertLess(sgemm, 1e-6)
            self.assertLess(sgemm * 100, tf32)   # TF32 keeps 10 bits, FP32 23
            self.assertLess(tf32, bf16)          # BF16 keeps 7
            self.assertLessEqual(float(by[("gemm.cpu.reference.f32_3xtf32", k)]["bound_ratio"]), 1.0)
        with open(js) as f:
            doc = json.load(f)
        self.assertEqual(len(doc["rows"]), len(rows))
        self.assertIn("accuracy", doc["command"])
        self.assertIn("normwise_error", doc["measures"])

    def test_accuracy_bad_input(self):
        self.assert_usage_error(run("accuracy", "--backend", "cpu", "--k", "16,abc"), "'abc'")
        self.assert_usage_error(run("accuracy", "--backend", "cpu", "--k", "0"), "--k")
        self.assert_usage_error(run("accuracy", "--backend", "cpu", "--kernels", "gemm.zzz*", "--k", "8"),
                                "matches no")
        self.assert_usage_error(run("accuracy", "--backend", "cpu", "--m", "0"), "--m")

    def test_accuracy_ctrl_c_keeps_finished_rows(self):
        csv, js = self.path("acc-int.csv"), self.path("acc-int.json")
        ks = ",".join(str(k) for k in range(4096, 8193, 64))  # a CPU reference each: tens of seconds
        p = subprocess.Popen([TILEKIT, "accuracy", "--backend", "cpu", "--kernels", "gemm.cpu.openblas*",
                              "--k", ks, "--csv", csv, "--json", js],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        progress = interrupt_after_first_row(p)
        out, err = p.communicate(timeout=120)
        err = progress + err
        self.assertEqual(p.returncode, 130, out + err)
        self.assertIn("interrupted; kept", err)
        self.assertIn("gemm.cpu.openblas.f32", out)
        with open(csv) as f:
            lines = f.read().splitlines()
        self.assertGreaterEqual(len(lines), 2)  # header and at least one finished row
        self.assertLess(len(lines), 1 + len(ks.split(",")))  # stopped before the end
        with open(js) as f:
            self.assertEqual(len(json.load(f)["rows"]), len(lines) - 1)

    def test_bench_bad_sizes(self):
        self.assert_usage_error(run("bench", "gemm", "--backend", "cpu", "--sizes", "12,abc"), "'abc'")

    def test_bench_unmatched_kernels(self):
        self.assert_usage_error(run("bench", "gemm", "--backend", "cpu", "--kernels", "gemm.zzz*", "--no-baseline",
                                    "--sizes", "8"), "matches no")

    def test_bench_ctrl_c_keeps_finished_rows(self):
        csv = self.path("int.csv")
        p = subprocess.Popen([TILEKIT, "bench", "gemm", "--backend", "cpu", "--sizes", "64:4096:64",
                              "--kernels", "gemm.cpu.openblas*", "--csv", csv],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        progress = interrupt_after_first_row(p)
        out, err = p.communicate(timeout=120)
        err = progress + err
        self.assertEqual(p.returncode, 130, out + err)
        self.assertIn("interrupted", err)
        self.assertIn("gemm.cpu.openblas.f32", out)
        with open(csv) as f:
            lines = f.read().splitlines()
        self.assertGreaterEqual(len(lines), 2)  # header and at least one finished row

    # ---- hostile input: sizes that overflow or cannot fit, numbers that do not fit,
    # non-finite data, globs that match nothing. Each fails fast with one line.
    def npy_header_only(self, name, shape):
        """A .npy file of float32 with `shape` and no data (enough when a dimension is 0)."""
        d = "{'descr': '<f4', 'fortran_order': False, 'shape': (%d, %d), }" % shape
        d += " " * ((64 - (10 + len(d) + 1) % 64) % 64) + "\n"
        with open(self.path(name), "wb") as f:
            f.write(b"\x93NUMPY\x01\x00" + struct.pack("<H", len(d)) + d.encode())
        return self.path(name)

    def assert_fails_fast(self, args, code, fragment):
        start = time.monotonic()
        r = run(*args)
        self.assertLess(time.monotonic() - start, 10, "should fail before any work: %s" % (args,))
        self.assertEqual(r.returncode, code, " ".join(args) + "\n" + r.stdout + r.stderr)
        self.assertIn(fragment, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, "error should be one line: " + r.stderr)
        self.assertTrue(r.stderr.startswith("tilekit: error: "), r.stderr)
        return r

    def test_sizes_whose_product_overflows_are_bad_input(self):
        for args, fragment in [(("gemm", "--m", "3", "--n", "6148914691236517206", "--k", "0"),
                                "C: 3 x 6148914691236517206 elements overflow a 64-bit count"),
                               (("gemm", "--m", "1", "--n", "4000000000000000000", "--k", "0"),
                                "overflow a 64-bit size"),
                               (("transpose", "--rows", "4611686018427387904", "--cols", "4"),
                                "overflow a 64-bit count"),
                               (("bench", "gemm", "--sizes", "3x6148914691236517206x0"), "overflow a 64-bit count"),
                               (("bench", "transpose", "--sizes", "2^32x2^32"), "overflow a 64-bit count"),
                               (("bench", "dot", "--sizes", "2^70"), "does not fit in 64 bits")]:
            self.assert_fails_fast(args + ("--backend", "cpu"), 2, fragment)

    def test_npy_shapes_whose_product_overflows(self):
        # op(A) is 2^33 x 0 and op(B) 0 x 2^33: C would be 2^66 elements. The reader may refuse
        # the empty but enormous shapes itself (out of memory, exit 1); either way one line, no
        # output and no crash.
        a = self.npy_header_only("a.npy", (0, 2**33))
        b = self.npy_header_only("b.npy", (0, 2**33))
        out = self.path("out.npy")
        args = ("gemm", "--backend", "cpu", "--trans-a", "--a", a, "--b", b, "--out", out)
        r = run(*args)
        self.assertIn(r.returncode, (1, 2), r.stdout + r.stderr)
        self.assert_fails_fast(args, r.returncode, "tilekit: error: ")
        self.assertFalse(os.path.exists(out))

    def test_out_of_memory_fails_fast_with_one_line(self):
        # Far beyond any machine's memory, so the pre-allocation check answers, not the allocator.
        for args, what in [(("gemm", "--m", "10000000", "--n", "10000000", "--k", "2"), "C needs 400 TB"),
                           (("transpose", "--rows", "10000000", "--cols", "10000000"), "A needs 400 TB"),
                           (("dot", "--n", "100000000000000"), "x needs 400 TB"),
                           (("bench", "gemm", "--sizes", "10000000"), "size 10000000"),
                           (("bench", "copy", "--sizes", "2^47"), "size 140737488355328")]:
            self.assert_fails_fast(args + ("--backend", "cpu"), 1, "out of memory: ")
            self.assertIn(what, run(*args, "--backend", "cpu").stderr)
        a = self.npy_header_only("a.npy", (0, 2**24))
        b = self.npy_header_only("b.npy", (0, 2**24))
        self.assert_fails_fast(("gemm", "--backend", "cpu", "--trans-a", "--a", a, "--b", b), 1, "C needs 1.13 PB")

    def test_numbers_that_do_not_fit_are_errors_not_clamped(self):
        small = ("--n", "2", "--k", "2")
        for args, fragment in [(("gemm", "--m", "99999999999999999999") + small, "--m: must be <= 9223372036854775807"),
                               (("gemm", "--m", "-99999999999999999999") + small, "--m: must be >= 0"),
                               (("gemm", "--m", "1e3") + small, "--m: must be a whole number"),
                               (("gemm", "--m", "4", "--alpha", "1e39") + small, "--alpha: is outside float32's range"),
                               (("gemm", "--m", "4", "--beta", "-1e39") + small, "--beta: is outside float32's range"),
                               (("gemm", "--m", "4", "--alpha", "inf") + small, "--alpha: must be finite"),
                               (("gemm", "--m", "4", "--alpha", "1e-50") + small, "--alpha: rounds to 0"),
                               (("gemm", "--m", "4", "--seed", "99999999999999999999999") + small, "--seed"),
                               (("gemm", "--m", "4", "--seed", "-1") + small, "--seed"),
                               (("gemm", "--m", "4", "--threads", "100000") + small, "--threads: must be <="),
                               (("gemm", "--m", "4", "--threads", "-1") + small, "--threads: must be >= 0"),
                               (("transpose", "--rows", "99999999999999999999", "--cols", "2"), "--rows"),
                               (("dot", "--n", "99999999999999999999"), "--n"),
                               (("bench", "gemm", "--sizes", "99999999999999999999"), "does not fit in 64 bits"),
                               (("bench", "gemm", "--sizes", "8", "--alpha", "1e39"), "--alpha"),
                               (("bench", "gemm", "--sizes", "8", "--min-samples", "99999999999"), "--min-samples"),
                               (("bench", "dot", "--sizes", "8", "--threads", "100000"), "--threads"),
                               (("bench", "copy", "--sizes", "8", "--max-time", "inf"), "--max-time")]:
            self.assert_fails_fast(args, 2, fragment)

    def test_leading_zeros_are_decimal_not_octal(self):
        r = run("gemm", "--backend", "cpu", "--m", "010", "--n", "2", "--k", "2")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("10x2x2", r.stdout)

    def test_threads_within_bounds_run(self):
        r = run("gemm", "--backend", "cpu", "--m", "33", "--n", "17", "--k", "9", "--threads", "1", "--check")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("check: PASS", r.stdout)

    def test_bench_sizes_grammar_rejects_empty_and_huge_ranges(self):
        for sub in ["gemm", "copy", "transpose", "dot"]:
            self.assert_fails_fast(("bench", sub, "--backend", "cpu", "--sizes", ""), 2, "--sizes: must not be empty")
            self.assert_fails_fast(("bench", sub, "--backend", "cpu", "--kernels", ""), 2, "--kernels: must not be empty")
        self.assert_fails_fast(("bench", "gemm", "--backend", "cpu", "--sizes", "0:100000000:1"), 2, "at most 10000")
        self.assert_fails_fast(("bench", "gemm", "--backend", "cpu", "--sizes", "9223372036854775800:9223372036854775807:5"),
                               2, "too large")

    def test_bench_kernel_glob_that_matches_nothing_is_an_error(self):
        self.assert_fails_fast(("bench", "gemm", "--backend", "cpu", "--sizes", "1024,4096", "--kernels", "gemm.cuda.cublas*"),
                               2, "'gemm.cuda.cublas*'")
        self.assert_fails_fast(("bench", "gemm", "--backend", "cpu", "--sizes", "8",
                                "--kernels", "gemm.cpu.blocked*,gemm.zzz*"), 2, "'gemm.zzz*'")
        for sub, glob in [("copy", "copy.zzz*"), ("transpose", "transpose.cuda.*"), ("dot", "nothing")]:
            self.assert_fails_fast(("bench", sub, "--backend", "cpu", "--sizes", "64", "--kernels", glob), 2,
                                   "'%s'" % glob)

    def test_bench_kernel_glob_list_runs_each(self):
        csv = self.path("l.csv")
        r = run("bench", "gemm", "--backend", "cpu", "--sizes", "24", "--no-baseline", "--max-time", "0.02",
                "--kernels", "gemm.cpu.blocked*,gemm.cpu.reference.f32", "--csv", csv)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        import csv as csvmod
        with open(csv) as f:
            rows = list(csvmod.DictReader(f))
        self.assertEqual(sorted(row["kernel"].split(".")[2] for row in rows), ["blocked", "reference"])
        self.assertIn("noisy", rows[0])

    def test_transpose_check_matches_nan_and_inf(self):
        a = self.rng.standard_normal((9, 7)).astype(np.float32)
        a[0, 0], a[3, 4], a[8, 6], a[2, 1] = np.nan, np.inf, -np.inf, -0.0
        out = self.path("t.npy")
        r = run("transpose", "--backend", "cpu", "--a", self.save("a.npy", a), "--out", out, "--check")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("check: PASS", r.stdout)
        got = np.load(out)
        np.testing.assert_array_equal(got, a.T)  # NaN positions equal, Inf exact
        self.assertTrue(np.signbit(got[1, 2]))

    def test_dot_check_accepts_correct_non_finite_results(self):
        cases = [([1, np.inf, 2], [1, 1, 1], "inf"),
                 ([1, -np.inf, 2], [1, 1, 1], "-inf"),
                 ([1, np.nan, 2], [1, 1, 1], "nan"),
                 ([np.inf, 1], [0, 1], "nan"),                 # Inf·0
                 ([np.inf, -np.inf], [1, 1], "nan"),           # Inf − Inf
                 ([3e38, 3e38], [1, 1], "inf")]                # overflows float: Inf is right
        for x, y, want in cases:
            r = run("dot", "--backend", "cpu", "--x", self.save("x.npy", np.array(x, np.float32)),
                    "--y", self.save("y.npy", np.array(y, np.float32)), "--check")
            self.assertEqual(r.returncode, 0, "%s·%s: %s" % (x, y, r.stdout + r.stderr))
            self.assertIn("check: PASS", r.stdout)
            got = float(r.stdout.split()[-1])
            if want == "nan":
                self.assertTrue(math.isnan(got), r.stdout)
            else:
                self.assertEqual(got, float(want))

    def test_gemm_check_and_out_across_verification_tiles(self):
        # C larger than one verification tile (2^20 elements): row bands, and a row wider than a
        # tile (column pieces); with beta, C0 is kept for the reference.
        a = self.rng.standard_normal((1100, 4)).astype(np.float32)
        b = self.rng.standard_normal((4, 1000)).astype(np.float32)
        c = self.rng.standard_normal((1100, 1000)).astype(np.float32)
        out = self.path("out.npy")
        r = run("gemm", "--backend", "cpu", "--a", self.save("a.npy", a), "--b", self.save("b.npy", b),
                "--c", self.save("c.npy", c), "--beta", "0.5", "--out", out, "--check")
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("1100000 elements", r.stdout)
        np.testing.assert_allclose(np.load(out), a.astype(np.float64) @ b + 0.5 * c, rtol=1e-5, atol=1e-5)
        self.check_npy_product(self.rng.standard_normal((2, 3)).astype(np.float32),
                               self.rng.standard_normal((3, 2**20 + 5)).astype(np.float32))

    def test_gemm_col_major_out_is_the_same_matrix(self):
        # Column-major C is written in Fortran order straight from the result. Col-major NN and
        # row-major TT draw the same op(A) and op(B) from one seed, so with beta = 0 the two
        # results are the same m × n matrix.
        col, row = self.path("col.npy"), self.path("row.npy")
        size = ("--m", "37", "--n", "23", "--k", "11", "--seed", "5", "--backend", "cpu", "--check")
        r = run("gemm", *size, "--layout", "col", "--out", col)
        self.assertEqual(r.returncode, 0, r.stderr)
        r = run("gemm", *size, "--layout", "row", "--trans-a", "--trans-b", "--out", row)
        self.assertEqual(r.returncode, 0, r.stderr)
        got_col, got_row = np.load(col), np.load(row)
        self.assertEqual(got_col.shape, (37, 23))
        self.assertTrue(got_col.flags["F_CONTIGUOUS"])
        np.testing.assert_allclose(got_col, got_row, rtol=1e-5, atol=1e-6)

    def test_json_survives_a_command_line_that_is_not_utf8(self):
        # The JSON writer used to throw on the command line's invalid UTF-8 (std::terminate).
        csv = os.path.join(os.fsencode(self.dir.name), b"\xff.csv")
        js = self.path("b.json")
        r = subprocess.run([TILEKIT, "bench", "copy", "--backend", "cpu", "--sizes", "64", "--max-time", "0.01",
                            "--csv", csv, "--json", js], capture_output=True, timeout=300)
        self.assertEqual(r.returncode, 0, r.stderr)
        import json
        with open(js) as f:
            self.assertIn("bench copy", json.load(f)["environment"]["command"])

    def peak_rss_bytes(self, *args):
        """Peak resident memory of one tilekit run (Linux reports ru_maxrss in KiB)."""
        p = subprocess.Popen([TILEKIT, *args], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        _, status, usage = os.wait4(p.pid, 0)
        p.returncode = os.waitstatus_to_exitcode(status)
        self.assertEqual(p.returncode, 0, args)
        return usage.ru_maxrss * 1024

    def test_gemm_holds_c_and_one_copy_at_most(self):
        # C is 2000 x 4000 floats = 32 MB; with --check, --beta and --out the command may hold C,
        # C0 and one reference tile (16 MB) besides A, B and what any run holds. Before the fix
        # it held C seven times over (C0, the reference in double twice, a row-major copy and
        # the serialized file).
        c_bytes = 2000 * 4000 * 4
        base = self.peak_rss_bytes("gemm", "--backend", "cpu", "--m", "8", "--n", "8", "--k", "1")
        peak = self.peak_rss_bytes("gemm", "--backend", "cpu", "--m", "2000", "--n", "4000", "--k", "1",
                                   "--beta", "0.5", "--check", "--out", self.path("big.npy"))
        self.assertLess(peak - base, 2 * c_bytes + 32 * 2**20, "peak %d MiB" % (peak >> 20))
        self.assertEqual(np.load(self.path("big.npy")).shape, (2000, 4000))


class HostileInput(TempDirTest):
    """Outputs that are not regular files, inputs without end, overflow, and the messages."""

    def inputs(self):
        a, b = self.path("a.npy"), self.path("b.npy")
        np.save(a, np.ones((3, 4), np.float32))
        np.save(b, np.ones((4, 2), np.float32))
        return ["gemm", "--backend", "cpu", "--a", a, "--b", b]

    def assert_refused(self, r, fragment):
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn(fragment, r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertNotIn("wrote", r.stdout)

    def test_out_symlink_is_refused_and_left_as_it_was(self):
        victim, link = self.path("victim.txt"), self.path("link.npy")
        with open(victim, "w") as f:
            f.write("precious")
        os.symlink(victim, link)
        self.assert_refused(run(*self.inputs(), "--out", link), "symbolic link")
        self.assertTrue(os.path.islink(link))
        with open(victim) as f:
            self.assertEqual(f.read(), "precious")

    def test_out_fifo_is_refused_at_once_and_stays_a_fifo(self):
        fifo = self.path("fifo")
        os.mkfifo(fifo)
        r = subprocess.run([TILEKIT, *self.inputs(), "--out", fifo], capture_output=True, text=True,
                           timeout=20)
        self.assert_refused(r, "FIFO")
        self.assertTrue(stat.S_ISFIFO(os.lstat(fifo).st_mode))

    def test_out_dev_null_is_refused_and_stays_a_device(self):
        self.assert_refused(run(*self.inputs(), "--out", "/dev/null"), "character device")
        self.assertTrue(stat.S_ISCHR(os.lstat("/dev/null").st_mode))
        for option in (["bench", "gemm", "--backend", "cpu", "--sizes", "16", "--csv", "/dev/null"],
                       ["bench", "gemm", "--backend", "cpu", "--sizes", "16", "--json", "/dev/null"],
                       ["transpose", "--rows", "3", "--cols", "2", "--out", "/dev/null"]):
            self.assert_refused(run(*option), "character device")
        self.assertTrue(stat.S_ISCHR(os.lstat("/dev/null").st_mode))

    def test_dev_zero_as_input_fails_at_once(self):
        r = subprocess.run([TILEKIT, "gemm", "--backend", "cpu", "--a", "/dev/zero", "--b",
                            "/dev/urandom"], capture_output=True, text=True, timeout=20)
        self.assert_refused(r, "missing the \\x93NUMPY magic")

    def test_npy_through_a_pipe(self):
        a = np.arange(12, dtype=np.float32).reshape(3, 4)
        fifo = self.path("a.fifo")
        os.mkfifo(fifo)

        # np.save to a pipe would try to seek; the bytes are made first, then streamed.
        buffer = io.BytesIO()
        np.save(buffer, a)

        def feed():
            with open(fifo, "wb") as f:
                f.write(buffer.getvalue())
        writer = threading.Thread(target=feed)
        writer.start()
        b = self.path("b.npy")
        np.save(b, np.eye(4, dtype=np.float32))
        out = self.path("c.npy")
        r = run("gemm", "--backend", "cpu", "--a", fifo, "--b", b, "--out", out, "--check")
        writer.join(timeout=20)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        np.testing.assert_array_equal(np.load(out), a)

    def test_float64_input_is_converted_with_a_note(self):
        a, b = self.path("a64.npy"), self.path("b.npy")
        np.save(a, np.ones((3, 4)))
        np.save(b, np.ones((4, 2), np.float32))
        r = run("gemm", "--backend", "cpu", "--a", a, "--b", b)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn(a + " holds float64; converted to float32", r.stderr)
        self.assertNotIn("b.npy", r.stderr)

    def test_overflowing_alpha_is_not_a_failed_check(self):
        for kernel in ("auto", "gemm.cpu.reference.f32"):
            r = run("gemm", "--backend", "cpu", "--m", "64", "--n", "64", "--k", "64",
                    "--alpha", "3e38", "--check", "--kernel", kernel)
            self.assertEqual(r.returncode, 0, kernel + ": " + r.stdout + r.stderr)
            self.assertIn("check: PASS", r.stdout)
            self.assertIn("overflow float32", r.stdout)

    def test_unknown_command_and_option_are_named(self):
        r = run("frobnicate")
        self.assert_refused(r, "unknown command 'frobnicate'")
        self.assertIn("gemm", r.stderr)
        r = run("gemm", "--frobnicate", "3")
        self.assertEqual(r.returncode, 2)
        self.assertIn("--frobnicate", r.stderr)

    def test_banks_shape_too_large_says_so(self):
        r = run("banks", "--shape", "99999999999x99999999999")
        self.assert_refused(r, "99999999999 is too large")
        self.assert_refused(run("banks", "--shape", "32by32"), "must be ROWSxCOLS")

    def tune(self, cache_dir):
        return run("tune", "--backend", "cpu", "--sizes", "16", "--ops", "NN", "--budget", "5",
                   env=dict(os.environ, TILEKIT_CACHE_DIR=cache_dir))

    def cache_path(self, cache_dir):
        r = run("tune", "--backend", "cpu", "--show", env=dict(os.environ, TILEKIT_CACHE_DIR=cache_dir))
        found = re.search(r"(" + re.escape(cache_dir) + r"/\S+\.json)", r.stdout + r.stderr)
        self.assertIsNotNone(found, r.stdout + r.stderr)
        return found.group(1)

    def test_tune_cache_that_is_a_directory_is_named_and_kept(self):
        cache_dir = self.path("cache")
        os.makedirs(cache_dir)
        path = self.cache_path(cache_dir)
        os.makedirs(path)
        r = self.tune(cache_dir)
        self.assertEqual(r.returncode, 4, r.stdout + r.stderr)
        self.assertIn("is a directory", r.stderr)
        self.assertNotIn("not valid JSON", r.stderr)
        self.assertNotIn("wrote", r.stdout)
        self.assertTrue(os.path.isdir(path))

    def test_failed_tune_write_claims_nothing(self):
        blocker = self.path("file")
        with open(blocker, "w") as f:
            f.write("not a folder")
        r = self.tune(os.path.join(blocker, "cache"))
        self.assertNotEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertNotIn("wrote", r.stdout)
        self.assertIn("tilekit: error:", r.stderr)



class Suites(TempDirTest):
    """`tilekit bench --suite` (bench/suites) and `tilekit results` (docs/benchmarking.md)."""

    BEGIN = "<!-- tilekit results: smoke begin -->"
    END = "<!-- tilekit results: smoke end -->"

    @classmethod
    def setUpClass(cls):
        cls.tmp = tempfile.TemporaryDirectory()
        cls.record = os.path.join(cls.tmp.name, "smoke.json")
        cls.bench = run("bench", "--suite", "smoke", "--backend", "cpu", "--out", cls.record)

    @classmethod
    def tearDownClass(cls):
        cls.tmp.cleanup()

    def load_record(self):
        self.assertEqual(self.bench.returncode, 0, self.bench.stdout + self.bench.stderr)
        with open(self.record) as f:
            return json.load(f)

    def write(self, name, text):
        with open(self.path(name), "w") as f:
            f.write(text)
        return self.path(name)

    def read(self, name):
        with open(self.path(name)) as f:
            return f.read()

    def test_smoke_suite_writes_one_record_with_every_part_s_rows(self):
        rec = self.load_record()
        self.assertEqual(rec["suite"], "smoke")
        self.assertTrue(rec["complete"])
        self.assertEqual(rec["errors"], [])
        self.assertIn("bench --suite smoke --backend cpu --out", rec["command"])
        self.assertTrue(rec["commit"])
        self.assertEqual(rec["environment"]["backend"], "cpu")
        self.assertEqual({r["op"] for r in rec["rows"]}, {"gemm", "transpose", "dot", "copy"})
        gemm = [r for r in rec["rows"] if r["op"] == "gemm"]
        self.assertEqual({r["ops"] for r in gemm}, {"NN", "TN"})
        autos = [r for r in gemm if r["kernel"] == "auto"]
        self.assertEqual(len(autos), 4)  # two shapes, two ops
        self.assertTrue(all(r["resolved"].startswith("gemm.cpu.") for r in autos), autos)
        self.assertTrue(all(r["outcome"] == "ok" for r in rec["rows"]), rec["rows"])
        self.assertEqual(rec["parts"][0]["baseline"], "gemm.cpu.openblas.f32")
        self.assertIn("wrote " + self.record + " (%d rows)" % len(rec["rows"]), self.bench.stdout)

    def test_record_goes_to_results_by_default(self):
        r = run("bench", "--suite", "smoke", "--backend", "cpu", cwd=self.dir.name)
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        made = os.listdir(self.path("results"))
        self.assertEqual(len(made), 1, made)
        self.assertRegex(made[0], r"^smoke-[a-z0-9-]+\.json$")
        self.assertIn("wrote results/" + made[0], r.stdout)

    def test_results_markdown_prints_the_tables_with_command_and_commit(self):
        rec = self.load_record()
        r = run("results", self.record, "--markdown")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("### Suite `smoke`", r.stdout)
        self.assertIn("**f32** · baseline `gemm.cpu.openblas.f32`", r.stdout)
        self.assertIn("| ops | shape | baseline ms | auto ms | auto / base |", r.stdout)
        self.assertRegex(r.stdout, r"\| NN \| 64 \| [0-9.]+ \| [0-9.]+ \| [0-9.]+× \| `blocked")
        self.assertIn("| TN | 96x80x72 |", r.stdout)
        self.assertIn("**transpose** · baseline", r.stdout)
        self.assertIn("Made by `tilekit bench --suite smoke --backend cpu --out", r.stdout)
        self.assertIn("at commit `%s`, %s." % (rec["commit"], rec["date"]), r.stdout)

    def test_results_without_markdown_prints_a_line_a_mode(self):
        self.load_record()
        r = run("results", self.record)
        self.assertEqual(r.returncode, 0, r.stderr)
        lines = r.stdout.splitlines()
        self.assertTrue(lines[0].startswith("smoke (%s): Made by" % self.record), lines)
        self.assertEqual([l.split(":")[0].strip() for l in lines[1:]], ["f32", "transpose", "dot", "copy"])
        self.assertIn("auto ≥ 1.0× the baseline at ", lines[1])

    def test_update_replaces_between_the_markers_and_never_appends_twice(self):
        self.load_record()
        page = self.write("page.md", "# Results\n\nAbove.\n\n%s\nold table\n%s\n\nBelow.\n"
                          % (self.BEGIN, self.END))
        r = run("results", self.record, "--update", page)
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("updated " + page + " (smoke)", r.stdout)
        once = self.read("page.md")
        self.assertNotIn("old table", once)
        self.assertTrue(once.startswith("# Results\n\nAbove.\n\n" + self.BEGIN + "\n### Suite `smoke`"), once)
        self.assertTrue(once.endswith(self.END + "\n\nBelow.\n"), once)
        self.assertEqual(run("results", self.record, "--update", page).returncode, 0)
        self.assertEqual(self.read("page.md"), once)
        self.assertEqual(once.count(self.BEGIN), 1)

    def test_update_adds_the_block_at_the_end_once(self):
        self.load_record()
        page = self.write("page.md", "# Results\n")
        for _ in range(2):
            r = run("results", self.record, "--update", page, "--markdown")
            self.assertEqual(r.returncode, 0, r.stderr)
            self.assertTrue(r.stdout.startswith("### Suite `smoke`"), r.stdout)  # the markdown alone
        text = self.read("page.md")
        self.assertTrue(text.startswith("# Results\n\n" + self.BEGIN + "\n"), text)
        self.assertEqual((text.count(self.BEGIN), text.count(self.END)), (1, 1))
        self.assertTrue(text.endswith(self.END + "\n"))

    def test_update_with_broken_markers_changes_nothing(self):
        self.load_record()
        page = self.write("page.md", "%s\nx\n" % self.BEGIN)
        r = run("results", self.record, "--update", page)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(r.stderr, "tilekit: error: %s: '%s' has no end marker\n" % (page, self.BEGIN))
        self.assertEqual(self.read("page.md"), "%s\nx\n" % self.BEGIN)

    def test_unknown_suite_exits_2_naming_the_suites(self):
        r = run("bench", "--suite", "no-such-suite", "--backend", "cpu")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(len(r.stderr.strip().splitlines()), 1, r.stderr)
        self.assertIn("no suite 'no-such-suite' (suites: auto-vs-cublas, decode, evaluation, "
                      "hopper-targets, ladder-targets, memory, smoke, streamed-limits)", r.stderr)

    def test_bad_suite_file_is_named_with_its_field(self):
        bad = self.write("broken.json", '{"name": "broken", "parts": [{"op": "gemv", "shapes": [4]}]}')
        r = run("bench", "--suite", bad, "--backend", "cpu", "--out", self.path("x.json"))
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertEqual(r.stderr, "tilekit: error: %s: parts[0].op: 'gemv' is not one of gemm, "
                         "transpose, dot, copy\n" % bad)
        self.assertFalse(os.path.exists(self.path("x.json")))

    def test_gpu_suite_on_the_cpu_fails_before_anything_runs(self):
        out = self.path("x.json")
        start = time.monotonic()
        r = run("bench", "--suite", "hopper-targets", "--backend", "cpu", "--out", out)
        self.assertLess(time.monotonic() - start, 10)
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("hopper-targets.json: parts[0].kernels: 'gemm.cuda.sm90*' matches ", r.stderr)
        self.assertFalse(os.path.exists(out))

    def test_suite_options_before_a_subcommand_are_refused(self):
        r = run("bench", "--suite", "smoke", "gemm", "--backend", "cpu", "--sizes", "8")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("excludes --suite", r.stderr)
        r = run("bench")
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        self.assertIn("give a subcommand (gemm, copy, transpose, dot) or --suite NAME", r.stderr)

    def test_ctrl_c_keeps_the_finished_rows_in_the_record(self):
        suite = self.write("long.json", '{"name": "long", "parts": [{"op": "gemm", "shapes": ["64:4096:64"],'
                           ' "kernels": ["gemm.cpu.openblas*"]}]}')
        out = self.path("long-record.json")
        p = subprocess.Popen([TILEKIT, "bench", "--suite", suite, "--backend", "cpu", "--out", out],
                             stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
        progress = interrupt_after_first_row(p)
        stdout, err = p.communicate(timeout=120)
        self.assertEqual(p.returncode, 130, stdout + progress + err)
        with open(out) as f:
            rec = json.load(f)
        self.assertFalse(rec["complete"])
        self.assertGreaterEqual(len(rec["rows"]), 1)
        self.assertLess(len(rec["rows"]), 64)
        md = run("results", out, "--markdown")
        self.assertIn("**Incomplete**", md.stdout)

if __name__ == "__main__":
    TILEKIT = os.path.abspath(sys.argv.pop(1))
    unittest.main(verbosity=2)
