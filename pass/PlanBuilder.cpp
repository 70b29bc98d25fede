//===- PlanBuilder.cpp - normalise a function's CFG and plan its instrumentation --------===//
//
// The steps, in order (each relies on the previous ones):
//  1. Read the branch probabilities of every terminator (before blocks move).
//  2. Split each block after every recording call, so a call always ends a block and the
//     block after it starts a record (an "after-call site"). Give invokes a normal
//     destination of their own for the same reason.
//  3. Split switch edges into successors that have other predecessors, so every switch code
//     can be added at the start of a block that only that edge reaches.
//  4. Classify every terminator and give multi-way branches Huffman codes.
//  5. Find loops (DFS back edges): each back edge's source block becomes a check point, or
//     none is needed when every way round the cycle passes a call (its flush restarts the
//     record), or, for a block that loops on itself, the header does; a dispatch's check goes
//     to those of its targets from which the dispatch can be reached without a call.
//  6. Compute, bottom-up (in rounds, for back edges into headers without a check), the most
//     bits any path can add before the next check or flush; where that would exceed the
//     budget, add a check point (a smaller budget for blocks on cycles, so that the checks of
//     loops fire only when their records are nearly full).
//  7. Number the sites and collect each block's source lines.
//
//===----------------------------------------------------------------------------------------===//
#include "PlanBuilder.h"

#include "CallClassifier.h"
#include "CarriedAccumulator.h"
#include "ModuleExits.h"
#include "Options.h"
#include "SlowPathAsm.h"
#include "crashtrail/abi.h"

#include "llvm/ADT/DenseMap.h"
#include "llvm/ADT/SmallPtrSet.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"
#include "llvm/IR/Module.h"
#include "llvm/Transforms/Utils/BasicBlockUtils.h"

#include <algorithm>

using namespace llvm;

namespace crashtrail {

namespace {

struct Builder {
  Function &F;
  const TargetLibraryInfo &TLI;
  const BranchProbabilityInfo &BPI;
  const ModuleExits &X;
  FunctionPlan &P;
  DenseMap<const Instruction *, std::vector<uint64_t>> TermWeights;
  DenseMap<BasicBlock *, std::pair<CallBase *, BasicBlock *>> CallEnds; // block -> call, cont
  DenseMap<BasicBlock *, unsigned> Index;
  SmallPtrSet<BasicBlock *, 16> AfterCall, Landing;
  SmallPtrSet<BasicBlock *, 16> AfterFlow; // continuations of calls that carry the accumulator
  SmallPtrSet<const CallBase *, 16> Deferred; // calls with no record before them (defer-calls)

  Builder(Function &F, const TargetLibraryInfo &TLI, const BranchProbabilityInfo &BPI,
          const ModuleExits &X, FunctionPlan &P)
      : F(F), TLI(TLI), BPI(BPI), X(X), P(P) {}

  void readProbabilities() {
    for (BasicBlock &BB : F) {
      Instruction *TI = BB.getTerminator();
      std::vector<uint64_t> W;
      for (unsigned I = 0, N = TI->getNumSuccessors(); I < N; ++I)
        W.push_back(BPI.getEdgeProbability(&BB, I).getNumerator());
      TermWeights[TI] = std::move(W);
    }
  }

  // The optimiser merges a function's returns into one block, `phi; ret`, and leaves it to
  // codegen to copy the return back behind each call that can then become a jump (what
  // CodeGenPrepare's dupRetToEnableTailCallOpts does). Done here first, so that such a call is
  // seen in tail position and nothing is inserted after it.
  void duplicateReturnsAfterTailCalls() {
    std::vector<BasicBlock *> Rets;
    for (BasicBlock &BB : F)
      if (isa<ReturnInst>(BB.getTerminator())) Rets.push_back(&BB);
    for (BasicBlock *R : Rets) {
      auto *Ret = cast<ReturnInst>(R->getTerminator());
      Value *RV = Ret->getReturnValue();
      auto *Phi = dyn_cast_or_null<PHINode>(RV);
      if (RV && (!Phi || Phi->getParent() != R)) continue;
      bool OnlyPhi = true; // the block is `[phi]; ret` (debug markers aside)
      for (Instruction &I : *R)
        if (&I != Ret && &I != Phi && !isa<DbgInfoIntrinsic>(I)) OnlyPhi = false;
      if (!OnlyPhi) continue;
      SmallVector<BasicBlock *, 8> Preds(predecessors(R));
      for (BasicBlock *Pred : Preds) {
        auto *Br = dyn_cast<BranchInst>(Pred->getTerminator());
        if (!Br || Br->isConditional()) continue;
        auto *CI = dyn_cast_or_null<CallInst>(Br->getPrevNonDebugInstruction());
        if (!CI || !CI->isTailCall() || CI->isMustTailCall()) continue;
        if (Phi && Phi->getIncomingValueForBlock(Pred) != CI) continue;
        auto *NewRet = ReturnInst::Create(F.getContext(), Phi ? CI : nullptr, Br);
        NewRet->setDebugLoc(Ret->getDebugLoc());
        Br->eraseFromParent();
        R->removePredecessor(Pred, /*KeepOneInputPHIs=*/true);
      }
      if (pred_empty(R) && R != &F.getEntryBlock()) R->eraseFromParent();
    }
  }

  // defer-calls; a call whose callee may be in another module also needs its mark's fragment
  // (emitDeferMark), so the function's fragment section.
  bool DeferCalls = currentOptions().defersCalls();
  bool ForeignMarks = DeferCalls && !coldFragmentSection(F, currentOptions()).empty();

  void splitAtCalls() {
    std::vector<CallBase *> Calls;
    for (BasicBlock &BB : F)
      for (Instruction &I : BB)
        if (auto *CB = dyn_cast<CallBase>(&I))
          if (isRecordingCall(*CB, TLI)) Calls.push_back(CB);
    for (CallBase *CB : Calls) {
      if (auto *II = dyn_cast<InvokeInst>(CB)) {
        BasicBlock *Normal = II->getNormalDest();
        if (!Normal->getUniquePredecessor() || Normal == II->getUnwindDest()) {
          Normal = SplitEdge(II->getParent(), Normal);
          Normal->getTerminator()->setDebugLoc(DebugLoc()); // code of ours, no source line
        }
        CallEnds[II->getParent()] = {II, Normal};
        AfterCall.insert(Normal);
        Landing.insert(II->getUnwindDest());
        continue;
      }
      if (isa<CallBrInst>(CB)) continue; // inline asm goto: a branch, see classify()
      auto *CI = cast<CallInst>(CB);
      // A musttail call must stay right before its ret; a call in tail position stays there
      // so that codegen can still make it a jump (nothing of ours follows it): both are CALLs
      // with no continuation, the callee takes the frame's place.
      if (CI->isMustTailCall() || isTailPositionCall(*CI)) {
        CallEnds[CI->getParent()] = {CI, nullptr};
        continue;
      }
      BasicBlock *Cont = CI->getParent()->splitBasicBlock(CI->getNextNode());
      // The new branch belongs to the call's line, not to the next statement's.
      CI->getParent()->getTerminator()->setDebugLoc(CI->getDebugLoc());
      CallEnds[CI->getParent()] = {CI, Cont};
      // A call that carries the accumulator starts no record: its continuation is a check
      // point instead (the callee returns the accumulator with any fill).
      if (callCarriesAcc(*CI)) {
        AfterFlow.insert(Cont);
      } else if (DeferCalls && mayDeferRecord(*CI) &&
                 !X.Uninstrumented.count(CI->getCalledFunction()) &&
                 (ForeignMarks || !calleeMayBeForeign(*CI))) {
        // The record goes on across the call; the callee's records reach the ring first.
        Deferred.insert(CI);
      } else {
        AfterCall.insert(Cont);
      }
    }
  }

  void splitSwitchEdges() {
    std::vector<SwitchInst *> Switches;
    for (BasicBlock &BB : F)
      if (auto *SI = dyn_cast<SwitchInst>(BB.getTerminator())) Switches.push_back(SI);
    for (SwitchInst *SI : Switches) {
      BasicBlock *From = SI->getParent();
      SmallPtrSet<BasicBlock *, 8> Done;
      for (unsigned I = 0; I < SI->getNumSuccessors(); ++I) {
        BasicBlock *S = SI->getSuccessor(I);
        if (S->getUniquePredecessor() == From || !Done.insert(S).second) continue;
        if (S->isEHPad()) continue;
        CriticalEdgeSplittingOptions Opts;
        Opts.setMergeIdenticalEdges();
        if (BasicBlock *N = SplitCriticalEdge(SI, I, Opts)) {
          N->getTerminator()->setDebugLoc(DebugLoc()); // code of ours, no source line
          Done.insert(N);
        }
      }
    }
  }

  // Distinct successors in first-appearance order, with summed weights.
  void distinctSuccessors(Instruction *TI, std::vector<BasicBlock *> &Succ,
                          std::vector<uint64_t> &W) {
    const std::vector<uint64_t> &TW = TermWeights.lookup(TI);
    for (unsigned I = 0, N = TI->getNumSuccessors(); I < N; ++I) {
      BasicBlock *S = TI->getSuccessor(I);
      uint64_t Wt = I < TW.size() ? TW[I] : 1;
      auto It = std::find(Succ.begin(), Succ.end(), S);
      if (It == Succ.end()) {
        Succ.push_back(S);
        W.push_back(Wt);
      } else {
        W[It - Succ.begin()] += Wt;
      }
    }
  }

  bool classify(BlockPlan &B, std::string &Why) {
    BasicBlock *BB = B.BB;
    Instruction *TI = BB->getTerminator();
    bool StampExit = X.ExitsToOutside.count(&F);
    auto CE = CallEnds.find(BB);
    if (CE != CallEnds.end()) {
      CallBase *CB = CE->second.first;
      B.Call = CB;
      B.Callee = calleeName(*CB);
      if (callCarriesAcc(*CB)) { // no flush: the walk goes through the callee
        B.Term = CT_TERM_FLOW;
        B.Succs = {{Index[CE->second.second], {}}};
        return true;
      }
      if (Deferred.count(CB)) { // no flush: the walk goes on past the call
        B.Term = CT_TERM_DEFER;
        B.Succs = {{Index[CE->second.second], {}}};
        B.Stamped = calleeMayBeForeign(*CB);
        P.Flags |= CT_FN_DEFERS;
        return true;
      }
      auto *CI = dyn_cast<CallInst>(CB);
      bool TailPosition = CI && !CE->second.second && !CI->isMustTailCall();
      // A call in tail position is also the frame's return: stamped as its return would be.
      B.Stamped = calleeMayBeForeign(*CB) || (TailPosition && StampExit);
      B.Elidable = CI && CI->getCalledFunction() && !CI->isMustTailCall() &&
                   !mayComeBackElsewhere(*CI) && !CI->doesNotReturn() &&
                   !CI->getCalledFunction()->doesNotReturn();
      if (auto *II = dyn_cast<InvokeInst>(CB)) {
        B.Term = CT_TERM_INVOKE;
        B.Succs = {{Index[II->getNormalDest()], {}}, {Index[II->getUnwindDest()], {}}};
      } else {
        B.Term = CT_TERM_CALL;
        if (CE->second.second) B.Succs = {{Index[CE->second.second], {}}};
      }
      return true;
    }
    if (isa<ReturnInst>(TI)) {
      B.Term = CT_TERM_RETURN;
      B.Stamped = StampExit;
      B.Elidable = true;
      return true;
    }
    if (isa<ResumeInst>(TI)) {
      B.Term = CT_TERM_RESUME;
      B.Stamped = StampExit;
      B.Elidable = true;
      return true;
    }
    if (isa<UnreachableInst>(TI)) {
      B.Term = CT_TERM_STOP;
      return true;
    }
    if (isa<CatchSwitchInst>(TI) || isa<CatchReturnInst>(TI) || isa<CleanupReturnInst>(TI)) {
      Why = "funclet-based exception handling";
      return false;
    }
    std::vector<BasicBlock *> Succ;
    std::vector<uint64_t> W;
    distinctSuccessors(TI, Succ, W);
    if (Succ.size() == 1) {
      B.Term = CT_TERM_JUMP;
      B.Succs = {{Index[Succ[0]], {}}};
      return true;
    }
    if (Succ.empty()) {
      Why = "a terminator without successors";
      return false;
    }
    B.Term = CT_TERM_BRANCH;
    if (isa<BranchInst>(TI)) {
      // One bit per side, the likelier side 0. Where both successors are reached only from
      // here the bit is added at the start of each (`add acc,acc` and `lea 1(acc,acc)`: one
      // instruction either way). Where an edge is critical, the shift goes before the branch
      // and the unlikelier edge alone adds the 1 (split if it must be): one instruction on
      // the likelier side, two on the other. At -O0 only a biased branch does so; an unbiased
      // one computes its bit before it as zext(cond) (three instructions, no taken jump on
      // either side, the true side 1), which keeps -O0 code as it was measured and tested.
      bool Critical = Succ[0]->getUniquePredecessor() != BB ||
                      Succ[1]->getUniquePredecessor() != BB;
      bool TrueLikelier = W[0] > W[1];
      uint64_t Hi = std::max(W[0], W[1]), Lo = std::min(W[0], W[1]);
      B.ShiftBeforeBranch = Critical && (Hi >= 2 * Lo || !BB->getParent()->hasOptNone());
      B.CodeBeforeBranch = Critical && !B.ShiftBeforeBranch;
      unsigned TrueCode = B.CodeBeforeBranch ? 1 : TrueLikelier ? 0 : 1;
      B.Succs = {{Index[Succ[0]], {1, TrueCode}}, {Index[Succ[1]], {1, 1 - TrueCode}}};
      return true;
    }
    std::vector<Code> Codes = buildHuffmanCode(W);
    for (unsigned I = 0; I < Succ.size(); ++I) B.Succs.push_back({Index[Succ[I]], Codes[I]});
    return true;
  }

  bool isFlushEnd(const BlockPlan &B) const {
    return B.Term == CT_TERM_CALL || B.Term == CT_TERM_INVOKE || B.Term == CT_TERM_RETURN ||
           B.Term == CT_TERM_RESUME || B.Term == CT_TERM_STOP;
  }

  // Iterative DFS from the entry; also yields a postorder. A back edge's check goes on its
  // source (the latch), not its target (the header): a header's check runs on entry to the
  // loop too, where the accumulator holds what the path to it added and is rarely near the
  // limit, while a latch runs only when the loop goes round or leaves from the latch, which
  // together happen no more often than the header runs (a hash chain walk that finds its key
  // at the first slot no longer pays a check per call). Whether a latch needs one at all is
  // decided once the back edges are known (placeLatchChecks). Indirect branches keep the
  // header (moveDispatchChecks), and so does a self-loop.
  std::vector<std::pair<unsigned, unsigned>> BackFrom; // latch, header: placeLatchChecks
  std::vector<bool> InCycle; // blocks on a cycle (findCycles)
  // The most bits a block on a cycle may add before the next check or flush (elsewhere: the
  // limit placeChecks is given, 48 at first). A check fires when the accumulator could not
  // take its budget, so a check in a loop whose body has one long path fires nearly every
  // time round: SQLite's VDBE dispatch had a budget of 54 bits and wrote a record whenever an
  // opcode had added one bit (3.2 M of SQLite's 16.7 M records). With 24, long paths in loop
  // bodies get checks of their own (rarely taken) and the loop's check keeps 30 bits or more:
  // SQLite's instructions -3.1% (1.367x to 1.324x), Lua and zlib level (16: 1.330x, 20:
  // 1.329x, 28: 1.361x, 32: 1.340x; docs/performance.md).
  static constexpr unsigned LoopLimit = 24;
  void findLoops(std::vector<unsigned> &PostOrder, std::vector<std::vector<bool>> &IsBack) {
    unsigned N = P.Blocks.size();
    std::vector<int> State(N, 0); // 0 new, 1 on stack, 2 done
    IsBack.assign(N, {});
    for (unsigned I = 0; I < N; ++I) IsBack[I].assign(P.Blocks[I].Succs.size(), false);
    std::vector<std::pair<unsigned, unsigned>> Stack{{0, 0}};
    State[0] = 1;
    while (!Stack.empty()) {
      auto &[B, NextSucc] = Stack.back();
      if (NextSucc < P.Blocks[B].Succs.size()) {
        unsigned SI = NextSucc++;
        unsigned T = P.Blocks[B].Succs[SI].Block;
        if (State[T] == 1) {
          IsBack[B][SI] = true;
          P.Blocks[T].LoopHeader = true;
          if (B == T || isa<IndirectBrInst>(P.Blocks[T].BB->getTerminator()))
            P.Blocks[T].Check = true;
          else
            BackFrom.push_back({B, T});
        } else if (State[T] == 0) {
          State[T] = 1;
          Stack.push_back({T, 0});
        }
        continue;
      }
      State[B] = 2;
      PostOrder.push_back(B);
      Stack.pop_back();
    }
  }

  // A loop header ending in an indirectbr is a threaded interpreter's dispatch: the code
  // generator copies such a block into each of its predecessors (every handler gets its own
  // indirect jump, which the CPU predicts far better) only while it stays small and free of
  // branches. So its check point moves to its targets, which every cycle through it passes
  // too (each target checks after adding its code), unless its handler flushes on every way
  // back to the dispatch (it calls): then the record restarts before it can go round.
  void moveDispatchChecks() {
    for (unsigned H = 0; H < P.Blocks.size(); ++H) {
      BlockPlan &B = P.Blocks[H];
      if (!B.Check || !isa<IndirectBrInst>(B.BB->getTerminator())) continue;
      bool SelfLoop = false;
      for (const Successor &S : B.Succs) SelfLoop |= S.Block == H;
      if (SelfLoop) continue;
      B.Check = false;
      for (const Successor &S : B.Succs)
        P.Blocks[S.Block].Check |= reachesWithoutFlush(S.Block, H);
    }
  }

  // The latches' checks. A cycle needs a check point only if the accumulator can go round it
  // without being restarted: a cycle that passes a call (or any flush) starts a new record
  // every time round, so a latch whose every way back from its header passes one needs no
  // check (a loop whose body always calls; a dispatch target whose handler calls on every
  // path, above). A latch that starts a record itself is the simplest such case.
  void placeLatchChecks() {
    for (auto [B, T] : BackFrom) {
      BlockPlan &From = P.Blocks[B];
      bool StartsRecord = AfterCall.count(From.BB) || Landing.count(From.BB);
      From.Check |= !StartsRecord && reachesWithoutFlush(T, B);
    }
  }

  // Whether To can be reached from From (along any edges) without passing a block that ends
  // in a flush (a call, invoke, return, resume: after it the accumulator starts again). One
  // search per back edge and dispatch target: in a function with very many of both, once the
  // searches have visited SearchBudget blocks the answer is yes (the check stays), so the
  // pass stays linear-ish on generated state machines.
  size_t SearchBudget = size_t(1) << 26;
  bool reachesWithoutFlush(unsigned From, unsigned To) {
    std::vector<bool> Seen(P.Blocks.size(), false);
    std::vector<unsigned> Work{From};
    Seen[From] = true;
    while (!Work.empty()) {
      if (SearchBudget == 0) return true;
      --SearchBudget;
      unsigned B = Work.back();
      Work.pop_back();
      if (isFlushEnd(P.Blocks[B])) continue;
      for (const Successor &S : P.Blocks[B].Succs) {
        if (S.Block == To) return true;
        if (!Seen[S.Block]) {
          Seen[S.Block] = true;
          Work.push_back(S.Block);
        }
      }
    }
    return false;
  }

  // Blocks on a cycle of the CFG (Tarjan's strongly connected components, iteratively).
  std::vector<bool> findCycles() {
    unsigned N = P.Blocks.size(), Next = 0;
    std::vector<unsigned> Index(N, ~0u), Low(N, 0), Comp;
    std::vector<bool> OnStack(N, false), Cyclic(N, false);
    std::vector<std::pair<unsigned, unsigned>> Work;
    for (unsigned Root = 0; Root < N; ++Root) {
      if (Index[Root] != ~0u) continue;
      Work.push_back({Root, 0});
      Index[Root] = Low[Root] = Next++;
      Comp.push_back(Root);
      OnStack[Root] = true;
      while (!Work.empty()) {
        auto &[B, SI] = Work.back();
        const std::vector<Successor> &Succs = P.Blocks[B].Succs;
        if (SI < Succs.size()) {
          unsigned T = Succs[SI++].Block;
          if (T == B) Cyclic[B] = true;
          if (Index[T] == ~0u) {
            Index[T] = Low[T] = Next++;
            Comp.push_back(T);
            OnStack[T] = true;
            Work.push_back({T, 0});
          } else if (OnStack[T]) {
            Low[B] = std::min(Low[B], Index[T]);
          }
          continue;
        }
        unsigned Done = B;
        Work.pop_back();
        if (!Work.empty()) Low[Work.back().first] = std::min(Low[Work.back().first], Low[Done]);
        if (Low[Done] != Index[Done]) continue;
        bool Many = Comp.back() != Done;
        for (unsigned X = ~0u; X != Done;) {
          X = Comp.back();
          Comp.pop_back();
          OnStack[X] = false;
          if (Many) Cyclic[X] = true;
        }
      }
    }
    return Cyclic;
  }

  // Longest code path (bits) from each block to the next check or flush; adds checks where it
  // exceeds Limit (LoopLimit on a cycle). Worst: the largest budget a check or site ends up with. Bottom-up over the
  // postorder; a back edge adds what its header's block adds when the header has no check (a
  // latch without a check whose cycles all flush, a dispatch whose checks are on its targets),
  // taken from the round before: rounds repeat until nothing changes. Every cycle has a check
  // or a flush, so what a back edge adds never depends on itself and the rounds end (false if
  // they did not: a cycle without either, which would be a bug).
  bool placeChecks(const std::vector<unsigned> &PostOrder,
                   const std::vector<std::vector<bool>> &IsBack, unsigned Limit,
                   std::vector<bool> &ExtraCheck, unsigned &Worst) {
    unsigned N = P.Blocks.size();
    std::vector<unsigned> D(N, 0), Prev(N, 0);
    std::vector<bool> PrevExtra(N, false);
    for (unsigned Round = 0; Round <= N + 1; ++Round) {
      ExtraCheck.assign(N, false);
      Worst = 0;
      for (unsigned B : PostOrder) {
        BlockPlan &BP = P.Blocks[B];
        unsigned Max = 0;
        if (!isFlushEnd(BP))
          for (unsigned I = 0; I < BP.Succs.size(); ++I) {
            const Successor &S = BP.Succs[I];
            const BlockPlan &To = P.Blocks[S.Block];
            unsigned After = IsBack[B][I] ? (To.Check || PrevExtra[S.Block] ? 0 : Prev[S.Block])
                                          : (To.Check || ExtraCheck[S.Block] ? 0 : D[S.Block]);
            Max = std::max(Max, S.C.Length + After);
          }
        D[B] = Max;
        const unsigned L = InCycle[B] ? std::min(Limit, LoopLimit) : Limit;
        if (!BP.Check && !ExtraCheck[B] && Max > L && BP.Site < 0) ExtraCheck[B] = true;
        // The check fires when the next Max bits could overflow: a record holds up to 63 - Max
        // bits (the limit is a memory operand when it is no 32-bit immediate, see emitCheck).
        if (BP.Check || ExtraCheck[B]) BP.Budget = Max;
        if (BP.Check || ExtraCheck[B] || B == 0 || AfterCall.count(BP.BB) || Landing.count(BP.BB))
          Worst = std::max(Worst, Max);
      }
      if (D == Prev && ExtraCheck == PrevExtra) return true;
      Prev = D;
      PrevExtra = ExtraCheck;
    }
    return false;
  }

  // Which elidable flushes can see an empty accumulator (reached from a site along jumps
  // only; a check point does not restart a record unless it fires, but may) and which can see
  // path bits (some branch on the way), to a fixpoint over the blocks between flushes.
  // The decoder follows a frame from site to site, so it cannot see a frame arrive at a site
  // it could not predict: the entry of a function that may be entered from elsewhere (an
  // indirect call, uninstrumented code, another module: the record says which function it
  // is), a landing pad (an exception), the continuation of setjmp (a longjmp) or of a context
  // switch (mayComeBackElsewhere). A flush reached empty from such a site is always written.
  void classifyFlushes() {
    unsigned N = P.Blocks.size();
    std::vector<bool> Empty(N, false), FromEntry(N, false), Bits(N, false); // FromEntry: from an unpredictable site;
    // Foreign: the record may have started in another function (a carrying function's entry, a
    // carrying call's continuation), along any edge: "holds bits" (the sentinel above this
    // function's site field) does not apply to it, since the start's site field may be
    // narrower. sqlite3BtreeRollback's return, reached from btreeEndTransaction's return
    // through one branch, read its record as empty and lost the branch's bit.
    std::vector<bool> Foreign(N, false);
    // FromCall: reached empty from a call's continuation. A function that may return to code
    // without records writes its way out (return, tail call, resume) after a call: had it
    // called code that ended in a call without records, an entry record that follows could be
    // that call's callback or the next function its uninstrumented caller called (C++ static
    // initialisers, one after the other from the loader: jsoncpp's round trip). The record
    // says the frame left.
    std::vector<bool> FromCall(N, false);
    bool ReturnsToUninstrumented = X.ReturnsToUninstrumented.count(&F);
    for (unsigned I = 0; I < N; ++I) {
      const BlockPlan &B = P.Blocks[I];
      Foreign[I] = (I == 0 && carriesAcc(F)) || AfterFlow.count(B.BB);
      Empty[I] = B.Site >= 0 || B.Check;
      // Or-ed: an earlier block's call may have marked this one its continuation already.
      // A carrying function's entry and a carrying call's continuation hold bits of records
      // that may have started elsewhere: what the accumulator holds is not known here.
      FromEntry[I] = FromEntry[I] ||
                     (I == 0 && (X.EnteredFromOutside.count(&F) || carriesAcc(F))) ||
                     Landing.count(B.BB) || AfterFlow.count(B.BB);
      if (B.Term == CT_TERM_CALL && !B.Succs.empty() && mayComeBackElsewhere(*B.Call))
        FromEntry[B.Succs[0].Block] = true;
      FromCall[I] = FromCall[I] || AfterCall.count(B.BB);
    }
    for (bool Changed = true; Changed;) {
      Changed = false;
      for (unsigned I = 0; I < N; ++I) {
        const BlockPlan &B = P.Blocks[I];
        if (isFlushEnd(B) || (!Empty[I] && !Bits[I])) continue;
        for (const Successor &S : B.Succs) {
          bool Jump = B.Term == CT_TERM_JUMP || B.Term == CT_TERM_DEFER;
          bool E = Jump && Empty[I], FE = Jump && FromEntry[I], FC = Jump && FromCall[I];
          bool Bt = Bits[I] || B.Term == CT_TERM_BRANCH;
          if ((E && !Empty[S.Block]) || (FE && !FromEntry[S.Block]) ||
              (FC && !FromCall[S.Block]) || (Bt && !Bits[S.Block]) ||
              (Foreign[I] && !Foreign[S.Block])) {
            Empty[S.Block] = Empty[S.Block] || E;
            FromEntry[S.Block] = FromEntry[S.Block] || FE;
            FromCall[S.Block] = FromCall[S.Block] || FC;
            Bits[S.Block] = Bits[S.Block] || Bt;
            Foreign[S.Block] = Foreign[S.Block] || Foreign[I];
            Changed = true;
          }
        }
      }
    }
    for (unsigned I = 0; I < N; ++I) {
      BlockPlan &B = P.Blocks[I];
      if (!B.Elidable || !Empty[I] || FromEntry[I] || Foreign[I]) continue;
      bool Exit = B.Term == CT_TERM_RETURN || B.Term == CT_TERM_RESUME ||
                  (B.Term == CT_TERM_CALL && B.Succs.empty());
      if (ReturnsToUninstrumented && Exit && FromCall[I]) continue;
      B.Flush = Bits[I] ? BlockPlan::FlushIfBits : BlockPlan::FlushNever;
    }
  }

  void collectLines(BlockPlan &B) {
    const DILocation *Last = nullptr;
    for (Instruction &I : *B.BB) {
      // None of these runs as code of a line: debug markers, lifetime.start/end, assume,
      // scope declarations, phis. A lifetime marker would give the timeline a step on a
      // declaration, or on the brace before a return.
      if (isa<PHINode>(I)) continue;
      // The return after a call with no continuation runs no code of its own: the call is the
      // frame's last step (a jump, once codegen has made it a tail call).
      if (isa<ReturnInst>(I) && B.Term == CT_TERM_CALL && B.Succs.empty()) continue;
      if (auto *II = dyn_cast<IntrinsicInst>(&I))
        if (II->isAssumeLikeIntrinsic()) continue;
      // A no-op cast (the bitcast of a local for its lifetime marker) makes no code either.
      if (auto *C = dyn_cast<CastInst>(&I))
        if (C->isNoopCast(F.getParent()->getDataLayout())) continue;
      const DILocation *L = I.getDebugLoc().get();
      if (!L || L->getLine() == 0) continue;
      if (Last && Last->getLine() == L->getLine() && Last->getFile() == L->getFile() &&
          Last->getInlinedAt() == L->getInlinedAt())
        continue;
      B.Lines.push_back(L);
      Last = L;
    }
  }

  bool run(std::string &Why) {
    for (BasicBlock &BB : F)
      if (BB.isEHPad() && !BB.isLandingPad()) {
        Why = "funclet-based exception handling";
        return false;
      }
    duplicateReturnsAfterTailCalls();
    readProbabilities();
    splitAtCalls();
    splitSwitchEdges();
    for (BasicBlock &BB : F) {
      Index[&BB] = P.Blocks.size();
      P.Blocks.emplace_back();
      P.Blocks.back().BB = &BB;
    }
    for (BlockPlan &B : P.Blocks)
      if (!classify(B, Why)) return false;

    std::vector<unsigned> PostOrder;
    std::vector<std::vector<bool>> IsBack;
    findLoops(PostOrder, IsBack);
    moveDispatchChecks();
    placeLatchChecks();
    // The accumulator arrives with any fill at a carrying function's entry and after a call
    // that carries it: both are check points.
    if (carriesAcc(F)) P.Blocks[0].Check = true;
    for (BlockPlan &B : P.Blocks)
      if (AfterFlow.count(B.BB)) B.Check = true;
    // Sites other than checks, so the budget search knows which blocks start records.
    P.Blocks[0].Site = 0;
    for (BlockPlan &B : P.Blocks)
      if (AfterCall.count(B.BB) || Landing.count(B.BB)) B.Site = 1;
    std::vector<bool> Extra;
    InCycle = findCycles();
    for (unsigned Limit = 48;; Limit -= 4) {
      unsigned Worst = 0;
      if (!placeChecks(PostOrder, IsBack, Limit, Extra, Worst)) {
        Why = "check points found no fixpoint (a cycle without a check)";
        return false;
      }
      unsigned NumSites = 0;
      for (unsigned I = 0; I < P.Blocks.size(); ++I)
        NumSites += P.Blocks[I].Site >= 0 || P.Blocks[I].Check || Extra[I];
      unsigned Bits = 0;
      while ((1u << Bits) < NumSites) ++Bits;
      if (Bits > 24) {
        Why = "more than 2^24 record sites";
        return false;
      }
      if (Worst + Bits <= CT_ACC_BITS || Limit <= 8) {
        P.SiteBits = Bits;
        break;
      }
    }
    for (unsigned I = 0; I < P.Blocks.size(); ++I) P.Blocks[I].Check |= Extra[I];
    // A check a carried accumulator needed that allows no bits before the next check or flush
    // can never fire: dropped (the entry of a function whose code has no branch, say).
    for (unsigned I = 0; I < P.Blocks.size(); ++I) {
      BlockPlan &B = P.Blocks[I];
      if (B.Check && !Extra[I] && B.Budget == 0 && !B.LoopHeader &&
          ((I == 0 && carriesAcc(F)) || AfterFlow.count(B.BB)))
        B.Check = false;
    }

    // Number the sites: entry first, then in block order.
    P.SiteBlocks.clear();
    for (unsigned I = 0; I < P.Blocks.size(); ++I) {
      BlockPlan &B = P.Blocks[I];
      bool IsSite = I == 0 || B.Site >= 0 || B.Check;
      B.Site = -1;
      if (!IsSite) continue;
      B.Site = (int)P.SiteBlocks.size();
      B.SiteKind = I == 0                    ? CT_SITE_ENTRY
                   : AfterCall.count(B.BB)   ? CT_SITE_AFTER_CALL
                   : Landing.count(B.BB)     ? CT_SITE_LANDING
                                             : CT_SITE_CHECK;
      P.SiteBlocks.push_back(I);
    }
    classifyFlushes();
    bool AnyLine = false;
    for (BlockPlan &B : P.Blocks) {
      collectLines(B);
      AnyLine |= !B.Lines.empty();
    }
    if (!F.getSubprogram() || !AnyLine) P.Flags |= CT_FN_NO_DEBUG;
    if (X.ExitsToOutside.count(&F)) P.Flags |= CT_FN_STAMP_RETURN;
    if (F.hasLocalLinkage()) P.Flags |= CT_FN_LOCAL;
    if (X.Constructors.count(&F)) P.Flags |= CT_FN_CTOR;
    if (carriesAcc(F)) P.Flags |= CT_FN_FLOW;
    P.Flags |= CT_FN_LOOP_FLAGS;
    return true;
  }
};

} // namespace

bool buildPlan(Function &F, const TargetLibraryInfo &TLI, const BranchProbabilityInfo &BPI,
               const ModuleExits &X, FunctionPlan &P, std::string &Why) {
  P.F = &F;
  Builder B(F, TLI, BPI, X, P);
  return B.run(Why);
}

} // namespace crashtrail
