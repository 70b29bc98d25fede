int codec_decode(const unsigned char *table, const char *in, char *out);
