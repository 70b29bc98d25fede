/*
 * masks_lib.c - an uninstrumented shared library that blocks every signal in the calling
 * thread (as a library's "block signals in my threads" helper does). Linked into masks.c's
 * programs: its call must bind to the executable's pthread_sigmask, which crashtrail-cc
 * exports, so the fault signals stay deliverable even though the library was built without
 * crashtrail.
 */
#include <signal.h>

void masks_block_all(void) {
  sigset_t all;
  sigfillset(&all);
  pthread_sigmask(SIG_BLOCK, &all, 0);
}
