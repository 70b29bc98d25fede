/* time(2) with a bad pointer: glibc resolves time to the vDSO's, which faults storing the
 * result. The vDSO is in no file; the dump carries its image, so its frame has a name and the
 * walk goes on through its call-frame information (before, two unnamed frames, one of them a
 * guess from the frame-pointer chain).
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * expect-O0: m1 m2 s1 s2 s3 s2 s3 s2 s4 m2 m3 m4 s1 s2 s3
 * expect-O2: m1 m2 s2 s3 s2 s3 s2 s4 m2 m3 m4 s2 s3
 * stack: time stamp_sum main
 */
#include <stdio.h>
#include <time.h>

__attribute__((noinline)) static long stamp_sum(time_t **where, int n) {
  long sum = 0;                                        //@s1
  for (int i = 0; i < n; i++)                          //@s2
    sum += time(where[i]) & 1;                         //@s3
  return sum;                                          //@s4
}

int main(int argc, char **argv) {
  time_t t[2], *where[2] = {&t[0], &t[1]};             //@m1
  (void)argv;
  printf("%ld\n", stamp_sum(where, argc + 1) * 0);     //@m2
  where[0] = (time_t *)(long)(16 * argc);              //@m3
  return (int)stamp_sum(where, argc + 1);              //@m4
}
