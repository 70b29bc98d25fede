//===- ModuleExits.cpp - whose frames may be entered from, or return to, other code -----===//
// See ModuleExits.h. The tail-call test mirrors PlanBuilder's: a call marked `tail` whose
// result (or nothing) is returned right after it, or through a block that is only
// `phi; ret`, which PlanBuilder copies behind the call before planning.
#include "ModuleExits.h"

#include "CallClassifier.h"

#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace crashtrail {

static bool returnsResultOf(const ReturnInst &Ret, const CallInst &CI, const BasicBlock *From) {
  const Value *RV = Ret.getReturnValue();
  if (!RV || RV == &CI) return true;
  auto *Phi = dyn_cast<PHINode>(RV);
  return Phi && From && Phi->getParent() == Ret.getParent() &&
         Phi->getIncomingValueForBlock(From) == &CI;
}

static bool mayBeTailCall(const CallInst &CI) {
  if (!CI.isTailCall() && !CI.isMustTailCall()) return false;
  if (CI.getFunction()->getFnAttribute("disable-tail-calls").getValueAsBool()) return false;
  const Instruction *Next = CI.getNextNonDebugInstruction();
  if (auto *Ret = dyn_cast_or_null<ReturnInst>(Next)) return returnsResultOf(*Ret, CI, nullptr);
  auto *Br = dyn_cast_or_null<BranchInst>(Next);
  if (!Br || Br->isConditional()) return false;
  const BasicBlock *R = Br->getSuccessor(0);
  auto *Ret = dyn_cast<ReturnInst>(R->getTerminator());
  if (!Ret) return false;
  for (const Instruction &I : *R)
    if (&I != Ret && !isa<PHINode>(I) && !isa<DbgInfoIntrinsic>(I)) return false;
  return returnsResultOf(*Ret, CI, CI.getParent());
}

// Adds to Set every function tail-called by one in it, to a fixpoint.
static void closeOverTailCalls(SmallPtrSet<const Function *, 8> &Set) {
  std::vector<const Function *> Work(Set.begin(), Set.end());
  while (!Work.empty()) {
    const Function *F = Work.back();
    Work.pop_back();
    for (const BasicBlock &BB : *F)
      for (const Instruction &I : BB)
        if (auto *CI = dyn_cast<CallInst>(&I))
          if (const Function *Callee = CI->getCalledFunction())
            if (!Callee->isDeclaration() && mayBeTailCall(*CI) && Set.insert(Callee).second)
              Work.push_back(Callee);
  }
}

ModuleExits findModuleExits(Module &M, const std::vector<Function *> &Instrumented) {
  ModuleExits X;
  SmallPtrSet<const Function *, 32> Ours(Instrumented.begin(), Instrumented.end());
  for (Function &F : M) {
    if (F.isDeclaration()) continue;
    if (mayBeEnteredFromOutside(F)) X.EnteredFromOutside.insert(&F);
    if ((!F.hasLocalLinkage() && !F.hasHiddenVisibility()) || F.hasAddressTaken())
      X.ReturnsToUninstrumented.insert(&F);
    if (Ours.count(&F)) continue;
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *CB = dyn_cast<CallBase>(&I))
          if (const Function *Callee = CB->getCalledFunction())
            if (!Callee->isDeclaration()) {
              X.EnteredFromOutside.insert(Callee);
              X.ReturnsToUninstrumented.insert(Callee);
            }
  }
  X.ExitsToOutside.insert(X.EnteredFromOutside.begin(), X.EnteredFromOutside.end());
  closeOverTailCalls(X.ExitsToOutside);
  closeOverTailCalls(X.ReturnsToUninstrumented);
  return X;
}

} // namespace crashtrail
