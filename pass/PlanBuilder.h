//===- PlanBuilder.h - normalise a function's CFG and plan its instrumentation ----------===//
#ifndef CRASHTRAIL_PASS_PLANBUILDER_H
#define CRASHTRAIL_PASS_PLANBUILDER_H

#include "FunctionPlan.h"
#include "ModuleExits.h"

#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"

namespace crashtrail {

// Splits blocks after recording calls and the edges that need a code of their own, then fills
// P (see FunctionPlan.h for what it holds and its invariants). Returns false, with the IR
// unchanged in meaning, when the function uses a construct the encoding does not support
// (funclet-based exception handling); `Why` then says which. X: where the unit's functions
// may be entered from and return to (findModuleExits, before any function is changed).
bool buildPlan(llvm::Function &F, const llvm::TargetLibraryInfo &TLI,
               const llvm::BranchProbabilityInfo &BPI, const ModuleExits &X, FunctionPlan &P,
               std::string &Why);

} // namespace crashtrail

#endif
