/*
 * crashtrail_cc.c - crashtrail-cc and crashtrail-c++: drop-in compilers (CC=crashtrail-cc make).
 *
 * Runs clang with every argument passed through untouched, plus:
 *   when the command compiles source   -fplugin=LIB/crashtrail-pass.so, -isystem INCLUDE,
 *                                      and -gline-tables-only if it has no -g option
 *   when it links an executable        LIB/libcrashtrail-rt.a, with the runtime's symbols
 *                                      exported (so instrumented shared objects use it)
 *   when it links a shared object      -lcrashtrail-rt (the shared runtime) with an rpath
 * LIB and INCLUDE are found next to this program (BIN/../lib, BIN/../include), so the build
 * tree and an installed tree both work. CRASHTRAIL_CC / CRASHTRAIL_CXX choose the compiler;
 * CRASHTRAIL_DISABLE=1 makes the wrapper a plain pass-through.
 */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#ifndef CT_DEFAULT_CC
#define CT_DEFAULT_CC "clang-14"
#endif
#ifndef CT_DEFAULT_CXX
#define CT_DEFAULT_CXX "clang++-14"
#endif

static int has_suffix(const char *s, const char *suffix) {
  size_t n = strlen(s), m = strlen(suffix);
  return n >= m && !strcmp(s + n - m, suffix);
}

static int is_source(const char *a) {
  static const char *ext[] = {".c", ".cc", ".cpp", ".cxx", ".c++", ".C", ".cp", ".CPP", ".i", ".ii", ".m", ".mm"};
  for (size_t i = 0; i < sizeof ext / sizeof ext[0]; i++)
    if (has_suffix(a, ext[i])) return 1;
  return 0;
}

/* Options whose value is the next argument (so it is not mistaken for an input file). */
static int takes_value(const char *a) {
  static const char *opts[] = {"-o", "-I", "-D", "-U", "-include", "-isystem", "-iquote", "-idirafter",
                               "-L", "-l", "-x", "-MF", "-MT", "-MQ", "-Xlinker", "-Xpreprocessor",
                               "-Xassembler", "-Xclang", "-target", "--target", "-imacros", "-arch",
                               "-T", "-u", "-z", "-e", "-mllvm", "-isysroot", "--sysroot"};
  for (size_t i = 0; i < sizeof opts / sizeof opts[0]; i++)
    if (!strcmp(a, opts[i])) return 1;
  return 0;
}

struct mode {
  int compiles, links, shared, has_g, preprocess_only, info_only, nostdlib;
};

static struct mode classify(int argc, char **argv) {
  struct mode m = {0, 1, 0, 0, 0, 0, 0};
  int inputs = 0, lang_given = 0;
  for (int i = 1; i < argc; i++) {
    const char *a = argv[i];
    if (!strcmp(a, "-c") || !strcmp(a, "-S") || !strcmp(a, "-fsyntax-only")) m.links = 0;
    else if (!strcmp(a, "-E") || !strcmp(a, "-M") || !strcmp(a, "-MM")) m.links = 0, m.preprocess_only = 1;
    else if (!strcmp(a, "-shared")) m.shared = 1;
    else if (!strcmp(a, "-nostdlib") || !strcmp(a, "-nodefaultlibs")) m.nostdlib = 1;
    else if (!strcmp(a, "--version") || !strcmp(a, "-dumpversion") || !strcmp(a, "-dumpmachine") ||
             !strncmp(a, "-print-", 7) || !strcmp(a, "--help"))
      m.info_only = 1;
    else if (!strncmp(a, "-g", 2) || !strncmp(a, "--debug", 7)) m.has_g = 1;
    else if (!strcmp(a, "-x") && i + 1 < argc) lang_given = strcmp(argv[i + 1], "none") != 0;
    else if (!strncmp(a, "-x", 2) && a[2]) lang_given = strcmp(a + 2, "none") != 0;
    if (takes_value(a)) {
      i++;
      continue;
    }
    if (a[0] != '-' || !strcmp(a, "-")) {
      inputs++;
      if (is_source(a) || lang_given || !strcmp(a, "-")) m.compiles = 1;
    }
  }
  if (!inputs) m.links = 0, m.compiles = 0;
  if (m.preprocess_only || m.info_only) m.compiles = 0;
  if (m.info_only) m.links = 0;
  return m;
}

/* The directory this program lives in, resolved through symbolic links. */
static int self_dir(char *out, size_t cap) {
  char buf[PATH_MAX];
  ssize_t n = readlink("/proc/self/exe", buf, sizeof buf - 1);
  if (n <= 0) return -1;
  buf[n] = 0;
  snprintf(out, cap, "%s", dirname(buf));
  return 0;
}

int main(int argc, char **argv) {
  int cxx = has_suffix(argv[0], "++");
  const char *cc = getenv(cxx ? "CRASHTRAIL_CXX" : "CRASHTRAIL_CC");
  char bin[PATH_MAX], lib[PATH_MAX + 16], inc[PATH_MAX + 16];
  char plugin[PATH_MAX + 64], rt[PATH_MAX + 64], rpath[PATH_MAX + 64];
  char **args = calloc((size_t)argc + 16, sizeof *args);
  int n = 0;
  if (!cc || !*cc) cc = cxx ? CT_DEFAULT_CXX : CT_DEFAULT_CC;
  if (!args) return fprintf(stderr, "crashtrail-cc: out of memory\n"), 1;
  args[n++] = (char *)cc;
  for (int i = 1; i < argc; i++) args[n++] = argv[i];
  const char *disable = getenv("CRASHTRAIL_DISABLE");
  if (!(disable && !strcmp(disable, "1"))) {
    struct mode m = classify(argc, argv);
    if (self_dir(bin, sizeof bin) != 0) {
      fprintf(stderr, "crashtrail-cc: cannot find my own directory (/proc/self/exe)\n");
      return 1;
    }
    snprintf(lib, sizeof lib, "%s/../lib", bin);
    snprintf(inc, sizeof inc, "%s/../include", bin);
    snprintf(plugin, sizeof plugin, "-fplugin=%s/crashtrail-pass.so", lib);
    const char *plugin_path = plugin + strlen("-fplugin=");
    if (access(plugin_path, R_OK) != 0) {
      fprintf(stderr, "crashtrail-cc: the plugin is missing: %s\n", plugin_path);
      return 1;
    }
    if (m.compiles) {
      args[n++] = plugin;
      args[n++] = "-isystem";
      args[n++] = inc;
      if (!m.has_g) args[n++] = "-gline-tables-only";
    }
    if (m.links && !m.nostdlib) {
      if (m.shared) {
        snprintf(rt, sizeof rt, "-L%s", lib);
        snprintf(rpath, sizeof rpath, "-Wl,-rpath,%s", lib);
        args[n++] = rt;
        args[n++] = rpath;
        args[n++] = "-lcrashtrail-rt";
      } else {
        snprintf(rt, sizeof rt, "%s/libcrashtrail-rt.a", lib);
        args[n++] = rt;
        args[n++] = "-Wl,--export-dynamic-symbol=__crashtrail_*,--export-dynamic-symbol=crashtrail_*,"
                    "--export-dynamic-symbol=sigprocmask,--export-dynamic-symbol=pthread_sigmask,"
                    "--export-dynamic-symbol=sigaction";
      }
    }
  }
  args[n] = NULL;
  execvp(cc, args);
  fprintf(stderr, "crashtrail-cc: cannot run %s: %s (set CRASHTRAIL_%s)\n", cc, strerror(errno),
          cxx ? "CXX" : "CC");
  return 127;
}
