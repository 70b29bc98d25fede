/* A real crash in Lua through its public API: a C function registered with the interpreter takes
 * a coroutine argument with lua_tothread() without checking its type; given anything else,
 * lua_tothread() returns NULL and lua_pushstring(NULL, s) dereferences it inside the library
 * (luaS_new reads G(L)->strcache, lstring.c).
 *
 *   lua_misuse WORKLOAD.lua [ROUNDS]
 *
 * It runs the whole Lua workload first, then final_phase(): a script hands greetings to
 * coroutines through send(co, text); the sixth receiver is a table, not a coroutine. The
 * fidelity test starts its oracle at a late call of send (a breakpoint), so it is noinline. */
#include <stdio.h>
#include <stdlib.h>
#include "lauxlib.h"
#include "lua.h"
#include "lualib.h"

/* send(co, text): push text onto coroutine co's stack and resume it with it. */
__attribute__((noinline)) static int send(lua_State *L) {
  lua_State *co = lua_tothread(L, 1); /* the bug: NULL when argument 1 is not a coroutine */
  const char *text = luaL_checkstring(L, 2);
  int nres;
  lua_pushstring(co, text);
  int status = lua_resume(co, L, 1, &nres);
  if (status != LUA_OK && status != LUA_YIELD) return lua_error(L);
  lua_pop(co, nres);
  lua_pushinteger(L, nres);
  return 1;
}

static const char final_script[] =
    "local log = {}\n"
    "local function receiver(name)\n"
    "  return coroutine.create(function(text)\n"
    "    while true do\n"
    "      log[#log + 1] = name .. ': ' .. string.upper(text)\n"
    "      text = coroutine.yield(#log)\n"
    "    end\n"
    "  end)\n"
    "end\n"
    "local to = {}\n"
    "for i = 1, 5 do to[i] = receiver('r' .. i) end\n"
    "to[6] = {name = 'not a coroutine'}\n"
    "for round = 1, 3 do\n"
    "  for i, co in ipairs(to) do\n"
    "    if round == 3 or i <= 5 then\n"
    "      send(co, string.format('hello %d from round %d', i, round))\n"
    "    end\n"
    "  end\n"
    "end\n"
    "print(#log)\n";

__attribute__((noinline)) static void final_phase(lua_State *L) {
  lua_register(L, "send", send);
  if (luaL_dostring(L, final_script) != LUA_OK) {
    fprintf(stderr, "final phase: %s\n", lua_tostring(L, -1));
    exit(1);
  }
}

int main(int argc, char **argv) {
  if (argc < 2) {
    fprintf(stderr, "usage: lua_misuse WORKLOAD.lua [ROUNDS]\n");
    return 2;
  }
  lua_State *L = luaL_newstate();
  luaL_openlibs(L);
  lua_createtable(L, 1, 0);
  lua_pushstring(L, argc > 2 ? argv[2] : "3");
  lua_rawseti(L, -2, 1);
  lua_setglobal(L, "arg");
  if (luaL_dofile(L, argv[1]) != LUA_OK) {
    fprintf(stderr, "workload: %s\n", lua_tostring(L, -1));
    return 1;
  }
  final_phase(L);
  lua_close(L);
  return 0;
}
