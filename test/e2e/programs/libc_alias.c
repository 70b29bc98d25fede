/* A loop's first call of a C library function faults inside it. The library exports that
 * function under two names (glibc's fflush is _IO_fflush) and the unwinder names its frame by
 * the other one: the caller, suspended in the call whose flush is its newest record, has run
 * nothing since, however the callee is named. (Before the fix the walk left the call, went
 * round the loop and showed a second iteration that never ran.)
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * expect-O0: m1 m2 m3 f1 f2 f3 f2 f3 f2 f3 f2 f5 m3 m4 m5 f1 f2 f3
 * expect-O2: m1 m2 m3 f2 f3 f2 f3 f2 f3 f2 f5 m3 m4 m5 f2 f3
 * stack-contains: flush_all
 */
#include <stdio.h>

__attribute__((noinline)) static int flush_all(FILE **files, int n) {
  int failed = 0;                                      //@f1
  for (int i = 0; i < n; i++)                          //@f2
    if (fflush(files[i]) != 0)                         //@f3
      failed++;                                        //@f4
  return failed;                                       //@f5
}

int main(int argc, char **argv) {
  FILE *files[3] = {stdout, stderr, stdout};           //@m1
  (void)argv;
  printf("start %d\n", argc);                          //@m2
  if (flush_all(files, argc + 2) != 0)                 //@m3
    return 1;
  files[0] = (FILE *)(long)(16 * argc);                //@m4
  return flush_all(files, argc + 2);                   //@m5
}
