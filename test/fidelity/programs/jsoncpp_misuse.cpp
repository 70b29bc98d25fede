/* A real crash in C++ code nobody on the team wrote: jsoncpp (Debian libjsoncpp 1.9.5), driven
 * through its public API the way applications use it, with exceptions thrown inside the library
 * and caught here on every round, then a NULL document handed to Json::Reader::parse, which
 * dereferences it inside the library (skipSpaces/readToken, json_reader.cpp).
 *
 *   jsoncpp_misuse [ROUNDS]
 *
 * Each round builds an inventory document with the Value API, writes it with StreamWriterBuilder,
 * parses it back with CharReaderBuilder (strict mode), converts every member with asInt(), which
 * throws Json::LogicError for strings, objects and values out of range (json_value.cpp's
 * JSON_ASSERT_MESSAGE), and parses malformed texts through operator>>, which throws
 * Json::RuntimeError. So the recorded path crosses throw, the unwinder in libgcc (not
 * instrumented) and catch blocks in both directions, many times. final_phase() then parses a list
 * of documents, the last of which was never filled in (text NULL, length 24). The fidelity test
 * starts its oracle at a late call of label() (a breakpoint), so it is noinline. */
#include <json/json.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <sstream>
#include <string>

extern "C" __attribute__((noinline)) void label(int where) {
  static volatile int last;
  last = where;
}

static Json::Value inventory(int round) {
  Json::Value doc;
  doc["round"] = round;
  doc["name"] = "store " + std::to_string(round);
  Json::Value &items = doc["items"];
  for (int i = 0; i < 12; i++) {
    Json::Value item;
    item["id"] = i * 7 + round;
    item["price"] = (i * 3 + round) * 0.25;
    item["label"] = "item-" + std::to_string(i);
    if (i % 4 == 0) item["stock"] = Json::Value(Json::UInt64(1) << (30 + i)); /* > INT_MAX */
    if (i % 5 == 0) item["tags"].append("sale");
    items.append(item);
  }
  return doc;
}

/* Every member's asInt(): numbers convert, the rest throw Json::LogicError from the library. */
static long convert_all(const Json::Value &v, int *thrown) {
  long sum = 0;
  for (Json::Value::const_iterator it = v.begin(); it != v.end(); ++it) {
    try {
      sum += it->asInt();
    } catch (const Json::LogicError &e) {
      ++*thrown;
      sum += (long)(std::strlen(e.what()) & 7);
      if (it->isArray() || it->isObject()) sum += convert_all(*it, thrown);
    }
  }
  return sum;
}

static const char *const malformed[] = {
    "{\"a\": [1, 2,, 3]}", "{\"unterminated\": \"abc", "[true, false, nul]", "{\"k\" 1}",
};

static int round_trip(int round, long *sum) {
  int thrown = 0;
  Json::Value doc = inventory(round);
  Json::StreamWriterBuilder wb;
  wb["indentation"] = round % 2 ? "" : "  ";
  std::string text = Json::writeString(wb, doc);

  Json::CharReaderBuilder rb;
  Json::CharReaderBuilder::strictMode(&rb.settings_);
  Json::Value back;
  std::string errs;
  std::istringstream in(text);
  if (!Json::parseFromStream(rb, in, &back, &errs) || Json::writeString(wb, back) != text) {
    std::fprintf(stderr, "round %d: the document did not read back: %s\n", round, errs.c_str());
    std::exit(1);
  }
  *sum += convert_all(back, &thrown);
  for (const char *bad : malformed) {
    std::istringstream bin(bad);
    Json::Value v;
    try {
      bin >> v;
    } catch (const Json::RuntimeError &e) {
      ++thrown;
      *sum += (long)std::strlen(e.what());
    }
  }
  return thrown;
}

struct document {
  const char *text;
  size_t length;
};

__attribute__((noinline)) static long final_phase(void) {
  static const char first[] = "{\"orders\": [1, 2, 3], \"open\": true}";
  static const char second[] = "[{\"sku\": \"a-1\", \"qty\": 2}, {\"sku\": \"b-7\", \"qty\": 1}]";
  struct document docs[3] = {{first, sizeof first - 1}, {second, sizeof second - 1}, {0, 24}};
  long total = 0;
  for (const struct document &d : docs) {
    label(100);
    Json::Reader reader;
    Json::Value root;
    /* The bug: the third document's text was never set, its length was. */
    if (reader.parse(d.text, d.text + d.length, root)) total += (long)root.size();
  }
  return total;
}

int main(int argc, char **argv) {
  int rounds = argc > 1 ? std::atoi(argv[1]) : 30;
  long sum = 0;
  int thrown = 0;
  for (int r = 0; r < rounds; r++) {
    label(r);
    thrown += round_trip(r, &sum);
  }
  std::printf("%d rounds, %d exceptions caught, checksum %ld\n", rounds, thrown, sum);
  std::fflush(stdout);
  std::printf("final: %ld\n", final_phase());
  return 0;
}
