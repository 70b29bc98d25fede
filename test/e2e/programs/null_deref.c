/* A NULL dereference three calls deep, after a loop and an if/else. At -O2 check's call of
 * inspect is a tail call (a jump, as without crashtrail), so the stack has no frame of check;
 * the timeline shows check's last step before inspect's.
 *
 * crashtrail-e2e
 * signal: SIGSEGV
 * expect-O0: m1 m2 c1 t1 t2 t3 t2 t4 c1 c2 i1 i2 r1
 * expect-O2: m1 m2 c1 t2 t3 t2 t4 c2 i1 i2 r1
 * stack-O0: read_weight inspect check main
 * stack-O2: read_weight inspect main
 * locals: it=NULL
 */
#include <stdio.h>

struct item { int weight; struct item *next; };

__attribute__((noinline)) static int total(struct item *list) {
  int sum = 0;                                        //@t1
  for (struct item *it = list; it; it = it->next)     //@t2
    sum += it->weight;                                //@t3
  return sum; }                                       //@t4

__attribute__((noinline)) static int read_weight(struct item *it) {
  return it->weight; }                                //@r1

__attribute__((noinline)) static int inspect(struct item *it, int heavy) {
  if (heavy)                                          //@i1
    return read_weight(it->next) * 2;                 //@i2
  else
    return read_weight(it); }                         //@i3

__attribute__((noinline)) static int check(struct item *list, int limit) {
  int t = total(list);                                //@c1
  return inspect(list, t > limit); }                  //@c2

int main(int argc, char **argv) {
  struct item last = {argc + 2, NULL};                //@m1
  return check(&last, argc) == 42 ? puts(argv[0]) : 0; } //@m2
