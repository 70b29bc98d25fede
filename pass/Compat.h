//===- Compat.h - the few LLVM API differences between LLVM 14 and LLVM 19 --------------===//
#ifndef CRASHTRAIL_PASS_COMPAT_H
#define CRASHTRAIL_PASS_COMPAT_H

#include "llvm/ADT/StringRef.h"
#include "llvm/Config/llvm-config.h"
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

} // namespace crashtrail

#endif
