// gemm_dist_bench.cpp — see gemm_dist_bench.hpp.
//
// Per size: random A and B (one seed), then
//   1 GPU      tilekit's gemm (kernel auto) on GPU 0, CUDA events: the yardstick and the result
//              every other row is compared with;
//   resident   gemm_distributed on blocks already on the GPUs, wall clock around the call (it
//              returns when every rank is done);
//   host       gemm_distributed_host on host operands: uploads, the GEMM and the download of C;
//   cuBLASXt   cublasXtSgemm over the same GPUs on the same host operands (f32).
#include "gemm_dist_bench.hpp"

#include <algorithm>
#include <cmath>
#include <cstring>
#include <fstream>
#include <iomanip>
#include <ostream>
#include <sstream>

#include "core/output_file.hpp"
#include "dist/cublasxt_baseline.hpp"

namespace tilekit::bench {
namespace {

// Values in [-1, 1) from a hash of the index: the same matrices for every row, filled in
// parallel (a 32768² operand is a billion elements).
void fill_random(void* dst, DType type, int64_t count, uint64_t seed) {
  float* f = type == DType::kF32 ? static_cast<float*>(dst) : nullptr;
  uint16_t* h = static_cast<uint16_t*>(dst);
#pragma omp parallel for schedule(static)
  for (int64_t i = 0; i < count; ++i) {
    uint64_t x = (static_cast<uint64_t>(i) + 1) * 0x9E3779B97F4A7C15ull ^ seed;
    x ^= x >> 31;
    x *= 0xBF58476D1CE4E5B9ull;
    x ^= x >> 29;
    const float v = static_cast<float>(x >> 40) / static_cast<float>(1ull << 23) - 1.0f;
    if (f) f[i] = v;
    else if (type == DType::kBF16) h[i] = float_to_bf16(v).bits;
    else h[i] = float_to_f16(v).bits;
  }
}

double tflops(const GemmShape& s, double ms) {
  return ms > 0 ? 2.0 * static_cast<double>(s.m) * static_cast<double>(s.n) *
                      static_cast<double>(s.k) / (ms * 1e-3) / 1e12
                : 0.0;
}

std::string compare(const std::vector<float>& got, const std::vector<float>& want) {
  if (got.size() == want.size() &&
      std::memcmp(got.data(), want.data(), got.size() * sizeof(float)) == 0)
    return "bit-identical to 1 GPU";
  double worst = 0, scale = 0;
  for (size_t i = 0; i < got.size(); ++i) {
    const double d = std::fabs(static_cast<double>(got[i]) - want[i]);
    if (!(d <= worst)) worst = d;  // NaN sticks
    scale = std::max(scale, std::fabs(static_cast<double>(want[i])));
  }
  std::ostringstream os;
  os << std::setprecision(2) << "max |diff| " << worst << " (max |C| " << scale << ")";
  return os.str();
}

// The rows × cols block at (r0, c0) of a row-major host matrix, packed and uploaded to `device`.
Status upload_block(int device, const char* host, int64_t ld, int64_t r0, int64_t c0, int64_t rows,
                    int64_t cols, size_t es, DeviceBuffer<char>* out) {
  TILEKIT_RETURN_IF_ERROR(out->allocate_on(device, static_cast<size_t>(std::max<int64_t>(1, rows * cols)) * es,
                                           "a block of an operand"));
  std::vector<char> packed(static_cast<size_t>(rows * cols) * es);
  for (int64_t i = 0; i < rows; ++i)
    std::memcpy(packed.data() + static_cast<size_t>(i * cols) * es,
                host + static_cast<size_t>((r0 + i) * ld + c0) * es, static_cast<size_t>(cols) * es);
  return copy_host_to_device(out->get(), packed.data(), packed.size());
}

struct HostOperands {
  GemmShape shape;
  std::vector<char> a, b;
  std::vector<float> c_one;  // the one-GPU result
  GemmProblem problem(float* c) const {
    GemmProblem p;
    p.m = shape.m;
    p.n = shape.n;
    p.k = shape.k;
    p.a = a.data();
    p.lda = std::max<int64_t>(1, shape.k);
    p.b = b.data();
    p.ldb = std::max<int64_t>(1, shape.n);
    p.c = c;
    p.ldc = std::max<int64_t>(1, shape.n);
    return p;
  }
};

class DistBench {
 public:
  DistBench(const DistBenchConfig& cfg, std::vector<DistBenchRow>* rows) : cfg_(cfg), rows_(rows) {}

  Status run() {
    std::vector<int> devices;
    for (int i = 0; i < cfg_.gpus; ++i) devices.push_back(i);
    TILEKIT_RETURN_IF_ERROR(DistributedContext::create(devices, cfg_.dist_config, &ctx_));
    if (cfg_.baseline && cfg_.types == GemmTypes{})
      TILEKIT_RETURN_IF_ERROR(dist::CublasXt::create(devices, cfg_.xt_block_dim, &xt_));
    for (const GemmShape& shape : cfg_.shapes) {
      TILEKIT_RETURN_IF_ERROR(run_size(shape));
      if (cancelled()) return Status(StatusCode::kCancelled, "interrupted");
    }
    return Status::ok();
  }

 private:
  bool cancelled() const { return cfg_.cancel && cfg_.cancel->load(); }
  void progress(const std::string& what) {
    if (cfg_.progress) cfg_.progress(step_++, static_cast<int>(cfg_.shapes.size()) * 4, what);
  }
  DistBenchRow row(const HostOperands& h, const std::string& mode, int gpus) const {
    DistBenchRow r;
    r.shape = h.shape;
    r.types = types_tag(cfg_.types);
    r.mode = mode;
    r.gpus = gpus;
    return r;
  }
  void finish_row(DistBenchRow r, const Timing& t) {
    r.ms = t.median_s * 1e3;
    r.noise = t.noise;
    r.tflops = tflops(r.shape, r.ms);
    r.scaling = one_gpu_ms_ > 0 && r.ms > 0 ? one_gpu_ms_ / r.ms : 0.0;
    rows_->push_back(std::move(r));
  }
  // A row that failed: kept in the table with its error, the sweep goes on.
  void error_row(DistBenchRow r, const Status& s) {
    r.verdict = "error: " + s.message();
    rows_->push_back(std::move(r));
  }

  Status run_size(const GemmShape& shape) {
    HostOperands h;
    h.shape = shape;
    const size_t ea = dtype_size(cfg_.types.a), eb = dtype_size(cfg_.types.b);
    progress("generating " + shape.str());
    h.a.resize(static_cast<size_t>(shape.m * shape.k) * ea);
    h.b.resize(static_cast<size_t>(shape.k * shape.n) * eb);
    fill_random(h.a.data(), cfg_.types.a, shape.m * shape.k, cfg_.seed);
    fill_random(h.b.data(), cfg_.types.b, shape.k * shape.n, cfg_.seed + 1);
    one_gpu_ms_ = 0;
    TILEKIT_RETURN_IF_ERROR(run_one_gpu(&h));
    run_resident(h);
    if (cfg_.host_operands) run_host(h);
    if (xt_) run_cublasxt(h);
    return Status::ok();
  }

  Status run_one_gpu(HostOperands* h) {
    progress("1 GPU " + h->shape.str());
    DistBenchRow r = row(*h, "1 GPU (tilekit auto)", 1);
    const Context gpu = Context::cuda(0);
    DeviceBuffer<char> a, b, c;
    const GemmShape& s = h->shape;
    GemmProblem p = h->problem(nullptr);
    TILEKIT_RETURN_IF_ERROR(a.allocate_on(0, std::max<size_t>(1, h->a.size()), "A"));
    TILEKIT_RETURN_IF_ERROR(b.allocate_on(0, std::max<size_t>(1, h->b.size()), "B"));
    TILEKIT_RETURN_IF_ERROR(c.allocate_on(0, std::max<int64_t>(1, s.m * s.n) * sizeof(float), "C"));
    TILEKIT_RETURN_IF_ERROR(copy_host_to_device(a.get(), h->a.data(), h->a.size()));
    TILEKIT_RETURN_IF_ERROR(copy_host_to_device(b.get(), h->b.data(), h->b.size()));
    p.a = a.get();
    p.b = b.get();
    p.c = c.get();
    p.types = cfg_.types;
    std::unique_ptr<SampleTimer> timer;
    TILEKIT_RETURN_IF_ERROR(make_gpu_timer(gpu, /*flush_l2=*/false, &timer));
    GemmOptions o;
    o.kernel = cfg_.options.kernel;
    o.allow_vendor = cfg_.options.allow_vendor;
    Timing t;
    TILEKIT_RETURN_IF_ERROR(measure(*timer, [&] { return gemm(gpu, p, o); }, cfg_.timing,
                                    cfg_.cancel, &t));
    h->c_one.resize(static_cast<size_t>(s.m * s.n));
    TILEKIT_RETURN_IF_ERROR(c.download(reinterpret_cast<char*>(h->c_one.data()), h->c_one.size() * sizeof(float)));
    one_gpu_ms_ = t.median_s * 1e3;
    r.per_gpu_tflops = {tflops(s, one_gpu_ms_)};
    r.verdict = "reference for the rows below";
    finish_row(r, t);
    return Status::ok();
  }

  // `copy_engines`: what the ranks reported (RankStats::copy_engines), not what was asked.
  std::string describe_plan(const DistributionPlan& plan, bool copy_engines) const {
    const int ctas = cfg_.dist_config.nccl_max_ctas;
    return std::string(dist_split_name(plan.split)) + ", " + replica_source_name(plan.source) +
           ", " + std::to_string(plan.panels_per_block) + " panels/block" +
           (cfg_.options.all_gather_rounds ? "" : ", broadcast rounds") + ", NCCL " +
           (copy_engines ? std::string("all-gathers on copy engines")
                         : ctas > 0 ? "<= " + std::to_string(ctas) + " SMs" : "SMs auto");
  }

  void fill_rank_figures(DistBenchRow* r, const DistributedStats& stats, int64_t k) const {
    r->per_gpu_tflops.clear();
    for (const RankStats& rs : stats.ranks) {
      const GemmShape local{rs.rows, rs.cols, k};
      r->per_gpu_tflops.push_back(tflops(local, rs.compute_ms));
      r->transfer_ms = std::max(r->transfer_ms, rs.transfer_ms);
      r->upload_ms = std::max(r->upload_ms, rs.upload_ms);
      r->download_ms = std::max(r->download_ms, rs.download_ms);
      r->host_agreed_ms = std::max(r->host_agreed_ms, rs.host_agreed_ms);
      r->host_enqueued_ms = std::max(r->host_enqueued_ms, rs.host_enqueued_ms);
    }
  }

  void run_resident(const HostOperands& h) {
    progress(std::to_string(cfg_.gpus) + " GPUs resident " + h.shape.str());
    const GemmShape& s = h.shape;
    GemmProblem global = h.problem(nullptr);
    global.types = cfg_.types;
    DistributionPlan plan;
    DistBenchRow r = row(h, std::to_string(cfg_.gpus) + " GPUs resident", cfg_.gpus);
    Status st = plan_distribution(global, cfg_.gpus, cfg_.options, &plan);
    if (!st) return error_row(r, st);
    const size_t ea = dtype_size(cfg_.types.a), eb = dtype_size(cfg_.types.b);
    const bool by_cols = plan.split == DistSplit::kColumns;
    const bool whole = plan.source != ReplicaSource::kBlocks;
    std::vector<DeviceBuffer<char>> a(cfg_.gpus), b(cfg_.gpus), c(cfg_.gpus);
    std::vector<LocalBlocks> blocks(cfg_.gpus);
    for (int g = 0; g < cfg_.gpus && st; ++g) {
      const bool holds = plan.source == ReplicaSource::kEveryRank || g == 0;
      const IndexRange rows = by_cols && whole ? IndexRange{0, holds ? s.m : 0} : plan.rows[g];
      const IndexRange cols = !by_cols && whole ? IndexRange{0, holds ? s.n : 0} : plan.cols[g];
      st = upload_block(g, h.a.data(), s.k, rows.begin, 0, rows.size, s.k, ea, &a[g]);
      if (st) st = upload_block(g, h.b.data(), s.n, 0, cols.begin, s.k, cols.size, eb, &b[g]);
      const int64_t c_rows = by_cols ? s.m : plan.rows[g].size;
      const int64_t c_cols = by_cols ? plan.cols[g].size : s.n;
      if (st) st = c[g].allocate_on(g, std::max<int64_t>(1, c_rows * c_cols) * sizeof(float), "C's block");
      blocks[g] = {a[g].get(), std::max<int64_t>(1, s.k), b[g].get(), std::max<int64_t>(1, cols.size),
                   c[g].get(), std::max<int64_t>(1, c_cols)};
    }
    if (!st) return error_row(r, st);
    DistributedStats stats;
    std::unique_ptr<SampleTimer> timer = make_cpu_timer();
    Timing t;
    st = measure(*timer, [&] { return gemm_distributed(*ctx_, global, blocks, cfg_.options, &stats); },
                 cfg_.timing, cfg_.cancel, &t);
    const bool copy_engines = !stats.ranks.empty() && stats.ranks[0].copy_engines;
    r.mode += " (" + describe_plan(plan, copy_engines) +
              (cfg_.options.kernel == "auto" ? std::string() : ", " + cfg_.options.kernel) + ")";
    if (!st) return error_row(r, st);
    fill_rank_figures(&r, stats, s.k);
    // Gather C and compare with the one-GPU result.
    std::vector<float> got(static_cast<size_t>(s.m * s.n));
    for (int g = 0; g < cfg_.gpus && st; ++g) {
      const int64_t r0 = by_cols ? 0 : plan.rows[g].begin, c0 = by_cols ? plan.cols[g].begin : 0;
      const int64_t rows = by_cols ? s.m : plan.rows[g].size;
      const int64_t cols = by_cols ? plan.cols[g].size : s.n;
      std::vector<float> block(static_cast<size_t>(rows * cols));
      st = c[g].download(reinterpret_cast<char*>(block.data()), block.size() * sizeof(float));
      for (int64_t i = 0; i < rows && st; ++i)
        std::memcpy(&got[static_cast<size_t>((r0 + i) * s.n + c0)], &block[static_cast<size_t>(i * cols)],
                    static_cast<size_t>(cols) * sizeof(float));
    }
    r.verdict = st ? compare(got, h.c_one) : "error: " + st.message();
    finish_row(r, t);
  }

  TimingPolicy host_policy() const {
    TimingPolicy p = cfg_.timing;
    p.warmup = 1;  // each call moves every operand over PCIe: seconds at 32768
    p.min_samples = std::min(3, p.min_samples);
    p.min_time_s = 0;
    return p;
  }

  void run_host(const HostOperands& h) {
    progress(std::to_string(cfg_.gpus) + " GPUs host operands " + h.shape.str());
    std::vector<float> c(static_cast<size_t>(h.shape.m * h.shape.n), 0.0f);
    GemmProblem p = h.problem(c.data());
    p.types = cfg_.types;
    DistBenchRow r = row(h, std::to_string(cfg_.gpus) + " GPUs host operands, transfers included",
                         cfg_.gpus);
    DistributedStats stats;
    std::unique_ptr<SampleTimer> timer = make_cpu_timer();
    Timing t;
    const Status st = measure(*timer, [&] { return gemm_distributed_host(*ctx_, p, cfg_.options, &stats); },
                              host_policy(), cfg_.cancel, &t);
    if (!st) return error_row(r, st);
    fill_rank_figures(&r, stats, h.shape.k);
    r.verdict = compare(c, h.c_one);
    finish_row(r, t);
  }

  void run_cublasxt(const HostOperands& h) {
    progress("cuBLASXt " + h.shape.str());
    std::vector<float> c(static_cast<size_t>(h.shape.m * h.shape.n), 0.0f);
    GemmProblem p = h.problem(c.data());
    DistBenchRow r = row(h, "cuBLASXt " + std::to_string(cfg_.gpus) + " GPUs (host operands, block " +
                                std::to_string(cfg_.xt_block_dim) + ")",
                         cfg_.gpus);
    std::unique_ptr<SampleTimer> timer = make_cpu_timer();
    Timing t;
    const Status st = measure(*timer, [&] { return xt_->sgemm(p); }, host_policy(), cfg_.cancel, &t);
    if (!st) return error_row(r, st);
    r.verdict = compare(c, h.c_one);
    finish_row(r, t);
  }

  const DistBenchConfig& cfg_;
  std::vector<DistBenchRow>* rows_;
  std::unique_ptr<DistributedContext> ctx_;
  std::unique_ptr<dist::CublasXt> xt_;
  double one_gpu_ms_ = 0;
  int step_ = 0;
};

std::string join(const std::vector<double>& v, int precision) {
  std::ostringstream os;
  os << std::fixed << std::setprecision(precision);
  for (size_t i = 0; i < v.size(); ++i) os << (i ? " " : "") << v[i];
  return os.str();
}

}  // namespace

Status check_dist_bench(const DistBenchConfig& cfg) {
  if (!built_with_nccl())
    return not_supported("bench gemm --gpus: this tilekit was built without NCCL (TILEKIT_NCCL; "
                         "docs/multigpu.md)");
  const int count = cuda_device_count();
  if (cfg.gpus < 1 || cfg.gpus > count)
    return not_supported("bench gemm --gpus " + std::to_string(cfg.gpus) + ": this machine has " +
                         std::to_string(count) + " GPU(s)");
  TILEKIT_RETURN_IF_ERROR(validate(cfg.types));
  for (const auto& k : Registry::instance().gemm_kernels())
    if (k.info.backend == Backend::kCuda && k.info.role == KernelRole::kOwn &&
        k.info.types == cfg.types)
      return Status::ok();
  return not_supported("bench gemm --gpus: skipped: no own CUDA kernel implements " +
                       describe(cfg.types) + " in this build");
}

Status run_dist_bench(const DistBenchConfig& config, std::vector<DistBenchRow>* rows) {
  TILEKIT_RETURN_IF_ERROR(check_dist_bench(config));
  DistBench bench(config, rows);
  return bench.run();
}

void print_dist_table(std::ostream& os, const std::vector<DistBenchRow>& rows) {
  // The text columns are as wide as their widest entry plus two spaces: the per-GPU figures
  // grow with the GPU count (4 GPUs: "1234.5 1234.5 1234.5 1234.5") and a fixed width ran them
  // into the next column.
  size_t size_w = std::string("size").size(), mode_w = std::string("mode").size();
  size_t per_w = std::string("per GPU").size();
  for (const DistBenchRow& r : rows) {
    size_w = std::max(size_w, r.shape.str().size());
    mode_w = std::max(mode_w, r.mode.size());
    per_w = std::max(per_w, join(r.per_gpu_tflops, 1).size());
  }
  const int size_col = static_cast<int>(size_w + 2), mode_col = static_cast<int>(mode_w + 2);
  const int per_col = static_cast<int>(per_w + 2);
  os << std::left << std::setw(size_col) << "size" << std::setw(6) << "types"
     << std::setw(mode_col) << "mode" << std::right << std::setw(10) << "ms" << std::setw(9)
     << "TFLOP/s" << std::setw(per_col) << "per GPU" << std::setw(9) << "scaling"
     << std::setw(11) << "comm ms"
     << "  verdict\n";
  for (const DistBenchRow& r : rows) {
    std::ostringstream ms, tf, sc, comm;
    ms << std::fixed << std::setprecision(2) << r.ms;
    tf << std::fixed << std::setprecision(1) << r.tflops;
    sc << std::fixed << std::setprecision(2) << r.scaling << "x";
    comm << std::fixed << std::setprecision(2) << r.transfer_ms;
    os << std::left << std::setw(size_col) << r.shape.str() << std::setw(6) << r.types
       << std::setw(mode_col) << r.mode << std::right << std::setw(10)
       << (r.ms > 0 ? ms.str() : "-") << std::setw(9) << (r.ms > 0 ? tf.str() : "-")
       << std::setw(per_col) << join(r.per_gpu_tflops, 1) << std::setw(9)
       << (r.ms > 0 && r.gpus > 1 ? sc.str() : "") << std::setw(11)
       << (r.gpus > 1 && r.transfer_ms > 0 ? comm.str() : "") << "  " << r.verdict
       << (r.noise > kNoisyAbove ? " (noisy)" : "") << "\n";
  }
}

Status write_dist_csv(const std::string& path, const std::vector<DistBenchRow>& rows) {
  std::ostringstream out;
  out << "m,n,k,types,mode,gpus,ms,tflops,per_gpu_tflops,scaling,transfer_ms,upload_ms,"
         "download_ms,host_agreed_ms,host_enqueued_ms,noise,verdict\n";
  for (const DistBenchRow& r : rows)
    out << r.shape.m << "," << r.shape.n << "," << r.shape.k << "," << r.types << ",\"" << r.mode
        << "\"," << r.gpus << "," << r.ms << "," << r.tflops << ",\"" << join(r.per_gpu_tflops, 2)
        << "\"," << r.scaling << "," << r.transfer_ms << "," << r.upload_ms << ","
        << r.download_ms << "," << r.host_agreed_ms << "," << r.host_enqueued_ms << "," << r.noise
        << ",\"" << r.verdict << "\"\n";
  return write_output_file(path, out.str(), "bench gemm --gpus --csv");
}

}  // namespace tilekit::bench
