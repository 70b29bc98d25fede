//===- CrashtrailPass.cpp - the module pass that instruments a translation unit ---------===//
//
// Path recording for crash back-traces, after the back-tracing method of Agarwal, Ayers and
// Schooler (WO 00/46678: block identifiers in per-module circular buffers, Huffman-coded,
// condensed in a register) and the regenerable traces of Larus's qpt (abstract execution,
// blocking witnesses before calls). docs/design.md explains the encoding and its invariants.
//
// For each function that may be instrumented (see shouldInstrument):
//   1. buildPlan normalises the CFG and decides codes, sites and check points (PlanBuilder);
//   2. the last/first tables (tables mode) get one entry per block that has source lines;
//   3. tagBlockDiscriminators names each block's instructions in the line table;
//   4. instrumentFunction emits the accumulator and the flushes (Instrumenter);
//   5. MetadataWriter records the plan in the non-allocated .debug_crashtrail section.
// Runtime symbols: see RuntimeGlue.h and crashtrail/abi.h.
//
//===----------------------------------------------------------------------------------------===//
#include "CrashtrailPass.h"

#include "CarriedAccumulator.h"

#include "Compat.h"

#include "BlockDiscriminators.h"
#include "DebugLocationMode.h"
#include "Instrumenter.h"
#include "MetadataWriter.h"
#include "Options.h"
#include "PlanBuilder.h"
#include "RuntimeGlue.h"
#include "SlowPathAsm.h"
#include "TableSlots.h"
#include "crashtrail/abi.h"

#include "llvm/Analysis/BranchProbabilityInfo.h"
#include "llvm/Analysis/TargetLibraryInfo.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/DebugInfo.h"
#include "llvm/IR/DiagnosticInfo.h"
#include "llvm/IR/DiagnosticPrinter.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"
#include "llvm/Support/MathExtras.h"
#include "llvm/Support/SpecialCaseList.h"
#include "llvm/Support/VirtualFileSystem.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

#include <set>

using namespace llvm;

namespace crashtrail {

namespace {
// A plain warning from the pass, printed by clang as "warning: crashtrail: ...".
class PassWarning : public DiagnosticInfo {
public:
  explicit PassWarning(const std::string &Msg)
      : DiagnosticInfo(Kind, DS_Warning), Msg(Msg) {}
  void print(DiagnosticPrinter &DP) const override { DP << Msg; }

private:
  static const int Kind;
  std::string Msg;
};
const int PassWarning::Kind = getNextAvailablePluginDiagnosticKind();
} // namespace

static constexpr const char *NoInstrumentAnnotation = "crashtrail_no_instrument";

// Functions annotated by the frontend plugin (from no_instrument_function) or by the user.
static std::set<const Function *> annotatedNoInstrument(Module &M) {
  std::set<const Function *> Out;
  GlobalVariable *GA = M.getGlobalVariable("llvm.global.annotations");
  if (!GA || !GA->hasInitializer()) return Out;
  auto *Arr = dyn_cast<ConstantArray>(GA->getInitializer());
  if (!Arr) return Out;
  for (Value *Op : Arr->operands()) {
    auto *CS = dyn_cast<ConstantStruct>(Op);
    if (!CS || CS->getNumOperands() < 2) continue;
    auto *F = dyn_cast<Function>(CS->getOperand(0)->stripPointerCasts());
    auto *Str = dyn_cast<GlobalVariable>(CS->getOperand(1)->stripPointerCasts());
    if (!F || !Str || !Str->hasInitializer()) continue;
    if (auto *Data = dyn_cast<ConstantDataSequential>(Str->getInitializer()))
      if (Data->isCString() && Data->getAsCString() == NoInstrumentAnnotation) Out.insert(F);
  }
  return Out;
}

namespace {
struct Selection {
  std::unique_ptr<SpecialCaseList> Allow, Ignore;
  std::set<const Function *> Annotated;

  static bool matches(const SpecialCaseList &L, const Function &F, StringRef Src) {
    return L.inSection("crashtrail", "fun", F.getName()) || L.inSection("crashtrail", "src", Src);
  }

  // One reason per line for leaving a function alone.
  bool shouldInstrument(const Function &F) const {
    if (F.isDeclaration() || F.hasAvailableExternallyLinkage()) return false; // no body here
    if (hasPrefix(F.getName(), "__crashtrail_")) return false;   // the runtime's glue
    if (F.hasFnAttribute(Attribute::Naked)) return false;        // no prologue to add code to
    if (F.hasFnAttribute(Attribute::DisableSanitizerInstrumentation)) return false; // opt-out
    if (Annotated.count(&F)) return false;                       // no_instrument_function
    StringRef Src = F.getSubprogram() ? F.getSubprogram()->getFilename()
                                      : StringRef(F.getParent()->getSourceFileName());
    if (Allow && !matches(*Allow, F, Src)) return false;
    if (Ignore && matches(*Ignore, F, Src)) return false;
    return true;
  }
};
} // namespace

static std::unique_ptr<SpecialCaseList> loadList(const std::vector<std::string> &Paths,
                                                 LLVMContext &Ctx) {
  if (Paths.empty()) return nullptr;
  std::string Error;
  auto L = SpecialCaseList::create(Paths, *vfs::getRealFileSystem(), Error);
  if (!L) Ctx.emitError("crashtrail: cannot read special case list: " + Error);
  return L;
}

// Line-tables-only units get no variables in DWARF; the accumulator's location needs one, so
// such units are upgraded to full emission (which changes no generated code).
static void upgradeLineTablesOnlyUnits(Module &M) {
  DebugInfoFinder Finder;
  Finder.processModule(M);
  NamedMDNode *CUs = M.getNamedMetadata("llvm.dbg.cu");
  if (!CUs) return;
  for (unsigned I = 0; I < CUs->getNumOperands(); ++I) {
    auto *Old = cast<DICompileUnit>(CUs->getOperand(I));
    if (Old->getEmissionKind() != DICompileUnit::LineTablesOnly) continue;
    auto *New = DICompileUnit::getDistinct(
        M.getContext(), Old->getSourceLanguage(), Old->getFile(), Old->getProducer(),
        Old->isOptimized(), Old->getFlags(), Old->getRuntimeVersion(),
        Old->getSplitDebugFilename(), DICompileUnit::FullDebug, Old->getEnumTypes(),
        Old->getRetainedTypes(), Old->getGlobalVariables(), Old->getImportedEntities(),
        Old->getMacros(), Old->getDWOId(), Old->getSplitDebugInlining(),
        Old->getDebugInfoForProfiling(), Old->getNameTableKind(), Old->getRangesBaseAddress(),
        Old->getSysRoot(), Old->getSDK());
    for (DISubprogram *SP : Finder.subprograms())
      if (SP->getUnit() == Old) SP->replaceUnit(New);
    CUs->setOperand(I, New);
  }
}

// w0 holds the function's own address; a preemptible symbol would be read through the GOT and
// could name another module's definition, so such functions get a local alias. The metadata
// names every anchor from inline assembly, which the optimizer does not see: anchors are kept
// alive in llvm.compiler.used (an alias no record code uses, as in a function that only traps,
// was otherwise dropped and left an undefined symbol behind).
static GlobalValue *anchorFor(Function &F) {
  if (F.isDSOLocal() || F.hasLocalLinkage()) return &F;
  return GlobalAlias::create(GlobalValue::InternalLinkage, F.getName() + ".crashtrail", &F);
}

// Every direct call of From in the module calls To instead (the runtime's wrappers below).
static void redirectCalls(Function *From, FunctionCallee To) {
  for (Use &U : make_early_inc_range(From->uses()))
    if (auto *CB = dyn_cast<CallBase>(U.getUser()))
      if (CB->isCallee(&U)) CB->setCalledOperand(To.getCallee());
}

// Threads this module creates are set up before their start routine runs (their alternate
// signal stack: a stack overflow before a thread's first record would otherwise kill the
// process without a dump, runtime/thread_start.c): direct calls of pthread_create, in every
// function of an instrumented module, go to the runtime's wrapper, which calls it. After the
// metadata is written: the decoder still sees a call of pthread_create.
static void redirectThreadCreation(Module &M) {
  Function *Create = M.getFunction("pthread_create");
  if (!Create || !Create->isDeclaration()) return;
  redirectCalls(Create, M.getOrInsertFunction(CT_SYM_PTHREAD_CREATE, Create->getFunctionType()));
}

// A longjmp discards the frames below its target, and with deferred calls their paths since
// their last records (runtime/longjmp_save.c): direct calls of the longjmp family go to the
// runtime's wrappers, which write those paths first. Only where this module defers calls
// (the ring build writes a record before every call: nothing to save). After the metadata is
// written: the decoder still sees a call of longjmp.
static void redirectLongjmps(Module &M) {
  bool Any = false;
  for (const char *Name : {"longjmp", "_longjmp", "siglongjmp", "__longjmp_chk"}) {
    Function *LJ = M.getFunction(Name);
    if (!LJ || !LJ->isDeclaration()) continue;
    redirectCalls(LJ, M.getOrInsertFunction(std::string(CT_SYM_LONGJMP_PREFIX) + Name,
                                            LJ->getFunctionType(), LJ->getAttributes()));
    Any = true;
  }
  // The wrappers walk the stack with the C runtime's unwinder, which the runtime loads at the
  // first longjmp (a program that never jumps maps none of it). sigsetjmp and siglongjmp are
  // how a program jumps out of a signal handler, where loading a library could deadlock on the
  // lock of the code the signal interrupted: a module that uses them has it loaded at start-up.
  auto Used = [&](const char *Name) {
    Function *F = M.getFunction(Name);
    return F && F->isDeclaration() && !F->use_empty();
  };
  if (Any && (Used("__sigsetjmp") || Used(CT_SYM_LONGJMP_PREFIX "siglongjmp")))
    addModuleConstructor(M, "__crashtrail_preload_ctor",
                         M.getOrInsertFunction(CT_SYM_PRELOAD_UNWINDER,
                                               Type::getVoidTy(M.getContext())));
}

// f's entry in its module's defer table (struct ct_defer_entry): its address as a distance from
// the entry, through its anchor (a local alias when f may be preempted: the entry must name this
// module's f), and its defer slot's offset, the symbol llvm.localescape has the code generator
// define. Both are link-time constants, so the table is read-only and costs no relocation at
// load (an address would: one dynamic relocation and a written page per function in a PIE). In
// f's comdat group, if any, so that the entry goes with the copy of f the linker keeps.
static void emitDeferEntry(Module &M, const FunctionPlan &P) {
  std::string S = "\t.pushsection " CT_SECTION_DEFER ",\"a";
  if (const Comdat *C = P.F->getComdat()) {
    if (!plainAsmName(C->getName())) return; // the group's name would need quoting
    S += "G\",@progbits," + C->getName().str() + ",comdat\n";
  } else {
    S += "\",@progbits\n";
  }
  S += "\t.p2align 3\n\t.quad " + P.Anchor->getName().str() + " - .\n\t.quad .L" +
       P.F->getName().str() + "$frame_escape_0\n\t.popsection\n";
  M.appendModuleInlineAsm(S);
}

// Exit handlers run one after the other once main has returned, and with deferred calls the
// parse could not tell one handler from a callback of the next one's call into code without
// records (runtime/exit_handlers.c): registrations go through the runtime, which marks each
// handler's start in the ring. atexit gets the module's __dso_handle, which the C library's own
// atexit passes to __cxa_atexit. After the metadata is written, as the other redirections.
static void redirectExitHandlers(Module &M) {
  LLVMContext &C = M.getContext();
  if (Function *Cxa = M.getFunction("__cxa_atexit"); Cxa && Cxa->isDeclaration())
    redirectCalls(Cxa, M.getOrInsertFunction(CT_SYM_CXA_ATEXIT, Cxa->getFunctionType()));
  Function *AtExit = M.getFunction("atexit");
  if (!AtExit || !AtExit->isDeclaration() || AtExit->arg_size() != 1) return;
  Type *BytePtr = PointerType::getUnqual(Type::getInt8Ty(C));
  GlobalVariable *Dso = M.getGlobalVariable("__dso_handle", true);
  if (!Dso) {
    Dso = new GlobalVariable(M, Type::getInt8Ty(C), false, GlobalValue::ExternalLinkage, nullptr,
                             "__dso_handle");
    Dso->setVisibility(GlobalValue::HiddenVisibility);
  }
  FunctionType *FT = FunctionType::get(AtExit->getReturnType(),
                                       {AtExit->getFunctionType()->getParamType(0), BytePtr},
                                       false);
  FunctionCallee Wrapper = M.getOrInsertFunction(CT_SYM_ATEXIT, FT);
  for (Use &U : make_early_inc_range(AtExit->uses()))
    if (auto *CI = dyn_cast<CallInst>(U.getUser()))
      if (CI->isCallee(&U)) {
        IRBuilder<> B(CI);
        CallInst *New = B.CreateCall(
            Wrapper, {CI->getArgOperand(0), B.CreatePointerCast(Dso, BytePtr)});
        New->setDebugLoc(CI->getDebugLoc());
        CI->replaceAllUsesWith(New);
        CI->eraseFromParent();
      }
}

PreservedAnalyses CrashtrailPass::run(Module &M, ModuleAnalysisManager &MAM) {
  Options &O = currentOptions();
  LLVMContext &Ctx = M.getContext();
  // -fplugin and -fpass-plugin together, or the plugin loaded twice: instrument once.
  if (M.getNamedMetadata("crashtrail.instrumented")) return PreservedAnalyses::all();
  M.getOrInsertNamedMetadata("crashtrail.instrumented");
  for (const std::string &E : O.Errors) Ctx.emitError("crashtrail: " + E);
  Selection Sel;
  Sel.Allow = loadList(O.AllowLists, Ctx);
  Sel.Ignore = loadList(O.IgnoreLists, Ctx);
  Sel.Annotated = annotatedNoInstrument(M);

  std::vector<Function *> Candidates;
  for (Function &F : M)
    if (Sel.shouldInstrument(F)) Candidates.push_back(&F);
  if (Candidates.empty()) return PreservedAnalyses::all();
  if (any_of(Candidates, [](Function *F) { return hasComputedGoto(*F); }))
    preferDbgValueLocations();

  auto &FAM = MAM.getResult<FunctionAnalysisManagerModuleProxy>(M).getManager();
  if (O.CarryAcc)
    carryAccumulator(Candidates, [&](Function &F) -> const TargetLibraryInfo & {
      return FAM.getResult<TargetLibraryAnalysis>(F);
    }, [&](Function &F) { FAM.clear(F, F.getName()); });
  const ModuleExits Exits = findModuleExits(M, Candidates);
  std::vector<FunctionPlan> Plans;
  unsigned TableEntries = 0;
  for (Function *F : Candidates) {
    FunctionPlan P;
    std::string Why;
    auto &TLI = FAM.getResult<TargetLibraryAnalysis>(*F);
    auto &BPI = FAM.getResult<BranchProbabilityAnalysis>(*F);
    bool Ok = buildPlan(*F, TLI, BPI, Exits, P, Why);
    FAM.invalidate(*F, PreservedAnalyses::none());
    if (!Ok) {
      Ctx.diagnose(PassWarning("crashtrail: not instrumenting '" + F->getName().str() + "': " + Why));
      continue;
    }
    if (O.Mode == RecordMode::RingAndTables) {
      P.TableBase = TableEntries;
      assignTableEntries(P);
      TableEntries += P.NumTableEntries;
    }
    Plans.push_back(std::move(P));
  }
  if (Plans.empty()) return PreservedAnalyses::none();

  RuntimeGlue G(M, O.ComputedRecordIds);
  GlobalVariable *Table = nullptr;
  ArrayType *TableTy = nullptr;
  if (TableEntries) {
    // Defined in assembly: LLVM puts a zero-initialised global with an explicit section into
    // PROGBITS (file space); the tables must be NOBITS. The symbol is local to the object.
    Type *I64 = Type::getInt64Ty(Ctx);
    TableTy = ArrayType::get(StructType::get(I64, I64), TableEntries);
    Table = new GlobalVariable(M, TableTy, false, GlobalValue::ExternalLinkage, nullptr,
                               "__crashtrail_tab");
    Table->setVisibility(GlobalValue::HiddenVisibility);
    Table->setDSOLocal(true);
    M.appendModuleInlineAsm(("\t.pushsection " CT_SECTION_TABLES ",\"aw\",@nobits\n"
                             "\t.p2align 6\n" +
                             Table->getName() + ":\n\t.zero " +
                             std::to_string(uint64_t(TableEntries) * 16) + "\n\t.popsection\n")
                                .str());
  }
  // Tables mode in code built for an executable: a block marks its entry's byte in a per-thread
  // map (one `movb $1, %fs:OFF`: no clock in a register, no load, no branch), and the runtime
  // folds the marked bytes into the table whenever the thread's coarse time moves
  // (runtime/table_maps.c), which gives each entry the time the compare would have written.
  // Local-exec TLS needs the executable; a shared object keeps the compare (a large initial-exec
  // TLS block could not be dlopened). The map, like the table, is defined in assembly (local to
  // the object), 64-byte aligned and padded to 64 bytes, the runtime's scan step; its entry in
  // CT_SECTION_TABLE_MAPS tells the runtime where both are.
  GlobalVariable *Map = nullptr;
  ArrayType *MapTy = nullptr;
  if (TableEntries && O.TableMaps && builtForExecutable(M)) {
    MapTy = ArrayType::get(Type::getInt8Ty(Ctx), TableEntries);
    Map = new GlobalVariable(M, MapTy, false, GlobalValue::ExternalLinkage, nullptr,
                             "__crashtrail_map", nullptr, GlobalValue::LocalExecTLSModel);
    Map->setVisibility(GlobalValue::HiddenVisibility);
    Map->setDSOLocal(true);
    M.appendModuleInlineAsm(("\t.pushsection .tbss.crashtrail_map,\"awT\",@nobits\n"
                             "\t.p2align 6\n" +
                             Map->getName() + ":\n\t.zero " + std::to_string(alignTo(TableEntries, 64)) +
                             "\n\t.popsection\n"
                             "\t.pushsection " CT_SECTION_TABLE_MAPS ",\"aw\",@progbits\n"
                             "\t.p2align 3\n\t.quad " +
                             Table->getName() + " - .\n\t.quad " + Map->getName() +
                             "@tpoff\n\t.quad " + std::to_string(TableEntries) +
                             "\n\t.popsection\n")
                                .str());
  }
  MetadataWriter Meta(M);
  bool AnyAccVar = false;
  std::vector<GlobalValue *> Anchors;
  for (FunctionPlan &P : Plans) {
    P.Anchor = anchorFor(*P.F);
    Anchors.push_back(P.Anchor);
    if (P.NumTableEntries) {
      P.Table = Table;
      P.TableTy = TableTy;
      P.TableMap = Map;
      P.TableMapTy = MapTy;
    }
    tagBlockDiscriminators(P);
    instrumentFunction(P, G, O);
    if (P.DeferSlot) emitDeferEntry(M, P);
    AnyAccVar |= (P.Flags & CT_FN_ACC_VAR) != 0;
    Meta.add(P);
  }
  Meta.emit();
  redirectThreadCreation(M);
  if (O.defersCalls()) {
    redirectLongjmps(M);
    redirectExitHandlers(M);
  }
  appendToCompilerUsed(M, Anchors);
  if (AnyAccVar) upgradeLineTablesOnlyUnits(M);
  return PreservedAnalyses::none();
}

} // namespace crashtrail
