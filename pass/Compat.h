//===- Compat.h - the few LLVM API differences between LLVM 14 and LLVM 19 --------------===//
#ifndef CRASHTRAIL_PASS_COMPAT_H
#define CRASHTRAIL_PASS_COMPAT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InstrTypes.h"
#include "llvm/IR/Instruction.h"
#if LLVM_VERSION_MAJOR >= 16
#include "llvm/IR/ProfDataUtils.h"
#endif

namespace crashtrail {

// StringRef::startswith (LLVM 14) became starts_with (LLVM 16+, the old name removed in 19).
inline bool hasPrefix(llvm::StringRef S, llvm::StringRef Prefix) {
  return S.substr(0, Prefix.size()) == Prefix;
}

// A call that writes only memory its pointer arguments point to: the argmemonly + writeonly
// attributes (LLVM 14) became one memory(argmem: write) effect (LLVM 16+).
inline void setWritesArgMemOnly(llvm::CallBase *CB) {
#if LLVM_VERSION_MAJOR >= 16
  CB->setMemoryEffects(llvm::MemoryEffects::argMemOnly(llvm::ModRefInfo::Mod));
#else
  CB->addFnAttr(llvm::Attribute::ArgMemOnly);
  CB->addFnAttr(llvm::Attribute::WriteOnly);
#endif
}

// A two-way branch's weights: Instruction::extractProfMetadata (LLVM 14) became
// extractBranchWeights in ProfDataUtils.h (LLVM 16+).
inline bool branchWeights(const llvm::Instruction &I, uint64_t &True, uint64_t &False) {
#if LLVM_VERSION_MAJOR >= 16
  return llvm::extractBranchWeights(I, True, False);
#else
  return I.extractProfMetadata(True, False);
#endif
}

// Forgets what a function (or a call) was known not to do to memory: readnone, readonly and
// friends (LLVM 14) became one memory effect (LLVM 16+). For code that now writes the ring.
template <typename T> inline void forgetMemoryEffects(T &FnOrCall) {
#if LLVM_VERSION_MAJOR >= 16
  FnOrCall.setMemoryEffects(llvm::MemoryEffects::unknown());
#else
  for (llvm::Attribute::AttrKind K :
       {llvm::Attribute::ReadNone, llvm::Attribute::ReadOnly, llvm::Attribute::WriteOnly,
        llvm::Attribute::ArgMemOnly, llvm::Attribute::InaccessibleMemOnly,
        llvm::Attribute::InaccessibleMemOrArgMemOnly})
    FnOrCall.removeFnAttr(K);
#endif
  FnOrCall.removeFnAttr(llvm::Attribute::Speculatable);
}

// Moves every block of From to the start of To (LLVM 16+: Function::splice).
inline void moveBody(llvm::Function &From, llvm::Function &To) {
#if LLVM_VERSION_MAJOR >= 16
  To.splice(To.begin(), &From);
#else
  To.getBasicBlockList().splice(To.begin(), From.getBasicBlockList());
#endif
}

} // namespace crashtrail

#endif
