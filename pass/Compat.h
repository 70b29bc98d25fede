//===- Compat.h - the few LLVM API differences between LLVM 14 and LLVM 19 --------------===//
#ifndef CRASHTRAIL_PASS_COMPAT_H
#define CRASHTRAIL_PASS_COMPAT_H

#include "llvm/ADT/StringRef.h"

namespace crashtrail {

// StringRef::startswith (LLVM 14) became starts_with (LLVM 16+, the old name removed in 19).
inline bool hasPrefix(llvm::StringRef S, llvm::StringRef Prefix) {
  return S.substr(0, Prefix.size()) == Prefix;
}

} // namespace crashtrail

#endif
