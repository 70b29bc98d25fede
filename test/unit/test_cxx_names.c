/* Unit test of ct_cxx_short_name (postmortem/cxx_names.c): the names the timeline's function
 * column shows for demangled C++ names, from jsoncpp and libstdc++ as clang 14 names them. */
#include <stdio.h>
#include <string.h>

#include "cxx_names.h"

static int failures;

static void expect(const char *name, const char *want) {
  char buf[64];
  const char *got = ct_cxx_short_name(name, buf, sizeof buf);
  if (strcmp(got, want) != 0) {
    fprintf(stderr, "FAIL: %s\n  want %s\n  got  %s\n", name, want, got);
    failures++;
  }
}

int main(void) {
  expect("main", "main");
  expect("luaV_execute", "luaV_execute");
  expect("Json::OurReader::readToken(Json::OurReader::Token&)", "OurReader::readToken");
  expect("Json::Reader::skipSpaces()", "Reader::skipSpaces");
  expect("std::_Deque_iterator<Json::Value*, Json::Value*&, Json::Value**>::_Deque_iterator("
         "std::_Deque_iterator<Json::Value*, Json::Value*&, Json::Value**> const&)",
         "_Deque_iterator::_Deque_iterator");
  expect("void std::deque<Json::Value*, std::allocator<Json::Value*> >::emplace_back<Json::Value*>"
         "(Json::Value*&&)", "deque::emplace_back");
  expect("std::operator-(std::_Deque_iterator<Json::Value*, Json::Value*&, Json::Value**> const&, "
         "std::_Deque_iterator<Json::Value*, Json::Value*&, Json::Value**> const&)", "std::operator-");
  expect("std::basic_ostream<char, std::char_traits<char> >& std::operator<< <std::char_traits<char> >"
         "(std::basic_ostream<char, std::char_traits<char> >&, char const*)", "std::operator<<");
  expect("Json::Value::operator[](int)", "Value::operator[]");
  expect("Json::Value::operator bool() const", "Value::operator bool");
  expect("Json::Value::CZString::operator<(Json::Value::CZString const&) const",
         "CZString::operator<");
  expect("(anonymous namespace)::helper(int)", "(anonymous namespace)::helper");
  expect("std::function<void ()>::operator()() const", "function::operator()");
  expect("Json::Value::~Value()", "Value::~Value");
  expect("std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > "
         "std::operator+<char, std::char_traits<char>, std::allocator<char> >(char const*, "
         "std::__cxx11::basic_string<char, std::char_traits<char>, std::allocator<char> > const&)",
         "std::operator+");
  expect("bool std::operator< <int>(std::vector<int> const&, std::vector<int> const&)",
         "std::operator<");
  expect("Json::Value::operator<=(Json::Value const&) const", "Value::operator<=");
  expect("Json::Value::operator->()", "Value::operator->");
  if (failures) return 1;
  puts("cxx_names: all names as expected");
  return 0;
}
