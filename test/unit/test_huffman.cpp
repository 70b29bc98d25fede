// test_huffman.cpp - the successor codes of pass/HuffmanCode.cpp: prefix-free, length-limited,
// one bit per side of a two-way branch, the likeliest successor never longer than another,
// deterministic, and close to the entropy bound for skewed weights.
#include "HuffmanCode.h"

#include <cmath>
#include <cstdio>
#include <random>
#include <vector>

using crashtrail::buildHuffmanCode;
using crashtrail::Code;

static int Failures;
#define CHECK(C)                                                                   \
  do {                                                                             \
    if (!(C)) {                                                                    \
      std::fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #C);   \
      Failures++;                                                                  \
    }                                                                              \
  } while (0)

static bool prefixFree(const std::vector<Code> &C) {
  for (size_t I = 0; I < C.size(); ++I)
    for (size_t J = 0; J < C.size(); ++J) {
      if (I == J) continue;
      if (C[I].Length > C[J].Length) continue;
      if ((C[J].Value >> (C[J].Length - C[I].Length)) == C[I].Value) return false;
    }
  return true;
}

static double kraft(const std::vector<Code> &C) {
  double S = 0;
  for (const Code &X : C) S += std::ldexp(1.0, -(int)X.Length);
  return S;
}

int main() {
  std::vector<Code> Two = buildHuffmanCode({1000, 1});
  CHECK(Two.size() == 2 && Two[0].Length == 1 && Two[1].Length == 1 && prefixFree(Two));

  std::vector<Code> One = buildHuffmanCode({5});
  CHECK(One.size() == 1 && One[0].Length == 0);

  // A switch with one hot case: the hot case gets the unique shortest code.
  std::vector<uint64_t> W(8, 1);
  W[5] = 1000;
  std::vector<Code> Hot = buildHuffmanCode(W);
  CHECK(prefixFree(Hot) && std::fabs(kraft(Hot) - 1.0) < 1e-12);
  for (size_t I = 0; I < Hot.size(); ++I)
    if (I != 5) CHECK(Hot[5].Length < Hot[I].Length);
  CHECK(Hot[5].Length == 1);

  // Exponentially skewed weights over 300 successors: Huffman would go 299 bits deep; the
  // length limit holds and the code stays complete (Kraft sum 1) and prefix-free.
  std::vector<uint64_t> Skew;
  for (int I = 0; I < 300; ++I) Skew.push_back(I < 60 ? (uint64_t)1 << (60 - I) : 1);
  std::vector<Code> Deep = buildHuffmanCode(Skew);
  unsigned Max = 0;
  for (const Code &X : Deep) Max = std::max(Max, X.Length);
  CHECK(Max <= crashtrail::MaxCodeBits && prefixFree(Deep) && std::fabs(kraft(Deep) - 1.0) < 1e-9);

  // Random weights: optimal lengths are within one bit of the entropy on average.
  std::mt19937_64 Rng(42);
  for (int Round = 0; Round < 50; ++Round) {
    std::vector<uint64_t> R(2 + Rng() % 200);
    uint64_t Total = 0;
    for (uint64_t &X : R) Total += X = 1 + Rng() % 100000;
    std::vector<Code> C = buildHuffmanCode(R);
    double Avg = 0, H = 0;
    for (size_t I = 0; I < R.size(); ++I) {
      double P = (double)R[I] / Total;
      Avg += P * C[I].Length;
      H -= P * std::log2(P);
    }
    CHECK(prefixFree(C) && Avg >= H - 1e-9 && Avg < H + 1);
    std::vector<Code> Again = buildHuffmanCode(R);
    for (size_t I = 0; I < C.size(); ++I)
      CHECK(Again[I].Length == C[I].Length && Again[I].Value == C[I].Value);
  }
  if (Failures) std::fprintf(stderr, "%d checks failed\n", Failures);
  else std::printf("huffman: all checks passed\n");
  return Failures != 0;
}
