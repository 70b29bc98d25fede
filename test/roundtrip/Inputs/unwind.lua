-- Every way the Lua 5.4 interpreter leaves C frames by longjmp (luaD_throw), and the C-to-Lua
-- callbacks: errors in coroutines and across yields, xpcall handlers, errors from the parser,
-- from metamethods, finalizers and to-be-closed variables, comparator errors inside sort,
-- C stack overflows (in the parser and through metamethods). For the round trip
-- (real_roundtrip.py): the same output on every run; the amount scales with arg[1].
local rounds = tonumber(arg and arg[1]) or 2
local out = {}
local function note(...) out[#out + 1] = table.concat({...}, " ") end
local function msg(e) -- its first line, without the "file:line: " prefixes rethrows repeat
  local s, n = tostring(e):match("^[^\n]*"), 1
  while n > 0 do s, n = s:gsub("^.-:%d+: ", "") end
  return s
end

local function deep(n) if n == 0 then error("bottom") end return 1 + deep(n - 1) end

for round = 1, rounds do
  -- plain and nested pcall, error values of every type
  for _, v in ipairs({"text", 42, 3.5, true, {code = 7}}) do
    local ok, e = pcall(error, v)
    note("error", type(e), ok and "ok" or "caught")
  end
  local ok, e = pcall(function() return pcall(deep, 30) end)
  note("nested", tostring(ok), msg(select(2, pcall(deep, 20 + round))))
  -- xpcall with a Lua handler and with a C handler
  note("xpcall", tostring(select(2, xpcall(deep, function(m) return "handled " .. msg(m) end, 10))))
  local tb = select(2, xpcall(deep, debug.traceback, 5))
  note("traceback lines", tostring(select(2, tb:gsub("\n", "")) > 3))
  -- the parser's errors, from deep inside its recursive descent
  for _, src in ipairs({"return ((((1 + ", "local x = = 2", "for i = 1 do end", "return " ..
                        string.rep("(", 250) .. "1" .. string.rep(")", 250), "x = }"}) do
    local f, err = load(src)
    note("load", f and "compiled" or msg(err))
  end
  -- metamethods that raise
  local bad = setmetatable({}, {__index = function(t, k) error("no field " .. k) end,
                                __add = function() error("no add") end,
                                __lt = function(a, b) return rawlen(a) < rawlen(b) end})
  note("index", msg(select(2, pcall(function() return bad.missing end))))
  note("arith", msg(select(2, pcall(function() return bad + 1 end))))
  -- a comparator that fails part-way through table.sort (C calling Lua, longjmp out of sort)
  local t = {}
  for i = 1, 200 do t[i] = (i * 7919 + round) % 211 end
  local calls = 0
  note("sort", msg(select(2, pcall(table.sort, t, function(a, b)
    calls = calls + 1
    if calls == 150 + round then error("comparator gave up") end
    return a < b
  end))))
  table.sort(t)
  note("sorted", t[1], t[#t])
  -- gsub with a function replacement that errors on one match
  note("gsub", msg(select(2, pcall(string.gsub, "a1b22c333d4444", "%d+", function(d)
    if #d == 3 then error("three digits") end
    return "<" .. d .. ">"
  end))))
  note("gsub ok", (string.gsub("a1b22c333", "%d+", function(d) return #d end)))
  -- coroutines: yield across pcall, errors inside, wrap rethrowing, close
  local co = coroutine.create(function(a)
    local ok2, e2 = pcall(function()
      local b = coroutine.yield(a + 1)
      error("inside " .. b)
    end)
    coroutine.yield(msg(e2))
    return "done"
  end)
  for i = 1, 4 do
    local r = {coroutine.resume(co, i * 10)}
    note("resume", tostring(r[1]), tostring(r[2]))
  end
  local gen = coroutine.wrap(function() for i = 1, 3 do coroutine.yield(i) end error("gen over") end)
  local got = {}
  note("wrap", msg(select(2, pcall(function() while true do got[#got + 1] = gen() end end))), #got)
  local sleeping = coroutine.create(function() coroutine.yield() end)
  coroutine.resume(sleeping)
  note("close", tostring(coroutine.close(sleeping)), coroutine.status(sleeping))
  -- to-be-closed variables: closed on normal exit and on error
  local closed = 0
  local function closer() return setmetatable({}, {__close = function() closed = closed + 1 end}) end
  pcall(function() local a <close> = closer(); local b <close> = closer(); error("with tbc") end)
  do local c <close> = closer() end
  note("closed", closed)
  -- finalizers run by the collector, one of which raises (a warning, not an error)
  for i = 1, 20 do setmetatable({}, {__gc = function() if i == 5 then error("in gc") end end}) end
  collectgarbage()
  -- the C stack overflowing through nested metamethod calls (a Lua stack overflow, 200,000
  -- frames deep, would be 33 M blocks)
  local nest = setmetatable({}, {})
  getmetatable(nest).__index = function(t, k) return nest[k .. "x"] end
  note("C overflow", tostring(not pcall(function() return nest.a end)))
  -- integer errors and string.format's argument checks
  note("idiv", msg(select(2, pcall(function(z) return 1 // z end, 0))))
  note("format", msg(select(2, pcall(string.format, "%d", "x"))))
  -- goto and varargs
  local function count(...)
    local n, i = select("#", ...), 0
    ::again:: i = i + 1
    if i < n then goto again end
    return i
  end
  note("varargs", count(1, nil, 3, nil, round))
end
print(#out, out[1], out[#out])
for i = 1, #out do print(out[i]) end
