/* A crash inside an uninstrumented library that was stripped for release, its debug file kept
 * aside (as Debian's -dbgsym packages and libc6-dbg do): found by build-id under --debug-dir,
 * it names the library's internal (static) function and its line in the stack.
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * plain-library: codec.c
 * expect-O0: m1 m2 m3 m4
 * expect-O2: m1 m2 m3 m4
 * stack: lookup codec_decode main
 * frame-line: lookup k1
 */
#include <stdio.h>

#include "codec.h"

static unsigned char identity[256];

int main(int argc, char **argv) {
  char out[16];
  for (int i = 0; i < 256; i++) identity[i] = (unsigned char)i;   //@m1
  printf("%d\n", codec_decode(identity, "crash", out));            //@m2
  printf("%s\n", out);                                            //@m3
  return codec_decode((const unsigned char *)argv[argc], out, out); //@m4
}
