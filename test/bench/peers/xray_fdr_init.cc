/*
 * xray_fdr_init.cc - the XRay FDR peer's set-up. On clang 14, XRAY_OPTIONS="patch_premain=true
 * xray_mode=xray-fdr" alone records nothing; <xray/xray_log_interface.h> documents the explicit
 * sequence, done here: initialise FDR mode in a constructor, finalise and flush at exit.
 * The log goes to xray_logfile_base (set by the benchmark driver). C++ only because the header is.
 */
#include <cstdio>
#include <cstdlib>
#include <xray/xray_log_interface.h>

static void xrayBenchFinish() {
  __xray_log_finalize();
  __xray_log_flushLog();
}

__attribute__((constructor)) static void xrayBenchStart() {
  XRayLogInitStatus s = __xray_log_init_mode("xray-fdr", "");
  if (s != XRayLogInitStatus::XRAY_LOG_INITIALIZED) {
    std::fprintf(stderr, "xray_fdr_init: FDR mode not initialised (status %d)\n", int(s));
    return;
  }
  std::atexit(xrayBenchFinish);
}
