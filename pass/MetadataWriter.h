//===- MetadataWriter.h - the decoding metadata, as non-allocated ELF sections ----------===//
//
// Serialises function plans into the unit format of crashtrail/abi.h and emits each unit as
// module-level assembly in a section without the alloc flag: it is linked, kept by
// `objcopy --only-keep-debug`, and never loaded. Function addresses (and the table address)
// are assembler relocations, resolved by the linker to link-time addresses. Functions in a
// comdat get a unit in the same comdat group, so a discarded duplicate takes its metadata
// with it.
//
//===----------------------------------------------------------------------------------------===//
#ifndef CRASHTRAIL_PASS_METADATAWRITER_H
#define CRASHTRAIL_PASS_METADATAWRITER_H

#include "FunctionPlan.h"

#include "llvm/ADT/MapVector.h"
#include "llvm/IR/Mangler.h"
#include "llvm/IR/Module.h"

#include <map>
#include <memory>
#include <string>

namespace crashtrail {

class MetadataWriter {
public:
  explicit MetadataWriter(llvm::Module &M) : M(M) {}
  // Records P (after instrumentation: it reads P's final flags).
  void add(const FunctionPlan &P);
  // Appends every unit to the module's inline assembly.
  void emit();

private:
  struct Unit {
    llvm::Comdat *Group = nullptr;
    std::string Body;                                  // function records
    std::vector<std::pair<size_t, std::string>> Relocs; // offset in Body -> symbol
    std::map<std::string, unsigned> StringIds;
    std::vector<std::string> Strings;
    std::map<const llvm::DILocation *, unsigned> InlineIds; // key: inlinedAt location
    std::string Inlines;
    unsigned NumInlines = 0, NumFunctions = 0;
    std::string TableSymbol;
    unsigned TableBase = 0, TableEntries = 0;
    bool TableSet = false;
  };

  Unit &unitFor(const llvm::Function &F);
  unsigned str(Unit &U, const std::string &S);
  unsigned inlineFrame(Unit &U, const llvm::DILocation *L);
  std::string symbolName(const llvm::GlobalValue *GV);
  std::string render(const Unit &U);

  llvm::Module &M;
  llvm::Mangler Mang;
  llvm::MapVector<llvm::Comdat *, std::unique_ptr<Unit>> Units;
};

} // namespace crashtrail

#endif
