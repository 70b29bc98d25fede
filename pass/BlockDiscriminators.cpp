//===- BlockDiscriminators.cpp - name each planned block in the line table --------------===//
//
// The metadata lists a block's source lines in IR order, but codegen schedules, hoists and
// sinks instructions afterwards, so at -O2 the machine runs a block's lines in another order
// (and some lines make no code at all). The post-mortem can only show what ran if it knows
// which machine instructions belong to which block. A DWARF discriminator is a per-row number
// of the line table: no code and no run time, only line-table bytes; plan block I gets I + 1 on
// every instruction with a location, before the instrumenter runs, so the code it inserts
// (which takes the location of its block's first instruction) is named the same way. The
// post-mortem then reorders each block's lines by the addresses of its rows.
//
// crashtrail's own slow paths (a check point that fires, a ring refill, a table update) are
// laid out anywhere, often after the function's hot code: their rows get CT_DISC_COLD too, so
// they are not taken for the block's order.
//
// Invariants: only plan-block numbers are written (0 stays "none"); nothing is changed in a
// function that already has discriminators or whose unit is built for sample profiling,
// where discriminators belong to AutoFDO; the function is flagged CT_FN_BLOCK_DISC only when
// every block was tagged.
//
//===----------------------------------------------------------------------------------------===//
#include "BlockDiscriminators.h"

#include "crashtrail/abi.h"

#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/CFG.h"
#include "llvm/IR/IntrinsicInst.h"

#include <set>

using namespace llvm;

namespace crashtrail {

bool tagBlockDiscriminators(FunctionPlan &P) {
  Function &F = *P.F;
  const DISubprogram *SP = F.getSubprogram();
  if ((P.Flags & CT_FN_NO_DEBUG) || !SP || !SP->getUnit() || SP->getUnit()->getDebugInfoForProfiling())
    return false;
  for (BasicBlock &BB : F)
    for (Instruction &I : BB)
      if (const DILocation *L = I.getDebugLoc().get())
        if (L->getDiscriminator() != 0) return false;
  for (unsigned B = 0; B < P.Blocks.size(); ++B) {
    for (Instruction &I : *P.Blocks[B].BB) {
      const DILocation *L = I.getDebugLoc().get();
      if (!L || L->getLine() == 0 || isa<DbgInfoIntrinsic>(I)) continue;
      I.setDebugLoc(DebugLoc(L->cloneWithDiscriminator(B + 1)));
    }
  }
  P.Flags |= CT_FN_BLOCK_DISC;
  return true;
}

void markColdDiscriminators(FunctionPlan &P, const MDNode *Unlikely) {
  if (!(P.Flags & CT_FN_BLOCK_DISC)) return;
  Function &F = *P.F;
  // A block is cold when every way into it is the unlikely side of an instrumenter's branch or
  // comes from a cold block (the slow paths have no loops: a fixed point from "none" is exact).
  std::set<BasicBlock *> Cold;
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (BasicBlock &BB : F) {
      if (Cold.count(&BB) || &BB == &F.getEntryBlock() || pred_empty(&BB)) continue;
      bool All = true;
      for (BasicBlock *Pred : predecessors(&BB)) {
        auto *Br = dyn_cast<BranchInst>(Pred->getTerminator());
        bool UnlikelyEdge = Br && Br->isConditional() && Br->getSuccessor(0) == &BB &&
                            Br->getSuccessor(1) != &BB &&
                            Br->getMetadata(LLVMContext::MD_prof) == Unlikely;
        if (!UnlikelyEdge && !Cold.count(Pred)) {
          All = false;
          break;
        }
      }
      if (All) Changed |= Cold.insert(&BB).second;
    }
  }
  for (BasicBlock *BB : Cold)
    for (Instruction &I : *BB) {
      const DILocation *L = I.getDebugLoc().get();
      if (!L || !L->getDiscriminator() || (L->getDiscriminator() & CT_DISC_COLD)) continue;
      I.setDebugLoc(DebugLoc(L->cloneWithDiscriminator(L->getDiscriminator() | CT_DISC_COLD)));
    }
}

} // namespace crashtrail
