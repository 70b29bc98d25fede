/*
 * handlers_early.c - for handlers.c "before": installs the program's SIGSEGV handler before
 * crashtrail starts, like a library linked into the program that sets up its own crash
 * handling. Built without the plugin: any instrumented code would start crashtrail first.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdlib.h>
#include <string.h>

void program_handler(int sig, siginfo_t *si, void *uc); /* handlers.c */
extern struct sigaction previous;
int mode_before;

#pragma clang diagnostic push
#pragma clang diagnostic ignored "-Wprio-ctor-dtor"
/* Priority 100 runs before crashtrail's start-up constructor (101). */
__attribute__((constructor(100))) static void early(void) {
  const char *mode = getenv("CT_HANDLER_MODE");
  struct sigaction sa;
  if (!mode || strcmp(mode, "before")) return;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = program_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &previous);
  mode_before = 1;
}
#pragma clang diagnostic pop
