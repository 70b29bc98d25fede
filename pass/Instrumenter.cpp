//===- Instrumenter.cpp - emit the path accumulator and the record flushes --------------===//
//
// The accumulator lives in an alloca while code is inserted and is promoted to SSA at the end
// (mem2reg), so the register allocator keeps it in a register and the phis at joins come for
// free (except at -O0, see run()). What is emitted, per logical block (see FunctionPlan.h):
//
//   block start   site init       acc = (1 << SiteBits) | site     (entry, landing pad,
//                                                                   invoke continuation)
//                 edge code       acc = (acc << len) | code        (the only predecessor is a
//                                                                   multi-way branch)
//                 check point     if (acc >= 2^(63-Budget)) { flush(acc); acc = init(site) }
//                 table update    if (tab[e].last < now) { tab[e].last = now; first if 0 }
//   block end     two-way branch  acc = (acc << 1) | cond          (when an edge is critical)
//                 call / invoke   flush(acc) before it; after a call, acc = init(next site)
//                 return, resume  flush(acc)
//
// flush(acc) writes {function address [| stamp], acc} to this module's ring:
//     p = RING_POS; if ((p & 4095) == 0) { refill(&RING_POS, &MODULE); p = RING_POS; }
//     p[0] = w0; p[1] = acc; RING_POS = p + 2;
// A stamped flush first bumps the thread's stamp (in its top 16 bits) and calls stamp_wrap on
// carry. Every added branch to a slow path carries unlikely branch weights.
//
//===----------------------------------------------------------------------------------------===//
#include "Instrumenter.h"

#include "crashtrail/abi.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"
#include "llvm/Transforms/Utils/PromoteMemToReg.h"

using namespace llvm;

namespace crashtrail {

namespace {

struct Emitter {
  FunctionPlan &P;
  RuntimeGlue &G;
  const Options &O;
  LLVMContext &Ctx;
  IntegerType *I64;
  AllocaInst *Acc = nullptr;
  MDNode *Unlikely;
  std::vector<Instruction *> Ends; // per logical block: its terminator or ending call

  Emitter(FunctionPlan &P, RuntimeGlue &G, const Options &O)
      : P(P), G(G), O(O), Ctx(P.F->getContext()), I64(Type::getInt64Ty(Ctx)) {
    Unlikely = MDBuilder(Ctx).createBranchWeights(1, 1 << 20);
  }

  ConstantInt *c64(uint64_t V) { return ConstantInt::get(I64, V); }
  Value *loadAcc(IRBuilder<> &B) { return B.CreateLoad(I64, Acc, "ct.acc"); }

  // Writes one record; everything is inserted before `Before`, which may move to a new block.
  void emitFlush(Instruction *Before, bool Stamped) {
    IRBuilder<> B(Before);
    Value *A = loadAcc(B);
    Value *W0 = B.CreatePtrToInt(P.Anchor, I64);
    if (Stamped) {
      Value *Old = B.CreateLoad(I64, G.Stamp, "ct.stamp");
      Value *Sum = B.CreateIntrinsic(Intrinsic::uadd_with_overflow, {I64},
                                     {Old, c64(CT_STAMP_INCREMENT)});
      Value *New = B.CreateExtractValue(Sum, 0);
      B.CreateStore(New, G.Stamp);
      Instruction *Wrap =
          SplitBlockAndInsertIfThen(B.CreateExtractValue(Sum, 1), Before, false, Unlikely);
      IRBuilder<>(Wrap).CreateCall(G.StampWrap)->setCallingConv(CallingConv::PreserveMost);
      B.SetInsertPoint(Before);
      W0 = B.CreateOr(W0, New);
    }
    Value *Pos = B.CreateLoad(G.SlotPtrTy, G.RingPos, "ct.pos");
    Value *Low = B.CreateAnd(B.CreatePtrToInt(Pos, I64), c64(CT_CHUNK_BYTES - 1));
    Value *AtChunk = B.CreateICmpEQ(Low, c64(0));
    BasicBlock *Head = Before->getParent();
    Instruction *Then = SplitBlockAndInsertIfThen(AtChunk, Before, false, Unlikely);
    IRBuilder<> TB(Then);
    TB.CreateCall(G.Refill, {G.RingPos, G.descArg()})->setCallingConv(CallingConv::PreserveMost);
    Value *Fresh = TB.CreateLoad(G.SlotPtrTy, G.RingPos, "ct.fresh");
    BasicBlock *Tail = Before->getParent();
    PHINode *Slot = PHINode::Create(G.SlotPtrTy, 2, "ct.slot", &Tail->front());
    Slot->addIncoming(Pos, Head);
    Slot->addIncoming(Fresh, Then->getParent());
    B.SetInsertPoint(Before);
    B.CreateStore(W0, Slot);
    B.CreateStore(A, B.CreateConstInBoundsGEP1_64(I64, Slot, 1));
    B.CreateStore(B.CreateConstInBoundsGEP1_64(I64, Slot, 2), G.RingPos);
  }

  void emitCheck(Instruction *&Cursor, const BlockPlan &BP) {
    IRBuilder<> B(Cursor);
    unsigned Shift = CT_ACC_BITS - BP.Budget;
    Value *Full = B.CreateICmpUGE(loadAcc(B), c64(uint64_t(1) << Shift), "ct.full");
    Instruction *Then = SplitBlockAndInsertIfThen(Full, Cursor, false, Unlikely);
    emitFlush(Then, false);
    new StoreInst(c64(P.siteInit(BP.Site)), Acc, Then);
  }

  void emitTableUpdate(Instruction *&Cursor, const BlockPlan &BP) {
    IRBuilder<> B(Cursor);
    Value *Entry = B.CreateConstInBoundsGEP2_64(P.TableTy, P.Table, 0, P.TableBase + BP.TableEntry);
    Value *LastPtr = B.CreatePointerCast(Entry, PointerType::getUnqual(I64));
    Value *Now = B.CreateLoad(I64, G.Now, "ct.now");
    Value *Last = B.CreateLoad(I64, LastPtr, "ct.last");
    // Only a newer time is written: threads running the same block settle on the newest coarse
    // time instead of bouncing the cache line between their own values.
    Value *Stale = B.CreateICmpULT(Last, Now);
    Instruction *Then = SplitBlockAndInsertIfThen(Stale, Cursor, false, Unlikely);
    IRBuilder<> TB(Then);
    TB.CreateStore(Now, LastPtr);
    Value *FirstPtr = TB.CreateConstInBoundsGEP1_64(I64, LastPtr, 1);
    Value *First = TB.CreateLoad(I64, FirstPtr);
    TB.CreateStore(TB.CreateSelect(TB.CreateICmpEQ(First, c64(0)), Now, First), FirstPtr);
  }

  // The independent per-block trace of -crashtrail-block-trace (tests only).
  void emitBlockTrace(Instruction *Cursor, unsigned Block) {
    Module &M = *P.F->getParent();
    FunctionCallee Hook = M.getOrInsertFunction(
        "__crashtrail_test_block", FunctionType::get(Type::getVoidTy(Ctx),
                                                     {I64, Type::getInt32Ty(Ctx)}, false));
    IRBuilder<> B(Cursor);
    B.CreateCall(Hook, {B.CreatePtrToInt(P.Anchor, I64), B.getInt32(Block)});
  }

  void addCodeAt(Instruction *Cursor, const Code &C) {
    IRBuilder<> B(Cursor);
    Value *A = B.CreateShl(loadAcc(B), c64(C.Length));
    if (C.Value) A = B.CreateOr(A, c64(C.Value));
    B.CreateStore(A, Acc);
  }

  // For successors reached from an indirect branch (or asm goto) that also have other
  // predecessors: the shift and code arrive through phis, zero from the other edges.
  void addCodeThroughPhis(BasicBlock *S, Instruction *Cursor,
                          const DenseMap<BasicBlock *, Code> &FromPred) {
    PHINode *Len = PHINode::Create(I64, 4, "ct.len", &S->front());
    PHINode *Val = PHINode::Create(I64, 4, "ct.code", &S->front());
    for (BasicBlock *Pred : predecessors(S)) {
      auto It = FromPred.find(Pred);
      Code C = It == FromPred.end() ? Code{} : It->second;
      Len->addIncoming(c64(C.Length), Pred);
      Val->addIncoming(c64(C.Value), Pred);
    }
    IRBuilder<> B(Cursor);
    B.CreateStore(B.CreateOr(B.CreateShl(loadAcc(B), Len), Val), Acc);
  }

  void describeAccumulator() {
    DISubprogram *SP = P.F->getSubprogram();
    if (!O.DescribeAccumulator || !SP || !SP->getUnit()) return;
    DIBuilder DIB(*P.F->getParent(), false, SP->getUnit());
    DIType *Ty = DIB.createBasicType("__crashtrail_path_t", 64, dwarf::DW_ATE_unsigned);
    DILocalVariable *Var = DIB.createAutoVariable(SP, CT_ACC_VAR_NAME, SP->getFile(), 0, Ty,
                                                  true, DINode::FlagArtificial);
    DIB.insertDeclare(Acc, Var, DIB.createExpression(), DILocation::get(Ctx, 0, 0, SP),
                      Acc->getNextNode());
    DIB.finalize();
    P.Flags |= CT_FN_ACC_VAR;
  }

  void run() {
    Function &F = *P.F;
    for (BlockPlan &BP : P.Blocks) Ends.push_back(BP.Call ? BP.Call : BP.BB->getTerminator());
    BasicBlock &Entry = F.getEntryBlock();
    Acc = new AllocaInst(I64, F.getParent()->getDataLayout().getAllocaAddrSpace(), "ct.acc.slot",
                         &*Entry.getFirstInsertionPt());
    StoreInst *EntryInit = new StoreInst(c64(P.siteInit(0)), Acc, Acc->getNextNode());
    describeAccumulator();

    // Which successor edges get their code at the successor's start.
    DenseMap<BasicBlock *, Code> AtStart;
    DenseMap<BasicBlock *, DenseMap<BasicBlock *, Code>> ThroughPhis;
    std::vector<bool> InPredecessor(P.Blocks.size(), false);
    for (unsigned I = 0; I < P.Blocks.size(); ++I) {
      BlockPlan &BP = P.Blocks[I];
      if (BP.Term != CT_TERM_BRANCH) continue;
      if (BP.CodeBeforeBranch) {
        InPredecessor[I] = true;
        continue;
      }
      for (const Successor &S : BP.Succs) {
        BasicBlock *SB = P.Blocks[S.Block].BB;
        if (SB->getUniquePredecessor() == BP.BB) AtStart[SB] = S.C;
        else ThroughPhis[SB][BP.BB] = S.C;
      }
    }

    // Block starts: site init, edge code, check, table update, in that order.
    for (unsigned I = 0; I < P.Blocks.size(); ++I) {
      BlockPlan &BP = P.Blocks[I];
      BasicBlock *BB = BP.BB;
      Instruction *Cursor =
          BB == &Entry ? EntryInit->getNextNode() : &*BB->getFirstInsertionPt();
      auto StartIt = AtStart.find(BB);
      if (StartIt != AtStart.end()) addCodeAt(Cursor, StartIt->second);
      auto PhiIt = ThroughPhis.find(BB);
      if (PhiIt != ThroughPhis.end()) addCodeThroughPhis(BB, Cursor, PhiIt->second);
      if (O.BlockTrace) emitBlockTrace(Cursor, I);
      if (BP.Check) emitCheck(Cursor, BP);
      if (BP.TableEntry >= 0) emitTableUpdate(Cursor, BP);
    }

    // Site inits for records that start in a landing pad. (After a call the next record's
    // init is stored before the call, right after the flush: then, while the call runs, the
    // frame's accumulator already says "nothing pending", which is what the post-mortem must
    // read in a caller frame; the flushed value is dead.)
    for (BlockPlan &BP : P.Blocks)
      if (BP.Term == CT_TERM_INVOKE) {
        const BlockPlan &Pad = P.Blocks[BP.Succs[1].Block];
        new StoreInst(c64(P.siteInit(Pad.Site)), Acc, &*Pad.BB->getFirstInsertionPt());
      }

    // Block ends: two-way codes computed in the predecessor, and flushes.
    for (unsigned I = 0; I < P.Blocks.size(); ++I) {
      BlockPlan &BP = P.Blocks[I];
      Instruction *End = Ends[I];
      if (InPredecessor[I]) {
        IRBuilder<> B(End);
        Value *Bit = B.CreateZExt(cast<BranchInst>(End)->getCondition(), I64);
        B.CreateStore(B.CreateOr(B.CreateShl(loadAcc(B), c64(1)), Bit), Acc);
      }
      if (BP.Term == CT_TERM_CALL || BP.Term == CT_TERM_INVOKE || BP.Term == CT_TERM_RETURN ||
          BP.Term == CT_TERM_RESUME)
        emitFlush(End, BP.Stamped);
      if ((BP.Term == CT_TERM_CALL || BP.Term == CT_TERM_INVOKE) && !BP.Succs.empty()) {
        ConstantInt *Init = c64(P.siteInit(P.Blocks[BP.Succs[0].Block].Site));
        new StoreInst(Init, Acc, End);
        // A call that returns twice (setjmp) comes back through longjmp with whatever the
        // accumulator held when longjmp was called: start the record again after it.
        if (isa<CallInst>(End) && cast<CallInst>(End)->hasFnAttr(Attribute::ReturnsTwice))
          new StoreInst(Init, Acc, End->getNextNode());
      }
    }

    // At -O0 (optnone) the accumulator stays in its stack slot: the fast register allocator's
    // variable locations have gaps, while a dbg.declare'd slot is valid at every instruction,
    // so the crashing frame's unfinished path can always be read back. Speed does not matter
    // there; everywhere else the accumulator lives in a register.
    if (!F.hasOptNone()) {
      DominatorTree DT(F);
      PromoteMemToReg({Acc}, DT);
    }
  }
};

} // namespace

void instrumentFunction(FunctionPlan &P, RuntimeGlue &G, const Options &O) {
  Emitter E(P, G, O);
  E.run();
}

} // namespace crashtrail
