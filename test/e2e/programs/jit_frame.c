/* A callback crashes while called from generated machine code (as pcre2's JIT calls a callout):
 * the generated frame has no unwind information and its rbp holds no frame pointer, so the
 * walk finds the frames above it by scanning the stack for a return address, and says so.
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * expect-O0: m1 m2 r0 r1 r2 r3 c1 c2
 * expect-O2: m1 m2 r1 r2 r3 c1 c2
 * expect-O2@19: m1 r1 r2 r3 c1 c2
 * stack: on_event run_generated
 * scanned: run_generated
 */
#include <stdio.h>
#include <string.h>
#include <sys/mman.h>

static int *volatile nowhere;
static volatile int events;

__attribute__((noinline)) static void on_event(void) {
  events++;                                            //@c1
  *nowhere = events; }                                 //@c2

/* push %rbp; push %rbx; mov $0x1234,%rbp (no frame pointer); sub $0x28,%rsp; call *%rdi;
 * add $0x28,%rsp; pop %rbx; pop %rbp; ret */
static const unsigned char code[] = {0x55, 0x53, 0x48, 0xc7, 0xc5, 0x34, 0x12, 0x00, 0x00,
                                     0x48, 0x83, 0xec, 0x28, 0xff, 0xd7, 0x48, 0x83, 0xc4,
                                     0x28, 0x5b, 0x5d, 0xc3};

__attribute__((noinline)) static int run_generated(void (*callback)(void)) {
  const int rwx = PROT_READ | PROT_WRITE | PROT_EXEC, anon = MAP_PRIVATE | MAP_ANONYMOUS; //@r0
  void *page = mmap(NULL, 4096, rwx, anon, -1, 0);     //@r1
  memcpy(page, code, sizeof code);                     //@r2
  ((void (*)(void (*)(void)))page)(callback);          //@r3
  return events; }

int main(int argc, char **argv) {
  (void)argv;
  printf("start %d\n", argc);                          //@m1
  return run_generated(on_event); }                    //@m2
