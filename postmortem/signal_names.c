/*
 * signal_names.c - names of signals and their si_code values, for the dump's signal section
 * (which may come from another machine: names are from Linux x86-64, not strsignal()).
 */
#include <signal.h>

#include "timeline.h"

const char *ct_signal_name(int signo) {
  static const char *names[] = {
      [SIGHUP] = "SIGHUP", [SIGINT] = "SIGINT", [SIGQUIT] = "SIGQUIT", [SIGILL] = "SIGILL",
      [SIGTRAP] = "SIGTRAP", [SIGABRT] = "SIGABRT", [SIGBUS] = "SIGBUS", [SIGFPE] = "SIGFPE",
      [SIGKILL] = "SIGKILL", [SIGUSR1] = "SIGUSR1", [SIGSEGV] = "SIGSEGV", [SIGUSR2] = "SIGUSR2",
      [SIGPIPE] = "SIGPIPE", [SIGALRM] = "SIGALRM", [SIGTERM] = "SIGTERM", [SIGSYS] = "SIGSYS",
      [SIGXFSZ] = "SIGXFSZ", [SIGXCPU] = "SIGXCPU"};
  if (signo > 0 && signo < (int)(sizeof names / sizeof names[0]) && names[signo]) return names[signo];
  return "SIG?";
}

const char *ct_signal_code_name(int signo, int code) {
  if (code == SI_USER) return "SI_USER";
  if (code == SI_TKILL) return "SI_TKILL";
  if (code == SI_QUEUE) return "SI_QUEUE";
  if (code == SI_KERNEL) return "SI_KERNEL";
  switch (signo) {
  case SIGSEGV:
    return code == SEGV_MAPERR ? "SEGV_MAPERR" : code == SEGV_ACCERR ? "SEGV_ACCERR" : "SEGV_?";
  case SIGBUS:
    return code == BUS_ADRALN ? "BUS_ADRALN" : code == BUS_ADRERR ? "BUS_ADRERR"
         : code == BUS_OBJERR ? "BUS_OBJERR" : "BUS_?";
  case SIGFPE:
    return code == FPE_INTDIV ? "FPE_INTDIV" : code == FPE_INTOVF ? "FPE_INTOVF"
         : code == FPE_FLTDIV ? "FPE_FLTDIV" : code == FPE_FLTOVF ? "FPE_FLTOVF"
         : code == FPE_FLTUND ? "FPE_FLTUND" : code == FPE_FLTRES ? "FPE_FLTRES"
         : code == FPE_FLTINV ? "FPE_FLTINV" : "FPE_?";
  case SIGILL:
    return code == ILL_ILLOPC ? "ILL_ILLOPC" : code == ILL_ILLOPN ? "ILL_ILLOPN"
         : code == ILL_PRVOPC ? "ILL_PRVOPC" : "ILL_?";
  case SIGTRAP:
    return code == TRAP_BRKPT ? "TRAP_BRKPT" : code == TRAP_TRACE ? "TRAP_TRACE" : "TRAP_?";
  case SIGSYS:
    return code == 1 ? "SYS_SECCOMP" : "SYS_?";
  default:
    return "?";
  }
}
