//===- CrashtrailPass.h - the module pass that instruments a translation unit -----------===//
#ifndef CRASHTRAIL_PASS_CRASHTRAILPASS_H
#define CRASHTRAIL_PASS_CRASHTRAILPASS_H

#include "llvm/IR/PassManager.h"

namespace crashtrail {

// Runs at the end of the optimisation pipeline (OptimizerLast), so the identifiers describe
// the code that is really generated and instrumentation never blocks an optimisation.
struct CrashtrailPass : llvm::PassInfoMixin<CrashtrailPass> {
  llvm::PreservedAnalyses run(llvm::Module &M, llvm::ModuleAnalysisManager &MAM);
  // -O0 marks functions optnone; crashtrail must run there too.
  static bool isRequired() { return true; }
};

} // namespace crashtrail

#endif
