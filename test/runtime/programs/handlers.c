/*
 * handlers.c - the program's own SIGSEGV handler beside crashtrail's. argv[1]:
 *
 *   before     installed before crashtrail's start-up, by a constructor of an object built
 *              without crashtrail (handlers_early.c): the first instrumented function to run
 *              starts crashtrail, so an instrumented constructor would already be "after"
 *   after      installed in main, after crashtrail; does not chain
 *   chain      installed in main; chains to the action it replaced (crashtrail's)
 *   reinstall  installed in main, then crashtrail_install_handlers() puts crashtrail first
 *
 * The handler writes "program handler" on stderr, chains if asked, then restores the default
 * action and returns, so the fault happens again and kills the process as usual.
 */
#define _GNU_SOURCE
#include <signal.h>
#include <stdint.h>
#include <string.h>
#include <unistd.h>

void crashtrail_install_handlers(void) __attribute__((weak)); /* absent without crashtrail */

struct sigaction previous;
static int chain;
static volatile int sink;
extern int mode_before; /* handlers_early.c installed the handler before crashtrail started */

void program_handler(int sig, siginfo_t *si, void *uc) {
  static const char line[] = "program handler\n";
  struct sigaction dfl;
  (void)write(2, line, sizeof line - 1);
  if (chain && (previous.sa_flags & SA_SIGINFO) && previous.sa_sigaction)
    previous.sa_sigaction(sig, si, uc);
  memset(&dfl, 0, sizeof dfl);
  dfl.sa_handler = SIG_DFL;
  sigaction(SIGSEGV, &dfl, NULL);
}

static void install(void) {
  struct sigaction sa;
  memset(&sa, 0, sizeof sa);
  sa.sa_sigaction = program_handler;
  sa.sa_flags = SA_SIGINFO;
  sigemptyset(&sa.sa_mask);
  sigaction(SIGSEGV, &sa, &previous);
}

__attribute__((noinline)) static int step(int i) { return i * 2 + 1; }

int main(int argc, char **argv) {
  const char *mode = argc > 1 ? argv[1] : "before";
  for (int i = 0; i < 4; i++) sink += step(i);
  if (!strcmp(mode, "after") || !strcmp(mode, "chain") || !strcmp(mode, "reinstall")) {
    chain = !strcmp(mode, "chain");
    install();
    if (!strcmp(mode, "reinstall") && crashtrail_install_handlers) crashtrail_install_handlers();
  } else if (!mode_before) {
    return 2;
  }
  *(volatile int *)(uintptr_t)40 = 1;
  return 1;
}
