/*
 * serve_http.h - the request handler of `crashtrail serve` (serve_http.c), given to
 * libmicrohttpd by serve.c with a struct ct_serve as its closure.
 */
#ifndef CT_VIEWER_SERVE_HTTP_H
#define CT_VIEWER_SERVE_HTTP_H

#include <microhttpd.h>

/* libmicrohttpd's MHD_AccessHandlerCallback; cls is a const struct ct_serve *. */
enum MHD_Result ct_serve_handle(void *cls, struct MHD_Connection *c, const char *url,
                                const char *method, const char *version, const char *upload,
                                size_t *upload_size, void **state);

#endif
