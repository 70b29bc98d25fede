//===- HuffmanCode.cpp - prefix codes for branch successors -----------------===//
//
// Classic two-queue Huffman construction for the lengths, then canonical code values. When a
// very skewed distribution would give a code longer than MaxCodeBits, the weights are
// flattened (square root, repeatedly) and the lengths recomputed; the result converges to a
// balanced code of ceil(log2 n) bits, so the loop ends.
//
//===----------------------------------------------------------------------------------------===//
#include "HuffmanCode.h"

#include <algorithm>
#include <cmath>
#include <queue>

namespace crashtrail {

static std::vector<unsigned> huffmanLengths(const std::vector<uint64_t> &W) {
  struct Node {
    uint64_t Weight;
    unsigned Order; // tie-breaker: deterministic results across compilers
    int Left, Right;
  };
  std::vector<Node> Nodes;
  auto Cmp = [&](int A, int B) {
    if (Nodes[A].Weight != Nodes[B].Weight) return Nodes[A].Weight > Nodes[B].Weight;
    return Nodes[A].Order > Nodes[B].Order;
  };
  std::priority_queue<int, std::vector<int>, decltype(Cmp)> Q(Cmp);
  for (unsigned I = 0; I < W.size(); ++I) {
    Nodes.push_back({std::max<uint64_t>(W[I], 1), I, -1, -1});
    Q.push((int)I);
  }
  while (Q.size() > 1) {
    int A = Q.top();
    Q.pop();
    int B = Q.top();
    Q.pop();
    Nodes.push_back({Nodes[A].Weight + Nodes[B].Weight, (unsigned)Nodes.size(), A, B});
    Q.push((int)Nodes.size() - 1);
  }
  std::vector<unsigned> Len(W.size(), 0);
  if (W.size() < 2) return Len;
  std::vector<std::pair<int, unsigned>> Stack{{Q.top(), 0}};
  while (!Stack.empty()) {
    auto [N, Depth] = Stack.back();
    Stack.pop_back();
    if (Nodes[N].Left < 0) {
      Len[N] = Depth;
      continue;
    }
    Stack.push_back({Nodes[N].Left, Depth + 1});
    Stack.push_back({Nodes[N].Right, Depth + 1});
  }
  return Len;
}

std::vector<Code> buildHuffmanCode(const std::vector<uint64_t> &Weights) {
  std::vector<uint64_t> W = Weights;
  std::vector<unsigned> Len = huffmanLengths(W);
  while (!Len.empty() && *std::max_element(Len.begin(), Len.end()) > MaxCodeBits) {
    for (uint64_t &X : W) X = (uint64_t)std::sqrt((double)X) + 1;
    Len = huffmanLengths(W);
  }
  // Canonical values: by (length, index), each code is the previous one plus one, shifted
  // left when the length grows.
  std::vector<unsigned> Order(W.size());
  for (unsigned I = 0; I < Order.size(); ++I) Order[I] = I;
  std::stable_sort(Order.begin(), Order.end(),
                   [&](unsigned A, unsigned B) { return Len[A] < Len[B]; });
  std::vector<Code> Out(W.size());
  uint64_t Next = 0;
  unsigned PrevLen = 0;
  for (unsigned I = 0; I < Order.size(); ++I) {
    unsigned S = Order[I];
    if (I > 0) Next = (Next + 1) << (Len[S] - PrevLen);
    Out[S] = {Len[S], Next};
    PrevLen = Len[S];
  }
  return Out;
}

} // namespace crashtrail
