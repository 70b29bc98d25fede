//===- AccFold.cpp - the accumulator's arithmetic folded through joins of constants -----===//
//
// After mem2reg the accumulator at a join is a phi. Where every incoming value is a constant
// (each path into the join started at a site init and took only fixed branches, as in a small
// function's first few blocks), the code after the join computes constants at run time:
//     acc = phi [2, %a], [3, %b];  acc2 = shl acc, 1;  acc3 = or acc2, 1
// becomes phi [5, %a], [7, %b]: codegen then loads one constant on each incoming edge (which it
// did for the old phi already) and the shift and the or are gone. The pass runs after the
// optimiser, so nothing else would fold them.
//
// Folded, for a phi P of constants:
//   - a binary operation of P with a constant (shl, or, add): replaced by a new phi of the
//     results, itself a candidate again (through several operations only while the join
//     holds few phis of the accumulator: each is a register live from the join);
//   - a compare of P with a constant (a check point's threshold, an elidable flush's "holds
//     bits"): replaced by a constant, when every incoming value gives the same answer.
// Invariants: a phi is folded only when every real use of it folds, so no value is computed
// twice (the old phi would keep its own constants on every edge); every value computed is the
// one the code computed before; the accumulator's DWARF location stays exact: P's debug uses
// are rewritten in terms of the new phi through the inverse operation (P = new >> k for a
// shift, new & ~m for an or, new - m for an add), which is exact because every constant is
// checked to round-trip; a phi whose operation has no exact inverse is left alone.
//
//===----------------------------------------------------------------------------------------===//
#include "AccFold.h"

#include "llvm/ADT/STLExtras.h"
#include "llvm/ADT/SmallVector.h"
#include "llvm/Analysis/ConstantFolding.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Metadata.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/Local.h"

#include <algorithm>
#include <optional>

using namespace llvm;

namespace crashtrail {

namespace {

// The inverse of Op (a binary operation of the phi and the constant K) on one incoming value:
// whether inverse(op(C)) == C, so that the phi can be told from the folded value.
bool invertible(Instruction::BinaryOps Op, const APInt &C, const APInt &K) {
  switch (Op) {
  case Instruction::Shl:
    return K.ult(64) && C.shl(K).lshr(K) == C;
  case Instruction::Or:
    return (C & K).isZero();
  case Instruction::Add:
    return true;
  default:
    return false;
  }
}

// A use of the phi that folds: a binary operation with a constant, or a compare with one.
struct FoldableUse {
  Instruction *User;
  ConstantInt *K;
  bool Answer; // a compare's result on every incoming value
};

std::optional<FoldableUse> foldable(PHINode *P, User *U) {
  auto *I = dyn_cast<Instruction>(U);
  if (!I || isa<PHINode>(I)) return std::nullopt;
  if (auto *BO = dyn_cast<BinaryOperator>(I)) {
    auto Op = BO->getOpcode();
    if (Op != Instruction::Shl && Op != Instruction::Or && Op != Instruction::Add)
      return std::nullopt;
    unsigned Other = BO->getOperand(0) == P ? 1 : 0;
    if (Other == 0 && Op == Instruction::Shl) return std::nullopt; // the phi is the amount
    auto *K = dyn_cast<ConstantInt>(BO->getOperand(Other));
    if (!K || BO->getOperand(1 - Other) != P) return std::nullopt;
    for (Value *V : P->incoming_values())
      if (!invertible(Op, cast<ConstantInt>(V)->getValue(), K->getValue())) return std::nullopt;
    return FoldableUse{BO, K, false};
  }
  if (auto *Cmp = dyn_cast<ICmpInst>(I)) {
    unsigned Other = Cmp->getOperand(0) == P ? 1 : 0;
    auto *K = dyn_cast<ConstantInt>(Cmp->getOperand(Other));
    if (!K || Cmp->getOperand(1 - Other) != P) return std::nullopt;
    std::optional<bool> Answer;
    for (Value *V : P->incoming_values()) {
      const APInt &C = cast<ConstantInt>(V)->getValue();
      bool R = Other == 1 ? ICmpInst::compare(C, K->getValue(), Cmp->getPredicate())
                          : ICmpInst::compare(K->getValue(), C, Cmp->getPredicate());
      if (Answer && *Answer != R) return std::nullopt;
      Answer = R;
    }
    return FoldableUse{Cmp, K, *Answer};
  }
  return std::nullopt;
}

// Measured on the benchmark's callgrind inputs (2026-11-26, instructions against 2): 3 and 4
// within 0.1%; unbounded, Lua +0.7%; one operation at most, SQLite +1.3%.
constexpr unsigned MaxPhisPerJoin = 2;

bool allIncomingConstant(PHINode *P) {
  for (Value *V : P->incoming_values())
    if (!isa<ConstantInt>(V)) return false;
  return P->getNumIncomingValues() > 0;
}

} // namespace

void salvageDebugUsesThrough(Value *V, Instruction *Expr) {
  ValueAsMetadata::handleRAUW(V, Expr);
  salvageDebugInfo(*Expr);
  Expr->replaceAllUsesWith(UndefValue::get(Expr->getType()));
  Expr->eraseFromParent();
}

// mem2reg leaves `shl i64 1, 1` where a site init met the code after it: folded here, as the
// optimiser would have. Integer arithmetic and compares of constants only; a phi of the
// accumulator whose incoming values are one constant becomes that constant.
static unsigned foldConstantInstructions(Function &F, SmallPtrSetImpl<PHINode *> &AccPhis) {
  unsigned Folded = 0;
  for (BasicBlock &BB : F)
    for (Instruction &I : make_early_inc_range(BB)) {
      Constant *C = nullptr;
      if (auto *Phi = dyn_cast<PHINode>(&I)) {
        if (!AccPhis.count(Phi) || !allIncomingConstant(Phi)) continue;
        C = cast<Constant>(Phi->getIncomingValue(0));
        for (Value *V : Phi->incoming_values())
          if (V != C) C = nullptr;
        if (!C) continue;
        AccPhis.erase(Phi);
      } else if (isa<BinaryOperator>(I) || isa<ICmpInst>(I)) {
        if (!isa<ConstantInt>(I.getOperand(0)) || !isa<ConstantInt>(I.getOperand(1))) continue;
        C = ConstantFoldInstruction(&I, F.getParent()->getDataLayout());
        if (!C) continue;
      } else {
        continue;
      }
      I.replaceAllUsesWith(C);
      I.eraseFromParent();
      ++Folded;
    }
  return Folded;
}

static unsigned foldThroughPhis(Function &F, SmallPtrSetImpl<PHINode *> &AccPhis) {
  // In the function's order, not the set's (pointer order): the output must not depend on
  // where the allocator put the phis.
  SmallVector<PHINode *, 16> Work;
  for (BasicBlock &BB : F)
    for (PHINode &Phi : BB.phis())
      if (AccPhis.count(&Phi)) Work.push_back(&Phi);
  std::reverse(Work.begin(), Work.end());
  unsigned Folded = 0;
  while (!Work.empty()) {
    PHINode *P = Work.pop_back_val();
    if (!AccPhis.count(P) || !allIncomingConstant(P) || P->use_empty()) continue;
    SmallVector<FoldableUse, 4> Uses;
    bool All = true;
    for (User *U : P->users()) {
      std::optional<FoldableUse> F = foldable(P, U);
      if (!F) { All = false; break; }
      Uses.push_back(*F);
    }
    if (!All) continue;
    // Each operation folded makes a phi of P's block, a register live from the join to its
    // user. Folding through two operations in each of several joins kept seven constants live
    // across lua_compare (three registers pushed and popped, 13 instructions per call): P is
    // folded through more than one operation only while its block holds at most
    // MaxPhisPerJoin of the accumulator's phis. Compares always fold (they disappear).
    unsigned Ops = count_if(Uses, [](const FoldableUse &U) { return !isa<ICmpInst>(U.User); });
    if (Ops > 1) {
      unsigned InBlock = 0;
      for (PHINode &Q : P->getParent()->phis()) InBlock += AccPhis.count(&Q);
      if (InBlock - 1 + Ops > MaxPhisPerJoin) continue;
    }

    // The first binary operation's new phi carries the old phi's debug uses.
    PHINode *DebugBase = nullptr;
    Instruction::BinaryOps DebugOp = Instruction::Add;
    APInt DebugK;
    for (FoldableUse &FU : Uses) {
      if (auto *Cmp = dyn_cast<ICmpInst>(FU.User)) {
        Cmp->replaceAllUsesWith(ConstantInt::getBool(Cmp->getType(), FU.Answer));
        Cmp->eraseFromParent();
        ++Folded;
        continue;
      }
      auto *BO = cast<BinaryOperator>(FU.User);
      PHINode *New = PHINode::Create(P->getType(), P->getNumIncomingValues(), P->getName(), P);
      for (unsigned I = 0; I < P->getNumIncomingValues(); ++I)
        New->addIncoming(ConstantFoldBinaryOpOperands(BO->getOpcode(),
                                                      cast<Constant>(P->getIncomingValue(I)), FU.K,
                                                      BO->getModule()->getDataLayout()),
                         P->getIncomingBlock(I));
      if (!DebugBase) {
        DebugBase = New;
        DebugOp = BO->getOpcode();
        DebugK = FU.K->getValue();
      }
      BO->replaceAllUsesWith(New); // its debug uses follow
      BO->eraseFromParent();
      AccPhis.insert(New);
      Work.push_back(New);
      ++Folded;
    }
    if (!DebugBase) continue; // compares only: P has no real use left, and keeps its debug uses

    // P = inverse(New), written as a real instruction, salvaged into the debug uses' DWARF
    // expressions by LLVM's own salvaging, then removed.
    Instruction::BinaryOps Inverse = DebugOp == Instruction::Shl  ? Instruction::LShr
                                     : DebugOp == Instruction::Or ? Instruction::And
                                                                  : Instruction::Sub;
    APInt InvK = DebugOp == Instruction::Or ? ~DebugK : DebugK;
    salvageDebugUsesThrough(
        P, BinaryOperator::Create(Inverse, DebugBase, ConstantInt::get(P->getType(), InvK), "",
                                  &*DebugBase->getParent()->getFirstInsertionPt()));
    AccPhis.erase(P);
    P->eraseFromParent();
  }
  return Folded;
}

unsigned foldAccumulatorConstants(Function &F, SmallPtrSetImpl<PHINode *> &AccPhis) {
  unsigned Folded = 0;
  for (;;) {
    unsigned N = foldConstantInstructions(F, AccPhis) + foldThroughPhis(F, AccPhis);
    if (!N) return Folded;
    Folded += N;
  }
}

} // namespace crashtrail
