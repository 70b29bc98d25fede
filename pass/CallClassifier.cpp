//===- CallClassifier.cpp - which calls end a record ----------------------------------===//
#include "CallClassifier.h"

#include "CarriedAccumulator.h"
#include "Compat.h"
#include "crashtrail/abi.h"
#include "llvm/IR/GlobalAlias.h"
#include "llvm/IR/Function.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/Instructions.h"
#include "llvm/IR/IntrinsicInst.h"

using namespace llvm;

namespace crashtrail {

// C library functions that never call back into the program (no function pointers, no
// handlers). Memory, string, number conversion, math and plain I/O. Missing a function here
// only costs a flush; listing one wrongly would reorder records, so the list is conservative:
// nothing that takes a callback (qsort, bsearch, atexit, pthread_create, signal), nothing that
// runs handlers (exit, raise, abort: those are noreturn and flushed anyway), nothing that
// returns twice (setjmp).
static bool isNoCallbackLibFunc(LibFunc LF) {
  switch (LF) {
  case LibFunc_memcpy: case LibFunc_memmove: case LibFunc_memset: case LibFunc_memcmp:
  case LibFunc_memchr: case LibFunc_memrchr: case LibFunc_bcmp: case LibFunc_bcopy:
  case LibFunc_bzero: case LibFunc_memccpy: case LibFunc_mempcpy:
  case LibFunc_strlen: case LibFunc_strnlen: case LibFunc_strcmp: case LibFunc_strncmp:
  case LibFunc_strcpy: case LibFunc_strncpy: case LibFunc_strcat: case LibFunc_strncat:
  case LibFunc_strchr: case LibFunc_strrchr: case LibFunc_strstr: case LibFunc_strspn:
  case LibFunc_strcspn: case LibFunc_strpbrk: case LibFunc_strdup: case LibFunc_strndup:
  case LibFunc_stpcpy: case LibFunc_stpncpy: case LibFunc_strcasecmp: case LibFunc_strncasecmp:
  case LibFunc_strcoll: case LibFunc_strxfrm: case LibFunc_strtok: case LibFunc_strtok_r:
  case LibFunc_strtol: case LibFunc_strtoul: case LibFunc_strtoll: case LibFunc_strtoull:
  case LibFunc_strtod: case LibFunc_strtof: case LibFunc_strtold: case LibFunc_atoi:
  case LibFunc_atol: case LibFunc_atoll: case LibFunc_atof:
  case LibFunc_malloc: case LibFunc_calloc: case LibFunc_realloc: case LibFunc_free:
  case LibFunc_valloc: case LibFunc_memalign: case LibFunc_aligned_alloc:
  case LibFunc_posix_memalign: case LibFunc_reallocf:
  case LibFunc_abs: case LibFunc_labs: case LibFunc_llabs: case LibFunc_isdigit:
  case LibFunc_isascii: case LibFunc_toascii:
  case LibFunc_sqrt: case LibFunc_sqrtf: case LibFunc_sqrtl: case LibFunc_sin: case LibFunc_sinf:
  case LibFunc_cos: case LibFunc_cosf: case LibFunc_tan: case LibFunc_exp: case LibFunc_expf:
  case LibFunc_exp2: case LibFunc_log: case LibFunc_logf: case LibFunc_log2: case LibFunc_log10:
  case LibFunc_pow: case LibFunc_powf: case LibFunc_floor: case LibFunc_floorf:
  case LibFunc_ceil: case LibFunc_ceilf: case LibFunc_fabs: case LibFunc_fabsf:
  case LibFunc_fmod: case LibFunc_fmodf: case LibFunc_round: case LibFunc_trunc:
  case LibFunc_atan: case LibFunc_atan2: case LibFunc_asin: case LibFunc_acos:
  case LibFunc_sinh: case LibFunc_cosh: case LibFunc_tanh: case LibFunc_ldexp: case LibFunc_frexp:
  case LibFunc_modf: case LibFunc_fmin: case LibFunc_fmax: case LibFunc_copysign:
  case LibFunc_nearbyint: case LibFunc_rint:
  case LibFunc_printf: case LibFunc_fprintf: case LibFunc_sprintf: case LibFunc_snprintf:
  case LibFunc_vprintf: case LibFunc_vfprintf: case LibFunc_vsprintf: case LibFunc_vsnprintf:
  case LibFunc_puts: case LibFunc_putchar: case LibFunc_fputs: case LibFunc_fputc:
  case LibFunc_putc: case LibFunc_fwrite: case LibFunc_fread: case LibFunc_fgets:
  case LibFunc_fgetc: case LibFunc_getc: case LibFunc_getchar: case LibFunc_ungetc:
  case LibFunc_fopen: case LibFunc_fdopen: case LibFunc_fseek: case LibFunc_ftell:
  case LibFunc_fseeko: case LibFunc_ftello: case LibFunc_rewind: case LibFunc_feof:
  case LibFunc_ferror: case LibFunc_fileno: case LibFunc_sscanf: case LibFunc_scanf:
  case LibFunc_fscanf: case LibFunc_perror:
  case LibFunc_read: case LibFunc_write: case LibFunc_open: case LibFunc_stat:
  case LibFunc_fstat: case LibFunc_lstat: case LibFunc_access: case LibFunc_gettimeofday:
  case LibFunc_times: case LibFunc_getenv: case LibFunc_htonl: case LibFunc_htons:
  case LibFunc_ntohl: case LibFunc_ntohs:
  case LibFunc_Znwm: case LibFunc_Znam: case LibFunc_ZdlPv: case LibFunc_ZdaPv:
  case LibFunc_ZdlPvm: case LibFunc_ZdaPvm: case LibFunc_ZnwmRKSt9nothrow_t:
  case LibFunc_ZnamRKSt9nothrow_t:
    return true;
  default:
    return false;
  }
}

static bool isRuntimeSymbol(StringRef Name) { return hasPrefix(Name, "__crashtrail_"); }

bool isRecordingCall(const CallBase &CB, const TargetLibraryInfo &TLI) {
  if (CB.isInlineAsm()) return false; // cannot run instrumented code
  if (isa<IntrinsicInst>(CB)) {
    // Intrinsics lower to inline code or to libc primitives; the statepoint/patchpoint family
    // (which do call) is not produced by C and C++ front ends. A trap (llvm.trap,
    // llvm.ubsantrap: __builtin_trap, -fsanitize-trap) is a crash: the path up to it is
    // flushed first, as before a noreturn call, since at the trap the accumulator is dead
    // and its location often gone.
    return CB.doesNotReturn();
  }
  const Function *Callee = CB.getCalledFunction();
  if (!Callee) return true; // indirect: may reach anything
  if (isRuntimeSymbol(Callee->getName())) return false;
  if (CB.doesNotReturn() || Callee->doesNotReturn()) return true; // cold; keeps the crash path
  LibFunc LF;
  if (isa<CallInst>(CB) && TLI.getLibFunc(*Callee, LF) && TLI.has(LF) && isNoCallbackLibFunc(LF))
    return false;
  return true;
}

bool mayComeBackElsewhere(const CallBase &CB) {
  if (CB.hasFnAttr(Attribute::ReturnsTwice)) return true;
  const Function *F = CB.getCalledFunction();
  if (!F) return false;
  StringRef N = F->getName();
  return N == "swapcontext" || N == "setcontext" || N == "jump_fcontext" ||
         N == "ontop_fcontext";
}

bool calleeMayBeForeign(const CallBase &CB) {
  const Function *Callee = CB.getCalledFunction();
  if (!Callee) return true;
  // A hidden function (Lua's LUAI_FUNC, `visibility("hidden")`) is defined in the module that
  // calls it by name, even when this translation unit only declares it.
  if (Callee->hasHiddenVisibility()) return false;
  return Callee->isDeclaration() || !Callee->isDSOLocal() || Callee->isInterposable();
}

bool mayBeEnteredFromOutside(const Function &F) {
  return !F.hasLocalLinkage() || F.hasAddressTaken();
}

// Whether a call hands a function to its callee (qsort's comparator, atexit's handler): a
// function, or with typed pointers (LLVM 14) any pointer to one (gawk's assoc_list hands
// qsort a comparator it chose at run time).
static bool passesFunction(const CallBase &CB) {
  for (const Use &A : CB.args()) {
    const Value *V = A->stripPointerCasts();
    if (auto *GA = dyn_cast<GlobalAlias>(V)) V = GA->getAliasee()->stripPointerCasts();
    if (isa<Function>(V)) return true;
#if LLVM_VERSION_MAJOR < 15
    if (auto *PT = dyn_cast<PointerType>(A->getType()))
      if (!PT->isOpaque() && PT->getPointerElementType()->isFunctionTy()) return true;
#endif
  }
  return false;
}

bool mayDeferRecord(const CallInst &CI) {
  const Function *Callee = CI.getCalledFunction();
  const Function &Caller = *CI.getFunction();
  // The deferred path lives in the caller's frame until the call returns: a frame that an
  // exception unwinds through, or that a longjmp skips, would lose it. So the call must not
  // unwind out of the caller, and a function that calls setjmp (whose frames below a longjmp
  // come back to it) defers nothing.
  return Callee && !CI.isMustTailCall() && !mayComeBackElsewhere(CI) &&
         !CI.doesNotReturn() && !Callee->doesNotReturn() && !callCarriesAcc(CI) &&
         (CI.doesNotThrow() || Caller.doesNotThrow()) && !Caller.callsFunctionThatReturnsTwice() &&
         !(calleeMayBeForeign(CI) && passesFunction(CI));
}

bool isTailPositionCall(const CallInst &CI) {
  auto *Ret = dyn_cast_or_null<ReturnInst>(CI.getNextNonDebugInstruction());
  if (!Ret || !CI.isTailCall() || mayComeBackElsewhere(CI) ||
      CI.getFunction()->getFnAttribute("disable-tail-calls").getValueAsBool())
    return false;
  // A function that returns nothing may drop the callee's result: `call i32 @f(); ret void`
  // is a tail call for codegen too (a `jmp`; SQLite's `pthreadMutexEnter`).
  Value *RV = Ret->getReturnValue();
  return !RV || RV == &CI;
}

std::string calleeName(const CallBase &CB) {
  const Function *Callee = CB.getCalledFunction();
  if (!Callee) {
    if (auto *GA = dyn_cast<GlobalAlias>(CB.getCalledOperand()->stripPointerCasts()))
      return GA->getName().str();
    return "";
  }
  return Callee->getName().str();
}

} // namespace crashtrail
