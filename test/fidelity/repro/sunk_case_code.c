/* Reproducer (docs/fidelity.md, limit U, "through the ways in"), -O2: a switch case whose
 * code (the accumulator shifted and the case's bits added, `lea 0x4(,%rax,8),%rcx`) codegen
 * sinks below the case's first loads. From the case's first instruction to that `lea` the
 * accumulator's location list has no entry; the entry before the gap in address order is the
 * default case's slow path, laid out in between, so the post-mortem's bridge between
 * neighbouring entries that name one register did not apply, and a crash there lost the
 * frame's unfinished path ("not recoverable"). Lua 5.4's luaD_precall, the model here, had it
 * in the fidelity matrix (`lua -O2 kill 4`). The post-mortem now follows the ways into the pc
 * back to the switch's `je`, where RAX holds the accumulator and nothing on the way writes it
 * (postmortem/code_flow.c), and walks from the switch to the pc's block (stack.c,
 * path_to_pc). precall_table() is the same with a dense switch, which clang compiles to a jump
 * table whose base it hoists out of the `goto retry` loop into %rbp: the ways into the case
 * come from the table (jump_tables.c). check.py interrupts the first instruction, the sunk code
 * and the last instruction of each case's gap (the run of instructions no entry covers around
 * the case's code) at their 5th run, and compares the lines since the switch with the CPU's. */
#include <stdio.h>
#include <stdlib.h>

typedef struct Proto { unsigned char numparams, pad, maxstacksize; } Proto;
typedef struct Closure { long hdr; Proto *p; } Closure;
typedef struct Value { Closure *cl; unsigned char tt; } Value;
typedef struct CallInfo { Value *func, *top; int nresults; } CallInfo;
typedef struct State { Value *top, *stack_last; CallInfo *ci, ci0; Value stack[256]; } State;

static volatile long sink;

__attribute__((noinline)) static void grow(State *L, int n) { sink += n; (void)L; }
__attribute__((noinline)) static void cfunc(State *L, Value *f) { sink += f - L->stack; }
__attribute__((noinline)) static Value *tryfunc(State *L, Value *f) { (void)L; f->tt = 6; return f; }

__attribute__((noinline)) static CallInfo *precall(State *L, Value *func, int nresults) {
retry:
  switch (func->tt & 0x3f) {
  case 0x16:
    cfunc(L, func);
    return NULL;
  case 0x26:
    cfunc(L, func + 1);
    return NULL;
  case 6: {
    CallInfo *ci;
    Proto *p = func->cl->p;
    int narg = (int)(L->top - func) - 1;
    int nfixparams = p->numparams;
    int fsize = p->maxstacksize;
    if (__builtin_expect(L->stack_last - L->top <= fsize, 0))
      grow(L, fsize);
    L->ci = ci = &L->ci0;
    ci->func = func;
    ci->nresults = nresults;
    ci->top = func + 1 + fsize;
    for (; narg < nfixparams; narg++)
      (L->top++)->tt = 0;
    return ci;
  }
  default:
    func = tryfunc(L, func);
    goto retry;
  }
}

/* The same with a dense switch, which clang compiles to a jump table (`jmp *%rax`): the case
 * is reached through the table. */
__attribute__((noinline)) static CallInfo *precall_table(State *L, Value *func, int nresults) {
retry:
  switch (func->tt & 7) {
  case 0:
    cfunc(L, func);
    return NULL;
  case 1:
    cfunc(L, func + 1);
    return NULL;
  case 2:
    cfunc(L, func + 2);
    return NULL;
  case 4:
    cfunc(L, func + 3);
    return NULL;
  case 5:
    grow(L, 5);
    return NULL;
  case 6: {
    CallInfo *ci;
    Proto *p = func->cl->p;
    int narg = (int)(L->top - func) - 1;
    int nfixparams = p->numparams;
    int fsize = p->maxstacksize;
    if (__builtin_expect(L->stack_last - L->top <= fsize, 0))
      grow(L, fsize);
    L->ci = ci = &L->ci0;
    ci->func = func;
    ci->nresults = nresults;
    ci->top = func + 1 + fsize;
    for (; narg < nfixparams; narg++)
      (L->top++)->tt = 0;
    return ci;
  }
  default:
    func = tryfunc(L, func);
    goto retry;
  }
}

int main(int argc, char **argv) {
  static State st;
  static Proto p = {2, 0, 8};
  static Closure cl = {0, &p};
  long n = argc > 1 ? atol(argv[1]) : 3000; /* small: check.py single-steps it */
  st.stack_last = st.stack + 200;
  for (long i = 0; i < n; i++) {
    Value *f = &st.stack[i % 64];
    f->cl = &cl;
    f->tt = (unsigned char)(i % 5 == 0 ? 0x16 : i % 7 == 0 ? 0x26 : i % 11 == 0 ? 1 : 6);
    st.top = f + 1 + (i & 1);
    CallInfo *ci = precall(&st, f, 1);
    if (ci) sink += ci->top - st.stack;
    f->tt = (unsigned char)(i % 5 == 0 ? 0 : i % 7 == 0 ? 1 : i % 11 == 0 ? 3 : 6);
    ci = precall_table(&st, f, 1);
    if (ci) sink += ci->top - st.stack;
  }
  printf("%ld\n", sink);
  return 0;
}
