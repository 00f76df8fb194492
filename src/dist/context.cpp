// context.cpp — DistributedContext and the public calls: plan once, then one host thread per
// rank of this process runs the same schedule (dist/schedule.cpp) as a process of a multi-host
// job would, so that there is one code path whatever drives the GPUs.
#include <fstream>
#include <sstream>
#include <thread>

#include "core/output_file.hpp"
#include "dist/context_impl.hpp"
#include "dist/schedule.hpp"

namespace tilekit {

DistributedContext::DistributedContext(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
DistributedContext::~DistributedContext() {
  if (!impl_) return;
  for (auto& c : impl_->local) c->begin_shutdown();
}

int DistributedContext::ranks() const { return impl_->ranks; }
int DistributedContext::local_ranks() const { return static_cast<int>(impl_->local.size()); }
int DistributedContext::rank(int local) const { return impl_->local.at(local)->rank(); }
int DistributedContext::device(int local) const { return impl_->local.at(local)->device(); }
Context DistributedContext::context(int local) const {
  return impl_->local.at(local)->compute_context();
}

namespace dist {

std::unique_ptr<DistributedContext> make_context(std::vector<std::unique_ptr<Communicator>> local,
                                                 int ranks, const DistributedConfig& config) {
  auto impl = std::make_unique<DistributedContext::Impl>();
  impl->local = std::move(local);
  impl->ranks = ranks;
  impl->config = config;
  impl->threads = std::make_unique<RankThreads>(impl->local.size());
  return std::make_unique<DistributedContext>(std::move(impl));
}

RankThreads::RankThreads(size_t ranks) {
  for (size_t i = 1; i < ranks; ++i) threads_.emplace_back(&RankThreads::serve, this, i);
}

RankThreads::~RankThreads() {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    stop_ = true;
  }
  work_.notify_all();
  for (std::thread& t : threads_) t.join();
}

void RankThreads::run(const std::function<void(size_t)>& job) {
  {
    std::lock_guard<std::mutex> lock(mutex_);
    job_ = &job;
    pending_ = threads_.size();
    ++generation_;
  }
  work_.notify_all();
  job(0);
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [&] { return pending_ == 0; });
  job_ = nullptr;
}

void RankThreads::serve(size_t rank) {
  uint64_t served = 0;
  while (true) {
    const std::function<void(size_t)>* job = nullptr;
    {
      std::unique_lock<std::mutex> lock(mutex_);
      work_.wait(lock, [&] { return stop_ || generation_ != served; });
      if (stop_) return;
      served = generation_;
      job = job_;
    }
    (*job)(rank);
    {
      std::lock_guard<std::mutex> lock(mutex_);
      --pending_;
    }
    done_.notify_all();
  }
}

}  // namespace dist

namespace {

// Runs every local rank's part, each on its thread (dist::RankThreads), and returns the first
// local rank's error (every rank reaches the same verdict, each in its own words).
Status run_local_ranks(DistributedContext& ctx, const GemmProblem& problem,
                       const std::vector<LocalBlocks>& blocks, bool host,
                       const DistributedOptions& options, DistributedStats* stats) {
  DistributionPlan plan;
  Status planned = plan_distribution(problem, ctx.ranks(), options, &plan);
  if (!planned) {
    // Still take part in the agreement, with an empty plan, so that peers fail at once.
    GemmProblem empty;
    DistributedOptions safe;
    if (!plan_distribution(empty, std::max(1, ctx.ranks()), safe, &plan)) return planned;
    plan.ranks = ctx.ranks();
  }
  auto& local = ctx.impl().local;
  const size_t count = local.size();
  std::vector<Status> results(count);
  std::vector<RankStats> rank_stats(count);
  auto run_one = [&](size_t i) {
    results[i] = dist::run_rank(*local[i], problem, plan, host ? LocalBlocks{} : blocks[i], host,
                                options, planned, &rank_stats[i]);
  };
  ctx.impl().threads->run(run_one);
  if (stats) {
    stats->plan = plan;
    stats->ranks = rank_stats;
  }
  for (const Status& s : results)
    if (!s) return s;
  return Status::ok();
}

}  // namespace

Status gemm_distributed(DistributedContext& ctx, const GemmProblem& problem,
                        const std::vector<LocalBlocks>& blocks, const DistributedOptions& options,
                        DistributedStats* stats) {
  if (blocks.size() != static_cast<size_t>(ctx.local_ranks()))
    return invalid_argument("gemm_distributed: blocks has " + std::to_string(blocks.size()) +
                            " entries, the context drives " + std::to_string(ctx.local_ranks()) +
                            " rank(s) in this process (one LocalBlocks each)");
  return run_local_ranks(ctx, problem, blocks, /*host=*/false, options, stats);
}

Status gemm_distributed_host(DistributedContext& ctx, const GemmProblem& problem,
                             const DistributedOptions& options, DistributedStats* stats) {
  if (ctx.local_ranks() != ctx.ranks())
    return not_supported("gemm_distributed_host: this process drives " +
                         std::to_string(ctx.local_ranks()) + " of the job's " +
                         std::to_string(ctx.ranks()) +
                         " ranks; host operands need every rank in one process (use "
                         "gemm_distributed on resident blocks)");
  return run_local_ranks(ctx, problem, {}, /*host=*/true, options, stats);
}

// ---- unique ids through a file or the environment ----

// Renamed into place by write_output_file: a process polling for the file never reads half an id.
Status write_unique_id_file(const std::string& path, const std::string& unique_id) {
  return write_output_file(path, unique_id + "\n", "write_unique_id_file:");
}

Status read_unique_id(const std::string& path, std::string* out) {
  if (const char* env = std::getenv("TILEKIT_NCCL_ID"); env && *env) {
    *out = env;
    return Status::ok();
  }
  if (path.empty())
    return invalid_argument("read_unique_id: TILEKIT_NCCL_ID is not set and no file was given");
  std::ifstream in(path);
  std::string id;
  if (!(in >> id))
    return io_error("read_unique_id: TILEKIT_NCCL_ID is not set and " + path +
                    " cannot be read (write it with write_unique_id_file on one process)");
  *out = id;
  return Status::ok();
}

}  // namespace tilekit
