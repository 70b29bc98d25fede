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

} // namespace crashtrail

#endif
