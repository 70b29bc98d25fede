//===- AccFold.h - the accumulator's arithmetic folded through joins of constants -------===//
#ifndef CRASHTRAIL_PASS_ACCFOLD_H
#define CRASHTRAIL_PASS_ACCFOLD_H

#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/Instructions.h"

namespace crashtrail {

// Folds the accumulator's constant arithmetic after mem2reg: instructions of constants, and
// shifts, ors and compares through phis whose incoming values are all constants (AccPhis: the
// phis mem2reg made for the accumulator; updated as phis are made and removed). Returns how
// many instructions were folded away.
unsigned foldAccumulatorConstants(llvm::Function &F, llvm::SmallPtrSetImpl<llvm::PHINode *> &AccPhis);

// V's debug uses rewritten in terms of Expr's operand (LLVM's salvaging: `shl x, 1` becomes
// x with DW_OP_constu 1, DW_OP_shl): Expr, an instruction made for the purpose whose value is
// V's, takes over V's debug uses only, is salvaged and removed. V's real uses stay.
void salvageDebugUsesThrough(llvm::Value *V, llvm::Instruction *Expr);

} // namespace crashtrail

#endif
