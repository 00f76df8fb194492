// banks.hpp — which shared-memory bank each lane of one warp touches, and how many serialized
// wavefronts the access costs.
//
// The array is `T s[rows][cols + pad]` with sizeof(T) = elem_bytes (4, 8 or 16), starting at a
// 128-byte boundary; shared memory has 32 banks of 4 bytes. Lane l of the chosen warp has
// threadIdx.x = (warp·32 + l) % block_x and threadIdx.y = (warp·32 + l) / block_x, and reads
// s[row][col] with row and col given as expressions of x and y ("x,y" is s[x][y]).
//
// Model (CUDA Programming Guide, shared memory for compute capability 5.x and later): lanes that
// read the same 4-byte word share it (broadcast); 8-byte accesses are served per half-warp and
// 16-byte accesses per quarter-warp. The cost is the number of wavefronts: for each phase, the
// largest number of distinct words any one bank must deliver, summed over phases. The ideal is one
// wavefront per phase (1, 2 or 4); the conflict degree is cost / ideal.
#pragma once

#include <string>
#include <vector>

#include "tilekit/status.hpp"

namespace tilekit {

struct BankQuery {
  int rows = 32, cols = 32;
  int pad = 0;            // extra elements per row: s[rows][cols + pad]
  int elem_bytes = 4;     // 4, 8 or 16
  std::string index = "y,x";  // "ROW,COL" in terms of x and y: integers, + - * / % and ( )
  int block_x = 32, block_y = 32;
  int warp = 0;           // which warp of the block
};

struct LaneAccess {
  int lane = 0, x = 0, y = 0, row = 0, col = 0;
  long long byte_offset = 0;
  std::vector<int> banks;  // banks of the 4-byte words it touches
};

struct BankReport {
  std::vector<LaneAccess> lanes;  // active lanes of the warp (a partial last warp has fewer)
  int phases = 1;                 // 1, 2 or 4 (by element size)
  int wavefronts = 0;             // serialized shared-memory wavefronts
  int ideal_wavefronts = 1;       // = phases
  int conflict_degree = 1;        // wavefronts / ideal: 1 = conflict-free, 32 = fully serialized
  std::vector<int> words_per_bank;  // distinct words each bank serves (all phases together)
};

// Bad shapes, element sizes, block sizes, warps or index expressions, and indices outside the
// array, are kInvalidArgument naming the value (and the lane, for an index out of range).
Status analyze_banks(const BankQuery& q, BankReport* out);

}  // namespace tilekit
