/* Reproducer (docs/fidelity.md, "Lua's dispatch at -O2"): the Debian Lua 5.4 interpreter as one
 * translation unit (its sources are #included; the include path is the Debian source tree, see
 * check.py) with a small script. The project's own round-trip check (test/roundtrip: the blocks
 * decoded from a dump against an independent per-block trace) passes at -O0 and fails at -O2:
 *   block 220090 of 356724 differs: decoded (luaD_precall, 0), traced (luaV_execute, 1141)
 * and `crashtrail show` warns "a record of luaV_execute ... does not match its metadata (no
 * successor matches the recorded code)", 400 of 45476 records undecodable. luaV_execute
 * dispatches with computed gotos (ljumptab.h: every opcode ends in `goto *disptab[op]`). In the
 * fidelity runs of the Lua interpreter at -O2 the timeline then shows the dispatch line
 * (lvm.c:1179) and goes on in the callee, without the opcode's lines the CPU ran. */
#define LUA_USE_LINUX 1
#define LUA_COMPAT_5_3 1
#include "lapi.c"
#include "lcode.c"
#include "lctype.c"
#include "ldebug.c"
#include "ldo.c"
#include "ldump.c"
#include "lfunc.c"
#include "lgc.c"
#include "llex.c"
#include "lmem.c"
#include "lobject.c"
#include "lopcodes.c"
#include "lparser.c"
#include "lstate.c"
#include "lstring.c"
#include "ltable.c"
#include "ltm.c"
#include "lundump.c"
#include "lvm.c"
#include "lzio.c"
#include "lauxlib.c"
#include "lbaselib.c"
#include "lcorolib.c"
#include "ldblib.c"
#include "liolib.c"
#include "lmathlib.c"
#include "loadlib.c"
#include "loslib.c"
#include "lstrlib.c"
#include "ltablib.c"
#include "lutf8lib.c"
#include "linit.c"
/* Runs a small Lua program (generic for loops, closures, string ops, sort with a comparator). */
int main(void) {
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  const char *script =
      "local t = {} for i = 1, 300 do t[i] = (i * 7919) % 1009 end\n"
      "table.sort(t, function(a, b) return a > b end)\n"
      "local s = 0 for k, v in pairs(t) do s = s + k * v end\n"
      "for w in string.gmatch(string.rep('ab cd ', 50), '%a+') do s = s + #w end\n"
      "local function f(n) if n < 2 then return n end return f(n - 1) + f(n - 2) end\n"
      "print(s + f(15))\n";
  if (luaL_dostring(L, script)) return 1;
  lua_close(L);
  return 0;
}
