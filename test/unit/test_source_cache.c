/* Unit test of the source cache (postmortem/source_cache.c): lines read as far as asked for,
 * across its scan's 64 KB chunks, with CRLF endings, without a final newline, from more files
 * than it keeps open, and files it must refuse (missing, over 16 MiB, changed under it). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "source_cache.h"
#include "unit_check.h"

static char dir[] = "/tmp/ct-srccache-XXXXXX";

static const char *write_file(const char *name, const char *text, size_t len) {
  static char path[4][256];
  static int k;
  char *p = path[k++ % 4];
  snprintf(p, 256, "%s/%s", dir, name);
  FILE *f = fopen(p, "wb");
  if (!f || fwrite(text, 1, len, f) != len || fclose(f) != 0) {
    perror(p);
    exit(2);
  }
  return p;
}

static void expect_line(struct ct_sources *s, const char *path, unsigned line, const char *want) {
  const char *got = ct_source_line(s, path, line);
  if (!want)
    CHECK(!got, "%s:%u: want no line, got \"%s\"", path, line, got);
  else
    CHECK(got && !strcmp(got, want), "%s:%u: want \"%s\", got \"%s\"", path, line, want,
          got ? got : "(null)");
}

int main(void) {
  if (!mkdtemp(dir)) return perror("mkdtemp"), 2;
  struct ct_sources *s = ct_sources_new();

  const char *small = write_file("a.c", "int a;\r\nint b;\n\nlast", 21);
  expect_line(s, small, 2, "int b;");
  expect_line(s, small, 1, "int a;");
  expect_line(s, small, 3, "");
  expect_line(s, small, 4, "last");
  expect_line(s, small, 5, NULL);
  expect_line(s, small, 0, NULL);
  CHECK(ct_source_count(s, small) == 4, "a.c has 4 lines, counted %zu", ct_source_count(s, small));

  const char *nl = write_file("b.c", "x\ny\n", 4);
  CHECK(ct_source_count(s, nl) == 2, "b.c has 2 lines, counted %zu", ct_source_count(s, nl));
  expect_line(s, nl, 3, NULL);
  const char *empty = write_file("e.c", "", 0);
  CHECK(ct_source_count(s, empty) == 0, "e.c is empty");
  expect_line(s, empty, 1, NULL);
  expect_line(s, "/nonexistent/ct.c", 1, NULL);
  CHECK(ct_source_count(s, "/nonexistent/ct.c") == 0, "a missing file has no lines");

  /* 200000 numbered lines: 1.3 MB, many chunks; a line straddles every chunk boundary. */
  size_t cap = 200000 * 16, len = 0;
  char *big = malloc(cap), want[32];
  for (int i = 1; i <= 200000; i++) len += (size_t)sprintf(big + len, "line %d;\n", i);
  const char *bigp = write_file("big.c", big, len);
  expect_line(s, bigp, 150000, "line 150000;");
  expect_line(s, bigp, 7, "line 7;");
  for (int i = 7000; i < 200000; i += 6997) {
    snprintf(want, sizeof want, "line %d;", i);
    expect_line(s, bigp, (unsigned)i, want);
  }
  CHECK(ct_source_count(s, bigp) == 200000, "big.c counted %zu", ct_source_count(s, bigp));
  expect_line(s, bigp, 200000, "line 200000;");
  expect_line(s, bigp, 200001, NULL);

  /* More files than it keeps open: every one still answers, twice. */
  char name[32], text[64];
  for (int round = 0; round < 2; round++)
    for (int i = 0; i < 40; i++) {
      snprintf(name, sizeof name, "f%d.c", i);
      int n = snprintf(text, sizeof text, "first %d\nsecond %d\n", i, i);
      const char *p = round == 0 ? write_file(name, text, (size_t)n) : NULL;
      char path[256];
      snprintf(path, sizeof path, "%s/%s", dir, name);
      (void)p;
      snprintf(want, sizeof want, "second %d", i);
      expect_line(s, path, 2, want);
    }

  /* Over 16 MiB: refused. */
  char *huge = calloc(1, (16u << 20) + 2);
  memset(huge, 'x', (16u << 20) + 1);
  const char *hugep = write_file("huge.c", huge, (16u << 20) + 1);
  expect_line(s, hugep, 1, NULL);
  free(huge);

  /* A file that grows after its first lines were read: what was read stays, nothing new is. */
  const char *grow = write_file("g.c", "one\ntwo\n", 8);
  expect_line(s, grow, 1, "one");
  for (int i = 0; i < 45; i++) { /* push g.c's descriptor out of the cache */
    snprintf(name, sizeof name, "%s/f%d.c", dir, i % 40);
    ct_source_line(s, name, 1);
  }
  write_file("g.c", "one\ntwo\nthree\n", 14);
  expect_line(s, grow, 1, "one");
  expect_line(s, grow, 2, NULL);
  ct_sources_free(s);

  char cmd[300];
  snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
  if (system(cmd) != 0) fprintf(stderr, "warning: could not remove %s\n", dir);
  free(big);
  if (failures) fprintf(stderr, "%d failure(s)\n", failures);
  else printf("source cache: all checks passed\n");
  return failures != 0;
}
