//===- FunctionPlan.h - the logical CFG of one instrumented function --------------------===//
//
// What the instrumenter emits and the metadata describes, decided before any IR is added:
// the blocks (after splitting blocks at recording calls and the critical edges that need a
// code), each block's terminator kind with successor codes, the sites where records start,
// the check points that may flush a full accumulator, and the source lines of each block.
// Blocks added later by the instrumenter itself (slow paths) are not part of this CFG.
//
// Invariants (checked by verifyPlan in debug builds and relied on by the post-mortem):
//  - Block 0 is the entry block and site 0.
//  - Every successor of a CALL or INVOKE block is a site; every landing pad is a site.
//  - A BRANCH has at least two distinct successors with prefix-free codes.
//  - Following successors from any block without crossing a check point, a flush or more
//    than Budget bits of codes reaches a flush point or a check point (so the accumulator never
//    overflows): at a check with budget D the accumulator is flushed if acc > 2^(63-D) - 1.
//  - An elidable flush is skipped exactly when the accumulator holds no path bits (FlushKind).
//
//===----------------------------------------------------------------------------------------===//
#ifndef CRASHTRAIL_PASS_FUNCTIONPLAN_H
#define CRASHTRAIL_PASS_FUNCTIONPLAN_H

#include "HuffmanCode.h"

#include "llvm/IR/BasicBlock.h"
#include "llvm/IR/DebugInfoMetadata.h"
#include "llvm/IR/InstrTypes.h"

#include <string>
#include <vector>

namespace crashtrail {

struct Successor {
  unsigned Block;
  Code C; // empty unless the terminator is a BRANCH
};

struct BlockPlan {
  llvm::BasicBlock *BB = nullptr;
  unsigned Term = 0;                  // CT_TERM_*
  std::vector<Successor> Succs;       // JUMP: 1; BRANCH: n; CALL: 0 or 1; INVOKE: normal, unwind
  llvm::CallBase *Call = nullptr;     // CALL and INVOKE: the call that ends the block
  std::string Callee;                 // empty for an indirect call
  bool Stamped = false;               // the flush ending this block is stamped
  bool CodeBeforeBranch = false;      // two-way BRANCH whose bit is computed before it,
                                      // acc = (acc << 1) | cond (an edge is critical, the
                                      // branch is not biased, the function is optnone)
  bool ShiftBeforeBranch = false;     // two-way BRANCH with a critical edge (biased, or in an
                                      // optimised function): acc <<= 1 before it, acc |= 1 on
                                      // the edge to the unlikelier side (split if critical)
  // Whether the flush ending this block (CALL, INVOKE, RETURN, RESUME) is written. A record
  // without path bits is implied: from the frame's site the decoder can walk the only path to
  // this block itself. So a flush reached only along branch-free paths from sites is never
  // written, one reached both ways is written only when the accumulator holds bits. Indirect
  // calls, invokes, noreturn, returns-twice and musttail calls are always written: the decoder
  // needs them to know what the next records belong to.
  enum FlushKind { FlushAlways, FlushIfBits, FlushNever };
  FlushKind Flush = FlushAlways;
  bool Elidable = false;              // the kind of flush that may be skipped when empty
  bool Check = false;
  bool LoopHeader = false;            // the target of a back edge (its check is on the latches)
  unsigned Budget = 0;                // bits a check point allows until the next one
  int Site = -1;                      // site index if records start here
  unsigned SiteKind = 0;
  int TableEntry = -1;                // its last/first entry (shared: see TableSlots.cpp)
  bool TableUpdate = false;           // this block writes its entry
  std::vector<const llvm::DILocation *> Lines; // one per source line change, in order
};

struct FunctionPlan {
  llvm::Function *F = nullptr;
  llvm::GlobalValue *Anchor = nullptr; // what w0 and the metadata's address refer to
  unsigned SiteBits = 0;
  unsigned Flags = 0;                  // CT_FN_*
  std::vector<unsigned> SiteBlocks;    // site index -> block index
  std::vector<BlockPlan> Blocks;
  llvm::GlobalVariable *Table = nullptr; // the unit's last/first table (tables mode)
  llvm::Type *TableTy = nullptr;
  llvm::GlobalVariable *TableMap = nullptr; // the unit's per-thread byte map, if it has one
  llvm::Type *TableMapTy = nullptr;         // (tables mode in an executable: CrashtrailPass.cpp)
  unsigned TableBase = 0;                // this function's first entry in Table
  unsigned NumTableEntries = 0;
  bool DeferSlot = false;                // has a defer slot (CT_SECTION_DEFER lists it)

  uint64_t siteInit(unsigned Site) const { return (uint64_t(1) << SiteBits) | Site; }
};

} // namespace crashtrail

#endif
