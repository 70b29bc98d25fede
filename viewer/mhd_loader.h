/*
 * mhd_loader.h - libmicrohttpd, loaded when `crashtrail serve` starts instead of when any
 * crashtrail command starts.
 *
 * Linked in, libmicrohttpd brings GnuTLS and eight more libraries whose relocations and
 * constructors ran before every `crashtrail show`: about 9 ms of a 110 ms decode of a small dump.
 * Only `serve` needs it, so it is opened there (lazy_lib.h) and called through this table, whose
 * entries have the types of the header's own declarations.
 */
#ifndef CT_VIEWER_MHD_LOADER_H
#define CT_VIEWER_MHD_LOADER_H

#include <stddef.h>

#include <microhttpd.h>

struct ct_mhd {
  __typeof__(&MHD_start_daemon) start_daemon;
  __typeof__(&MHD_stop_daemon) stop_daemon;
  __typeof__(&MHD_create_response_from_buffer) create_response_from_buffer;
  __typeof__(&MHD_add_response_header) add_response_header;
  __typeof__(&MHD_queue_response) queue_response;
  __typeof__(&MHD_destroy_response) destroy_response;
  __typeof__(&MHD_lookup_connection_value) lookup_connection_value;
};

/* Filled by ct_mhd_load. */
extern struct ct_mhd ct_mhd;

/* Opens libmicrohttpd and fills ct_mhd (once). 0, or -1 with the reason in err. */
int ct_mhd_load(char *err, size_t errlen);

#endif
