/*
 * mhd_loader.c - libmicrohttpd opened with dlopen for `crashtrail serve` (see mhd_loader.h).
 * The library stays loaded until exit: the daemon's threads run its code to the end.
 */
#include "mhd_loader.h"

#include "lazy_lib.h"

#ifndef CT_MHD_SONAME
#define CT_MHD_SONAME "libmicrohttpd.so.12"
#endif

struct ct_mhd ct_mhd;

int ct_mhd_load(char *err, size_t errlen) {
#define SYM(f) {"MHD_" #f, offsetof(struct ct_mhd, f)}
  static const struct ct_lazy_sym syms[] = {
      SYM(start_daemon),    SYM(stop_daemon),    SYM(create_response_from_buffer),
      SYM(add_response_header), SYM(queue_response), SYM(destroy_response),
      SYM(lookup_connection_value)};
#undef SYM
  if (ct_mhd.start_daemon) return 0;
  return ct_lazy_lib_load(CT_MHD_SONAME, syms, sizeof syms / sizeof syms[0], &ct_mhd,
                          sizeof ct_mhd, err, errlen);
}
