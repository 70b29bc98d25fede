#!/bin/sh
# run_dwarf_tests.sh - builds the dwarf_module fixtures and unit test with
# clang-14 into a temporary directory and runs the test (under valgrind
# when it is installed, unless CT_NO_VALGRIND=1).
#
# Fixtures: fixture.c at -O0/-O2, with/without frame pointers, DWARF 4/5
# (-O2 also with -ffunction-sections, so CUs and functions use range
# lists); fixture_cxx.cpp at -O0/-O2, DWARF 4/5; two stripped copies
# with separate debug files (objcopy --only-keep-debug when objcopy or
# llvm-objcopy-14 exists, else the unstripped binary stands in); and three
# with compressed debug files indexed by .debug_aranges (read lazily).
# The test binary itself is built with -gdwarf-4 because valgrind 3.19
# cannot read clang 14's DWARF 5.
set -eu

HERE=$(cd "$(dirname "$0")" && pwd)
ROOT=$(cd "$HERE/../.." && pwd)
CC=${CC:-clang-14}
CXX=${CXX:-clang++-14}
FX=$HERE/dwarf_fixtures
WORK=$(mktemp -d "${TMPDIR:-/tmp}/ct_dwarf_tests.XXXXXX")
if [ -z "${CT_KEEP_WORK:-}" ]; then
    trap 'rm -rf "$WORK"' EXIT
else
    echo "work dir: $WORK"
fi

opt_flags() {
    case $1 in
    O0) echo "-O0" ;;
    O2) echo "-O2 -ffunction-sections -Wl,--gc-sections" ;;
    esac
}

for opt in O0 O2; do
    for fp in fp nofp; do
        if [ "$fp" = fp ]; then fpf=-fno-omit-frame-pointer; else fpf=-fomit-frame-pointer; fi
        for dw in 4 5; do
            # shellcheck disable=SC2046
            $CC $(opt_flags $opt) $fpf -gdwarf-$dw -o "$WORK/c_${opt}_${fp}_dw$dw" "$FX/fixture.c"
        done
    done
    for dw in 4 5; do
        # shellcheck disable=SC2046
        $CXX $(opt_flags $opt) -gdwarf-$dw -o "$WORK/cxx_${opt}_dw$dw" "$FX/fixture_cxx.cpp"
    done
done

# Stripped binaries: same code (-s only strips at link time), debug info
# kept in a separate file.
OBJCOPY=
for c in objcopy llvm-objcopy-14; do
    if command -v "$c" >/dev/null 2>&1; then OBJCOPY=$c; break; fi
done
split_variant() { # name opt fp-flag dwarf
    # shellcheck disable=SC2046
    $CC $(opt_flags "$2") "$3" -gdwarf-"$4" -s -o "$WORK/$1.stripped" "$FX/fixture.c"
    if [ -n "$OBJCOPY" ]; then
        $OBJCOPY --only-keep-debug "$WORK/$1" "$WORK/$1.debug"
    else
        cp "$WORK/$1" "$WORK/$1.debug"
    fi
}
split_variant c_O2_nofp_dw5 O2 -fomit-frame-pointer 5
split_variant c_O0_fp_dw4 O0 -fno-omit-frame-pointer 4

# Debug files as distributions ship them (libc6-dbg): compressed sections, units indexed by
# .debug_aranges. The post-mortem reads those lazily (dwarf_lazy.c); <name>.debug is the same
# file uncompressed, read the usual way, which the test compares them with.
zsplit_variant() { # name compiler opt fp-flag dwarf source
    # shellcheck disable=SC2046
    $2 $(opt_flags "$3") "$4" -gdwarf-"$5" -gdwarf-aranges -o "$WORK/$1" "$FX/$6"
    # shellcheck disable=SC2046
    $2 $(opt_flags "$3") "$4" -gdwarf-"$5" -gdwarf-aranges -s -o "$WORK/$1.stripped" "$FX/$6"
    $OBJCOPY --only-keep-debug "$WORK/$1" "$WORK/$1.debug"
    $OBJCOPY --compress-debug-sections=zlib "$WORK/$1.debug" "$WORK/$1.zdebug"
}
if [ -n "$OBJCOPY" ]; then
    zsplit_variant c_O2_nofp_dw5z "$CC" O2 -fomit-frame-pointer 5 fixture.c
    zsplit_variant c_O0_fp_dw4z "$CC" O0 -fno-omit-frame-pointer 4 fixture.c
    zsplit_variant cxx_O2_dw5z "$CXX" O2 -fomit-frame-pointer 5 fixture_cxx.cpp
    LIBC_DBG=/usr/lib/debug/.build-id/93/ac61ec5a8eb1396f9fbd350e3169a558528a40.debug
    if [ -f "$LIBC_DBG" ]; then
        $OBJCOPY --decompress-debug-sections "$LIBC_DBG" "$WORK/libc.debug.plain"
    fi
fi

$CC -std=c11 -Wall -Wextra -Werror -O1 -gdwarf-4 -I"$ROOT/postmortem" \
    -o "$WORK/test_dwarf_module" "$HERE/test_dwarf_module.c" \
    "$ROOT/postmortem/dwarf_module.c" "$ROOT/postmortem/dwarf_elf.c" "$ROOT/postmortem/dwarf_lazy.c" "$ROOT/postmortem/dwarf_lines.c" "$ROOT/postmortem/dwarf_callsites.c" \
    "$ROOT/postmortem/dwarf_expr.c" "$ROOT/postmortem/dwarf_unwind.c" "$ROOT/postmortem/code_flow.c" \
    "$ROOT/postmortem/jump_tables.c" "$ROOT/postmortem/elf_file.c" \
    "$ROOT/postmortem/capstone_lib.c" "$ROOT/postmortem/lazy_lib.c" \
    -l:libdwarf.a -lelf -lz -ldl -lstdc++

if [ -z "${CT_NO_VALGRIND:-}" ] && command -v valgrind >/dev/null 2>&1; then
    CT_PERF_LOOKUPS=${CT_PERF_LOOKUPS:-20000} CT_FUZZ_ITERS=${CT_FUZZ_ITERS:-60} \
        valgrind -q --leak-check=full --errors-for-leak-kinds=definite,indirect,possible \
        --error-exitcode=1 "$WORK/test_dwarf_module" "$WORK"
else
    "$WORK/test_dwarf_module" "$WORK"
fi
