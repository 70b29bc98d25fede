//===- SlowPathAsm.cpp - flushes whose slow path is out of line, in a cold section ---------===//
//
// A flush's slow path (a chunk boundary: once per 1022 records; with two instrumented modules,
// every stamped flush) used to be a cold block of its function: 20 to 50 bytes at each of the
// thousands of flush sites, in the function's own pages, which the kernel maps in with the hot
// code around them (Lua's text grew 3.4x, half of it slow paths). Here the whole flush is one
// inline assembly statement whose cold part sits in another section, so it stays on disk:
//
//       test $16383, %eXX            (stamped: test %eXX, mask(%rip), 0 once stamping is on)
//       je 1f
//       movq $(desc - f), (%rXX)     the record id: the last four bytes before label 2
//   2:  movq ACC, 8(%rXX)
//       addq $16, %rXX
//       movq %rXX, POS
//   3:
//     .pushsection .text.unlikely.ct.f  (in f's comdat group, if any)
//   1:  leaq -128(%rsp), %rsp        the red zone: f may be a leaf
//       pushq ACC
//       callq __crashtrail_write_here3  (stamped: __crashtrail_stamped_write_here3)
//       jmp 3b                          rel32, always
//       cmpl $(2b - .), %eax            never run: its immediate carries the offset to label 2
//     .popsection
//
// The fast path is the same seven instructions as before. The module's trampoline (one per
// ELF module: hidden, in a comdat) finds label 3 from the `jmp` at its return address and
// label 2 from the `cmp` after it, reads the record id from the immediate before label 2, and
// calls the runtime (CT_SYM_WRITE_SLOW, preserve_most), which writes the whole record, after a
// refill or with a stamp; it then returns to the fragment (`ret $136` drops the accumulator
// and the red zone), which jumps to label 3: 21 to 25 bytes in all. The return goes where the
// call came from, so the CPU predicts it; until 2026-12-01 the trampoline returned to label 3
// itself (`__crashtrail_write_here2`, whose fragments ended in data for it), a mispredicted
// return on every slow path, which a program with two instrumented modules takes at every
// stamped flush. The stamped trampoline also stamps and writes the record itself when nothing
// else is due (see `trampoline`). While the runtime runs, the trampoline's return address is
// label 3 (the fragment's address until it writes it there, and again in its last
// instructions, which the post-mortem maps to label 3 as well), so unwinders (gdb, the
// post-mortem's) step from the runtime into f at the flush's line, with f's registers (the
// trampoline saves what it uses and what preserve_most does not keep, r11). The `cmp` keeps
// the cold section disassembling as code. Only the fragment's own four instructions have no
// unwind information: the post-mortem recognises them by these exact bytes
// (postmortem/flush_fragment.c), so change both together, and rename the trampolines when
// their contract changes (a link may hold objects of an older pass, whose fragments need
// theirs).
//
// What the asm statement tells the compiler: it writes the position (a memory output) and
// clobbers the flags and the vector registers (the runtime is C; the old cold call clobbered
// them too): every general register survives, so a leaf stays a leaf with the registers it
// had. Only the flush's own block pays for the vector registers it must keep.
// Invariants: the fragment is never entered but from its own flush (its section is f's
// alone, and in f's comdat group, so --gc-sections and comdat folding drop it with f); the
// trampoline preserves every general register and returns to the fragment's jump with f's
// stack pointer; the record id's store is the instruction right before label 2 and ends with
// its 32-bit immediate.
//
//===----------------------------------------------------------------------------------------===//
#include "SlowPathAsm.h"

#include "Options.h"
#include "RuntimeGlue.h"

#include "crashtrail/abi.h"

#include "llvm/ADT/StringExtras.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Module.h"

using namespace llvm;

namespace crashtrail {

bool plainAsmName(StringRef S) {
  if (S.empty()) return false;
  for (char C : S)
    if (!isAlnum(C) && C != '_' && C != '.') return false;
  return true;
}

std::string coldFragmentSection(Function &F, const Options &O) {
  if (O.ComputedRecordIds || O.InlineSlowPaths || !plainAsmName(F.getName())) return "";
  std::string S = ".text.unlikely.ct." + F.getName().str() + ",\"ax";
  if (const Comdat *C = F.getComdat()) {
    if (!plainAsmName(C->getName())) return "";
    return S + "G\",@progbits," + C->getName().str() + ",comdat";
  }
  return S + "\",@progbits";
}

// The module's trampoline Name, calling the runtime's Slow. On entry: [rsp] the fragment's
// return address (its `jmp` to label 3, then the `cmp` whose immediate is the offset to label
// 2), [rsp+8] the accumulator, rsp+144 f's stack pointer (the CFA). It keeps every register
// (preserve_most keeps all but r11: saved here), writes label 3 over its return address before
// anything can stop it for long (the unwinder reads that slot: the fragment's address until
// then, and again in its last instructions), puts the fragment's address back before it
// returns there with `ret $136` (the accumulator and the red zone dropped), so the return is
// the one the call predicted; the fragment jumps to label 3.
// Stamped: with stamping on, off a chunk boundary and with no wrap of the stamp's low 16 bits
// due, the stamp is taken and the record written here, without the runtime: a stamped flush
// of a program with two instrumented modules (an executable and its instrumented shared
// library) takes this path every time, and the runtime's C entry, with the registers it saves,
// was most of that cost.
static std::string trampoline(StringRef Name, StringRef Slow, bool Stamped) {
  std::string N = Name.str();
  std::string S;
  S += "\t.pushsection .text." + N + ",\"axG\",@progbits," + N + ",comdat\n";
  S += "\t.weak " + N + "\n\t.hidden " + N + "\n\t.type " + N + ",@function\n";
  S += "\t.p2align 4\n" + N + ":\n";
  S += "\t.cfi_startproc\n\t.cfi_def_cfa_offset 144\n\t.cfi_offset %rip, -144\n";
  int Off = -144; // where each saved register is, below the CFA (f's stack pointer)
  for (const char *R : {"rdi", "rsi", "rdx", "rcx", "r11", "rbp", "rax"})
    S += std::string("\tpushq %") + R + "\n\t.cfi_adjust_cfa_offset 8\n\t.cfi_offset %" + R +
         ", " + std::to_string(Off -= 8) + "\n";
  S += "\tmovq 56(%rsp), %rax\n"       // the fragment's jmp, to return to
       "\tmovslq 1(%rax), %rcx\n"
       "\tleaq 5(%rax,%rcx), %rcx\n"   // label 3, the jump's target: where the flush ends
       "\tmovq %rcx, 56(%rsp)\n"       // the return address, for unwinders
       "\tmovslq 6(%rax), %rdx\n"
       "\tleaq 6(%rax,%rdx), %rdx\n"   // label 2
       "\tmovslq -4(%rdx), %rdx\n"     // the record id, the immediate before it
       "\tmovq 64(%rsp), %rcx\n";      // the accumulator
  S += "\tmovq " CT_SYM_RING_POS "@gottpoff(%rip), %rdi\n\taddq %fs:0, %rdi\n";
  std::string SlowLabel = ".L" + N + ".slow", DoneLabel = ".L" + N + ".done";
  if (Stamped) {
    // The runtime's own test order (ring.c, ct_module_stamp and ct_put_slot): the module
    // stamps (its chunk mask 0), the position is inside a chunk, the stamp does not wrap.
    S += "\tcmpl $0, " CT_SYM_MODULE "+4(%rip)\n\tjne " + SlowLabel + "\n"
         "\tmovq (%rdi), %rsi\n\ttestl $" + std::to_string(CT_CHUNK_BYTES - 1) + ", %esi\n"
         "\tje " + SlowLabel + "\n"
         "\tmovq " CT_SYM_STAMP "@gottpoff(%rip), %r11\n"
         // bits 48..63 hold the stamp's low 16 bits: a carry out is their wrap. All 64 bits
         // at once: a 16-bit add in memory and the record's 64-bit load of it after would
         // miss store-to-load forwarding (measured: most of this path's time).
         "\tmovabsq $" + std::to_string(CT_STAMP_INCREMENT) + ", %rbp\n"
         "\taddq %fs:(%r11), %rbp\n\tjc " + SlowLabel + "\n"
         "\tmovq %rbp, %fs:(%r11)\n"
         "\torq %rbp, %rdx\n"
         "\tmovq %rdx, (%rsi)\n\tmovq %rcx, 8(%rsi)\n\taddq $16, %rsi\n\tmovq %rsi, (%rdi)\n"
         "\tjmp " + DoneLabel + "\n" + SlowLabel + ":\n";
  }
  S += "\tleaq " CT_SYM_MODULE "(%rip), %rsi\n";
  S += "\tmovq %rsp, %rbp\n\t.cfi_def_cfa_register %rbp\n\tandq $-16, %rsp\n";
  S += "\tcallq *" + Slow.str() + "@GOTPCREL(%rip)\n";
  S += "\tmovq %rbp, %rsp\n\t.cfi_def_cfa_register %rsp\n";
  if (Stamped) S += DoneLabel + ":\n";
  S += "\tmovq %rax, 56(%rsp)\n";     // the fragment's jmp again: a predicted return
  for (const char *R : {"rax", "rbp", "r11", "rcx", "rdx", "rsi", "rdi"})
    S += std::string("\tpopq %") + R + "\n\t.cfi_adjust_cfa_offset -8\n\t.cfi_restore %" + R +
         "\n";
  S += "\tretq $136\n\t.cfi_endproc\n\t.size " + N + ", .-" + N + "\n\t.popsection\n";
  return S;
}

static void ensureTrampolines(RuntimeGlue &G) {
  if (G.TrampolinesEmitted) return;
  G.TrampolinesEmitted = true;
  G.M.appendModuleInlineAsm(trampoline(CT_SYM_WRITE_HERE, CT_SYM_WRITE_SLOW, false));
  G.M.appendModuleInlineAsm(
      trampoline(CT_SYM_STAMPED_WRITE_HERE, CT_SYM_STAMPED_WRITE_SLOW, true));
}

// The fragment at label 1 in Section (see the file comment): the accumulator (operand Acc)
// pushed, the trampoline called, which returns here; the jump to label 3; then the `cmp`
// whose immediate is the offset to label 2. flush_fragment.c recognises these bytes.
static std::string coldFragment(const std::string &Section, const std::string &Acc,
                                const std::string &Trampoline) {
  return ".pushsection " + Section + "\n"
         "1:\n\t"
         "leaq -128(%rsp), %rsp\n\t"
         "pushq " + Acc + "\n\t"
         "callq " + Trampoline + "\n\t"
         ".byte 0xe9\n\t"       // jmp 3b, always rel32: the trampoline reads its offset
         ".long 3b - . - 4\n\t"
         ".byte 0x3d\n\t"       // cmpl $imm32, %eax: never run, the offset decodes as code
         ".long 2b - .\n\t"
         ".popsection";
}

// What a flush's asm statement clobbers besides its operands: the flags and the vector
// registers (the runtime is C).
static std::string clobbers() {
  std::string C = ",~{dirflag},~{fpsr},~{flags}";
  for (unsigned I = 0; I < 16; ++I) C += ",~{xmm" + std::to_string(I) + "}";
  return C;
}

void emitOutOfLineFlush(IRBuilder<> &B, RuntimeGlue &G, const std::string &Section, Value *Pos,
                        Value *Acc, bool Stamped, GlobalValue *Anchor) {
  ensureTrampolines(G);
  // Operands: $0 the position (the result: moved past the record), $1 the position variable
  // (an indirect output), $2 the loaded position (tied to $0), $3 the accumulator, $4 the
  // descriptor, $5 the anchor, $6 (stamped) the module's chunk mask.
  std::string Asm = Stamped ? "test ${0:k}, $6\n\t" : "test $$16383, ${0:k}\n\t";
  Asm += "je 1f\n\t"
         "movq $$(${4:c} - ${5:c}), ($0)\n"
         "2:\n\t"
         "movq $3, 8($0)\n\t"
         "addq $$16, $0\n\t"
         "movq $0, $1\n"
         "3:\n\t"
         + coldFragment(Section, "$3", Stamped ? CT_SYM_STAMPED_WRITE_HERE : CT_SYM_WRITE_HERE);
  std::string Cons = "=r,=*m,0,re,i,i";
  if (Stamped) Cons += ",*m";
  Cons += clobbers();
  std::vector<Type *> Params{G.RingPos->getType(), Pos->getType(), G.I64,
                             G.ModuleDesc->getType(), Anchor->getType()};
  std::vector<Value *> Args{G.RingPos, Pos, Acc, G.ModuleDesc, Anchor};
  if (Stamped) {
    Constant *Mask = G.chunkMask();
    Params.push_back(Mask->getType());
    Args.push_back(Mask);
  }
  FunctionType *FT = FunctionType::get(Pos->getType(), Params, false);
  CallInst *CI = B.CreateCall(FT, InlineAsm::get(FT, Asm, Cons, /*hasSideEffects=*/true), Args);
  CI->addParamAttr(0, Attribute::get(B.getContext(), Attribute::ElementType, G.SlotPtrTy));
  if (Stamped)
    CI->addParamAttr(5, Attribute::get(B.getContext(), Attribute::ElementType,
                                       B.getInt32Ty()));
  CI->setDoesNotThrow();
}

void emitDeferMark(IRBuilder<> &B, RuntimeGlue &G, const std::string &Section, Value *Acc,
                   GlobalValue *Anchor) {
  ensureTrampolines(G);
  // Operands: $0 the accumulator, $1 the descriptor, $2 the anchor, $3 the module's chunk
  // mask. The test is the mark's record id against the mask: 0 (stamping on) always takes the
  // fragment; CT_CHUNK_BYTES - 1 takes it only where the id's low 14 bits are all 0 (one
  // function in 16384), which writes a mark nobody needed: harmless, the decoder skips marks.
  // The id is the test's immediate, right before label 2, where the trampoline reads it; the
  // fragment is a stamped flush's, so the post-mortem recognises it (flush_fragment.c). The
  // ring and the position the trampoline writes are memory the compiler never holds across
  // the call that follows: a memory clobber costs nothing here.
  std::string Asm = "testl $$(${1:c} - ${2:c} + " + std::to_string(CT_REC_DEFER_MARK) +
                    "), $3\n"
                    "2:\n\t"
                    "je 1f\n"
                    "3:\n\t"
                    + coldFragment(Section, "$0", CT_SYM_STAMPED_WRITE_HERE);
  std::string Cons = "re,i,i,*m,~{memory}" + clobbers();
  Constant *Mask = G.chunkMask();
  std::vector<Type *> Params{G.I64, G.ModuleDesc->getType(), Anchor->getType(), Mask->getType()};
  std::vector<Value *> Args{Acc, G.ModuleDesc, Anchor, Mask};
  FunctionType *FT = FunctionType::get(B.getVoidTy(), Params, false);
  CallInst *CI = B.CreateCall(FT, InlineAsm::get(FT, Asm, Cons, /*hasSideEffects=*/true), Args);
  CI->addParamAttr(3, Attribute::get(B.getContext(), Attribute::ElementType, B.getInt32Ty()));
  CI->setDoesNotThrow();
}

} // namespace crashtrail
