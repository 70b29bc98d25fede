//===- ModuleExits.cpp - whose frames may be entered from, or return to, other code -----===//
// See ModuleExits.h.
#include "ModuleExits.h"

#include "CallClassifier.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace crashtrail {

// A call in tail position as PlanBuilder will see it: right before its `ret`, or before a
// branch to a block that is only `phi; ret` returning the call's result, which PlanBuilder
// copies behind the call before planning.
static bool mayBeTailCall(const CallInst &CI) {
  if (CI.isMustTailCall() || isTailPositionCall(CI)) return true;
  auto *Br = dyn_cast_or_null<BranchInst>(CI.getNextNonDebugInstruction());
  if (!Br || Br->isConditional() || !CI.isTailCall() || mayComeBackElsewhere(CI) ||
      CI.getFunction()->getFnAttribute("disable-tail-calls").getValueAsBool())
    return false;
  const BasicBlock *R = Br->getSuccessor(0);
  auto *Ret = dyn_cast<ReturnInst>(R->getTerminator());
  if (!Ret) return false;
  for (const Instruction &I : *R)
    if (&I != Ret && !isa<PHINode>(I) && !isa<DbgInfoIntrinsic>(I)) return false;
  const Value *RV = Ret->getReturnValue();
  auto *Phi = dyn_cast_or_null<PHINode>(RV);
  return !RV || (Phi && Phi->getParent() == R &&
                 Phi->getIncomingValueForBlock(CI.getParent()) == &CI);
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
    X.Uninstrumented.insert(&F);
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *CB = dyn_cast<CallBase>(&I))
          if (const Function *Callee = CB->getCalledFunction())
            if (!Callee->isDeclaration()) {
              X.EnteredFromOutside.insert(Callee);
              X.ReturnsToUninstrumented.insert(Callee);
            }
  }
  if (const GlobalVariable *GV = M.getNamedGlobal("llvm.global_ctors"))
    if (auto *A = dyn_cast_or_null<ConstantArray>(GV->hasInitializer() ? GV->getInitializer()
                                                                        : nullptr))
      for (const Use &U : A->operands())
        if (auto *E = dyn_cast<ConstantStruct>(U.get()); E && E->getNumOperands() >= 2)
          if (auto *Ctor = dyn_cast<Function>(E->getOperand(1)->stripPointerCasts()))
            X.Constructors.insert(Ctor);
  X.ExitsToOutside.insert(X.EnteredFromOutside.begin(), X.EnteredFromOutside.end());
  closeOverTailCalls(X.ExitsToOutside);
  closeOverTailCalls(X.ReturnsToUninstrumented);
  return X;
}

} // namespace crashtrail
