//===- Plugin.cpp - how clang and opt load crashtrail ---------------------------------===//
//
// One shared object, three ways in:
//   clang -fplugin=crashtrail-pass.so      the frontend action below adds this same file to
//                                          the code generator's pass plugins and marks
//                                          no_instrument_function declarations
//   clang -fpass-plugin=crashtrail-pass.so llvmGetPassPluginInfo: OptimizerLast callback
//   opt -load-pass-plugin=... -passes=crashtrail   the pipeline-parsing callback (tests)
// Plugin arguments: -fplugin-arg-crashtrail-mode=ring|tables, -allowlist=F, -ignorelist=F,
// -acc-var=0|1 (see Options.h).
//
//===----------------------------------------------------------------------------------------===//
#include "CrashtrailPass.h"
#include "Options.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Basic/DiagnosticFrontend.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"
#include "llvm/Passes/PassBuilder.h"
#include "llvm/Passes/PassPlugin.h"

#include <dlfcn.h>

using namespace llvm;

namespace {

std::string thisLibraryPath() {
  Dl_info Info;
  if (dladdr(reinterpret_cast<void *>(&thisLibraryPath), &Info) && Info.dli_fname)
    return Info.dli_fname;
  return "";
}

// Turns __attribute__((no_instrument_function)) into an annotation the IR pass can see
// (clang keeps no trace of it in IR).
class NoInstrumentMarker : public clang::RecursiveASTVisitor<NoInstrumentMarker> {
public:
  explicit NoInstrumentMarker(clang::ASTContext &Ctx) : Ctx(Ctx) {}
  bool VisitFunctionDecl(clang::FunctionDecl *FD) {
    if (FD->hasAttr<clang::NoInstrumentFunctionAttr>())
      FD->addAttr(clang::AnnotateAttr::CreateImplicit(Ctx, "crashtrail_no_instrument", nullptr, 0));
    return true;
  }

private:
  clang::ASTContext &Ctx;
};

class MarkerConsumer : public clang::ASTConsumer {
public:
  bool HandleTopLevelDecl(clang::DeclGroupRef DG) override {
    for (clang::Decl *D : DG) NoInstrumentMarker(D->getASTContext()).TraverseDecl(D);
    return true;
  }
  void HandleInlineFunctionDefinition(clang::FunctionDecl *FD) override {
    NoInstrumentMarker(FD->getASTContext()).TraverseDecl(FD);
  }
};

class CrashtrailAction : public clang::PluginASTAction {
protected:
  std::unique_ptr<clang::ASTConsumer> CreateASTConsumer(clang::CompilerInstance &CI,
                                                        StringRef) override {
    std::string Self = thisLibraryPath();
    auto &Plugins = CI.getCodeGenOpts().PassPlugins;
    if (!Self.empty() && std::find(Plugins.begin(), Plugins.end(), Self) == Plugins.end())
      Plugins.push_back(Self);
    return std::make_unique<MarkerConsumer>();
  }

  bool ParseArgs(const clang::CompilerInstance &CI, const std::vector<std::string> &Args) override {
    bool Ok = true;
    for (const std::string &A : Args)
      if (!crashtrail::applyPluginArgument(A)) Ok = false;
    if (!Ok) {
      auto &D = CI.getDiagnostics();
      for (const std::string &E : crashtrail::currentOptions().Errors)
        D.Report(D.getCustomDiagID(clang::DiagnosticsEngine::Error, "crashtrail: %0")) << E;
      crashtrail::currentOptions().Errors.clear();
    }
    return Ok;
  }

  ActionType getActionType() override { return AddBeforeMainAction; }
};

} // namespace

static clang::FrontendPluginRegistry::Add<CrashtrailAction>
    RegisterAction("crashtrail", "record the execution path for crash timelines");

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
