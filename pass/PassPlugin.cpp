//===- PassPlugin.cpp - how clang and opt load the pass ----------------------------------===//
//
// One shared object, three ways in:
//   clang -fplugin=crashtrail-pass.so      FrontendPlugin.cpp adds this same file to the code
//                                          generator's pass plugins
//   clang -fpass-plugin=crashtrail-pass.so llvmGetPassPluginInfo: an OptimizerLast callback
//   opt -load-pass-plugin=crashtrail-opt.so -passes=crashtrail   the pipeline-parsing callback
// crashtrail-opt.so is the same pass without the clang frontend part: LLVM 19's libclang-cpp
// registers command-line options that opt registers too, so a plugin linking clang cannot be
// loaded into opt.
//
//===----------------------------------------------------------------------------------------===//
#include "CrashtrailPass.h"

#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

using namespace llvm;

extern "C" LLVM_ATTRIBUTE_WEAK PassPluginLibraryInfo llvmGetPassPluginInfo() {
  return {LLVM_PLUGIN_API_VERSION, "crashtrail", "1", [](PassBuilder &PB) {
            PB.registerOptimizerLastEPCallback([](ModulePassManager &MPM, auto &&...) {
              MPM.addPass(crashtrail::CrashtrailPass());
            });
            PB.registerPipelineParsingCallback(
                [](StringRef Name, ModulePassManager &MPM, ArrayRef<PassBuilder::PipelineElement>) {
                  if (Name != "crashtrail") return false;
                  MPM.addPass(crashtrail::CrashtrailPass());
                  return true;
                });
          }};
}
