/* hostile.c - a crash whose strings try to break out of the report's <script> element:
 *   </script><script>window.__pwned = 1</script>  <!-- --> ]]> &amp; "double" 'single' \ */
#define _GNU_SOURCE
#include <pthread.h>
#include <string.h>

static volatile int *target;

int main(int argc, char **argv) {
  pthread_setname_np(pthread_self(), "</script><!--");
  const char *s = "</script><script>window.__pwned = 2</script>";
  if (argc > 1 && strcmp(argv[1], s) == 0) target = NULL;
  return *target; /* the crash: target is NULL */
}
