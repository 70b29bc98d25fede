//===- FrontendPlugin.cpp - `clang -fplugin=crashtrail-pass.so` -------------------------===//
//
// The clang side of the plugin (only in crashtrail-pass.so, which links clang): the frontend
// action adds this same shared object to the code generator's pass plugins, so -fplugin alone
// runs the pass, passes -fplugin-arg-crashtrail-* to Options, and turns
// __attribute__((no_instrument_function)) into an annotation the IR pass can see (clang keeps no
// trace of it in IR).
//
//===----------------------------------------------------------------------------------------===//
#include "Options.h"

#include "clang/AST/ASTConsumer.h"
#include "clang/AST/Attr.h"
#include "clang/AST/RecursiveASTVisitor.h"
#include "clang/Frontend/CompilerInstance.h"
#include "clang/Frontend/FrontendPluginRegistry.h"

#include <algorithm>
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
    const clang::CodeGenOptions &CG = CI.getCodeGenOpts();
    StringRef BB = CG.BBSections;
    if (BB == "all" || BB.substr(0, 5) == "list=" || CG.SplitMachineFunctions ||
        CG.PrepareForLTO || CG.PrepareForThinLTO)
      crashtrail::currentOptions().ComputedRecordIds = true;
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

