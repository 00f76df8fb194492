#include "tilekit/banks.hpp"

#include <algorithm>
#include <cctype>
#include <set>

namespace tilekit {
namespace {

constexpr int kBanks = 32, kBankBytes = 4, kWarp = 32;

// A tiny recursive-descent evaluator for index expressions in x and y.
class Expression {
 public:
  Expression(std::string text, int x, int y) : s_(std::move(text)), x_(x), y_(y) {}
  Status eval(long long* out) {
    TILEKIT_RETURN_IF_ERROR(sum(out));
    skip();
    if (pos_ != s_.size()) return bad("unexpected '" + s_.substr(pos_, 1) + "'");
    return Status::ok();
  }

 private:
  Status bad(const std::string& why) const {
    return invalid_argument("--index: '" + s_ + "': " + why);
  }
  void skip() {
    while (pos_ < s_.size() && std::isspace(static_cast<unsigned char>(s_[pos_]))) ++pos_;
  }
  Status sum(long long* v) {
    TILEKIT_RETURN_IF_ERROR(product(v));
    for (skip(); pos_ < s_.size() && (s_[pos_] == '+' || s_[pos_] == '-'); skip()) {
      const char op = s_[pos_++];
      long long r;
      TILEKIT_RETURN_IF_ERROR(product(&r));
      *v = op == '+' ? *v + r : *v - r;
    }
    return Status::ok();
  }
  Status product(long long* v) {
    TILEKIT_RETURN_IF_ERROR(atom(v));
    for (skip(); pos_ < s_.size() && (s_[pos_] == '*' || s_[pos_] == '/' || s_[pos_] == '%');
         skip()) {
      const char op = s_[pos_++];
      long long r;
      TILEKIT_RETURN_IF_ERROR(atom(&r));
      if (op != '*' && r == 0) return bad("division by zero");
      *v = op == '*' ? *v * r : op == '/' ? *v / r : *v % r;
    }
    return Status::ok();
  }
  Status atom(long long* v) {
    skip();
    if (pos_ >= s_.size()) return bad("ends too early");
    const char c = s_[pos_];
    if (c == '(') {
      ++pos_;
      TILEKIT_RETURN_IF_ERROR(sum(v));
      skip();
      if (pos_ >= s_.size() || s_[pos_] != ')') return bad("missing ')'");
      ++pos_;
      return Status::ok();
    }
    if (c == '-') {
      ++pos_;
      TILEKIT_RETURN_IF_ERROR(atom(v));
      *v = -*v;
      return Status::ok();
    }
    if (c == 'x' || c == 'y') {
      ++pos_;
      *v = c == 'x' ? x_ : y_;
      return Status::ok();
    }
    if (std::isdigit(static_cast<unsigned char>(c))) {
      long long n = 0;
      while (pos_ < s_.size() && std::isdigit(static_cast<unsigned char>(s_[pos_])))
        n = n * 10 + (s_[pos_++] - '0');
      *v = n;
      return Status::ok();
    }
    return bad(std::string("unexpected '") + c + "' (use x, y, integers, + - * / % and parentheses)");
  }

  std::string s_;
  size_t pos_ = 0;
  int x_, y_;
};

// Splits "ROW,COL" at the top-level comma.
Status split_index(const std::string& index, std::string* row, std::string* col) {
  int depth = 0;
  for (size_t i = 0; i < index.size(); ++i) {
    if (index[i] == '(') ++depth;
    if (index[i] == ')') --depth;
    if (index[i] == ',' && depth == 0) {
      *row = index.substr(0, i);
      *col = index.substr(i + 1);
      if (col->find(',') != std::string::npos) break;
      return Status::ok();
    }
  }
  return invalid_argument("--index: '" + index + "' must be two expressions ROW,COL (e.g. 'y,x')");
}

}  // namespace

Status analyze_banks(const BankQuery& q, BankReport* out) {
  if (q.rows < 1 || q.cols < 1)
    return invalid_argument("--shape: " + std::to_string(q.rows) + "x" + std::to_string(q.cols) +
                            " must be at least 1x1");
  if (q.pad < 0) return invalid_argument("--pad " + std::to_string(q.pad) + " must be >= 0");
  if (q.elem_bytes != 4 && q.elem_bytes != 8 && q.elem_bytes != 16)
    return invalid_argument("--elem " + std::to_string(q.elem_bytes) + " must be 4, 8 or 16 bytes");
  if (q.block_x < 1 || q.block_y < 1 || q.block_x * q.block_y > 1024)
    return invalid_argument("--block " + std::to_string(q.block_x) + "x" +
                            std::to_string(q.block_y) + " must have 1..1024 threads");
  const int threads = q.block_x * q.block_y;
  const int warps = (threads + kWarp - 1) / kWarp;
  if (q.warp < 0 || q.warp >= warps)
    return invalid_argument("--warp " + std::to_string(q.warp) + " is outside 0.." +
                            std::to_string(warps - 1) + " for this block");
  std::string row_expr, col_expr;
  TILEKIT_RETURN_IF_ERROR(split_index(q.index, &row_expr, &col_expr));

  BankReport r;
  const int row_len = q.cols + q.pad;
  const int words_per_elem = q.elem_bytes / kBankBytes;
  for (int lane = 0; lane < kWarp; ++lane) {
    const int t = q.warp * kWarp + lane;
    if (t >= threads) break;
    LaneAccess a;
    a.lane = lane;
    a.x = t % q.block_x;
    a.y = t / q.block_x;
    long long row = 0, col = 0;
    TILEKIT_RETURN_IF_ERROR(Expression(row_expr, a.x, a.y).eval(&row));
    TILEKIT_RETURN_IF_ERROR(Expression(col_expr, a.x, a.y).eval(&col));
    if (row < 0 || row >= q.rows || col < 0 || col >= row_len)
      return invalid_argument("--index: lane " + std::to_string(lane) + " (x=" +
                              std::to_string(a.x) + ", y=" + std::to_string(a.y) + ") reads s[" +
                              std::to_string(row) + "][" + std::to_string(col) +
                              "], outside s[" + std::to_string(q.rows) + "][" +
                              std::to_string(row_len) + "]");
    a.row = static_cast<int>(row);
    a.col = static_cast<int>(col);
    a.byte_offset = (row * row_len + col) * q.elem_bytes;
    for (int w = 0; w < words_per_elem; ++w)
      a.banks.push_back(static_cast<int>((a.byte_offset / kBankBytes + w) % kBanks));
    r.lanes.push_back(a);
  }

  // Phases: a warp, half-warps or quarter-warps, as the element size dictates.
  r.phases = q.elem_bytes / kBankBytes;
  r.ideal_wavefronts = r.phases;
  const int lanes_per_phase = kWarp / r.phases;
  std::vector<std::set<long long>> all_words(kBanks);
  for (int phase = 0; phase < r.phases; ++phase) {
    std::vector<std::set<long long>> words(kBanks);
    for (const auto& a : r.lanes) {
      if (a.lane / lanes_per_phase != phase) continue;
      for (int w = 0; w < words_per_elem; ++w) {
        const long long word = a.byte_offset / kBankBytes + w;
        words[static_cast<size_t>(word % kBanks)].insert(word);
        all_words[static_cast<size_t>(word % kBanks)].insert(word);
      }
    }
    size_t worst = 0;
    for (const auto& s : words) worst = std::max(worst, s.size());
    r.wavefronts += static_cast<int>(std::max<size_t>(worst, 1));
  }
  for (const auto& s : all_words) r.words_per_bank.push_back(static_cast<int>(s.size()));
  r.conflict_degree = (r.wavefronts + r.ideal_wavefronts - 1) / r.ideal_wavefronts;
  *out = r;
  return Status::ok();
}

}  // namespace tilekit
