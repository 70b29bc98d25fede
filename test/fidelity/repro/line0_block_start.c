/* Reproducer (docs/fidelity.md, bug N), -O2 and -O0: a signal on an instruction of line 0 at
 * the start of a block, before the block's first line. At -O2, cell_info()'s branch goes to a
 * block whose first instruction is a register copy the allocator put there (line 0), and the
 * accumulator's DWARF location switches to the block's value one instruction later: at the
 * copy it still names the value before the branch (`DW_OP_lit1` where the path has taken the
 * branch). The walk ran out of bits at the branch; with no discriminator at the pc the timeline
 * showed none of cell_info()'s lines (its `if`, which had run). At -O0, unlink_node()'s blocks
 * end with a jump of line 0 to the next block (`jmp .+5`): at that jump the path already holds
 * the branch's bit, and the timeline showed the next block's line (the closing brace of the
 * `else`), which had not run. The line table's next row, a few bytes on with no way out but to
 * it, names the block the pc is before. check.py interrupts every line-0 instruction of the two
 * functions (their 5th run) and compares the timeline's last line with the CPU's. */
#include <stdio.h>

struct page {
  void (*parse)(struct page *, const unsigned char *, long *);
  unsigned char *data;
  unsigned short mask;
};
struct cursor {
  struct page *page;
  short nsize;
  unsigned char flags;
  unsigned short ix;
  long info;
};

static volatile long sink;

__attribute__((noinline)) static void parse_cell(struct page *p, const unsigned char *cell,
                                                 long *info) {
  *info = cell[0] + p->mask;
}

__attribute__((noinline)) static void cell_info(struct cursor *c) {
  if (c->nsize == 0) {
    c->flags |= 2;
    struct page *p = c->page;
    p->parse(p, p->data + (p->mask & c->ix), &c->info);
  }
}

struct node {
  struct node *prev, *next;
};
struct list {
  struct node *head, *tail;
  unsigned char state;
};

__attribute__((noinline)) static void unlink_node(struct list *l, struct node *n, int remove) {
  if (remove) {
    if (n->next) {
      n->next->prev = n->prev;
    } else {
      l->tail = n->prev;
    }
    if (n->prev) {
      n->prev->next = n->next;
    } else {
      l->head = n->next;
      if (l->head == 0) {
        l->state = 2;
      }
    }
  }
  if (l->state & 4) {
    l->state ^= 1;
  }
}

__attribute__((noinline)) static void push_front(struct list *l, struct node *n) {
  n->prev = 0;
  n->next = l->head;
  if (l->head) l->head->prev = n;
  else l->tail = n;
  l->head = n;
}

int main(void) {
  static unsigned char data[256];
  struct page pg = {parse_cell, data, 255};
  struct cursor c = {&pg, 0, 0, 0, 0};
  struct node nodes[3];
  struct list l = {0, 0, 0};
  for (int k = 0; k < 3; k++) push_front(&l, &nodes[k]);
  for (long i = 0; i < 3000; i++) {
    c.nsize = (short)(i % 3 == 0);
    c.ix = (unsigned short)i;
    cell_info(&c);
    sink += c.info;
    struct node *n = &nodes[i % 3];
    unlink_node(&l, n, 1); /* the tail, the middle and the head in turn; and the last one */
    if (i % 7 == 0 && l.head) {
      struct node *m = l.head;
      unlink_node(&l, m, 1);
      unlink_node(&l, l.head, 1);
      push_front(&l, m);
    }
    push_front(&l, n);
    for (struct node *x = l.head; x; x = x->next) sink += (long)(x - nodes);
  }
  printf("%ld\n", sink);
  return 0;
}
