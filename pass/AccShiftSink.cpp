//===- AccShiftSink.cpp - the accumulator's shifts moved past the joins they meet -------===//
//
// A two-way branch whose successors are shared shifts the accumulator before it ("shift first":
// `acc <<= 1`, then `acc |= 1` on the unlikelier edge), so each way into the join that follows
// has paid a shift, and the join's own code often shifts again (the next branch's shift, an
// indirect branch target's code). Where every value reaching a phi P of the accumulator is
// `x << c` for the same c (or a constant with c trailing zero bits), P is replaced by P' of the
// unshifted values, P == P' << c, and P's users are rewritten:
//   - `shl P, n`                 -> `shl P', n + c`            (no instruction added)
//   - `icmp ugt P, K`            -> `icmp ugt P', K >> c`       (exact: P's low c bits are 0)
//   - `icmp uge P, K`            -> `icmp uge P', ceil(K / 2^c)`   (a check's limit then sits at
//                                   another entry of the limit table, see useLimitTable)
//   - debug uses                 -> P' with DW_OP_shl c (LLVM's salvaging)
//   - anything else (a record's store, a phi, an or): `shl P', c` of its own, right before it.
// The shifts on the incoming edges then have no use on the way into P; where their only other
// user is the unlikelier edge's `or 1`, codegen computes them there. So a phi is rewritten only
// when every user of the last kind is in a cold block (the unlikely side of a branch with
// profile weights: a flush's slow path, a check's flush): the hot paths lose c shifts per way
// in and gain nothing. Repeated while phis change: a rewritten `shl P', n + c` may be what
// reaches the next join.
// Invariants: every value computed is the one computed before (the decoder sees the same
// accumulator); a shifted value never lost bits (the check points' budgets keep the sentinel
// inside 64 bits), so P' << c == P; nothing is added on a path that is not cold.
//
//===----------------------------------------------------------------------------------------===//
#include "AccShiftSink.h"
#include "AccFold.h"
#include "Compat.h"

#include "llvm/ADT/SmallVector.h"
#include "llvm/IR/Constants.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/ValueHandle.h"
#include "llvm/Transforms/Utils/Local.h"

#include <algorithm>

using namespace llvm;

namespace crashtrail {

namespace {

// The rounds of rewriting: each round can expose the next join of a chain.
constexpr unsigned MaxRounds = 4;

// V as x << c: a shift by a constant, or a constant (x null; c its trailing zeros).
struct AsShift {
  Value *Base = nullptr;
  unsigned Amount = 0;
};

bool asShift(Value *V, AsShift &S) {
  if (auto *K = dyn_cast<ConstantInt>(V)) {
    S.Base = nullptr;
    S.Amount = K->isZero() ? 63 : unsigned(__builtin_ctzll(K->getZExtValue()));
    return true;
  }
  auto *BO = dyn_cast<BinaryOperator>(V);
  if (!BO || BO->getOpcode() != Instruction::Shl) return false;
  auto *C = dyn_cast<ConstantInt>(BO->getOperand(1));
  if (!C || C->getValue().uge(64) || C->isZero()) return false;
  S.Base = BO->getOperand(0);
  S.Amount = unsigned(C->getZExtValue());
  return true;
}

// The unlikely side of a conditional branch with branch weights (ours, or the program's
// __builtin_expect): its code runs rarely enough to take an instruction that the hot side
// loses.
bool isCold(BasicBlock *BB) {
  BasicBlock *Pred = BB->getUniquePredecessor();
  if (!Pred) return false;
  auto *Br = dyn_cast<BranchInst>(Pred->getTerminator());
  if (!Br || !Br->isConditional() || Br->getSuccessor(0) == Br->getSuccessor(1)) return false;
  uint64_t True, False;
  if (!branchWeights(*Br, True, False)) return false;
  uint64_t Mine = Br->getSuccessor(0) == BB ? True : False;
  uint64_t Other = Br->getSuccessor(0) == BB ? False : True;
  return Mine * 64 <= Other;
}

// A user rewritten in terms of P' without an instruction of its own.
bool absorbs(PHINode *P, Instruction *U, unsigned C) {
  if (auto *BO = dyn_cast<BinaryOperator>(U)) {
    if (BO->getOpcode() != Instruction::Shl || BO->getOperand(0) != P) return false;
    auto *N = dyn_cast<ConstantInt>(BO->getOperand(1));
    return N && N->getValue().ult(64 - C);
  }
  if (auto *Cmp = dyn_cast<ICmpInst>(U)) {
    auto Pred = Cmp->getPredicate();
    return (Pred == ICmpInst::ICMP_UGT || Pred == ICmpInst::ICMP_UGE) && Cmp->getOperand(0) == P &&
           isa<ConstantInt>(Cmp->getOperand(1));
  }
  return false;
}

// The user's operand OpNo (P) made `shl New, C`; for a phi, at the end of the incoming block.
void materialise(Instruction *U, unsigned OpNo, PHINode *New, unsigned C) {
  Instruction *Before = U;
  if (auto *Phi = dyn_cast<PHINode>(U))
    Before = Phi->getIncomingBlock(OpNo)->getTerminator();
  auto *Shl = BinaryOperator::Create(Instruction::Shl, New, ConstantInt::get(New->getType(), C),
                                     New->getName() + ".at", Before);
  U->setOperand(OpNo, Shl);
}

bool sinkThrough(PHINode *P, SmallPtrSetImpl<PHINode *> &AccPhis,
                 SmallVectorImpl<WeakTrackingVH> &Fed) {
  if (P->getNumIncomingValues() == 0 || P->use_empty()) return false;
  unsigned C = 64;
  bool AnyShift = false;
  SmallVector<AsShift, 8> In;
  for (Value *V : P->incoming_values()) {
    AsShift S;
    if (!asShift(V, S)) return false;
    In.push_back(S);
    C = std::min(C, S.Amount);
    AnyShift |= S.Base != nullptr;
  }
  if (!AnyShift || C == 0 || C >= 64) return false;
  // No new shift on an incoming edge: every shift reaching P is by exactly C. A one-block
  // loop's `phi [.., P << 1]` is left alone: its back edge would need P' << 1 again.
  for (const AsShift &S : In)
    if (S.Base == P) return false;
  for (const AsShift &S : In)
    if (S.Base && S.Amount != C) return false;
  for (Use &U : P->uses()) {
    auto *I = cast<Instruction>(U.getUser());
    if (absorbs(P, I, C)) continue;
    auto *Phi = dyn_cast<PHINode>(I);
    if (!isCold(Phi ? Phi->getIncomingBlock(U) : I->getParent())) return false;
  }

  PHINode *New = PHINode::Create(P->getType(), P->getNumIncomingValues(), P->getName() + ".u", P);
  for (Value *V : P->incoming_values())
    if (isa<Instruction>(V)) Fed.push_back(V);
  for (unsigned I = 0; I < P->getNumIncomingValues(); ++I) {
    Value *V = In[I].Base ? In[I].Base
                          : ConstantInt::get(P->getType(), cast<ConstantInt>(P->getIncomingValue(I))
                                                               ->getValue()
                                                               .lshr(C));
    New->addIncoming(V, P->getIncomingBlock(I));
  }
  SmallVector<Instruction *, 8> Users;
  for (User *U : P->users()) Users.push_back(cast<Instruction>(U));
  for (Instruction *U : Users) {
    if (auto *BO = dyn_cast<BinaryOperator>(U); BO && absorbs(P, U, C)) {
      uint64_t N = cast<ConstantInt>(BO->getOperand(1))->getZExtValue();
      BO->setOperand(0, New);
      BO->setOperand(1, ConstantInt::get(P->getType(), N + C));
      continue;
    }
    if (auto *Cmp = dyn_cast<ICmpInst>(U); Cmp && absorbs(P, U, C)) {
      APInt K = cast<ConstantInt>(Cmp->getOperand(1))->getValue();
      APInt Q = K.lshr(C);
      // P' << C > K  <=>  P' > K >> C;  P' << C >= K  <=>  P' >= ceil(K / 2^C)
      if (Cmp->getPredicate() == ICmpInst::ICMP_UGE && !(K & APInt::getLowBitsSet(64, C)).isZero())
        Q += 1;
      Cmp->setOperand(0, New);
      Cmp->setOperand(1, ConstantInt::get(P->getType(), Q));
      continue;
    }
    for (unsigned OpNo = 0; OpNo < U->getNumOperands(); ++OpNo)
      if (U->getOperand(OpNo) == P) materialise(U, OpNo, New, C);
  }
  // What is left are debug uses: P = New << C, salvaged into their DWARF expressions.
  salvageDebugUsesThrough(P, BinaryOperator::Create(Instruction::Shl, New,
                                                    ConstantInt::get(P->getType(), C), "",
                                                    &*New->getParent()->getFirstInsertionPt()));
  AccPhis.erase(P);
  AccPhis.insert(New);
  P->eraseFromParent();
  return true;
}

} // namespace

unsigned sinkAccumulatorShifts(Function &F, SmallPtrSetImpl<PHINode *> &AccPhis) {
  unsigned Rewritten = 0;
  SmallVector<WeakTrackingVH, 16> Fed;
  for (unsigned Round = 0; Round < MaxRounds; ++Round) {
    // In the function's order, not the set's (pointer order): the output must not depend on
    // where the allocator put the phis.
    SmallVector<PHINode *, 16> Work;
    for (BasicBlock &BB : F)
      for (PHINode &Phi : BB.phis())
        if (AccPhis.count(&Phi)) Work.push_back(&Phi);
    unsigned Before = Rewritten;
    for (PHINode *P : Work)
      if (AccPhis.count(P) && sinkThrough(P, AccPhis, Fed)) ++Rewritten;
    // The shifts that fed only rewritten phis: their debug uses salvaged (x << c), then gone.
    for (WeakTrackingVH &V : Fed)
      if (auto *I = dyn_cast_or_null<Instruction>(V); I && I->use_empty()) {
        salvageDebugInfo(*I);
        I->eraseFromParent();
      }
    if (Rewritten == Before) break;
  }
  // A shift that fed a rewritten phi and is still used (by the unlikelier edge's `or 1`) is
  // computed by codegen where that use is, so its debug uses, on the way to the join, name
  // x << c instead: the accumulator's location must hold on the hot path, where a crash
  // reads it.
  for (WeakTrackingVH &V : Fed)
    if (auto *I = dyn_cast_or_null<Instruction>(V); I && I->isUsedByMetadata()) {
      Instruction *Copy = I->clone();
      Copy->insertAfter(I);
      salvageDebugUsesThrough(I, Copy);
    }
  return Rewritten;
}

} // namespace crashtrail
