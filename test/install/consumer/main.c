#include <stdio.h>

#include <crashtrail/crashtrail.h>

static int *lookup(int key) { return key > 10 ? NULL : NULL; }

int main(int argc, char **argv) {
  (void)argv;
  if (argc > 1) return crashtrail_dump("asked for one") == 0 ? 0 : 1;
  printf("%d\n", *lookup(argc));
  return 0;
}
