// cmd_banks.cpp — `tilekit banks`: one warp's access to a shared array, bank by bank.
#include <charconv>
#include <iomanip>
#include <iostream>
#include <limits>
#include <system_error>

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

// "AxB" into *a and *b: ok, or an error naming `option` that says whether the form is wrong
// or a number does not fit an int.
Status parse_pair(const std::string& option, const std::string& s, const char* form, int* a,
                  int* b) {
  const auto x = s.find('x');
  const std::string sides[2] = {x == std::string::npos ? s : s.substr(0, x),
                                x == std::string::npos ? "" : s.substr(x + 1)};
  int* outs[2] = {a, b};
  for (int i = 0; i < 2; ++i) {
    const std::string& side = sides[i];
    // A sign is read here and its range checked by the bank query, which names the rule.
    const size_t first = !side.empty() && side[0] == '-' ? 1 : 0;
    const bool digits = side.size() > first &&
                        side.find_first_not_of("0123456789", first) == std::string::npos;
    if (x == std::string::npos || !digits)
      return invalid_argument(option + " '" + s + "' must be " + form);
    const auto [end, error] = std::from_chars(side.data(), side.data() + side.size(), *outs[i]);
    if (error == std::errc::result_out_of_range)
      return invalid_argument(option + " '" + s + "': " + side + " is too large (at most " +
                              std::to_string(std::numeric_limits<int>::max()) + ")");
    if (error != std::errc() || end != side.data() + side.size())
      return invalid_argument(option + " '" + s + "' must be " + form);
  }
  return Status::ok();
}

int run_banks(const BanksOptions& o) {
  BankQuery q;
  if (Status s = parse_pair("--shape", o.shape, "ROWSxCOLS, e.g. 32x32", &q.rows, &q.cols); !s)
    return fail(s);
  q.pad = o.pad;
  q.elem_bytes = o.elem;
  q.index = o.index;
  q.warp = o.warp;
  if (o.block.empty()) {
    q.block_x = q.cols;  // a K×K block for a K×K tile, as in the lecture
    q.block_y = std::max(1, std::min(q.rows, 1024 / std::max(1, q.cols)));
  } else if (Status s = parse_pair("--block", o.block, "XxY threads, e.g. 32x8", &q.block_x,
                                    &q.block_y);
             !s) {
    return fail(s);
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
