//===- RuntimeGlue.cpp - module-level symbols shared with the runtime -------------------===//
#include "RuntimeGlue.h"

#include "Compat.h"

#include "crashtrail/abi.h"

#include "llvm/IR/Constants.h"
#include "llvm/IR/InlineAsm.h"
#include "llvm/IR/IRBuilder.h"
#include "llvm/Transforms/Utils/ModuleUtils.h"

using namespace llvm;

namespace crashtrail {

// A hidden definition that every translation unit emits identically; the linker keeps one per
// ELF module, which is exactly the scope of a ring and of a module descriptor.
static void makePerModule(GlobalObject *G) {
  G->setVisibility(GlobalValue::HiddenVisibility);
  G->setComdat(G->getParent()->getOrInsertComdat(G->getName()));
}

static GlobalVariable *weakHiddenByte(Module &M, StringRef Name) {
  if (GlobalVariable *G = M.getGlobalVariable(Name, true)) return G;
  auto *G = new GlobalVariable(M, Type::getInt8Ty(M.getContext()), true,
                               GlobalValue::ExternalWeakLinkage, nullptr, Name);
  G->setVisibility(GlobalValue::HiddenVisibility);
  return G;
}

static Function *makeModuleHook(Module &M, StringRef Name, FunctionCallee Target,
                                ArrayRef<Value *> Args) {
  LLVMContext &C = M.getContext();
  Function *F = Function::Create(FunctionType::get(Type::getVoidTy(C), false),
                                 GlobalValue::LinkOnceODRLinkage, Name, M);
  makePerModule(F);
  F->addFnAttr(Attribute::NoUnwind);
  IRBuilder<> B(BasicBlock::Create(C, "", F));
  B.CreateCall(Target, Args);
  B.CreateRetVoid();
  return F;
}

void addModuleConstructor(Module &M, StringRef Name, FunctionCallee Target) {
  if (M.getFunction(Name)) return;
  Function *Ctor = makeModuleHook(M, Name, Target, {});
  appendToGlobalCtors(M, Ctor, 101, Ctor);
}

// A per-module stub, `void Name(void)`, preserve_most, that calls Target(Pos, Desc).
static Function *makeSlowStub(Module &M, StringRef Name, FunctionCallee Target, Constant *Pos,
                              Value *Desc) {
  if (Function *F = M.getFunction(Name)) return F;
  LLVMContext &C = M.getContext();
  Function *F = Function::Create(FunctionType::get(Type::getVoidTy(C), false),
                                 GlobalValue::LinkOnceODRLinkage, Name, M);
  makePerModule(F);
  F->setCallingConv(CallingConv::PreserveMost);
  F->addFnAttr(Attribute::NoUnwind);
  F->addFnAttr(Attribute::Cold);
  F->addFnAttr(Attribute::NoInline);
  F->addFnAttr("stackrealign"); // called from leaves with the stack as it is (Instrumenter)
  IRBuilder<> B(BasicBlock::Create(C, "", F));
  B.CreateCall(Target, {Pos, Desc})->setCallingConv(CallingConv::PreserveMost);
  B.CreateRetVoid();
  return F;
}

bool builtForExecutable(const Module &M) {
  return M.getPIELevel() != PIELevel::Default || M.getPICLevel() == PICLevel::NotPIC;
}

RuntimeGlue::RuntimeGlue(Module &M, bool ComputedRecordIds)
    : M(M), ComputedRecordIds(ComputedRecordIds) {
  LLVMContext &C = M.getContext();
  I64 = Type::getInt64Ty(C);
  SlotPtrTy = PointerType::getUnqual(I64);
  PointerType *BytePtr = PointerType::getUnqual(Type::getInt8Ty(C));
  IntegerType *I32 = Type::getInt32Ty(C);

  RingPos = M.getGlobalVariable(CT_SYM_RING_POS, true);
  if (!RingPos) {
    RingPos = new GlobalVariable(M, SlotPtrTy, false, GlobalValue::LinkOnceODRLinkage,
                                 ConstantPointerNull::get(SlotPtrTy), CT_SYM_RING_POS, nullptr,
                                 GlobalValue::InitialExecTLSModel);
    RingPos->setAlignment(Align(8));
    makePerModule(RingPos);
  }

  auto ExternalTLS = [&](StringRef Name) {
    if (GlobalVariable *G = M.getGlobalVariable(Name, true)) return G;
    return new GlobalVariable(M, I64, false, GlobalValue::ExternalLinkage, nullptr, Name,
                              nullptr, GlobalValue::InitialExecTLSModel);
  };
  StampOr = ExternalTLS(CT_SYM_STAMP_OR);
  Now = ExternalTLS(CT_SYM_NOW);
  // Code built for an executable (-fPIE, or not position-independent) is linked with the static
  // runtime, which defines these in the executable itself: a read is then one local-exec
  // `mov %fs:OFF`, where initial-exec loads the offset from the GOT first (the linker does not
  // relax it: the runtime's symbols are exported for instrumented shared objects). Tables mode
  // reads the clock at every entry and after every call.
  if (builtForExecutable(M)) {
    Now->setDSOLocal(true);
    StampOr->setDSOLocal(true);
  }

  ModuleDesc = M.getGlobalVariable(CT_SYM_MODULE, true);
  if (!ModuleDesc) {
    StructType *DescTy = StructType::create(
        C, {I32, I32, BytePtr, BytePtr, BytePtr, BytePtr, BytePtr, BytePtr, BytePtr, BytePtr},
        "struct.crashtrail_module_desc");
    Constant *Init = ConstantStruct::get(
        DescTy, {ConstantInt::get(I32, CT_ABI_VERSION), ConstantInt::get(I32, CT_CHUNK_BYTES - 1),
                 weakHiddenByte(M, "__ehdr_start"),
                 weakHiddenByte(M, "__start_" CT_SECTION_TABLES),
                 weakHiddenByte(M, "__stop_" CT_SECTION_TABLES), ConstantPointerNull::get(BytePtr),
                 weakHiddenByte(M, "__start_" CT_SECTION_DEFER),
                 weakHiddenByte(M, "__stop_" CT_SECTION_DEFER),
                 weakHiddenByte(M, "__start_" CT_SECTION_TABLE_MAPS),
                 weakHiddenByte(M, "__stop_" CT_SECTION_TABLE_MAPS)});
    ModuleDesc = new GlobalVariable(M, DescTy, false, GlobalValue::LinkOnceODRLinkage, Init,
                                    CT_SYM_MODULE);
    ModuleDesc->setAlignment(Align(8));
    makePerModule(ModuleDesc);
    Constant *DescArg = ConstantExpr::getPointerCast(ModuleDesc, BytePtr);
    FunctionType *HookTy = FunctionType::get(Type::getVoidTy(C), {BytePtr}, false);
    Function *Ctor = makeModuleHook(M, CT_SYM_MODULE_CTOR,
                                    M.getOrInsertFunction(CT_SYM_REGISTER_MODULE, HookTy), DescArg);
    Function *Dtor = makeModuleHook(M, "__crashtrail_module_dtor",
                                    M.getOrInsertFunction("__crashtrail_unregister_module", HookTy),
                                    DescArg);
    appendToGlobalCtors(M, Ctor, 101, Ctor);
    appendToGlobalDtors(M, Dtor, 101, Dtor);
  }

  PointerType *PosPtrTy = PointerType::getUnqual(SlotPtrTy);
  Refill = M.getOrInsertFunction(CT_SYM_RING_REFILL,
                                 FunctionType::get(Type::getVoidTy(C), {PosPtrTy, BytePtr}, false));
  StampedSlow = M.getOrInsertFunction(
      CT_SYM_STAMPED_SLOW, FunctionType::get(Type::getVoidTy(C), {PosPtrTy, BytePtr}, false));
  for (FunctionCallee FC : {Refill, StampedSlow})
    if (auto *F = dyn_cast<Function>(FC.getCallee())) {
      F->addFnAttr(Attribute::NoUnwind);
      F->addFnAttr(Attribute::Cold);
      // Cold calls that keep every register: hot code around them needs no spills.
      F->setCallingConv(CallingConv::PreserveMost);
      // Called through the GOT, never a lazily bound PLT slot: in a shared object the runtime
      // is another object's, and the dynamic linker's resolver, run at a slot's first call,
      // keeps only the C convention's argument registers: it would clobber r10, which a
      // preserve_most caller keeps values in (xz's lzma_decode, packages.xz).
      F->addFnAttr(Attribute::NonLazyBind);
    }

  // The slow paths' calls, with their arguments built here once: a call without arguments
  // leaves the hot code's registers alone (rdi and rsi are not taken) and makes the cold path
  // at each of the thousands of flush sites a call and a jump.
  RefillHere = makeSlowStub(M, CT_SYM_REFILL_HERE, Refill, RingPos, descArg());
  StampedSlowHere = makeSlowStub(M, CT_SYM_STAMPED_SLOW_HERE, StampedSlow, RingPos, descArg());
}

// A check point with budget D compares the accumulator with 2^(63-D) - 1. Above 2^31 that
// limit is no instruction immediate, and as a constant LLVM keeps it in a register across the
// loop (one register less in every loop with a check). Read from this per-module table it is
// the compare's memory operand instead (`cmp limit(%rip), %reg`): the table is writable and
// linkonce_odr, so nothing can fold or hoist the load, and the check stays two instructions.
Constant *RuntimeGlue::checkLimit(unsigned Budget) {
  LLVMContext &C = M.getContext();
  ArrayType *Ty = ArrayType::get(I64, CT_ACC_BITS + 1);
  GlobalVariable *Table = M.getGlobalVariable(CT_SYM_CHECK_LIMITS, true);
  if (!Table) {
    std::vector<Constant *> Limits;
    for (unsigned D = 0; D <= CT_ACC_BITS; ++D)
      Limits.push_back(ConstantInt::get(I64, (uint64_t(1) << (CT_ACC_BITS - D)) - 1));
    Table = new GlobalVariable(M, Ty, false, GlobalValue::LinkOnceODRLinkage,
                               ConstantArray::get(Ty, Limits), CT_SYM_CHECK_LIMITS);
    Table->setAlignment(Align(64));
    makePerModule(Table);
  }
  return ConstantExpr::getInBoundsGetElementPtr(
      Ty, Table,
      ArrayRef<Constant *>{ConstantInt::get(Type::getInt32Ty(C), 0),
                           ConstantInt::get(Type::getInt32Ty(C), Budget)});
}

Constant *RuntimeGlue::chunkMask() {
  return ConstantExpr::getInBoundsGetElementPtr(
      ModuleDesc->getValueType(), ModuleDesc,
      ArrayRef<Constant *>{ConstantInt::get(Type::getInt32Ty(M.getContext()), 0),
                           ConstantInt::get(Type::getInt32Ty(M.getContext()), 1)});
}

// w0 names the instrumented function by its distance to the module descriptor, desc - f: a
// link-time constant, so one instruction stores it (`movq $imm32, (slot)`) where an address
// needs a lea and a register first. IR has no immediate for a difference of two symbols, so
// the instruction is inline asm; the assembler turns the difference into a PC-relative
// relocation against desc, since f is in the section being assembled (the asm sits inside f
// or, with an alias anchor, inside the function the alias names). It fits 32 bits because the
// small code model keeps a module's code and data within 2 GiB; it is positive because
// linkers place writable data after code (the runtime checks both at registration). The
// decoder turns it back into f's address from the descriptor's address in the dump.
// Where a function's code may land in several sections (-fbasic-block-sections=all or list=,
// -fsplit-machine-functions), a flush in another section than f's start has no such
// relocation (the assembler says "Cannot represent a difference across sections"), and under
// LTO the instrumented f may be inlined into another function, or imported into another
// module, at link time: there the same value is computed (two leas and a sub).
// Operand 0 the destination (a memory slot or a register), 1 desc, 2 the anchor.
static const char *const RecordIdAsm = "movq $$(${1:c} - ${2:c}), $0";

void RuntimeGlue::storeRecordId(IRBuilder<> &B, Value *Slot, GlobalValue *Anchor) {
  if (ComputedRecordIds) {
    B.CreateStore(recordIdValue(B, Anchor), Slot);
    return;
  }
  FunctionType *FT = FunctionType::get(B.getVoidTy(),
                                       {SlotPtrTy, ModuleDesc->getType(), Anchor->getType()},
                                       false);
  InlineAsm *IA = InlineAsm::get(FT, RecordIdAsm, "=*m,i,i",
                                 /*hasSideEffects=*/false);
  CallInst *CI = B.CreateCall(FT, IA, {Slot, ModuleDesc, Anchor});
  CI->addParamAttr(0, Attribute::get(M.getContext(), Attribute::ElementType, I64));
  CI->setDoesNotThrow();
  setWritesArgMemOnly(CI);
}

Value *RuntimeGlue::recordIdValue(IRBuilder<> &B, GlobalValue *Anchor) {
  if (ComputedRecordIds)
    return B.CreateSub(B.CreatePtrToInt(ModuleDesc, I64), B.CreatePtrToInt(Anchor, I64), "ct.w0");
  FunctionType *FT = FunctionType::get(I64, {ModuleDesc->getType(), Anchor->getType()}, false);
  InlineAsm *IA = InlineAsm::get(FT, RecordIdAsm, "=r,i,i",
                                 /*hasSideEffects=*/false);
  CallInst *CI = B.CreateCall(FT, IA, {ModuleDesc, Anchor}, "ct.w0");
  CI->setDoesNotThrow();
  CI->setDoesNotAccessMemory();
  return CI;
}

Value *RuntimeGlue::descArg() {
  return ConstantExpr::getPointerCast(ModuleDesc,
                                      PointerType::getUnqual(Type::getInt8Ty(M.getContext())));
}

} // namespace crashtrail
