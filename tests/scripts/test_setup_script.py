#!/usr/bin/env python3
"""scripts/setup.sh with stand-ins for apt-get, dpkg, cmake and python3 on PATH (CPU test), and the
--help of setup.sh and fresh-debian-check.sh.

setup.sh runs from a copy in a temporary tree, so the .venv-dev it makes is the copy's, and every
command that would install anything is a stand-in: nothing on this machine changes."""
import os
import re
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SETUP = os.path.join(ROOT, "scripts", "setup.sh")
FRESH = os.path.join(ROOT, "scripts", "fresh-debian-check.sh")

# Each stand-in appends what it was asked to do to $FAKE_LOG, so a test can tell the order.
STUBS = {
    "apt-get": r"""#!/bin/bash
echo "apt-get $*" >>"$FAKE_LOG"
case " $* " in
  *" install "*) if [ "${FAKE_APT_FAIL:-0}" = 1 ]; then
                   echo "E: Unable to locate package libcli11-dev"; exit 100
                 fi ;;
esac
""",
    # Every package installed, or (FAKE_MISSING=1) none.
    "dpkg-query": r"""#!/bin/bash
if [ "${FAKE_MISSING:-0}" = 1 ]; then printf 'unknown ok not-installed'; else printf 'install ok installed'; fi
""",
    "dpkg": r"""#!/bin/bash
echo "dpkg $*" >>"$FAKE_LOG"
""",
    # Runs the command as is: under a non-root user the test must not reach the real sudo.
    "sudo": r"""#!/bin/bash
exec "$@"
""",
    # setup.sh's probe asks CMake which Python it picks: the python3 stand-in.
    "cmake": r"""#!/bin/bash
while (($#)); do
  if [ "$1" = -B ]; then mkdir -p "$2"; command -v python3 | tr -d '\n' >"$2/python3.txt"; fi
  shift
done
""",
    # Debian's Python by default (FAKE_PY_KIND=managed, prefix /usr, with numpy and matplotlib);
    # FAKE_PY_KIND=free makes it another Python that lacks them. `-m venv DIR` copies this file as
    # DIR/bin/python. pip fails with FAKE_PIP_FAIL=1, printing 22 lines like pip's retries.
    "python3": r"""#!/bin/bash
case "$1" in
  -)
    cat >/dev/null
    if [ $# -eq 1 ]; then
      if [ "${FAKE_PY_KIND:-managed}" = managed ]; then printf '/usr\tmanaged\n'
      else printf '/opt/fakepy\tfree\n'; fi
      exit 0
    fi
    [ -e "$FAKE_STATE/pins" ]; exit ;;            # pins_met
  -c)
    case "$2" in
      *matplotlib*) [ "${FAKE_PY_KIND:-managed}" = managed ] || [ -e "$FAKE_STATE/numpy" ]; exit ;;
      *) exit 0 ;;
    esac ;;
  -m)
    case "$2" in
      venv) dir="${@: -1}"; mkdir -p "$dir/bin"; cp "$0" "$dir/bin/python"; exit 0 ;;
      pip)
        [ "$3" = install ] || exit 0
        echo "pip $*" >>"$FAKE_LOG"
        if [ "${FAKE_PIP_FAIL:-0}" = 1 ]; then
          for i in $(seq -w 1 20); do echo "pip noise line $i"; done
          echo "WARNING: Retrying after connection broken by SSLError(CERTIFICATE_VERIFY_FAILED)"
          echo "ERROR: No matching distribution found for nanobind"
          exit 1
        fi
        case " $* " in *" -r "*) touch "$FAKE_STATE/pins" ;; *) touch "$FAKE_STATE/numpy" ;; esac
        exit 0 ;;
    esac ;;
esac
echo "python3 stand-in: unexpected arguments: $*" >&2
exit 3
""",
}


class SetupScript(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.mkdtemp()
        self.tree = os.path.join(self.tmp, "tree")
        os.makedirs(os.path.join(self.tree, "scripts"))
        os.makedirs(os.path.join(self.tree, "python"))
        shutil.copy(SETUP, os.path.join(self.tree, "scripts", "setup.sh"))
        shutil.copy(os.path.join(ROOT, "python", "requirements-dev.txt"),
                    os.path.join(self.tree, "python", "requirements-dev.txt"))
        self.bin = os.path.join(self.tmp, "bin")
        os.mkdir(self.bin)
        for name, text in STUBS.items():
            path = os.path.join(self.bin, name)
            with open(path, "w") as f:
                f.write(text)
            os.chmod(path, 0o755)
        self.state = os.path.join(self.tmp, "state")
        os.mkdir(self.state)
        self.log = os.path.join(self.tmp, "calls.log")
        open(self.log, "w").close()

    def tearDown(self):
        shutil.rmtree(self.tmp)

    def setup(self, *args, **env):
        full = {"PATH": f"{self.bin}:/usr/bin:/bin", "HOME": self.tmp, "TMPDIR": self.tmp,
                "LANG": "C.UTF-8", "FAKE_LOG": self.log, "FAKE_STATE": self.state}
        full.update(env)
        return subprocess.run([os.path.join(self.tree, "scripts", "setup.sh"), *args],
                              capture_output=True, text=True, env=full, timeout=60)

    def calls(self):
        with open(self.log) as f:
            return f.read().splitlines()

    def assert_pip_warning(self, err, step):
        self.assertIn(f"setup: warning: {step}", err)
        for setting in ("HTTPS_PROXY", "https_proxy", "PIP_CERT", "pip config set global.cert",
                        "REQUESTS_CA_BUNDLE", "PIP_INDEX_URL"):
            self.assertIn(setting, err)

    def test_a_failed_pip_install_warns_and_lets_the_build_go_on(self):
        r = self.setup(FAKE_PIP_FAIL="1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_pip_warning(r.stderr, "pip install -r python/requirements-dev.txt")
        self.assertIn("the C++ build and its tests do not need it", r.stderr)
        # The tail of pip's output, not all of it.
        self.assertIn("No matching distribution found for nanobind", r.stderr)
        self.assertIn("CERTIFICATE_VERIFY_FAILED", r.stderr)
        self.assertIn("pip noise line 18", r.stderr)
        self.assertNotIn("pip noise line 17", r.stderr)
        self.assertLess(len(r.stderr.splitlines()), 20, r.stderr)
        self.assertIn("setup: done, except 1 pip install", r.stdout)
        self.assertNotIn("setup: ok", r.stdout)

    def test_verbose_shows_all_of_pips_output(self):
        r = self.setup("-v", FAKE_PIP_FAIL="1")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_pip_warning(r.stderr, "pip install -r python/requirements-dev.txt")
        self.assertIn("pip noise line 01", r.stderr)

    def test_a_failed_pip_install_into_another_python_warns_too(self):
        r = self.setup(FAKE_PIP_FAIL="1", FAKE_PY_KIND="free")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assert_pip_warning(r.stderr, "pip install numpy matplotlib into")
        self.assert_pip_warning(r.stderr, "pip install -r python/requirements-dev.txt")
        self.assertIn("-DPython3_EXECUTABLE=/usr/bin/python3", r.stderr)
        self.assertIn("setup: done, except 2 pip install", r.stdout)

    def test_debian_packages_come_before_anything_from_pypi(self):
        r = self.setup(FAKE_MISSING="1", FAKE_PY_KIND="free")
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("setup: ok", r.stdout)
        calls = self.calls()
        install = [i for i, c in enumerate(calls) if c.startswith("apt-get") and " install " in c]
        pip = [i for i, c in enumerate(calls) if c.startswith("pip ")]
        self.assertEqual(len(install), 1, calls)
        self.assertEqual(len(pip), 2, calls)
        self.assertLess(install[0], pip[0], calls)

    def test_a_failed_apt_get_install_stops_it(self):
        r = self.setup(FAKE_MISSING="1", FAKE_APT_FAIL="1")
        self.assertNotEqual(r.returncode, 0)
        self.assertIn("setup: error: apt-get install failed", r.stderr)
        self.assertIn("Unable to locate package", r.stderr)
        self.assertFalse([c for c in self.calls() if c.startswith("pip ")])

    def test_all_there_installs_nothing(self):
        r = self.setup()
        self.assertEqual(r.returncode, 0, r.stderr)
        # Nothing on stderr but, off Debian 12, the warning that says so.
        self.assertEqual([l for l in r.stderr.splitlines() if "made for Debian 12" not in l], [])
        r = self.setup()
        self.assertEqual(r.returncode, 0, r.stderr)
        self.assertIn("setup: ok", r.stdout)
        # Only the first run installed the pins; apt-get never ran.
        self.assertEqual(len([c for c in self.calls() if c.startswith("pip ")]), 1, self.calls())
        self.assertFalse([c for c in self.calls() if c.startswith("apt-get")])


class Help(unittest.TestCase):
    def check_help(self, script):
        r = subprocess.run([script, "--help"], capture_output=True, text=True, timeout=60)
        self.assertEqual(r.returncode, 0, r.stderr)
        # Exactly the leading comment block, without its "# ": no line of code, nothing cut off.
        with open(script) as f:
            lines = f.read().splitlines()[1:]
        header = []
        for line in lines:
            if not line.startswith("#"):
                break
            header.append(re.sub(r"^# ?", "", line))
        self.assertEqual(r.stdout.splitlines(), header)
        self.assertNotIn("set -euo pipefail", r.stdout)

    def test_setup_help(self):
        self.check_help(SETUP)

    def test_fresh_debian_check_help(self):
        self.check_help(FRESH)


if __name__ == "__main__":
    unittest.main()
