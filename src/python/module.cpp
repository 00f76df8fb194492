// module.cpp — tilekit._tilekit, the nanobind extension under the `tilekit` Python package.
//
// The low-level half of the bindings: it takes arrays through DLPack (nb::ndarray: NumPy,
// PyTorch, CuPy, any __dlpack__ producer), checks them, maps strides to (layout, ld, op) and runs
// the library with the GIL released. Allocation, copies and stream choice live in
// python/tilekit/__init__.py, which knows the caller's array library; this file never allocates
// an array and never synchronizes a device.
//
// The array entry points return 0 when they ran, or a code naming the array that no leading
// dimension describes (a broadcast or doubly strided view): the Python layer then makes a
// contiguous copy and calls again. Nothing has been launched or written in that case.
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/vector.h>

#include <cstdint>
#include <cstring>
#include <map>
#include <new>
#include <stdexcept>
#include <string>
#include <tuple>
#include <utility>

#include "tilekit/banks.hpp"
#include "tilekit/device.hpp"
#include "tilekit/occupancy.hpp"
#include "tilekit/tilekit.hpp"
#include "tilekit/types.hpp"

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using tilekit::Backend;
using tilekit::Context;
using tilekit::DType;
using tilekit::Layout;
using tilekit::Op;
using tilekit::Status;
using tilekit::StatusCode;

using InArray = nb::ndarray<nb::ro>;
using OutArray = nb::ndarray<>;

// ---- errors --------------------------------------------------------------------------------------

// A library Status as the Python exception its code calls for: bad requests are ValueError (the
// message names the argument), memory is MemoryError, CUDA and everything else RuntimeError.
[[noreturn]] void raise_status(const Status& s, const std::string& fn) {
  const std::string msg = fn + ": " + s.to_string();
  switch (s.code()) {
    case StatusCode::kInvalidArgument:
    case StatusCode::kNotSupported:
      throw nb::value_error(msg.c_str());
    case StatusCode::kOutOfMemory:
      PyErr_SetString(PyExc_MemoryError, msg.c_str());
      throw nb::python_error();
    default:
      throw std::runtime_error(msg);
  }
}

// The library's query functions word errors with the CLI's option names; say the Python names.
Status with_python_names(const Status& s) {
  std::string m = s.message();
  const std::pair<const char*, const char*> names[] = {
      {"--dyn-smem", "dyn_smem"}, {"--elem", "elem_bytes"}, {"--", ""}};
  for (const auto& [cli, py] : names)
    for (size_t at; (at = m.find(cli)) != std::string::npos;) m.replace(at, strlen(cli), py);
  return Status(s.code(), m, s.backend_code());
}

[[noreturn]] void type_error(const std::string& msg) { throw nb::type_error(msg.c_str()); }
[[noreturn]] void value_error(const std::string& msg) { throw nb::value_error(msg.c_str()); }

// ---- arrays --------------------------------------------------------------------------------------

// Where an array lives, as tilekit sees it.
struct Where {
  Backend backend = Backend::kCpu;
  int device = 0;
  bool operator==(const Where& o) const { return backend == o.backend && device == o.device; }
  std::string name() const {
    return backend == Backend::kCpu ? "cpu" : "cuda:" + std::to_string(device);
  }
};

std::string py_type_name(nb::handle h) {
  return nb::str(h.type().attr("__name__")).c_str();
}

// The TypeError for an object that neither DLPack nor the buffer protocol converts. One with a
// dtype is an array of a dtype that neither carries (non-native byte order, structured, object):
// its dtype, not its type, is what the caller must change.
[[noreturn]] void not_an_array(nb::handle h, const char* arg, const char* what) {
  // An nb::object, so that nb::str calls str() on it rather than taking it to be a str already.
  const nb::object dtype = nb::getattr(h, "dtype", nb::none());
  if (!dtype.is_none())
    type_error(std::string(arg) + ": unsupported dtype " + nb::str(dtype).c_str() + " (" +
               py_type_name(h) + "; tilekit reads native float32, float16, bfloat16)");
  type_error(std::string(arg) + ": expected " + what + " (NumPy, PyTorch, CuPy or any object " +
             "with __dlpack__), got " + py_type_name(h));
}

// Converts an argument without copying, or raises TypeError naming it. Writable arrays are
// asked for separately so that a read-only one gets its own message.
InArray input_array(nb::handle h, const char* arg) {
  InArray a;
  if (!nb::try_cast(h, a, false)) not_an_array(h, arg, "an array");
  return a;
}

OutArray output_array(nb::handle h, const char* arg) {
  OutArray a;
  if (nb::try_cast(h, a, false)) return a;
  InArray ro;
  if (nb::try_cast(h, ro, false)) value_error(std::string(arg) + ": the array is read-only");
  not_an_array(h, arg, "a writable array");
}

template <typename A>
Where where_of(const A& a, const char* arg) {
  const int type = a.device_type();
  if (type == nb::device::cpu::value || type == nb::device::cuda_host::value)
    return {Backend::kCpu, 0};
  if (type == nb::device::cuda::value || type == nb::device::cuda_managed::value) {
    if (!tilekit::built_with_cuda())
      value_error(std::string(arg) + ": a CUDA array, but this tilekit was built without the CUDA "
                  "backend (CPU only)");
    return {Backend::kCuda, a.device_id()};
  }
  value_error(std::string(arg) + ": DLPack device type " + std::to_string(type) +
              " is not supported (CPU or CUDA arrays)");
}

template <typename A>
std::string shape_text(const A& a) {
  std::string s = "(";
  for (size_t i = 0; i < a.ndim(); ++i) s += (i ? ", " : "") + std::to_string(a.shape(i));
  return s + (a.ndim() == 1 ? ",)" : ")");
}

template <typename A>
void require_ndim(const A& a, size_t ndim, const char* arg) {
  if (a.ndim() != ndim)
    value_error(std::string(arg) + ": expected a " + std::to_string(ndim) + "-D array, got " +
                std::to_string(a.ndim()) + "-D shape " + shape_text(a));
}

// DLPack type → tilekit storage type; false for anything else.
bool dtype_of(nb::dlpack::dtype t, DType* out) {
  if (t.lanes != 1) return false;
  if (t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Float) && t.bits == 32)
    return *out = DType::kF32, true;
  if (t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Float) && t.bits == 16)
    return *out = DType::kF16, true;
  if (t.code == static_cast<uint8_t>(nb::dlpack::dtype_code::Bfloat) && t.bits == 16)
    return *out = DType::kBF16, true;
  return false;
}

std::string dtype_text(nb::dlpack::dtype t) {
  DType d;
  if (dtype_of(t, &d)) {
    return d == DType::kF32 ? "float32" : d == DType::kF16 ? "float16" : "bfloat16";
  }
  static const char* codes[] = {"int", "uint", "float", "opaque", "bfloat", "complex", "bool"};
  const std::string code = t.code < 7 ? codes[t.code] : "code" + std::to_string(t.code);
  return code + std::to_string(t.bits) + (t.lanes != 1 ? "x" + std::to_string(t.lanes) : "");
}

template <typename A>
DType require_dtype(const A& a, const char* arg, bool f32_only) {
  DType d;
  if (!dtype_of(a.dtype(), &d) || (f32_only && d != DType::kF32))
    type_error(std::string(arg) + ": dtype " + dtype_text(a.dtype()) + " is not supported (" +
               (f32_only ? "float32" : "float32, float16 or bfloat16") + ")");
  return d;
}

// A 2-D array's shape and element strides.
struct Dims {
  int64_t rows = 0, cols = 0, row_stride = 0, col_stride = 0;
};

template <typename A>
Dims dims_of(const A& a) {
  return {static_cast<int64_t>(a.shape(0)), static_cast<int64_t>(a.shape(1)), a.stride(0),
          a.stride(1)};
}

// The leading dimension that describes `d` as a matrix stored in `layout`, or -1 when none does
// (elements of a line not adjacent, lines overlapping, negative or zero strides). An empty matrix
// or a single line takes the smallest legal ld: its other stride is never used.
int64_t ld_in(Dims d, Layout layout) {
  if (layout == Layout::kColMajor) d = {d.cols, d.rows, d.col_stride, d.row_stride};
  const int64_t min_ld = d.cols > 1 ? d.cols : 1;
  if (d.rows == 0 || d.cols == 0) return min_ld;
  if (d.cols > 1 && d.col_stride != 1) return -1;
  if (d.rows == 1) return min_ld;
  return d.row_stride >= min_ld ? d.row_stride : -1;
}

// The bytes an array's elements span, [lo, hi); empty for an empty array.
struct Extent {
  uintptr_t lo = 0, hi = 0;
};

template <typename A>
Extent extent_of(const A& x) {
  const auto base = reinterpret_cast<intptr_t>(x.data());
  const int64_t item = x.itemsize();
  int64_t low = 0, high = 0;
  for (size_t i = 0; i < x.ndim(); ++i) {
    if (x.shape(i) == 0) return {};
    const int64_t reach = (static_cast<int64_t>(x.shape(i)) - 1) * x.stride(i);
    (reach < 0 ? low : high) += reach;
  }
  return {static_cast<uintptr_t>(base + low * item), static_cast<uintptr_t>(base + (high + 1) * item)};
}

bool overlaps(const Extent& x, const Extent& y) {
  return x.lo < x.hi && y.lo < y.hi && x.lo < y.hi && y.lo < x.hi;
}

// The kernels read the inputs while they write the output: like BLAS, they must not share memory.
template <typename O, typename I>
void require_disjoint(const O& out, const I& in, const char* in_name) {
  if (overlaps(extent_of(out), extent_of(in)))
    value_error(std::string("out: overlaps ") + in_name + " (the kernel reads " + in_name +
                " while it writes out; pass a separate out)");
}

Layout other(Layout l) { return l == Layout::kRowMajor ? Layout::kColMajor : Layout::kRowMajor; }

// How the library reads operand `d` (op(d) wanted, `trans` as the caller asked) in `layout`:
// as stored with op = trans, or as its transpose with the op flipped. False: no ld describes it.
bool operand_in(const Dims& d, Layout layout, bool trans, Op* op, int64_t* ld) {
  if ((*ld = ld_in(d, layout)) >= 0) return *op = trans ? Op::kT : Op::kN, true;
  if ((*ld = ld_in(d, other(layout))) >= 0) return *op = trans ? Op::kN : Op::kT, true;
  return false;
}

// ---- contexts ------------------------------------------------------------------------------------

// One context per (backend, device, stream) and thread: a context owns the workspace pool that
// must not be re-made per call, and must not be shared by two threads at once (device.hpp), which
// the released GIL would otherwise allow.
Context& context_for(const Where& w, uintptr_t stream) {
  thread_local std::map<std::tuple<int, int, uintptr_t>, Context> contexts;
  const auto key = std::make_tuple(static_cast<int>(w.backend), w.device, stream);
  auto it = contexts.find(key);
  if (it == contexts.end()) {
    Context ctx = w.backend == Backend::kCpu
                      ? Context::cpu()
                      : Context::cuda(w.device, reinterpret_cast<CUstream_st*>(stream));
    it = contexts.emplace(key, std::move(ctx)).first;
  }
  return it->second;
}

void require_same_place(const Where& got, const Where& want, const char* arg, const char* ref) {
  if (!(got == want))
    value_error(std::string(arg) + ": on " + got.name() + " but " + ref + " is on " + want.name() +
                " (all arrays of one call must be on one device)");
}

// ---- gemm ----------------------------------------------------------------------------------------

int gemm(nb::handle a_obj, nb::handle b_obj, nb::handle c_obj, nb::handle out_obj, float alpha,
         float beta, bool trans_a, bool trans_b, const std::string& compute,
         const std::string& kernel, bool allow_vendor, int split_k, double tune_budget_ms,
         uintptr_t stream) {
  InArray a = input_array(a_obj, "a");
  InArray b = input_array(b_obj, "b");
  require_ndim(a, 2, "a");
  require_ndim(b, 2, "b");
  const DType ta = require_dtype(a, "a", false);
  const DType tb = require_dtype(b, "b", false);
  if (ta != tb)
    type_error("b: dtype " + dtype_text(b.dtype()) + " differs from a's " + dtype_text(a.dtype()) +
               " (A and B must have one dtype)");
  const Where where = where_of(a, "a");
  require_same_place(where_of(b, "b"), where, "b", "a");

  const Dims da = dims_of(a), db = dims_of(b);
  const int64_t m = trans_a ? da.cols : da.rows, k = trans_a ? da.rows : da.cols;
  const int64_t kb = trans_b ? db.cols : db.rows, n = trans_b ? db.rows : db.cols;
  if (kb != k)
    value_error("b: shape " + shape_text(b) + (trans_b ? " transposed" : "") + " gives " +
                std::to_string(kb) + " rows, but op(a) has " + std::to_string(k) + " columns (a " +
                shape_text(a) + (trans_a ? " transposed" : "") + ")");
  const std::string want_shape = "(" + std::to_string(m) + ", " + std::to_string(n) + ")";
  // c is checked even when beta = 0 (never read then), so a wrong c is never silently ignored.
  if (!c_obj.is_none()) {
    InArray c = input_array(c_obj, "c");
    require_ndim(c, 2, "c");
    require_dtype(c, "c", false);
    require_same_place(where_of(c, "c"), where, "c", "a");
    if (static_cast<int64_t>(c.shape(0)) != m || static_cast<int64_t>(c.shape(1)) != n)
      value_error("c: shape " + shape_text(c) + " must be op(a)·op(b)'s " + want_shape);
  }
  OutArray out = output_array(out_obj, "out");
  require_ndim(out, 2, "out");
  const DType tc = require_dtype(out, "out", false);
  require_same_place(where_of(out, "out"), where, "out", "a");
  if (static_cast<int64_t>(out.shape(0)) != m || static_cast<int64_t>(out.shape(1)) != n)
    value_error("out: shape " + shape_text(out) + " must be op(a)·op(b)'s " + want_shape);
  require_disjoint(out, a, "a");
  require_disjoint(out, b, "b");

  tilekit::GemmTypes types{ta, tb, tc, ta == DType::kF32 ? tilekit::Compute::kF32
                                                         : tilekit::Compute::kBF16};
  if (!compute.empty()) {
    const Status s = tilekit::parse_compute(compute, "compute", &types.compute);
    if (!s) raise_status(s, "tilekit.gemm");
  }
  if (const Status s = tilekit::validate(types); !s)
    raise_status(Status(s.code(), "dtypes a " + dtype_text(a.dtype()) + ", out " +
                                      dtype_text(out.dtype()) + ", compute " +
                                      tilekit::compute_name(types.compute) + ": " + s.message()),
                 "tilekit.gemm");

  // C fixes the layout (it has no op); A and B are read as stored or as their transposes.
  const Dims dc = dims_of(out);
  Layout layout = Layout::kRowMajor;
  int64_t ldc = ld_in(dc, layout);
  if (ldc < 0) ldc = ld_in(dc, layout = Layout::kColMajor);
  if (ldc < 0) return 4;
  Op op_a, op_b;
  int64_t lda, ldb;
  if (!operand_in(da, layout, trans_a, &op_a, &lda)) return 1;
  if (!operand_in(db, layout, trans_b, &op_b, &ldb)) return 2;

  // A problem rather than gemm_ex's arguments: split_k is a field of the problem only.
  tilekit::GemmProblem p;
  p.layout = layout;
  p.op_a = op_a;
  p.op_b = op_b;
  p.m = m;
  p.n = n;
  p.k = k;
  p.types = types;
  p.alpha = alpha;
  p.a = a.data();
  p.lda = lda;
  p.b = b.data();
  p.ldb = ldb;
  p.beta = beta;
  p.c = out.data();
  p.ldc = ldc;
  p.split_k = split_k;
  Context& ctx = context_for(where, stream);
  tilekit::GemmOptions options{kernel, allow_vendor, tune_budget_ms};
  Status s;
  {
    nb::gil_scoped_release release;
    s = tilekit::gemm(ctx, p, options);
  }
  if (!s) raise_status(s, "tilekit.gemm");
  return 0;
}

// ---- transpose and dot ---------------------------------------------------------------------------

int transpose(nb::handle a_obj, nb::handle out_obj, const std::string& kernel, uintptr_t stream) {
  InArray a = input_array(a_obj, "a");
  require_ndim(a, 2, "a");
  require_dtype(a, "a", true);
  const Where where = where_of(a, "a");
  OutArray out = output_array(out_obj, "out");
  require_ndim(out, 2, "out");
  require_dtype(out, "out", true);
  require_same_place(where_of(out, "out"), where, "out", "a");
  const Dims da = dims_of(a), dout = dims_of(out);
  if (dout.rows != da.cols || dout.cols != da.rows)
    value_error("out: shape " + shape_text(out) + " must be a's transposed shape (" +
                std::to_string(da.cols) + ", " + std::to_string(da.rows) + ")");
  require_disjoint(out, a, "a");
  const int64_t lda = ld_in(da, Layout::kRowMajor);
  if (lda < 0) return 1;
  const int64_t ldb = ld_in(dout, Layout::kRowMajor);
  if (ldb < 0) return 2;
  Context& ctx = context_for(where, stream);
  Status s;
  {
    nb::gil_scoped_release release;
    s = tilekit::transpose(ctx, da.rows, da.cols, static_cast<const float*>(a.data()), lda,
                           static_cast<float*>(out.data()), ldb, tilekit::KernelOptions{kernel});
  }
  if (!s) raise_status(s, "tilekit.transpose");
  return 0;
}

int dot(nb::handle x_obj, nb::handle y_obj, nb::handle out_obj, const std::string& kernel,
        uintptr_t stream) {
  InArray x = input_array(x_obj, "x");
  InArray y = input_array(y_obj, "y");
  require_ndim(x, 1, "x");
  require_ndim(y, 1, "y");
  require_dtype(x, "x", true);
  require_dtype(y, "y", true);
  const Where where = where_of(x, "x");
  require_same_place(where_of(y, "y"), where, "y", "x");
  if (x.shape(0) != y.shape(0))
    value_error("y: length " + std::to_string(y.shape(0)) + " differs from x's " +
                std::to_string(x.shape(0)));
  OutArray out = output_array(out_obj, "out");
  require_dtype(out, "out", true);
  require_same_place(where_of(out, "out"), where, "out", "x");
  if (out.size() != 1) value_error("out: must hold exactly one element, got " + shape_text(out));
  const int64_t n = static_cast<int64_t>(x.shape(0));
  if (n > 1 && x.stride(0) != 1) return 1;
  if (n > 1 && y.stride(0) != 1) return 2;
  Context& ctx = context_for(where, stream);
  Status s;
  {
    nb::gil_scoped_release release;
    s = tilekit::dot(ctx, n, static_cast<const float*>(x.data()),
                     static_cast<const float*>(y.data()), static_cast<float*>(out.data()),
                     tilekit::KernelOptions{kernel});
  }
  if (!s) raise_status(s, "tilekit.dot");
  return 0;
}

// ---- queries -------------------------------------------------------------------------------------

void fill(nb::dict&) {}
template <typename V, typename... Rest>
void fill(nb::dict& d, const char* key, V&& value, Rest&&... rest) {
  d[key] = std::forward<V>(value);
  fill(d, std::forward<Rest>(rest)...);
}
// dict_of("a", 1, "b", "x") == {"a": 1, "b": "x"}
template <typename... Args>
nb::dict dict_of(Args&&... args) {
  nb::dict d;
  fill(d, std::forward<Args>(args)...);
  return d;
}

nb::list devices() {
  nb::list out;
  const tilekit::CpuInfo cpu = tilekit::query_cpu();
  out.append(dict_of("backend", "cpu", "index", 0, "name", cpu.model,
                      "logical_cores", cpu.logical_cores,
                      "omp_max_threads", cpu.omp_max_threads));
  for (int i = 0; i < tilekit::cuda_device_count(); ++i) {
    tilekit::DeviceInfo d;
    if (const Status s = tilekit::query_device(i, &d); !s) raise_status(s, "tilekit.devices");
    nb::dict g = dict_of("backend", "cuda", "index", d.index, "name", d.name);
    g["compute_capability"] = nb::make_tuple(d.cc_major, d.cc_minor);
    g["sm_count"] = d.sm_count;
    g["sm_clock_khz"] = d.sm_clock_khz;
    g["memory_clock_khz"] = d.memory_clock_khz;
    g["global_memory_bytes"] = d.global_memory_bytes;
    g["l2_cache_bytes"] = d.l2_cache_bytes;
    g["peak_dram_gbps"] = d.peak_dram_gbps();
    g["driver_version"] = d.driver_version;
    g["runtime_version"] = d.runtime_version;
    out.append(g);
  }
  return out;
}

const char* role_name(tilekit::KernelRole r) {
  return r == tilekit::KernelRole::kOwn ? "tilekit"
         : r == tilekit::KernelRole::kVendor ? "vendor" : "reference";
}

nb::list kernels(const std::string& glob) {
  nb::list out;
  for (const auto& e : tilekit::Registry::instance().match_any(glob)) {
    const tilekit::KernelInfo& k = *e.info;
    nb::dict d = dict_of("id", k.id, "op", k.op, "backend", tilekit::backend_name(k.backend),
               "dtype", k.dtype, "family", k.family, "step", k.step);
    d["role"] = role_name(k.role);
    d["tile"] = k.tile;
    d["requirements"] = k.requirements;
    d["min_sm"] = k.min_sm;
    // None where the mode rounds no input, as `tilekit list` prints "-" there.
    if (tilekit::rounds_inputs(k))
      d["input_rounding"] = tilekit::input_rounding_name(k.input_rounding);
    else
      d["input_rounding"] = nb::none();
    out.append(d);
  }
  return out;
}

nb::dict occupancy(int threads, int regs, size_t smem, const std::string& arch, size_t dyn_smem,
                   int carveout) {
  tilekit::ArchProperties props;
  if (const Status s = tilekit::find_architecture(arch, &props); !s)
    raise_status(with_python_names(s), "tilekit.occupancy");
  tilekit::OccupancyQuery q{threads, regs, smem, dyn_smem, carveout};
  tilekit::OccupancyResult r;
  if (const Status s = tilekit::compute_occupancy(props, q, &r); !s)
    raise_status(with_python_names(s), "tilekit.occupancy");
  nb::dict d = dict_of("arch", props.name, "blocks_per_sm", r.blocks_per_sm,
             "warps_per_sm", r.warps_per_sm, "occupancy", r.occupancy,
             "limiters", r.limiters);
  d["limit_warps"] = r.limit_warps;
  d["limit_registers"] = r.limit_registers;
  d["limit_shared_memory"] = r.limit_shared_memory;
  d["limit_blocks"] = r.limit_blocks;
  d["limit_barriers"] = r.limit_barriers;
  d["allocated_registers_per_block"] = r.allocated_registers_per_block;
  d["allocated_smem_per_block"] = r.allocated_smem_per_block;
  d["smem_config_per_sm"] = r.smem_config_per_sm;
  d["why_zero"] = r.why_zero;
  d["device_active_blocks"] = r.device_active_blocks;
  return d;
}

nb::dict banks(int rows, int cols, int pad, const std::string& index, int elem_bytes, int block_x,
               int block_y, int warp) {
  tilekit::BankQuery q;
  q.rows = rows;
  q.cols = cols;
  q.pad = pad;
  q.index = index;
  q.elem_bytes = elem_bytes;
  q.block_x = block_x;
  q.block_y = block_y;
  q.warp = warp;
  tilekit::BankReport r;
  if (const Status s = tilekit::analyze_banks(q, &r); !s)
    raise_status(with_python_names(s), "tilekit.banks");
  nb::list lanes;
  for (const auto& l : r.lanes)
    lanes.append(dict_of("lane", l.lane, "x", l.x, "y", l.y, "row", l.row,
                          "col", l.col, "byte_offset", l.byte_offset, "banks", l.banks));
  return dict_of("lanes", lanes, "phases", r.phases, "wavefronts", r.wavefronts,
                  "ideal_wavefronts", r.ideal_wavefronts,
                  "conflict_degree", r.conflict_degree, "words_per_bank", r.words_per_bank);
}

}  // namespace

NB_MODULE(_tilekit, m) {
  m.doc() = "tilekit's compiled core. Use the `tilekit` package: its functions allocate results "
            "in the caller's array library and choose the stream; these take every array "
            "ready-made.";
  m.def("gemm", &gemm, "a"_a, "b"_a, "c"_a.none(), "out"_a, "alpha"_a, "beta"_a, "trans_a"_a,
        "trans_b"_a, "compute"_a, "kernel"_a, "allow_vendor"_a, "split_k"_a, "tune_budget_ms"_a,
        "stream"_a,
        "out = alpha·op(a)·op(b) + beta·out on a's device and `stream` (0: the legacy default "
        "stream). `c` is only checked (shape, dtype, device); `out` must already hold it when "
        "beta != 0. `compute` '' picks f32 for float32 inputs and bf16 for 16-bit ones. "
        "`split_k` is GemmProblem::split_k (0: the kernel or the tuner chooses). Returns 0, "
        "or 1, 2, 4 when a, b or out is a view no leading dimension describes (nothing was run).");
  m.def("transpose", &transpose, "a"_a, "out"_a, "kernel"_a, "stream"_a,
        "out = aᵀ (float32). Returns 0, or 1 / 2 when a / out needs a contiguous copy.");
  m.def("dot", &dot, "x"_a, "y"_a, "out"_a, "kernel"_a, "stream"_a,
        "out[0] = x·y (float32, result left on x's device). Returns 0, or 1 / 2 when x / y is "
        "strided.");
  m.def("devices", &devices, "The CPU and each CUDA device, as dicts.");
  m.def("kernels", &kernels, "glob"_a, "The registered kernels whose id matches `glob`, as dicts.");
  m.def("occupancy", &occupancy, "threads"_a, "regs"_a, "smem"_a, "arch"_a, "dyn_smem"_a,
        "carveout"_a, "Theoretical occupancy of one launch configuration, as a dict.");
  m.def("banks", &banks, "rows"_a, "cols"_a, "pad"_a, "index"_a, "elem_bytes"_a, "block_x"_a,
        "block_y"_a, "warp"_a, "Shared-memory banks one warp touches, as a dict.");
  m.def("built_with_cuda", &tilekit::built_with_cuda,
        "True when this build includes the CUDA backend.");
}
