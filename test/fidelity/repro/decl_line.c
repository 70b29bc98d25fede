/* Reproducer (docs/fidelity.md, "declaration lines"): the pass's path-accumulator update at the
 * start of a branch successor takes the debug location of the block's first instruction, here the
 * llvm.dbg.declare of `n`; DWARF then gives instrumentation code to the declaration `int n;`
 * (line 14), which has no code of its own. A debugger, a profiler, crashtrail's own stack (and
 * the oracle) then see line 14 run; the timeline, rightly, never shows it.
 *   crashtrail-cc -O0 -gdwarf-4 decl_line.c -o ct && objdump -dl --no-show-raw-insn ct |
 *     grep -A4 'decl_line.c:14$'       -> mov -0x8(%rbp),%rax; shl; or $1; mov: the update
 *   clang-14 -O0 -gdwarf-4 decl_line.c -o plain && objdump -dl plain | grep -c 'decl_line.c:14$'
 *                                      -> 0 */
#include <stdio.h>

__attribute__((noinline)) static int pick(int x) {
  if (x > 2) {
    int n;
    n = x * 3;
    return n;
  }
  return x;
}

int main(int argc, char **argv) {
  (void)argv;
  printf("%d\n", pick(argc + 5));
  return 0;
}
