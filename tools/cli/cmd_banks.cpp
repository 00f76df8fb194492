// cmd_banks.cpp — `tilekit banks`: one warp's access to a shared array, bank by bank.
#include <iomanip>
#include <iostream>

#include <nlohmann/json.hpp>

#include "cli_common.hpp"
#include "tilekit/banks.hpp"

namespace tilekit::cli {
namespace {

struct BanksOptions {
  std::string shape = "32x32";
  int pad = 0;
  int elem = 4;
  std::string index = "y,x";
  std::string block;  // default: the shape's cols x rows (the lecture's K x K block)
  int warp = 0;
  bool json = false;
};

bool parse_pair(const std::string& s, int* a, int* b) {
  const auto x = s.find('x');
  if (x == std::string::npos) return false;
  try {
    size_t u1 = 0, u2 = 0;
    *a = std::stoi(s.substr(0, x), &u1);
    *b = std::stoi(s.substr(x + 1), &u2);
    return u1 == x && u2 == s.size() - x - 1;
  } catch (const std::exception&) {
    return false;
  }
}

int run_banks(const BanksOptions& o) {
  BankQuery q;
  if (!parse_pair(o.shape, &q.rows, &q.cols))
    return fail(invalid_argument("--shape '" + o.shape + "' must be ROWSxCOLS, e.g. 32x32"));
  q.pad = o.pad;
  q.elem_bytes = o.elem;
  q.index = o.index;
  q.warp = o.warp;
  if (o.block.empty()) {
    q.block_x = q.cols;  // a K×K block for a K×K tile, as in the lecture
    q.block_y = std::max(1, std::min(q.rows, 1024 / std::max(1, q.cols)));
  } else if (!parse_pair(o.block, &q.block_x, &q.block_y)) {
    return fail(invalid_argument("--block '" + o.block + "' must be XxY threads, e.g. 32x8"));
  }
  if (q.block_x > 1024) q.block_x = 1024;
  BankReport r;
  Status s = analyze_banks(q, &r);
  if (!s) return fail(s);

  if (o.json) {
    nlohmann::json lanes = nlohmann::json::array();
    for (const auto& a : r.lanes)
      lanes.push_back({{"lane", a.lane}, {"x", a.x}, {"y", a.y}, {"row", a.row}, {"col", a.col},
                       {"byte_offset", a.byte_offset}, {"banks", a.banks}});
    std::cout << nlohmann::json{{"shape", o.shape}, {"pad", q.pad}, {"elem_bytes", q.elem_bytes},
                                {"index", q.index}, {"block", {q.block_x, q.block_y}},
                                {"warp", q.warp}, {"wavefronts", r.wavefronts},
                                {"ideal_wavefronts", r.ideal_wavefronts},
                                {"conflict_degree", r.conflict_degree},
                                {"words_per_bank", r.words_per_bank}, {"lanes", lanes}}
                     .dump(2)
              << "\n";
    return kExitOk;
  }
  const char* type = q.elem_bytes == 4 ? "float" : q.elem_bytes == 8 ? "double" : "float4";
  std::string row_expr = q.index.substr(0, q.index.find(','));
  std::string col_expr = q.index.substr(q.index.find(',') + 1);
  std::cout << "__shared__ " << type << " s[" << q.rows << "][" << q.cols
            << (q.pad ? " + " + std::to_string(q.pad) : "") << "];  block " << q.block_x << "x"
            << q.block_y << ", warp " << q.warp << " reads s[" << row_expr << "][" << col_expr
            << "]\n\n";
  std::cout << " lane   x   y     s[row][col]   bank(s)\n";
  for (const auto& a : r.lanes) {
    std::cout << std::setw(5) << a.lane << std::setw(4) << a.x << std::setw(4) << a.y
              << "     s[" << std::setw(3) << a.row << "][" << std::setw(3) << a.col << "]   ";
    for (size_t i = 0; i < a.banks.size(); ++i) std::cout << (i ? "," : "") << a.banks[i];
    std::cout << "\n";
  }
  int busiest = 0;
  for (int w : r.words_per_bank) busiest = std::max(busiest, w);
  std::cout << "\nwavefronts: " << r.wavefronts << " (ideal " << r.ideal_wavefronts
            << (r.phases > 1 ? ", " + std::to_string(r.phases) + " phases of " +
                                   std::to_string(32 / r.phases) + " lanes" : std::string())
            << ")  →  "
            << (r.conflict_degree == 1 ? std::string("conflict-free")
                                       : std::to_string(r.conflict_degree) + "-way bank conflict")
            << "\nbusiest bank serves " << busiest << " distinct word(s); lanes reading the same "
            << "word share it (broadcast)\n";
  return kExitOk;
}

}  // namespace

void add_banks_command(CLI::App& app, int* exit_code) {
  auto o = std::make_shared<BanksOptions>();
  CLI::App* cmd = app.add_subcommand(
      "banks", "Shared-memory banks one warp touches, and the conflict degree");
  cmd->add_option("--shape", o->shape, "the array's ROWSxCOLS (elements)")->capture_default_str();
  cmd->add_option("--pad", o->pad, "extra elements per row: s[ROWS][COLS + PAD]")
      ->capture_default_str();
  cmd->add_option("--elem", o->elem, "element size in bytes: 4, 8 or 16")->capture_default_str();
  cmd->add_option("--index", o->index,
                  "ROW,COL as expressions of x = threadIdx.x, y = threadIdx.y: 'y,x' is "
                  "s[y][x], 'x,y' is s[x][y]")
      ->capture_default_str();
  cmd->add_option("--block", o->block, "block XxY threads (default: COLSxROWS, the lecture's K×K)");
  cmd->add_option("--warp", o->warp, "which warp of the block")->capture_default_str();
  cmd->add_flag("--json", o->json, "machine-readable output");
  cmd->callback([exit_code, o] { *exit_code = run_banks(*o); });
}

}  // namespace tilekit::cli
