#!/usr/bin/env python3
"""scripts/maintainer/pack-gpu-bin.sh and gpu-bin-lib.sh's resolve_bin on a made-up build folder
(CPU test)."""
import os
import shutil
import subprocess
import tarfile
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PACK = os.path.join(ROOT, "scripts", "maintainer", "pack-gpu-bin.sh")
LIB = os.path.join(ROOT, "scripts", "maintainer", "gpu-bin-lib.sh")


class PackGpuBin(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.bin = os.path.join(self.tmp, "bin")
        os.mkdir(self.bin)
        # An ELF executable strip accepts, the bundled libraries, and the project's own library.
        shutil.copy(shutil.which("true"), os.path.join(self.bin, "tilekit"))
        shutil.copy(shutil.which("true"), os.path.join(self.bin, "tilekit_gpu_tests"))
        for lib in ("libopenblas.so.0", "libgomp.so.1", "libtilekit_blas.so"):
            with open(os.path.join(self.bin, lib), "wb") as f:
                f.write(b"not really a library")

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def pack(self, out, *names, env=None):
        return subprocess.run([PACK, self.bin, out, *names], capture_output=True, text=True,
                              env=None if env is None else dict(os.environ, **env))

    def test_packs_the_named_executables_and_the_bundled_libraries(self):
        out = os.path.join(self.tmp, "check.txz")
        r = self.pack(out, "tilekit")
        self.assertEqual(r.returncode, 0, r.stderr)
        with tarfile.open(out) as t:
            names = sorted(t.getnames())
        self.assertEqual(names, ["bin", "bin/libgomp.so.1", "bin/libopenblas.so.0", "bin/tilekit"])
        self.assertIn("MiB", r.stdout)

    def test_max_mib_sets_the_limit(self):
        out = os.path.join(self.tmp, "check.txz")
        self.assertEqual(self.pack(out, "tilekit", env={"MAX_MIB": "0"}).returncode, 0)  # no limit
        r = self.pack(os.path.join(self.tmp, "other.txz"), "tilekit", env={"MAX_MIB": "64M"})
        self.assertEqual(r.returncode, 2)
        self.assertIn("MAX_MIB", r.stderr)
        self.assertFalse(os.path.exists(os.path.join(self.tmp, "other.txz")))

    def test_a_missing_executable_writes_nothing(self):
        out = os.path.join(self.tmp, "check.txz")
        with open(out, "w") as f:
            f.write("an earlier pack")
        r = self.pack(out, "tilekit", "tilekit_nope")
        self.assertEqual(r.returncode, 2)
        self.assertIn("no tilekit_nope", r.stderr)
        with open(out) as f:
            self.assertEqual(f.read(), "an earlier pack")
        self.assertFalse(os.path.exists(out + ".partial"))

    def test_usage_without_arguments(self):
        r = subprocess.run([PACK], capture_output=True, text=True)
        self.assertEqual(r.returncode, 2)
        self.assertIn("Usage", r.stderr)

    def resolve(self, path):
        return subprocess.run(["bash", "-c", f'. "{LIB}" && resolve_bin "$1"', "_", path],
                              capture_output=True, text=True)

    def test_resolve_bin_unpacks_a_pack_and_passes_a_folder_through(self):
        out = os.path.join(self.tmp, "check.txz")
        self.assertEqual(self.pack(out, "tilekit", "tilekit_gpu_tests").returncode, 0)
        r = self.resolve(out)
        self.assertEqual(r.returncode, 0, r.stderr)
        unpacked = r.stdout.strip()
        try:
            self.assertTrue(os.access(os.path.join(unpacked, "tilekit_gpu_tests"), os.X_OK))
            self.assertFalse(os.path.exists(os.path.join(unpacked, "libtilekit_blas.so")))
        finally:
            shutil.rmtree(os.path.dirname(unpacked))
        self.assertEqual(self.resolve(self.bin).stdout.strip(), self.bin)
        missing = self.resolve(os.path.join(self.tmp, "none.txz"))
        self.assertNotEqual(missing.returncode, 0)
        self.assertIn("no pack", missing.stderr)


if __name__ == "__main__":
    unittest.main()
