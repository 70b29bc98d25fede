//===- CarriedAccumulator.cpp - local functions that take and return their caller's accumulator -===//
//
// A record is written before every call that may run instrumented code and at every return, so
// that the decoder knows whose records come next. Where every caller of a function is known and
// instrumented (internal linkage, its address never taken), the function's path can instead
// continue its caller's record: the caller passes its accumulator as a last argument, the callee
// goes on adding its codes to it, and returns it with its result, `{T, i64}` in two registers
// (or the i64 alone for a function that returned nothing). Neither the call nor the return then
// writes a record. The callee's entry and the caller's continuation become check points, since
// the accumulator arrives with any fill (PlanBuilder); the metadata calls such a call
// CT_TERM_FLOW and such a function CT_FN_FLOW, and the decoder's walk goes through both.
//
// Which functions qualify: internal linkage, returning (a noreturn call keeps its flush, for
// the crash path); every use a direct call (not an invoke, not
// musttail) from a function that is itself instrumented with optimisation, and carried or
// entered only where the decoder knows it was (entryKnown); nounwind (an
// exception would leave with the accumulator in a register), not variadic, no personality; no
// musttail or returns-twice call inside; a result that fits one register (void, an integer of
// at most 64 bits, a pointer, float or double), so that `{T, i64}` stays in registers.
//
// The rewrite is the one dead-argument elimination does: a new function of the new type takes
// the old one's name, attributes (less the result's, and less what it was known not to do to
// memory: it now writes the ring), debug information and body; each `ret v` becomes
// `ret {v, acc}` with the incoming accumulator (so a function the pass then fails to plan passes
// its caller's accumulator through untouched); each call passes the constant 1 (an empty
// accumulator: the Instrumenter replaces it) and its uses take field 0.
//
//===----------------------------------------------------------------------------------------===//
#include "CarriedAccumulator.h"

#include "CallClassifier.h"
#include "Compat.h"

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"

#include <set>

using namespace llvm;

namespace crashtrail {

static bool fitsOneRegister(Type *T) {
  return T->isVoidTy() || (T->isIntegerTy() && T->getIntegerBitWidth() <= 64) ||
         T->isPointerTy() || T->isFloatTy() || T->isDoubleTy();
}

static bool qualifies(Function &G, const std::set<Function *> &Instrumented) {
  if (!G.hasLocalLinkage() || G.isVarArg() || !G.doesNotThrow() || G.hasPersonalityFn() ||
      G.hasOptNone() || G.doesNotReturn() || !fitsOneRegister(G.getReturnType()) ||
      G.use_empty())
    return false;
  if (G.getCallingConv() != CallingConv::C && G.getCallingConv() != CallingConv::Fast)
    return false;
  for (Use &U : G.uses()) {
    auto *CI = dyn_cast<CallInst>(U.getUser());
    if (!CI || CI->getCalledOperand() != &G || CI->getFunctionType() != G.getFunctionType() ||
        CI->isMustTailCall() || !Instrumented.count(CI->getFunction()) ||
        CI->getFunction()->hasOptNone())
      return false;
  }
  for (BasicBlock &BB : G)
    for (Instruction &I : BB)
      if (auto *CI = dyn_cast<CallInst>(&I))
        if (CI->isMustTailCall() || CI->canReturnTwice()) return false;
  return true;
}

static Function *rewrite(Function &G, function_ref<void(Function &)> Forget) {
  LLVMContext &Ctx = G.getContext();
  Type *I64 = Type::getInt64Ty(Ctx);
  FunctionType *OldFT = G.getFunctionType();
  Type *OldRet = OldFT->getReturnType();
  std::vector<Type *> Params(OldFT->param_begin(), OldFT->param_end());
  Params.push_back(I64);
  Type *NewRet = OldRet->isVoidTy() ? I64 : (Type *)StructType::get(Ctx, {OldRet, I64});
  FunctionType *NewFT = FunctionType::get(NewRet, Params, false);

  Function *NF = Function::Create(NewFT, G.getLinkage(), G.getAddressSpace(), "", G.getParent());
  NF->copyAttributesFrom(&G);
  NF->setComdat(G.getComdat());
  AttributeList PAL = G.getAttributes();
  std::vector<AttributeSet> ArgAttrs;
  for (unsigned I = 0; I < OldFT->getNumParams(); ++I) ArgAttrs.push_back(PAL.getParamAttrs(I));
  ArgAttrs.push_back(AttributeSet());
  NF->setAttributes(AttributeList::get(Ctx, PAL.getFnAttrs(), AttributeSet(), ArgAttrs));
  forgetMemoryEffects(*NF);
  NF->addFnAttr(CarriesAccAttr);
  NF->setSubprogram(G.getSubprogram());
  G.setSubprogram(nullptr);
  G.getParent()->getFunctionList().remove(NF);
  G.getParent()->getFunctionList().insert(G.getIterator(), NF);
  moveBody(G, *NF);

  auto NewArg = NF->arg_begin();
  for (Argument &A : G.args()) {
    NewArg->takeName(&A);
    A.replaceAllUsesWith(&*NewArg);
    ++NewArg;
  }
  Argument *AccIn = &*NewArg;
  AccIn->setName("ct.acc.in");

  std::vector<ReturnInst *> Rets;
  for (BasicBlock &BB : *NF)
    if (auto *RI = dyn_cast<ReturnInst>(BB.getTerminator())) Rets.push_back(RI);
  for (ReturnInst *RI : Rets) {
    IRBuilder<> B(RI);
    Value *R = AccIn;
    if (!OldRet->isVoidTy())
      R = B.CreateInsertValue(B.CreateInsertValue(PoisonValue::get(NewRet), RI->getReturnValue(), 0),
                              AccIn, 1);
    ReturnInst *NR = B.CreateRet(R);
    NR->setDebugLoc(RI->getDebugLoc());
    RI->eraseFromParent();
  }

  std::vector<CallInst *> Calls;
  for (Use &U : G.uses()) Calls.push_back(cast<CallInst>(U.getUser()));
  for (CallInst *CI : Calls) {
    std::vector<Value *> Args(CI->arg_begin(), CI->arg_end());
    Args.push_back(ConstantInt::get(I64, 1));
    CallInst *NC = CallInst::Create(NewFT, NF, Args, "", CI);
    NC->setCallingConv(CI->getCallingConv());
    NC->setDebugLoc(CI->getDebugLoc());
    AttributeList CAL = CI->getAttributes();
    std::vector<AttributeSet> CArgs;
    for (unsigned I = 0; I < CI->arg_size(); ++I) CArgs.push_back(CAL.getParamAttrs(I));
    CArgs.push_back(AttributeSet());
    NC->setAttributes(AttributeList::get(Ctx, CAL.getFnAttrs(), AttributeSet(), CArgs));
    forgetMemoryEffects(*NC);
    if (!OldRet->isVoidTy()) {
      Value *V = ExtractValueInst::Create(NC, {0}, "", CI);
      CI->replaceAllUsesWith(V);
    }
    NC->takeName(CI);
    CI->eraseFromParent();
  }
  NF->takeName(&G);
  Forget(G);
  G.eraseFromParent();
  return NF;
}

// Whether the decoder can tell that a record starting at C's entry is C's: the thread's main,
// or a function only called directly from instrumented code (the model then knows the caller
// and which call it makes). A record of a carried function can start at the entry of a caller
// that is not carried itself; if that caller is an indirect call's target or called from
// uninstrumented code, the record names neither it nor its caller (records of sqlite3Malloc
// started in any of four functions when pthreadMutexAlloc, called through a pointer, carried
// into it), so such callers do not carry into anything.
static bool entryKnown(const Function &C, const std::set<Function *> &Instrumented) {
  if (C.getName() == "main") return true;
  if (!C.hasLocalLinkage()) return false;
  for (const Use &U : C.uses()) {
    const auto *CB = dyn_cast<CallBase>(U.getUser());
    if (!CB || CB->getCalledOperand() != &C ||
        !Instrumented.count(const_cast<Function *>(CB->getFunction())))
      return false;
  }
  return true;
}

unsigned carryAccumulator(std::vector<Function *> &Candidates,
                          function_ref<const TargetLibraryInfo &(Function &)> GetTLI,
                          function_ref<void(Function &)> Forget) {
  std::set<Function *> Instrumented(Candidates.begin(), Candidates.end());
  std::set<Function *> Set;
  for (Function *G : Candidates)
    if (qualifies(*G, Instrumented)) Set.insert(G);
  // A function whose call in tail position writes a record (any call that may run
  // instrumented code, but one that carries the accumulator too) would give up that tail
  // call (its result is returned with the accumulator now): not carried; nor one with a caller
  // that is not carried and may be entered unknowably. To a fixpoint, since a call to a
  // function dropped here writes a record, and the function is a caller that is not carried.
  for (bool Changed = true; Changed;) {
    Changed = false;
    for (auto It = Set.begin(); It != Set.end();) {
      Function *G = *It;
      const TargetLibraryInfo &TLI = GetTLI(*G);
      bool Records = false;
      for (BasicBlock &BB : *G)
        for (Instruction &I : BB)
          if (auto *CI = dyn_cast<CallInst>(&I))
            if (CI->isTailCall() && isa_and_nonnull<ReturnInst>(CI->getNextNonDebugInstruction()) &&
                isRecordingCall(*CI, TLI) &&
                !(CI->getCalledFunction() && Set.count(CI->getCalledFunction())))
              Records = true;
      for (Use &U : G->uses()) { // every caller carried itself, or entered knowably
        Function *C = cast<CallInst>(U.getUser())->getFunction();
        if (!Set.count(C) && !entryKnown(*C, Instrumented)) Records = true;
      }
      if (Records) {
        It = Set.erase(It);
        Changed = true;
      } else {
        ++It;
      }
    }
  }
  std::vector<Function *> Chosen;
  for (Function *G : Candidates)
    if (Set.count(G)) Chosen.push_back(G);
  for (Function *G : Chosen) {
    Function *NF = rewrite(*G, Forget);
    std::replace(Candidates.begin(), Candidates.end(), G, NF);
  }
  return (unsigned)Chosen.size();
}

bool carriesAcc(const Function &F) { return F.hasFnAttribute(CarriesAccAttr); }

bool callCarriesAcc(const CallBase &CB) {
  const Function *F = CB.getCalledFunction();
  return F && carriesAcc(*F);
}

} // namespace crashtrail
