/* Unit test of elf_exports.c: a library's functions by the names its symbol tables give them
 * (exports_fixture/fixture.c, linked with a version script): .dynsym gives the default version
 * of a versioned name (lib_twice@@CT_2, not the hidden lib_twice@CT_1), aliases, and no local
 * or hidden function; .symtab gives every function, versioned names under their base name.
 * Addresses are checked against the symbols' own (ct_elf_symbol_alias). */
#include <stdio.h>
#include <string.h>

#include "elf_exports.h"
#include "elf_file.h"
#include "unit_check.h"

/* Whether a function symbol called name starts at addr. */
static int named_at(struct ct_elf *e, uint64_t addr, const char *name) {
  return addr && ct_elf_symbol_alias(e, addr, name);
}

int main(int argc, char **argv) {
  char err[256];
  struct ct_elf *e;
  struct ct_exports *dyn = NULL, *all = NULL;
  if (argc != 2 || ct_elf_open(argv[1], &e, err, sizeof err) != 0) {
    fprintf(stderr, "usage: test_elf_exports LIBRARY (%s)\n", argc == 2 ? err : "");
    return 2;
  }
  CHECK(ct_exports_load(e, 1, &dyn) == 0 && ct_exports_load(e, 0, &all) == 0, "load failed");

  uint64_t v2 = ct_exports_find(all, "lib_twice_v2"), v1 = ct_exports_find(all, "lib_twice_v1");
  CHECK(named_at(e, v2, "lib_twice_v2") && named_at(e, v1, "lib_twice_v1") && v1 != v2,
        ".symtab: lib_twice_v1 at %#llx, lib_twice_v2 at %#llx", (unsigned long long)v1,
        (unsigned long long)v2);
  CHECK(ct_exports_find(dyn, "lib_twice") == v2, ".dynsym: lib_twice at %#llx, want v2's %#llx",
        (unsigned long long)ct_exports_find(dyn, "lib_twice"), (unsigned long long)v2);
  CHECK(ct_exports_find(all, "lib_twice") == v2, ".symtab: lib_twice at %#llx, want v2's %#llx",
        (unsigned long long)ct_exports_find(all, "lib_twice"), (unsigned long long)v2);
  CHECK(!ct_exports_find(dyn, "lib_twice_v1") && !ct_exports_find(dyn, "lib_twice_v2"),
        ".dynsym exports the versions' local definitions");

  uint64_t api = ct_exports_find(dyn, "api");
  CHECK(named_at(e, api, "api") && ct_exports_find(dyn, "api_alias") == api,
        "api at %#llx, api_alias at %#llx", (unsigned long long)api,
        (unsigned long long)ct_exports_find(dyn, "api_alias"));
  CHECK(!ct_exports_find(dyn, "helper") && !ct_exports_find(dyn, "hidden_fn"),
        ".dynsym gives a local or hidden function");
  CHECK(named_at(e, ct_exports_find(all, "helper"), "helper") &&
            named_at(e, ct_exports_find(all, "hidden_fn"), "hidden_fn"),
        ".symtab lacks helper or hidden_fn");
  CHECK(!ct_exports_find(dyn, "lib") && !ct_exports_find(dyn, "lib_twice_") &&
            !ct_exports_find(dyn, "") && !ct_exports_find(dyn, NULL) &&
            !ct_exports_find(NULL, "api"),
        "a prefix, an empty name or NULL found something");
  CHECK(ct_exports_count(dyn) >= 3 && ct_exports_count(all) >= 6 && ct_exports_count(NULL) == 0,
        "counts %zu, %zu", ct_exports_count(dyn), ct_exports_count(all));

  ct_exports_free(dyn);
  ct_exports_free(all);
  ct_elf_close(e);
  if (failures) return 1;
  printf("elf_exports: ok\n");
  return 0;
}
