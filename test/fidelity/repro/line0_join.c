/* Reproducer (docs/fidelity.md, bug AH), -O2: a signal on the first instruction of a join
 * (line 0: the load of a table's address, scheduled before the join's first line), where the
 * way in that the program took is a branch from the join's predecessor and the code laid out
 * right before the join is the other way in, a call's (handle_error()). The accumulator is in
 * %rcx on both ways, but its location list starts one instruction into the join: the
 * post-mortem found no location (the ways in say "%rcx" and "the constant after the call"),
 * left the unfinished path unread and ended the timeline in the caller; and once read, it
 * placed the crash on the join's lines, by the row before the pc in address order (the call's
 * way). column_type() is sqlite3_column_type()'s shape, where the full fidelity matrix found
 * it (`sqlite-shell -O2 kill 1`: the kill in sqlite3ApiExit()'s join). check.py interrupts
 * each line-0 instruction of column_type() that a jump goes to (its 5th run) and compares the
 * timeline's last line with the CPU's. */
#include <stdio.h>

struct mutex { int held; };
struct db { struct mutex *mutex; unsigned char malloc_failed; };
struct mem { unsigned short flags; long v; };
struct vm { struct db *db; int rc; struct mem *result; int ncol; };

static const unsigned char type_of[64] = {5, 1, 3, 3, 2, 1, 4, 4, 5, 1, 3, 3, 2, 1, 4, 4,
                                          5, 1, 3, 3, 2, 1, 4, 4, 5, 1, 3, 3, 2, 1, 4, 4,
                                          5, 1, 3, 3, 2, 1, 4, 4, 5, 1, 3, 3, 2, 1, 4, 4,
                                          5, 1, 3, 3, 2, 1, 4, 4, 5, 1, 3, 3, 2, 1, 4, 4};
static struct mem null_mem;

__attribute__((noinline)) void mutex_enter(struct mutex *m) { if (m) m->held++; }
__attribute__((noinline)) void mutex_leave(struct mutex *m) { if (m) m->held--; }
__attribute__((noinline)) int handle_error(struct db *db, int rc) {
  if (db->malloc_failed) return 7;
  return rc & 0xff;
}

static inline struct mem *column_mem(struct vm *p, int i) {
  if (p == 0) return &null_mem;
  mutex_enter(p->db->mutex);
  if (p->result != 0 && i < p->ncol && i >= 0) return &p->result[i];
  return &null_mem;
}

static inline int api_exit(struct db *db, int rc) {
  if (db->malloc_failed || rc) return handle_error(db, rc);
  return 0;
}

static inline void column_done(struct vm *p) {
  p->rc = api_exit(p->db, p->rc);
  mutex_leave(p->db->mutex);
}

__attribute__((noinline)) int column_type(struct vm *p, int i) {
  int t = type_of[column_mem(p, i)->flags & 0x3f];
  column_done(p);
  return t;
}

int main(void) {
  struct mutex mx = {0};
  struct db db = {&mx, 0};
  struct mem cols[4] = {{1, 10}, {2, 20}, {4, 30}, {8, 40}};
  struct vm vm = {&db, 0, cols, 4};
  long s = 0;
  for (int r = 0; r < 12; r++)
    for (int i = 0; i < 5; i++) {
      vm.rc = (r + i) % 3 == 0;
      s += column_type(&vm, i);
    }
  printf("%ld %d\n", s, mx.held);
  return 0;
}
