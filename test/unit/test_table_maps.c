/* test_table_maps.c - the fold of tables mode's per-thread byte maps (runtime/table_maps.c):
 * marked bytes become the table's times (last if newer, first if unset), exactly those, and the
 * map is cleared, for any number of entries (maps padded to 64 bytes, as the pass emits them:
 * the last step partly entries), several units and modules, and an unloaded module left alone.
 * The test supplies what the fold reads from the rest of the runtime: the module list and the
 * thread's clock. */
#include <stdint.h>
#include <string.h>

#include "rt_internal.h"
#include "unit_check.h"

struct ct_module ct_modules[CT_MAX_MODULES];
_Atomic uint32_t ct_module_count;
__thread uint64_t __crashtrail_now;

#define N1 203 /* 3 steps of 64 bytes and 11 entries of a fourth */
#define N2 64
#define N3 5
static __thread unsigned char map1[256] __attribute__((aligned(64)));
static __thread unsigned char map2[N2] __attribute__((aligned(64)));
static __thread unsigned char map3[64] __attribute__((aligned(64)));
static struct ct_table_entry tab1[N1], tab2[N2], tab3[N3];
static struct ct_table_map maps[3];

static uintptr_t thread_pointer(void) {
  uintptr_t tp;
  __asm__("mov %%fs:0, %0" : "=r"(tp));
  return tp;
}

static void describe(struct ct_table_map *m, struct ct_table_entry *tab, unsigned char *map,
                     uint64_t n) {
  m->table = (int64_t)((char *)tab - (char *)m);
  m->tpoff = (int64_t)((uintptr_t)map - thread_pointer());
  m->entries = n;
}

static void expect_entry(const char *what, struct ct_table_entry *tab, unsigned i, uint64_t last,
                         uint64_t first) {
  CHECK(tab[i].last == last && tab[i].first == first, "%s[%u]: last %lu first %lu, expected %lu %lu",
        what, i, (unsigned long)tab[i].last, (unsigned long)tab[i].first, (unsigned long)last,
        (unsigned long)first);
}

int main(void) {
  describe(&maps[0], tab1, map1, N1);
  describe(&maps[1], tab2, map2, N2);
  describe(&maps[2], tab3, map3, N3);
  ct_modules[0].maps_start = &maps[0];
  ct_modules[0].maps_stop = &maps[2];
  ct_modules[1].maps_start = &maps[2];
  ct_modules[1].maps_stop = &maps[3];
  ct_module_count = 2;
  atomic_store(&ct_table_maps_present, 1);

  /* Nothing marked: nothing written. */
  __crashtrail_now = 7;
  ct_table_maps_fold_self();
  for (unsigned i = 0; i < N1; i++) expect_entry("empty", tab1, i, 0, 0);

  /* Marks in the first step, the last step, the lone word, the tail; the other maps. */
  const unsigned marked1[] = {0, 63, 64, 130, 191, 192, 199, 200, 202};
  for (unsigned k = 0; k < sizeof marked1 / sizeof marked1[0]; k++) map1[marked1[k]] = 1;
  map2[17] = 1;
  map3[4] = 1;
  ct_table_maps_fold_self();
  for (unsigned i = 0; i < N1; i++) {
    int m = 0;
    for (unsigned k = 0; k < sizeof marked1 / sizeof marked1[0]; k++) m |= marked1[k] == i;
    expect_entry("first fold", tab1, i, m ? 7 : 0, m ? 7 : 0);
    CHECK(map1[i] == 0, "map1[%u] not cleared", i);
  }
  expect_entry("map2", tab2, 17, 7, 7);
  expect_entry("map2", tab2, 16, 0, 0);
  expect_entry("map3", tab3, 4, 7, 7);
  CHECK(map2[17] == 0 && map3[4] == 0, "maps 2 and 3 not cleared");

  /* Later: last moves on, first stays; an older time (another thread's fold) never wins. */
  map1[63] = map1[202] = map1[5] = 1;
  ct_table_maps_fold(12);
  expect_entry("later", tab1, 63, 12, 7);
  expect_entry("later", tab1, 202, 12, 7);
  expect_entry("later", tab1, 5, 12, 12);
  expect_entry("later", tab1, 64, 7, 7);
  map1[63] = 1;
  ct_table_maps_fold(9);
  expect_entry("older time", tab1, 63, 12, 7);

  /* An unloaded module's maps are not read. */
  ct_modules[1].flags = CT_MOD_UNLOADED;
  map3[0] = 1;
  ct_table_maps_fold(20);
  expect_entry("unloaded", tab3, 0, 0, 0);
  CHECK(map3[0] == 1, "an unloaded module's map was folded");
  return failures != 0;
}
