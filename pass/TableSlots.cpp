//===- TableSlots.cpp - which blocks share a last/first table entry ---------------------===//
//
// In tables mode every block with source lines needs "when did it last and first run". The
// table holds coarse times (CT_SYM_NOW), and the thread's coarse time changes only inside the
// runtime's refill, which runs only from a flush (a check point that fires, a call's or a
// return's record) or from code this function calls. So along a path that passes no check point
// and no call, the time cannot change, and two blocks X and R with
//   - X dominating R and R post-dominating X (every run of X is followed by a run of R, every
//     run of R preceded by a run of X), and
//   - no flush on any path from X to R (no block after X with a check point, X's own when the
//     path passes X again, no block before R ending in a call, invoke or return), and no loop
//     header after X (R included), so that R cannot run again without X (a loop's check point
//     is on its latches, so a loop around R alone may pass none between X and R),
// are always stamped with the same time: their last times and their first times are equal. X
// then shares R's entry and only R writes it. Chains compose (X with R, R with S: X with S), so
// a block shares the entry of the last block with lines along the chain of such post-dominators.
//
// The update sits in the later block (R), so when a crash stops the program between X and R the
// table does not claim that R ran; it reports X's previous run instead, and the crashing frame's
// unfinished path (recovered from the accumulator) says what ran last.
//
// The walk over the blocks between X and R is bounded (MaxRegion): a wider region is simply
// not merged.
//
//===----------------------------------------------------------------------------------------===//
#include "TableSlots.h"

#include "crashtrail/abi.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/PostDominators.h"
#include "llvm/IR/Dominators.h"

using namespace llvm;

namespace crashtrail {

namespace {

constexpr unsigned MaxRegion = 32;

bool flushesAtEnd(const BlockPlan &B) {
  return B.Term != CT_TERM_JUMP && B.Term != CT_TERM_BRANCH;
}

// A check point may flush at the block's start; a loop header may run again without X.
bool endsSharing(const BlockPlan &B) { return B.Check || B.LoopHeader; }

// Whether no flush can run between X's table update (at its start, after its check point) and
// R's (at R's start, after R's check point). Since R post-dominates X, the blocks on such paths
// are those reachable from X without passing R: a forward walk that stops at R. A path may
// come back to X (a loop around X that exits to R): X is then a loop header, and refused.
bool flushFreeBetween(const FunctionPlan &P, const DenseMap<const BasicBlock *, unsigned> &Index,
                      unsigned X, unsigned R) {
  if (endsSharing(P.Blocks[R])) return false;
  SmallVector<unsigned, 16> Work{X};
  SmallPtrSet<const BasicBlock *, 32> Seen;
  const BasicBlock *XB = P.Blocks[X].BB, *RB = P.Blocks[R].BB;
  Seen.insert(XB);
  while (!Work.empty()) {
    const BlockPlan &B = P.Blocks[Work.pop_back_val()];
    if (flushesAtEnd(B)) return false;
    for (const BasicBlock *Succ : successors(B.BB)) {
      if (Succ == RB) continue;
      auto It = Index.find(Succ);
      if (It == Index.end() || endsSharing(P.Blocks[It->second])) return false;
      if (!Seen.insert(Succ).second) continue;
      if (Seen.size() > MaxRegion) return false;
      Work.push_back(It->second);
    }
  }
  return true;
}

} // namespace

void assignTableEntries(FunctionPlan &P) {
  Function &F = *P.F;
  bool AllBlocks = (P.Flags & CT_FN_NO_DEBUG) != 0;
  auto Wants = [&](const BlockPlan &B) { return AllBlocks || !B.Lines.empty(); };

  DominatorTree DT(F);
  PostDominatorTree PDT(F);
  DenseMap<const BasicBlock *, unsigned> Index;
  for (unsigned I = 0; I < P.Blocks.size(); ++I) Index[P.Blocks[I].BB] = I;

  // Next[I]: the block whose time always equals I's (its immediate post-dominator, when the
  // conditions above hold), or -1.
  std::vector<int> Next(P.Blocks.size(), -1);
  for (unsigned I = 0; I < P.Blocks.size(); ++I) {
    DomTreeNode *N = PDT.getNode(P.Blocks[I].BB);
    if (!N || !N->getIDom() || !N->getIDom()->getBlock()) continue;
    auto It = Index.find(N->getIDom()->getBlock());
    if (It == Index.end()) continue;
    unsigned R = It->second;
    if (DT.dominates(P.Blocks[I].BB, P.Blocks[R].BB) && flushFreeBetween(P, Index, I, R))
      Next[I] = (int)R;
  }

  // Owner[I]: the last block wanting an entry along I's chain, found once per chain (memoised;
  // post-dominator chains have no cycles).
  std::vector<int> Owner(P.Blocks.size(), -2);
  auto OwnerOf = [&](unsigned I) {
    SmallVector<unsigned, 8> Path;
    int Cur = (int)I;
    while (Cur >= 0 && Owner[Cur] == -2) {
      Path.push_back((unsigned)Cur);
      Cur = Next[Cur];
    }
    int Found = Cur >= 0 ? Owner[Cur] : -1;
    for (auto It = Path.rbegin(); It != Path.rend(); ++It) {
      if (Found < 0 && Wants(P.Blocks[*It])) Found = (int)*It;
      Owner[*It] = Found;
    }
    return Owner[I];
  };

  std::vector<int> EntryOf(P.Blocks.size(), -1);
  for (unsigned I = 0; I < P.Blocks.size(); ++I) {
    if (!Wants(P.Blocks[I])) continue;
    unsigned O = (unsigned)OwnerOf(I);
    if (EntryOf[O] < 0) EntryOf[O] = (int)P.NumTableEntries++;
    P.Blocks[I].TableEntry = EntryOf[O];
    P.Blocks[O].TableUpdate = true;
  }
}

} // namespace crashtrail
