/* Built without crashtrail, stripped, with its debug information in a separate file. */
#include "codec.h"

static unsigned char lookup(const unsigned char *table, unsigned char c) {
  return table[c];                                     //@k1
}

int codec_decode(const unsigned char *table, const char *in, char *out) {
  int n = 0;
  for (; in[n]; n++)
    out[n] = (char)lookup(table, (unsigned char)in[n]);
  out[n] = 0;
  return n;
}
