//===- RuntimeGlue.h - module-level symbols shared with the runtime ---------------------===//
//
// Declares (once per module) what instrumented code touches: the module's ring position (a
// TLS pointer, one definition per ELF module through a hidden linkonce_odr comdat), the
// module descriptor and the constructor/destructor that register it, the runtime core's stamp
// and clock TLS variables, the slow-path functions and their per-module stubs. Names come from crashtrail/abi.h.
//
//===----------------------------------------------------------------------------------------===//
#ifndef CRASHTRAIL_PASS_RUNTIMEGLUE_H
#define CRASHTRAIL_PASS_RUNTIMEGLUE_H

#include "llvm/IR/IRBuilder.h"
#include "llvm/IR/Module.h"

namespace crashtrail {

struct RuntimeGlue {
  RuntimeGlue(llvm::Module &M, bool ComputedRecordIds);

  llvm::Module &M;
  bool ComputedRecordIds;               // record ids computed at run time (see the .cpp)
  llvm::IntegerType *I64;
  llvm::PointerType *SlotPtrTy;     // uint64_t *
  llvm::GlobalVariable *RingPos;    // TLS uint64_t *, this module's
  llvm::GlobalVariable *ModuleDesc; // struct ct_module_desc
  llvm::GlobalVariable *StampOr;    // TLS uint64_t, runtime core: what a stamped slow path
                                    // ors into w0 (the new stamp, or 0 with stamping off)
  llvm::GlobalVariable *Now;        // TLS uint64_t, runtime core
  llvm::FunctionCallee Refill;      // void (uint64_t **, void *), preserve_most; sets *pos
  llvm::FunctionCallee StampedSlow; // void (uint64_t **, void *), preserve_most
  llvm::Function *RefillHere;       // void (void), preserve_most: Refill(&RingPos, ModuleDesc)
  llvm::Function *StampedSlowHere;  // void (void), preserve_most: StampedSlow(&RingPos, ...)
  bool TrampolinesEmitted = false;  // the out-of-line slow paths' (SlowPathAsm.cpp)
  llvm::Value *descArg();           // ModuleDesc as the refill's second argument
  llvm::Constant *chunkMask();      // &ModuleDesc->chunk_mask (uint32_t, set by the runtime)
  llvm::Constant *checkLimit(unsigned Budget); // &limits[Budget] = 2^(63-Budget) - 1
  // A record's w0: ModuleDesc - Anchor, a link-time constant below 2^31 (see the .cpp).
  void storeRecordId(llvm::IRBuilder<> &B, llvm::Value *Slot, llvm::GlobalValue *Anchor);
  llvm::Value *recordIdValue(llvm::IRBuilder<> &B, llvm::GlobalValue *Anchor);
};

// Whether the code is built for an executable (-fPIE, or not position-independent): linked
// with the static runtime, and able to use local-exec TLS of its own.
bool builtForExecutable(const llvm::Module &M);

// A constructor Name, one per ELF module (hidden, linkonce_odr, its own comdat), that calls
// Target(): run at load with the module's other constructors (priority 101).
void addModuleConstructor(llvm::Module &M, llvm::StringRef Name, llvm::FunctionCallee Target);

} // namespace crashtrail

#endif
