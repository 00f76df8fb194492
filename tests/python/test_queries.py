"""tilekit.devices, kernels, occupancy, banks, and the package itself (docstrings, stubs, pins)."""

import inspect
import pathlib
import re

import pytest

import tilekit

ROOT = pathlib.Path(__file__).resolve().parents[2]


def test_devices():
    devs = tilekit.devices()
    assert devs[0]["backend"] == "cpu" and devs[0]["logical_cores"] >= 1
    gpus = [d for d in devs if d["backend"] == "cuda"]
    assert all(d["sm_count"] > 0 and len(d["compute_capability"]) == 2 for d in gpus)
    if not tilekit.built_with_cuda():
        assert not gpus


def test_kernels():
    every = tilekit.kernels()
    ids = [k["id"] for k in every]
    assert len(ids) == len(set(ids)) and "gemm.cpu.reference.f32" in ids
    gemm = tilekit.kernels("gemm.cpu.*")
    assert gemm and all(k["op"] == "gemm" and k["backend"] == "cpu" for k in gemm)
    assert {k["role"] for k in every} <= {"tilekit", "vendor", "reference"}
    rounding = {k["id"]: k["input_rounding"] for k in every}
    assert set(rounding.values()) <= {"nearest", "faithful", None}
    assert rounding["gemm.cpu.reference.f32_tf32"] == "nearest"
    assert rounding["gemm.cpu.reference.f32_bf16"] == "nearest"
    # f32 mode, 16-bit storage in bf16 mode, other ops: nothing is rounded, so no rounding.
    for kernel in ["gemm.cpu.reference.f32", "gemm.cpu.reference.bf16", "transpose.cpu.reference.f32"]:
        assert rounding[kernel] is None, kernel
    if "gemm.cuda.cublas.f32_tf32" in rounding:
        assert rounding["gemm.cuda.cublas.f32_tf32"] == "faithful"
    assert tilekit.kernels("no.such.*") == []


def test_occupancy_matches_the_rules():
    # sm_90, 256 threads, 64 registers: 65536 / (64·256) = 4 blocks, 32 warps of 64 = 50%.
    r = tilekit.occupancy(256, 64, arch="sm_90")
    assert (r["blocks_per_sm"], r["warps_per_sm"], r["occupancy"]) == (4, 32, 0.5)
    assert r["limiters"] == ["registers"]
    full = tilekit.occupancy(128, 32, 0, arch="90")
    assert full["occupancy"] == 1.0
    smem = tilekit.occupancy(256, 32, arch="sm_90", dyn_smem=100 * 1024)
    assert "shared memory" in smem["limiters"] and smem["blocks_per_sm"] == 2


@pytest.mark.parametrize("pad,index,degree", [(0, "y,x", 1), (0, "x,y", 32), (1, "x,y", 1)])
def test_banks(pad, index, degree):
    r = tilekit.banks((32, 32), pad, index)
    assert r["conflict_degree"] == degree
    assert len(r["lanes"]) == 32 and r["phases"] == 1


def test_every_public_function_has_a_docstring():
    for name in tilekit.__all__:
        obj = getattr(tilekit, name)
        if callable(obj):
            assert inspect.getdoc(obj), f"tilekit.{name} has no docstring"
    for name in dir(tilekit._tilekit):
        obj = getattr(tilekit._tilekit, name)
        if callable(obj) and not name.startswith("_"):
            assert obj.__doc__, f"tilekit._tilekit.{name} has no docstring"


def test_stubs_are_installed_beside_the_module():
    stub = pathlib.Path(tilekit._tilekit.__file__).parent / "_tilekit.pyi"
    assert stub.exists(), f"{stub} missing: nanobind_add_stub did not run"
    text = stub.read_text()
    for fn in ("def gemm(", "def transpose(", "def dot(", "def occupancy(", "def banks("):
        assert fn in text
    assert (stub.parent / "py.typed").exists()


def test_build_pins_match_the_dev_requirements():
    pyproject = (ROOT / "pyproject.toml").read_text()
    requires = re.search(r"^requires = \[(.*)\]", pyproject, re.M).group(1)
    pins = dict(re.findall(r'"([\w-]+)==([\w.]+)"', requires))
    dev = dict(re.findall(r"^([\w-]+)==([\w.]+)", (ROOT / "python/requirements-dev.txt").read_text(),
                          re.M))
    assert pins and all(dev.get(name) == version for name, version in pins.items()), (pins, dev)


def test_versions_agree():
    cmake = re.search(r"project\(tilekit VERSION ([\d.]+)", (ROOT / "CMakeLists.txt").read_text())
    pyproject = re.search(r'^version = "([\d.]+)"', (ROOT / "pyproject.toml").read_text(), re.M)
    assert tilekit.__version__ == cmake.group(1) == pyproject.group(1)
