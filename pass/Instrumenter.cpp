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
//                 check point     if (acc > 2^(63-Budget) - 1) { flush(acc); acc = init(site) }
//                 table update    map[e] = 1 (code built for an executable: a per-thread
//                                 byte map the runtime folds into the table when the
//                                 thread's coarse time moves, runtime/table_maps.c);
//                                 elsewhere if (tab[e].last < now) { tab[e].last = now;
//                                 first if 0 } (in the last block of a chain that shares
//                                 entry e, see TableSlots.cpp; `now` is read from TLS only at
//                                 the entry, after calls and after a flush's slow path)
//   block end     two-way branch  acc <<= 1, acc |= 1 on the unlikelier edge (critical edge)
//                                 acc = (acc << 1) | cond          (critical, unbiased, -O0)
//                 call / invoke   flush(acc) before it; after a call, acc = init(next site)
//                 deferred call   nothing: the record goes on across it (defer-calls); with
//                                 a callee that may be in another module, while stamping
//                                 is on: a stamped mark of acc (SlowPathAsm.cpp)
//                 return, resume  flush(acc)
//                 (an elidable flush only if acc holds path bits, or never when no path with
//                 a branch reaches it: see BlockPlan::FlushKind)
//
// flush(acc) writes {w0 [| stamp], acc} to this module's ring, w0 = desc - f naming the function
// (one `movq $imm32`, see RuntimeGlue::storeRecordId):
//     p = RING_POS; if ((p & MASK) == 0) { slow_here(); p = RING_POS; w0 |= STAMP_OR; }
//     p[0] = w0; p[1] = acc; RING_POS = p + 2;
// (a stamped flush's cold path writes its whole record, with the stamp, itself).
// MASK is CT_CHUNK_BYTES - 1 (16383) for a plain flush (slow_here = refill_here: the chunk is
// full). A stamped flush reads its module's chunk mask instead, which the runtime sets from
// that to 0 when it turns stamping on (two instrumented modules loaded): then every stamped
// flush takes the slow path (stamped_slow_here), where the runtime takes the thread's next
// stamp and leaves it in STAMP_OR (0 while stamping is off: the slow path was a chunk
// boundary), and refills at a chunk boundary. With one module a stamped flush thus costs what
// a plain one does. Both stubs are per-module, preserve_most and take no arguments: the hot
// code keeps all its registers but r11, and each of the thousands of flush sites pays a call,
// two loads and a jump in cold code. In a function that calls nothing else the call is inline assembly, so
// the function stays a leaf (see callSlowPath).
// Every added branch to a slow path carries unlikely branch weights.
// After mem2reg the accumulator's constants are folded through joins (AccFold.cpp) and the
// shifts that reach a join on every way in are moved past it (AccShiftSink.cpp).
//
//===----------------------------------------------------------------------------------------===//
#include "Instrumenter.h"

#include "AccFold.h"
#include "AccShiftSink.h"
#include "BlockDiscriminators.h"
#include "CallClassifier.h"
#include "CarriedAccumulator.h"
#include "SlowPathAsm.h"

#include "crashtrail/abi.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/DIBuilder.h"
#include "llvm/IR/Dominators.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/Intrinsics.h"
#include "llvm/IR/MDBuilder.h"
#include "llvm/Support/MathExtras.h"
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
  AllocaInst *NowSlot = nullptr; // tables mode: the thread's coarse time, reloaded only where
                                 // it can change (see reloadNow)
  // defer-calls: the slot the accumulator is stored into before each deferred call, which a
  // longjmp that discards the frame reads (runtime/longjmp_save.c); null if the frame cannot
  // have one (deferSlotAllowed).
  AllocaInst *DeferSlot = nullptr;
  MDNode *Unlikely;
  std::vector<Instruction *> Ends; // per logical block: its terminator or ending call
  // Checks whose limit is no 32-bit immediate: compared with the module's limit table once
  // the accumulator's constants are folded (see useLimitTable).
  std::vector<WeakTrackingVH> WideChecks;

  Emitter(FunctionPlan &P, RuntimeGlue &G, const Options &O)
      : P(P), G(G), O(O), Ctx(P.F->getContext()), I64(Type::getInt64Ty(Ctx)) {
    Unlikely = MDBuilder(Ctx).createBranchWeights(1, 1 << 20);
  }

  ConstantInt *c64(uint64_t V) { return ConstantInt::get(I64, V); }

  Value *loadAcc(IRBuilder<> &B) { return B.CreateLoad(I64, Acc, "ct.acc"); }

  // The module's chunk mask (CT_CHUNK_BYTES - 1 until the runtime turns stamping on, then 0).
  // Unordered: a racing write (the runtime turning stamping on) is seen sooner or later, never
  // as garbage; unlike monotonic it folds into the instruction that uses it (when that is its
  // only use: `test %reg, mask(%rip)`).
  Value *loadChunkMask(IRBuilder<> &B) {
    LoadInst *M = B.CreateLoad(B.getInt32Ty(), G.chunkMask(), "ct.mask");
    M->setAtomic(AtomicOrdering::Unordered);
    M->setAlignment(Align(4));
    return M;
  }

  // Writes one record; everything is inserted before `Before`, which may move to a new block.
  // The fast path tests the ring position against the chunk mask: an unstamped flush against
  // the constant, a stamped one against its module's mask, which is 0 once stamping is on. So
  // in a program with one instrumented module a stamped flush costs what a plain one does (the
  // stamping test is the chunk test), and with two every stamped flush takes the cold path,
  // where the runtime stamps (leaving in StampOr what to or into w0: the stamp, or 0) and, at a
  // chunk boundary, starts a fresh chunk.
  // AtCheck: a check point's flush, after whose slow path the coarse time is read again (a
  // call's or a return's flush is followed by the call or the return, which need no reload).
  void emitFlush(Instruction *Before, bool Stamped, bool AtCheck = false) {
    IRBuilder<> B(Before);
    Value *A = loadAcc(B);
    Value *Pos = B.CreateLoad(G.SlotPtrTy, G.RingPos, "ct.pos");
    if (!FragmentSection.empty()) {
      emitOutOfLineFlush(B, G, FragmentSection, Pos, A, Stamped, P.Anchor);
      // The slow path may have moved the coarse time on; whether it ran is not known here.
      if (AtCheck) reloadNow(Before);
      return;
    }
    Value *PosLow = B.CreateTrunc(B.CreatePtrToInt(Pos, I64), B.getInt32Ty());
    Value *Mask = Stamped ? loadChunkMask(B) : B.getInt32(CT_CHUNK_BYTES - 1);
    Value *Slow = B.CreateICmpEQ(B.CreateAnd(PosLow, Mask), B.getInt32(0));
    BasicBlock *Head = Before->getParent();
    if (Stamped) {
      // The cold path writes its own record, with the stamp; the hot one stays a plain one.
      Instruction *Cold = nullptr, *Hot = nullptr;
      SplitBlockAndInsertIfThenElse(Slow, Before, &Cold, &Hot, Unlikely);
      IRBuilder<> CB(Cold);
      callSlowPath(CB, G.StampedSlowHere);
      if (AtCheck) reloadNow(Cold);
      Value *Fresh = CB.CreateLoad(G.SlotPtrTy, G.RingPos, "ct.fresh");
      Value *W0 = CB.CreateOr(G.recordIdValue(CB, P.Anchor),
                              CB.CreateLoad(I64, G.StampOr, "ct.stamp"));
      writeRecord(CB, Fresh, W0, A);
      IRBuilder<> HB(Hot);
      writeRecord(HB, Pos, nullptr, A);
      return;
    }
    Instruction *Cold = SplitBlockAndInsertIfThen(Slow, Before, false, Unlikely);
    IRBuilder<> CB(Cold);
    callSlowPath(CB, G.RefillHere);
    if (AtCheck) reloadNow(Cold);
    Value *Fresh = CB.CreateLoad(G.SlotPtrTy, G.RingPos, "ct.fresh");
    BasicBlock *Tail = Before->getParent();
    PHINode *Slot = PHINode::Create(G.SlotPtrTy, 2, "ct.slot", &Tail->front());
    Slot->addIncoming(Pos, Head);
    Slot->addIncoming(Fresh, Cold->getParent());
    B.SetInsertPoint(Before);
    writeRecord(B, Slot, nullptr, A);
  }

  // {W0, acc} at Slot, and the position moved past it. W0 null: the function's record id as
  // the immediate of the store (RuntimeGlue::storeRecordId: no register and no lea).
  void writeRecord(IRBuilder<> &B, Value *Slot, Value *W0, Value *A) {
    if (W0)
      B.CreateStore(W0, Slot);
    else
      G.storeRecordId(B, Slot, P.Anchor);
    B.CreateStore(A, B.CreateConstInBoundsGEP1_64(I64, Slot, 1));
    B.CreateStore(B.CreateConstInBoundsGEP1_64(I64, Slot, 2), G.RingPos);
  }

  void emitCheck(Instruction *&Cursor, const BlockPlan &BP) {
    IRBuilder<> B(Cursor);
    // acc > 2^k - 1 rather than acc >= 2^k: with k <= 31 the limit is a 32-bit immediate
    // (cmp $imm32, reg); above, it is read from the module's limit table (useLimitTable).
    uint64_t Limit = (uint64_t(1) << (CT_ACC_BITS - BP.Budget)) - 1;
    Value *Full = B.CreateICmpUGT(loadAcc(B), c64(Limit), "ct.full");
    if (Limit > uint64_t(INT32_MAX)) WideChecks.push_back(Full);
    Instruction *Then = SplitBlockAndInsertIfThen(Full, Cursor, false, Unlikely);
    emitFlush(Then, false, true);
    new StoreInst(c64(P.siteInit(BP.Site)), Acc, Then);
  }

  // The coarse time changes only in the runtime's refill (a flush's slow path) and in code this
  // function calls, so it is read from TLS at the entry, after calls and after slow paths, and
  // kept in a register in between (promoted with the accumulator): a block's table update is
  // then a compare with its entry, not a TLS load as well.
  Instruction *reloadNow(Instruction *Before) {
    if (!NowSlot) return nullptr;
    IRBuilder<> B(Before);
    return B.CreateStore(B.CreateLoad(I64, G.Now, "ct.now.tls"), NowSlot);
  }

  void emitTableUpdate(Instruction *&Cursor, const BlockPlan &BP) {
    IRBuilder<> B(Cursor);
    if (P.TableMap) { // the runtime folds the mark into the entry (runtime/table_maps.c)
      B.CreateStore(B.getInt8(1), B.CreateConstInBoundsGEP2_64(P.TableMapTy, P.TableMap, 0,
                                                              P.TableBase + BP.TableEntry));
      return;
    }
    Value *Entry = B.CreateConstInBoundsGEP2_64(P.TableTy, P.Table, 0, P.TableBase + BP.TableEntry);
    Value *LastPtr = B.CreatePointerCast(Entry, PointerType::getUnqual(I64));
    Value *Now = B.CreateLoad(I64, NowSlot, "ct.now");
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
    Value *A = loadAcc(B);
    if (C.Length) A = B.CreateShl(A, c64(C.Length)); // 0: the 1 of a shifted-before branch
    if (C.Value) A = B.CreateOr(A, c64(C.Value));
    B.CreateStore(A, Acc);
  }

  // For successors reached from an indirect branch (or asm goto) that also have other
  // predecessors: the shift and code arrive through phis, zero from the other edges.
  // FromTerm is keyed by the multi-way terminator, not its block: code inserted at the start of
  // a block (a check, a table update) splits it, and the terminator moves to the new tail.
  void addCodeThroughPhis(BasicBlock *S, Instruction *Cursor,
                          const DenseMap<Instruction *, Code> &FromTerm) {
    PHINode *Len = PHINode::Create(I64, 4, "ct.len", &S->front());
    PHINode *Val = PHINode::Create(I64, 4, "ct.code", &S->front());
    for (BasicBlock *Pred : predecessors(S)) {
      auto It = FromTerm.find(Pred->getTerminator());
      Code C = It == FromTerm.end() ? Code{} : It->second;
      Len->addIncoming(c64(C.Length), Pred);
      Val->addIncoming(c64(C.Value), Pred);
    }
    IRBuilder<> B(Cursor);
    B.CreateStore(B.CreateOr(B.CreateShl(loadAcc(B), Len), Val), Acc);
  }

  // Where a block's own code starts: past debug and lifetime markers, which make no code.
  // What is inserted there takes the debug location of the instruction it is inserted before:
  // a block that opens a scope starts with the dbg.declare of its local, whose line has no
  // code, and instrumentation under that line would make debuggers, profilers and crash
  // stacks see a declaration run.
  static Instruction *startOfCode(Instruction *I) {
    while (I->getNextNode() && (isa<DbgInfoIntrinsic>(I) || I->isLifetimeStartOrEnd()))
      I = I->getNextNode();
    return I;
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

  // Whether the defer slot's offset, as llvm.localescape gives it, reads back from the frame as
  // runtime/longjmp_save.c takes it: from the frame pointer or from the stack pointer at the
  // call. A dynamic or over-aligned alloca brings a base register (or moves the stack pointer
  // between calls); a function that escapes locals already has its one localescape; the
  // offset's symbol is named after the function, unquoted in the table's assembly. (Nor with
  // computed record ids, LTO's: a function renamed at link time would not define the symbol
  // the module's assembly names.)
  static bool deferSlotAllowed(Function &F) {
    if (!plainAsmName(F.getName())) return false;
    for (BasicBlock &BB : F)
      for (Instruction &I : BB) {
        if (auto *AI = dyn_cast<AllocaInst>(&I))
          if (!AI->isStaticAlloca() || AI->getAlign() > Align(16)) return false;
        if (auto *II = dyn_cast<IntrinsicInst>(&I))
          if (II->getIntrinsicID() == Intrinsic::localescape) return false;
      }
    return true;
  }

  // A slow path's call. In a function that calls nothing else, a call would end its life as a
  // leaf: the stack then has to be 16-byte aligned everywhere (a push and a pop on every run)
  // and the red zone is lost. There the call is inline assembly that steps over the red zone
  // and tells the unwinder so; the stub realigns the stack itself (stackrealign). What the
  // stub does not preserve (preserve_most: r11, the flags, the vector registers) is clobbered.
  bool LeafCalls = false;
  // Where this function's out-of-line slow paths go (SlowPathAsm.cpp); empty: inline ones.
  std::string FragmentSection;
  void callSlowPath(IRBuilder<> &B, Function *Stub) {
    if (!LeafCalls) {
      B.CreateCall(Stub)->setCallingConv(CallingConv::PreserveMost);
      return;
    }
    bool CFI = P.F->needsUnwindTableEntry();
    std::string Asm = "lea -128(%rsp), %rsp\n\t";
    if (CFI) Asm += ".cfi_adjust_cfa_offset 128\n\t";
    Asm += "call ${0:P}\n\tlea 128(%rsp), %rsp";
    if (CFI) Asm += "\n\t.cfi_adjust_cfa_offset -128";
    std::string Cons = "X,~{r11},~{memory},~{dirflag},~{fpsr},~{flags}";
    for (unsigned I = 0; I < 16; ++I) Cons += ",~{xmm" + std::to_string(I) + "}";
    FunctionType *FT = FunctionType::get(Type::getVoidTy(Ctx), {Stub->getType()}, false);
    B.CreateCall(FT, InlineAsm::get(FT, Asm, Cons, true), {Stub});
  }

  // Calls nothing but intrinsics, inline assembly and calls in tail position (jumps once codegen
  // is done, see CallClassifier's isTailPositionCall): a leaf for the code generator, which then
  // needs no frame, unless a slow path is a real call.
  bool callsNothing(Function &F) const {
    SmallPtrSet<const Instruction *, 8> TailCalls;
    for (const BlockPlan &BP : P.Blocks)
      if (BP.Term == CT_TERM_CALL && BP.Succs.empty() && BP.Call) TailCalls.insert(BP.Call);
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *CB = dyn_cast<CallBase>(&I))
          if (!isa<IntrinsicInst>(CB) && !CB->isInlineAsm() && !TailCalls.count(CB)) return false;
    return true;
  }

  void run() {
    Function &F = *P.F;
    FragmentSection = coldFragmentSection(F, O);
    LeafCalls = FragmentSection.empty() && !F.hasOptNone() && callsNothing(F); // callSlowPath's
    for (BlockPlan &BP : P.Blocks) Ends.push_back(BP.Call ? BP.Call : BP.BB->getTerminator());
    BasicBlock &Entry = F.getEntryBlock();
    Acc = new AllocaInst(I64, F.getParent()->getDataLayout().getAllocaAddrSpace(), "ct.acc.slot",
                         &*Entry.getFirstInsertionPt());
    // A function that carries its caller's accumulator starts with it (its last argument).
    Value *EntryAcc = carriesAcc(F) ? (Value *)F.getArg(F.arg_size() - 1) : c64(P.siteInit(0));
    StoreInst *EntryInit = new StoreInst(EntryAcc, Acc, Acc->getNextNode());
    Instruction *EntrySetup = EntryInit; // the block-start code of the entry goes after it
    describeAccumulator();
    if ((P.Flags & CT_FN_DEFERS) && !O.ComputedRecordIds && deferSlotAllowed(F)) {
      DeferSlot = new AllocaInst(I64, F.getParent()->getDataLayout().getAllocaAddrSpace(),
                                 "ct.defer.slot", Acc);
      Function *Escape = Intrinsic::getDeclaration(F.getParent(), Intrinsic::localescape);
      CallInst::Create(Escape, {DeferSlot}, "", EntryInit->getNextNode());
      P.DeferSlot = true;
    }
    if (P.NumTableEntries && !P.TableMap) { // every entry has a block that writes it
      NowSlot = new AllocaInst(I64, F.getParent()->getDataLayout().getAllocaAddrSpace(),
                               "ct.now.slot", Acc);
      EntrySetup = reloadNow(EntryInit->getNextNode());
    }
    // Blocks an invoke continues at: the coarse time is read again at their start.
    std::vector<bool> AfterInvoke(P.Blocks.size(), false);
    for (const BlockPlan &BP : P.Blocks)
      if (BP.Term == CT_TERM_INVOKE)
        for (const Successor &S : BP.Succs) AfterInvoke[S.Block] = true;

    // Which successor edges get their code at the successor's start.
    DenseMap<BasicBlock *, Code> AtStart;
    DenseMap<BasicBlock *, DenseMap<Instruction *, Code>> ThroughPhis;
    std::vector<bool> InPredecessor(P.Blocks.size(), false);
    // Edges (the branch, its target) that get an `or 1` in a block of their own. The branch,
    // not its block: inserting at block starts splits blocks, and the branch moves with it.
    std::vector<std::pair<Instruction *, BasicBlock *>> OneOnEdge;
    for (unsigned I = 0; I < P.Blocks.size(); ++I) {
      BlockPlan &BP = P.Blocks[I];
      if (BP.Term != CT_TERM_BRANCH) continue;
      if (BP.CodeBeforeBranch) {
        InPredecessor[I] = true;
        continue;
      }
      if (BP.ShiftBeforeBranch) {
        const Successor &One = BP.Succs[0].C.Value ? BP.Succs[0] : BP.Succs[1];
        BasicBlock *SB = P.Blocks[One.Block].BB;
        if (SB->getUniquePredecessor() == BP.BB) AtStart[SB] = Code{0, 1};
        else OneOnEdge.push_back({Ends[I], SB});
        continue;
      }
      for (const Successor &S : BP.Succs) {
        BasicBlock *SB = P.Blocks[S.Block].BB;
        if (SB->getUniquePredecessor() == BP.BB) AtStart[SB] = S.C;
        else ThroughPhis[SB][Ends[I]] = S.C;
      }
    }

    // Block starts: site init, edge code, check, table update, in that order.
    for (unsigned I = 0; I < P.Blocks.size(); ++I) {
      BlockPlan &BP = P.Blocks[I];
      BasicBlock *BB = BP.BB;
      Instruction *Cursor = startOfCode(BB == &Entry ? EntrySetup->getNextNode()
                                                     : &*BB->getFirstInsertionPt());
      auto StartIt = AtStart.find(BB);
      if (StartIt != AtStart.end()) addCodeAt(Cursor, StartIt->second);
      auto PhiIt = ThroughPhis.find(BB);
      if (PhiIt != ThroughPhis.end()) addCodeThroughPhis(BB, Cursor, PhiIt->second);
      if (AfterInvoke[I]) reloadNow(Cursor);
      if (BP.Check) emitCheck(Cursor, BP);
      // After the check: the trace then sees the coarse time the table update uses.
      if (O.BlockTrace) emitBlockTrace(Cursor, I);
      if (BP.TableUpdate) emitTableUpdate(Cursor, BP);
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
      if (BP.ShiftBeforeBranch) {
        IRBuilder<> B(End);
        B.CreateStore(B.CreateShl(loadAcc(B), c64(1)), Acc);
      }
      if (BP.Term == CT_TERM_FLOW) { // the accumulator goes in and comes back
        auto *CI = cast<CallInst>(End);
        IRBuilder<> B(CI);
        CI->setArgOperand(CI->arg_size() - 1, loadAcc(B));
        B.SetInsertPoint(CI->getNextNode());
        Value *Back = CI->getType()->isStructTy() ? B.CreateExtractValue(CI, 1, "ct.acc.back")
                                                  : (Value *)CI;
        B.CreateStore(Back, Acc);
        reloadNow(CI->getNextNode());
        continue;
      }
      if (BP.Term == CT_TERM_DEFER) { // the record goes on across the call
        if (DeferSlot) { // what a longjmp that discards this frame writes for it
          IRBuilder<> B(End);
          B.CreateStore(loadAcc(B), DeferSlot, /*isVolatile=*/true);
        }
        if (BP.Stamped) {
          // The callee may be in another module. While stamping is on (the module's chunk mask
          // is 0), the rings are ordered by stamps cut where control may leave a module, so the
          // call writes a stamped mark before it (PlanBuilder defers such a call only where the
          // function has a fragment section).
          IRBuilder<> B(End);
          emitDeferMark(B, G, FragmentSection, loadAcc(B), P.Anchor);
        }
        reloadNow(End->getNextNode());
        continue;
      }
      if (BP.Term == CT_TERM_RETURN && carriesAcc(F)) { // returned to the caller, not written
        auto *RI = cast<ReturnInst>(End);
        auto *IV = dyn_cast<InsertValueInst>(RI->getReturnValue());
        Instruction *At = IV ? (Instruction *)IV : (Instruction *)RI;
        Value *Out = new LoadInst(I64, Acc, "ct.acc", At);
        if (IV) IV->setOperand(1, Out);
        else RI->setOperand(0, Out);
        continue;
      }
      if (BP.Term == CT_TERM_CALL || BP.Term == CT_TERM_INVOKE || BP.Term == CT_TERM_RETURN ||
          BP.Term == CT_TERM_RESUME) {
        if (BP.Flush == BlockPlan::FlushAlways) {
          emitFlush(End, BP.Stamped);
        } else {
          // Written if the accumulator holds path bits (the sentinel is above bit SiteBits),
          // and, for a stamped flush, whenever stamping is on: the stamps must stay.
          IRBuilder<> B(End);
          Value *Write = nullptr;
          if (BP.Flush == BlockPlan::FlushIfBits)
            Write = B.CreateICmpUGE(loadAcc(B), c64(uint64_t(2) << P.SiteBits), "ct.bits");
          if (BP.Stamped) {
            Value *StampOn = B.CreateICmpEQ(loadChunkMask(B), B.getInt32(0), "ct.stamping");
            Write = Write ? B.CreateOr(Write, StampOn) : StampOn;
          }
          if (Write) emitFlush(SplitBlockAndInsertIfThen(Write, End, false), BP.Stamped);
        }
      }
      if ((BP.Term == CT_TERM_CALL || BP.Term == CT_TERM_INVOKE) && !BP.Succs.empty()) {
        ConstantInt *Init = c64(P.siteInit(P.Blocks[BP.Succs[0].Block].Site));
        new StoreInst(Init, Acc, End);
        if (isa<CallInst>(End)) reloadNow(End->getNextNode());
        // A call that returns twice (setjmp) comes back through longjmp with whatever the
        // accumulator held when longjmp was called: start the record again after it. (After a
        // context switch the registers are the context's own; starting again costs nothing.)
        if (isa<CallInst>(End) && mayComeBackElsewhere(*cast<CallInst>(End)))
          new StoreInst(Init, Acc, End->getNextNode());
      }
    }

    for (auto [Branch, To] : OneOnEdge) {
      unsigned SuccNum = Branch->getSuccessor(0) == To ? 0 : 1;
      BasicBlock *Mid = SplitCriticalEdge(Branch, SuccNum);
      Mid->getTerminator()->setDebugLoc(DebugLoc()); // code of ours, no source line
      IRBuilder<> B(Mid->getTerminator());
      B.CreateStore(B.CreateOr(loadAcc(B), c64(1)), Acc);
    }

    // At -O0 (optnone) the accumulator stays in its stack slot: the fast register allocator's
    // variable locations have gaps, while a dbg.declare'd slot is valid at every instruction,
    // so the crashing frame's unfinished path can always be read back. Speed does not matter
    // there; everywhere else the accumulator lives in a register.
    if (!F.hasOptNone()) {
      DominatorTree DT(F);
      std::vector<AllocaInst *> Slots{Acc};
      if (NowSlot) Slots.push_back(NowSlot);
      SmallPtrSet<PHINode *, 32> Before;
      for (BasicBlock &BB : F)
        for (PHINode &Phi : BB.phis()) Before.insert(&Phi);
      PromoteMemToReg(Slots, DT);
      SmallPtrSet<PHINode *, 32> AccPhis; // the time slot's phis are loads, never constants
      for (BasicBlock &BB : F)
        for (PHINode &Phi : BB.phis())
          if (!Before.count(&Phi) && Phi.getType() == I64) AccPhis.insert(&Phi);
      foldAccumulatorConstants(F, AccPhis);
      sinkAccumulatorShifts(F, AccPhis);
    }
    useLimitTable();
  }

  // A check's limit above 2^31 is read from the module's table (RuntimeGlue::checkLimit), not
  // materialised: as a 64-bit constant it would take a register in every loop. Done after
  // the fold, which needs the constant (a check reached with a known accumulator disappears),
  // and after the shifts are sunk, which may have shifted the limit down with its accumulator
  // (to an immediate, or to another entry of the table): the entry is the one holding the
  // limit now, 2^(CT_ACC_BITS - D) - 1 at [D].
  void useLimitTable() {
    for (WeakTrackingVH &V : WideChecks) {
      auto *Cmp = dyn_cast_or_null<ICmpInst>(V);
      auto *K = Cmp ? dyn_cast<ConstantInt>(Cmp->getOperand(1)) : nullptr;
      if (!K || K->getZExtValue() <= uint64_t(INT32_MAX)) continue;
      assert(isPowerOf2_64(K->getZExtValue() + 1) && "a check's limit is 2^k - 1");
      unsigned Budget = CT_ACC_BITS - Log2_64(K->getZExtValue() + 1);
      LoadInst *L = new LoadInst(I64, G.checkLimit(Budget), "ct.limit", Cmp);
      L->setAlignment(Align(8));
      Cmp->setOperand(1, L);
    }
  }
};

} // namespace

void instrumentFunction(FunctionPlan &P, RuntimeGlue &G, const Options &O) {
  Emitter E(P, G, O);
  E.run();
  markColdDiscriminators(P, E.Unlikely);
}

} // namespace crashtrail
