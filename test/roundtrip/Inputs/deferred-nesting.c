// Call shapes that made postorder.c (the post-order parse of deferred calls) misplace records,
// both met in SQLite built with -crashtrail-defer-calls:
//  - a record that goes on after a call through a pointer, whose next deferred call is to a
//    function that writes no record itself but calls one that does (sqlite3InitOne: the
//    pointer's target, then sqlite3MPrintf, branch-free, calling sqlite3VMPrintf): the
//    pointer call's targets end at the first item that silent callee's calls take (none
//    when the pointer leads to code without records, abs here);
//  - a recursion through a direct tail call (sqlite3ExprDelete tail-calling
//    sqlite3ExprDeleteNN, which defers exprListDeleteNN, which defers sqlite3ExprDeleteNN
//    again): the inner invocation returns first and must not be joined to the outer's caller;
//  - found in GNU sed: a call through a pointer, then a deferred call of a function that calls
//    code without records (read_pattern_space: read_fn, then closedown and its fclose): the
//    pointer's target is not that call's callback;
//  - qsort called in a loop, several calls in one record (sed's dfaanalyze): the pass keeps
//    the record before a call that hands a function to code without records;
//  - a deferred call of a function that calls code without records, then qsort (dfaanalyze:
//    xnmalloc, then qsort): the comparator is qsort's callback, not that call's;
//  - a call through a pointer, then a deferred call of the function it points to (gawk's
//    re_parse_field): the pointer's target is the first of the two;
//  - and an exit several deferred calls deep (sed's error exits: main -> compile_string ->
//    compile_program -> bad_prog -> exit), dumped with those frames suspended: main's call
//    into code without records before them takes no callback of theirs, and bad_prog, which
//    wrote no record, goes above its caller's open invocation.
#include <stdio.h>
#include <stdlib.h>

int counter;

/* Called inside branches, so that they stay branches at -O2. */
__attribute__((noinline)) void bump(void) { counter += 3; }

__attribute__((noinline)) int target(int x) {
  if (x & 1) return x * 3;
  return x + 1;
}
int (*volatile through)(int) = target;
int (*volatile through_libc)(int) = abs; /* code without records: no item */

__attribute__((noinline)) int formats(int x) {
  if (x > 5) { /* a branch at -O2 too */
    counter += 2;
    bump();
  }
  return x ^ counter;
}
__attribute__((noinline)) int silent(int x) { return formats(x); }
__attribute__((noinline)) int other(int x) {
  if (x & 4) {
    counter++;
    fflush(stdout); /* not a callback of this call: the pointer's target before it */
  }
  return x - 1;
}

__attribute__((noinline)) int init_one(int x) {
  int r = through(x);
  r += silent(r);
  r += other(r);
  if (r & 2) r++;
  return r;
}

__attribute__((noinline)) int init_two(int x) {
  int r = through_libc(other(x) - 3); /* a deferred call before: its item is below */
  r += silent(r);
  r += other(r);
  if (r & 2) r++;
  return r;
}

__attribute__((noinline)) int init_three(int x) {
  int r = through(x);
  r += other(r + 4); /* its fflush comes right after the pointer's target */
  if (r & 2) r++;
  return r;
}

/* qsort in a loop, one comparator call per call, several calls in one record of the loop
 * (GNU sed's dfaanalyze): a call handing a function to code without records is not
 * deferred, so each call's callbacks follow its own record. */
static int cmp_int(const void *a, const void *b) {
  int x = *(const int *)a, y = *(const int *)b;
  if (x > y) {
    bump();
    return 1;
  }
  return x < y ? -1 : 0;
}
__attribute__((noinline)) void sort_pairs(int (*pairs)[2], int n) {
  for (int i = 0; i < n; i++) qsort(pairs[i], 2, sizeof(int), cmp_int);
}

/* A deferred call whose callee calls code without records (fflush), then qsort: the
 * comparator's invocation is qsort's callback, not fflush's (sed's dfaanalyze: xnmalloc, whose
 * allocation is such a call, then qsort). */
__attribute__((noinline)) int *alloc_pair(int n) {
  fflush(stdout); /* deferred, into code without records (malloc is no call to the pass) */
  int *p = malloc(2 * sizeof(int));
  if (!p || n < 0) abort();
  p[1] = n;
  return p;
}
__attribute__((noinline)) int sort_fresh(int n) {
  int *p = alloc_pair(n);
  p[0] = n;
  p[1] = 3;
  qsort(p, 2, sizeof(int), cmp_int);
  int r = p[0];
  free(p);
  return r;
}

/* A call through a pointer, then a deferred call of the function it points to (gawk's
 * re_parse_field: (*set)(...), then set_element(...)): the pointer's target is the first of
 * the two invocations. */
__attribute__((noinline)) void set_elem(int i) {
  if (i & 1) counter++;
  else counter += 2;
}
void (*volatile set_ptr)(int) = set_elem;
__attribute__((noinline)) int parse_fields(int n) {
  int r = 0;
  for (int i = 0; i < n; i++) {
    set_ptr(i);
    set_elem(i + 1);
    if (i & 2) r++;
  }
  return r;
}

struct node {
  struct node *left, *right;
  int flag;
};

__attribute__((noinline)) void free_node(struct node *n) {
  if (n->flag) counter++;
  free(n);
}
void delete_nn(struct node *n);
__attribute__((noinline)) void delete_list(struct node *n) {
  if (n->left) delete_nn(n->left);
  if (n->right) delete_nn(n->right);
  free_node(n);
}
__attribute__((noinline)) void delete_nn(struct node *n) {
  if (n->left) delete_list(n->left);
  free_node(n);
}
__attribute__((noinline)) void delete_expr(struct node *n) {
  if (n) delete_nn(n);
}

static struct node *make(int depth, int flag) {
  struct node *n = calloc(1, sizeof *n);
  n->flag = flag;
  if (depth > 0) {
    struct node *list = calloc(1, sizeof *list);
    list->left = make(depth - 1, depth % 3);
    list->right = make(depth - 1, 2);
    n->left = list;
    n->flag = 2;
  }
  return n;
}

__attribute__((noinline)) void contact(int r) {
  if (r & 1) fflush(stdout);
  exit(0);
}
__attribute__((noreturn, noinline)) void bad_prog(int r) {
  contact(r); /* deferred: bad_prog writes no record before the exit */
  abort();
}
__attribute__((noinline)) int *alloc_like(int r) {
  if (r < 0) return NULL;
  return calloc(1, sizeof(int));
}
__attribute__((noinline)) void compile_program(int r) {
  int *p = alloc_like(r);
  if (p && r > 3) bump();
  free(p);
  bad_prog(r); /* noreturn: written before, open */
}
__attribute__((noinline)) void compile_string(int r) {
  if (r & 2) bump();
  compile_program(r);
  bump();
}

int main(int argc, char **argv) {
  int r = 0;
  for (int i = 0; i < 6 + argc; i++) r += init_one(i) + init_two(i) + init_three(i);
  for (int d = 0; d < 4; d++) delete_expr(make(d, d));
  int pairs[4][2] = {{3, 1}, {2, 5}, {9, 4}, {6, 6}};
  sort_pairs(pairs, 4);
  for (int i = 0; i < 6; i++) r += sort_fresh(i);
  r += parse_fields(5);
  r += pairs[0][0] + pairs[2][0];
  delete_expr(NULL);
  printf("%d %d\n", r, counter);
  fflush(stdout); /* code without records, then the calls that exit */
  compile_string(r + argc);
  (void)argv;
  return 0;
}
