//===- MetadataWriter.cpp - the decoding metadata, as non-allocated ELF sections --------===//
#include "MetadataWriter.h"

#include "Compat.h"

#include "crashtrail/abi.h"

#include "llvm/Demangle/Demangle.h"
#include "llvm/IR/Function.h"
#include "llvm/Support/raw_ostream.h"

using namespace llvm;

namespace crashtrail {

static void putU8(std::string &S, uint8_t V) { S.push_back((char)V); }
static void putU16(std::string &S, uint16_t V) {
  for (int I = 0; I < 2; ++I) putU8(S, (uint8_t)(V >> (8 * I)));
}
static void putU32(std::string &S, uint32_t V) {
  for (int I = 0; I < 4; ++I) putU8(S, (uint8_t)(V >> (8 * I)));
}
static void putU64(std::string &S, uint64_t V) {
  for (int I = 0; I < 8; ++I) putU8(S, (uint8_t)(V >> (8 * I)));
}
static void putUleb(std::string &S, uint64_t V) {
  do {
    uint8_t Byte = V & 0x7f;
    V >>= 7;
    putU8(S, Byte | (V ? 0x80 : 0));
  } while (V);
}

static std::string filePath(const DIFile *F) {
  if (!F) return "";
  std::string Name = F->getFilename().str(), Dir = F->getDirectory().str();
  if (Name.empty() || Name[0] == '/' || Dir.empty()) return Name;
  return Dir + "/" + Name;
}

static std::string displayName(StringRef Linkage, const DISubprogram *SP) {
  if (hasPrefix(Linkage, "_Z")) {
    std::string D = demangle(Linkage.str());
    if (D != Linkage) return D;
  }
  if (SP && !SP->getName().empty() && Linkage.empty()) return SP->getName().str();
  return Linkage.str();
}

static std::string subprogramName(const DISubprogram *SP) {
  if (!SP) return "?";
  return displayName(SP->getLinkageName().empty() ? SP->getName() : SP->getLinkageName(), SP);
}

MetadataWriter::Unit &MetadataWriter::unitFor(const Function &F) {
  Comdat *C = const_cast<Comdat *>(F.getComdat());
  auto &Slot = Units[C];
  if (!Slot) {
    Slot = std::make_unique<Unit>();
    Slot->Group = C;
  }
  return *Slot;
}

unsigned MetadataWriter::str(Unit &U, const std::string &S) {
  auto It = U.StringIds.find(S);
  if (It != U.StringIds.end()) return It->second;
  unsigned Id = U.Strings.size();
  U.Strings.push_back(S);
  U.StringIds[S] = Id;
  return Id;
}

// Inline frame id + 1 for a location (0: not inlined). A frame is the callee's name, where
// it was called from, and the frame of that call site.
unsigned MetadataWriter::inlineFrame(Unit &U, const DILocation *L) {
  const DILocation *IA = L->getInlinedAt();
  if (!IA) return 0;
  auto It = U.InlineIds.find(IA);
  if (It != U.InlineIds.end()) return It->second;
  unsigned Parent = inlineFrame(U, IA);
  unsigned Callee = str(U, subprogramName(L->getScope()->getSubprogram()));
  unsigned File = str(U, filePath(IA->getFile()));
  putUleb(U.Inlines, Parent);
  putUleb(U.Inlines, Callee);
  putUleb(U.Inlines, File);
  putUleb(U.Inlines, IA->getLine());
  putUleb(U.Inlines, IA->getColumn());
  unsigned Id = ++U.NumInlines;
  U.InlineIds[IA] = Id;
  return Id;
}

std::string MetadataWriter::symbolName(const GlobalValue *GV) {
  std::string Name;
  raw_string_ostream OS(Name);
  Mang.getNameWithPrefix(OS, GV, false);
  return OS.str();
}

void MetadataWriter::add(const FunctionPlan &P) {
  Function &F = *P.F;
  Unit &U = unitFor(F);
  const DISubprogram *SP = F.getSubprogram();
  std::string &B = U.Body;
  if (P.Table && !U.TableSet) {
    U.TableSet = true;
    U.TableSymbol = symbolName(P.Table);
    U.TableBase = U.Group ? P.TableBase : 0;
  }
  if (P.Table)
    U.TableEntries = std::max(U.TableEntries, P.TableBase + P.NumTableEntries - U.TableBase);
  U.NumFunctions++;
  U.Relocs.push_back({B.size(), symbolName(P.Anchor)});
  putU64(B, 0);
  putUleb(B, str(U, F.getName().str()));
  putUleb(B, str(U, displayName(F.getName(), SP)));
  putUleb(B, str(U, SP ? filePath(SP->getFile()) : ""));
  putUleb(B, SP ? SP->getLine() : 0);
  putUleb(B, P.Flags);
  putUleb(B, P.SiteBits);
  putUleb(B, P.SiteBlocks.size());
  for (unsigned BI : P.SiteBlocks) {
    putUleb(B, BI);
    putUleb(B, P.Blocks[BI].SiteKind);
  }
  putUleb(B, P.Blocks.size());
  for (const BlockPlan &BP : P.Blocks) {
    unsigned Flags = (BP.Check ? CT_BB_CHECK : 0) | (BP.TableEntry >= 0 ? CT_BB_TABLE : 0) |
                     (BP.Stamped ? CT_BB_STAMPED : 0) |
                     (BP.Flush != BlockPlan::FlushAlways ? CT_BB_ELIDE : 0) |
                     (BP.LoopHeader ? CT_BB_LOOP : 0);
    putUleb(B, Flags);
    if (BP.Check) putUleb(B, BP.Budget);
    if (BP.TableEntry >= 0) putUleb(B, P.TableBase + BP.TableEntry - U.TableBase);
    putUleb(B, BP.Term);
    switch (BP.Term) {
    case CT_TERM_JUMP:
      putUleb(B, BP.Succs[0].Block);
      break;
    case CT_TERM_BRANCH:
      putUleb(B, BP.Succs.size());
      for (const Successor &S : BP.Succs) {
        putUleb(B, S.Block);
        putUleb(B, S.C.Length);
        putUleb(B, S.C.Value);
      }
      break;
    case CT_TERM_CALL:
    case CT_TERM_FLOW:
      putUleb(B, BP.Callee.empty() ? 0 : str(U, BP.Callee) + 1);
      putUleb(B, BP.Succs.empty() ? 0 : BP.Succs[0].Block);
      break;
    case CT_TERM_DEFER:
      putUleb(B, str(U, BP.Callee) + 1);
      putUleb(B, BP.Succs[0].Block);
      break;
    case CT_TERM_INVOKE:
      putUleb(B, BP.Callee.empty() ? 0 : str(U, BP.Callee) + 1);
      putUleb(B, BP.Succs[0].Block);
      putUleb(B, BP.Succs[1].Block);
      break;
    default:
      break;
    }
    putUleb(B, BP.Lines.size());
    for (const DILocation *L : BP.Lines) {
      putUleb(B, str(U, filePath(L->getFile())));
      putUleb(B, L->getLine());
      putUleb(B, L->getColumn());
      putUleb(B, inlineFrame(U, L));
    }
  }
}

static std::string quoteSymbol(const std::string &S) {
  bool Plain = !S.empty();
  for (char C : S)
    Plain &= isalnum((unsigned char)C) || C == '_' || C == '.' || C == '$';
  if (Plain) return S;
  std::string Q = "\"";
  for (char C : S) {
    if (C == '"' || C == '\\') Q.push_back('\\');
    Q.push_back(C);
  }
  return Q + "\"";
}

static void asciiLines(raw_string_ostream &OS, const std::string &Bytes, size_t From, size_t To) {
  for (size_t I = From; I < To;) {
    OS << "\t.ascii \"";
    for (size_t N = 0; I < To && N < 120; ++I, ++N) {
      unsigned char C = Bytes[I];
      if (C >= 0x20 && C < 0x7f && C != '"' && C != '\\') OS << (char)C;
      else OS << '\\' << (char)('0' + (C >> 6)) << (char)('0' + ((C >> 3) & 7)) << (char)('0' + (C & 7));
    }
    OS << "\"\n";
  }
}

std::string MetadataWriter::render(const Unit &U) {
  std::string Head, Tail;
  putUleb(Tail, U.Strings.size());
  for (const std::string &S : U.Strings) {
    putUleb(Tail, S.size());
    Tail += S;
  }
  putUleb(Tail, U.NumInlines);
  Tail += U.Inlines;
  size_t BodyAt = CT_META_HEADER_BYTES + Tail.size();
  putU32(Head, CT_META_MAGIC);
  putU16(Head, CT_META_VERSION);
  putU16(Head, U.TableSet ? CT_UNIT_TABLES : 0);
  putU32(Head, (uint32_t)(BodyAt + U.Body.size()));
  putU32(Head, 0);
  size_t TableAt = Head.size();
  putU64(Head, 0);
  putU32(Head, U.TableEntries);
  putU32(Head, U.NumFunctions);
  std::string All = Head + Tail + U.Body;

  std::string Asm;
  raw_string_ostream OS(Asm);
  OS << "\t.pushsection " CT_SECTION_META ",\"";
  if (U.Group) OS << "G\",@progbits," << quoteSymbol(U.Group->getName().str()) << ",comdat\n";
  else OS << "\",@progbits\n";
  struct Reloc {
    size_t At;
    std::string Symbol;
    uint64_t Addend;
  };
  std::vector<Reloc> Relocs;
  if (U.TableSet) Relocs.push_back({TableAt, U.TableSymbol, U.TableBase * 16ull});
  for (const auto &R : U.Relocs) Relocs.push_back({BodyAt + R.first, R.second, 0});
  size_t At = 0;
  for (const Reloc &R : Relocs) {
    asciiLines(OS, All, At, R.At);
    OS << "\t.quad " << quoteSymbol(R.Symbol);
    if (R.Addend) OS << "+" << R.Addend;
    OS << "\n";
    At = R.At + 8;
  }
  asciiLines(OS, All, At, All.size());
  OS << "\t.popsection\n";
  return OS.str();
}

void MetadataWriter::emit() {
  for (auto &KV : Units)
    if (KV.second->NumFunctions) M.appendModuleInlineAsm(render(*KV.second));
}

} // namespace crashtrail
