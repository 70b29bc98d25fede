//===- CarriedAccumulator.h - local functions that take and return their caller's accumulator -===//
#ifndef CRASHTRAIL_PASS_CARRIEDACCUMULATOR_H
#define CRASHTRAIL_PASS_CARRIEDACCUMULATOR_H

#include "llvm/ADT/STLExtras.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Module.h"

#include <vector>

namespace crashtrail {

// The attribute that marks a function rewritten to carry the accumulator.
constexpr const char *CarriesAccAttr = "crashtrail-carries-acc";

// Rewrites each function of Candidates that qualifies (see the .cpp) to take the accumulator
// as a last i64 argument and return it with its result, and every call of it to pass a
// placeholder (the constant 1) and take the result apart. Candidates is updated to the new
// functions; Forget is called with each old function before it is deleted (to drop cached
// analyses). Returns how many were rewritten.
unsigned carryAccumulator(
    std::vector<llvm::Function *> &Candidates,
    llvm::function_ref<const llvm::TargetLibraryInfo &(llvm::Function &)> GetTLI,
    llvm::function_ref<void(llvm::Function &)> Forget);

// Whether CB calls a function rewritten by carryAccumulator.
bool callCarriesAcc(const llvm::CallBase &CB);

// Whether F was rewritten by carryAccumulator: its last argument is the caller's accumulator,
// and a `ret` returns the accumulator (the struct's second field, or the value itself).
bool carriesAcc(const llvm::Function &F);

} // namespace crashtrail

#endif
