//===- HuffmanCode.h - prefix codes for branch successors -------------------===//
//
// Builds a length-limited, canonical Huffman code over a branch's distinct successors from
// their estimated probabilities: likely successors get short codes, a two-way branch gets one
// bit per side, and no code is longer than MaxCodeBits. Codes are written into the path
// accumulator most significant bit first; canonical assignment (by length, then successor
// order) makes them deterministic for equal weights.
//
//===----------------------------------------------------------------------------------------===//
#ifndef CRASHTRAIL_PASS_HUFFMANCODE_H
#define CRASHTRAIL_PASS_HUFFMANCODE_H

#include <cstdint>
#include <vector>

namespace crashtrail {

constexpr unsigned MaxCodeBits = 24;

struct Code {
  unsigned Length = 0; // 0 only when there is a single symbol
  uint64_t Value = 0;
};

// One code per weight (a weight of 0 is treated as a small positive one, since "never" in a
// static estimate is only "rarely"). Invariants: the result is prefix-free, each length is at
// most MaxCodeBits, and for two symbols both lengths are 1.
std::vector<Code> buildHuffmanCode(const std::vector<uint64_t> &Weights);

} // namespace crashtrail

#endif
