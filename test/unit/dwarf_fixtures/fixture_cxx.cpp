/*
 * fixture_cxx.cpp - C++ program analysed by test_dwarf_module: member
 * functions in a namespace, a class template, an always_inline helper,
 * and a __crashtrail_path local live across a call.
 * Usage: fixture_cxx <mode 0|1|2> [dump-file]
 */
#include "fixture_common.h"

namespace ns {

template <typename T> struct Box {
    T v;
    __attribute__((noinline)) T get(int mode) const;
};

struct Widget {
    int k;
    __attribute__((noinline)) int frob(int mode);
};

static inline __attribute__((always_inline)) void touch(int outer_line)
{
    fx_sink += fx_mark(2, "ns::touch", __LINE__, "ns::Widget::frob", outer_line);
}

template <typename T> T Box<T>::get(int mode) const
{
    fx_sink += fx_mark(1, "ns::Box<int>::get", __LINE__);
    FX_CAPTURE(mode);
    fx_sink += 1;
    return v;
}

int Widget::frob(int mode)
{
    unsigned long long __crashtrail_path = (unsigned long long)k * 0x100000001b3ull + 11;
    printf("VAR ns::Widget::frob %#llx\n", __crashtrail_path);
    Box<int> b{k};
    touch(__LINE__);
    int r = b.get(mode);
    fx_sink += __crashtrail_path;
    return r + 1;
}

} // namespace ns

int main(int argc, char **argv)
{
    int mode = argc > 1 ? atoi(argv[1]) : 0;
    fx_init(argc > 2 ? argv[2] : NULL);
    printf("CHAIN %s ns::Box<int>::get ns::Widget::frob main\n", mode == 1 ? "fx_dump_ctx" : "");
    ns::Widget w{argc};
    fx_sink += fx_mark(1, "main", __LINE__);
    int r = w.frob(mode);
    fx_sink += (unsigned)r;
    printf("DONE\n");
    return 0;
}
