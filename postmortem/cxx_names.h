/*
 * cxx_names.h - a demangled C++ function name made short enough for a column.
 */
#ifndef CT_CXX_NAMES_H
#define CT_CXX_NAMES_H

#include <stddef.h>

/* name without its return type, template arguments, parameters and qualifiers after them, and
 * with at most its last two scopes: "Json::OurReader::readToken(Json::OurReader::Token&)" is
 * "OurReader::readToken", "void std::deque<int>::emplace_back<int>(int&&)" is
 * "deque::emplace_back". Returns name itself when it has none of these (a C name), else buf
 * (cap bytes, at least 1; truncated to fit). */
const char *ct_cxx_short_name(const char *name, char *buf, size_t cap);

/* The demangled form of an Itanium C++ ABI linkage name ("_ZSt9terminatev" is
 * "std::terminate()"), malloc'ed (free it); NULL for a name that is not one or cannot be
 * demangled. For names read from ELF symbol tables, which DWARF does not describe. */
char *ct_cxx_demangle(const char *linkage_name);

#endif
