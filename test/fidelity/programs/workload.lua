-- The Lua workload of the fidelity tests: a little of everything an interpreter does. A tokenizer
-- and a recursive-descent evaluator for arithmetic, a priority queue, closures and upvalues,
-- metatables (vectors with __add/__eq/__tostring/__index), string.format/gsub/gmatch, table.sort
-- with a comparator, coroutines as generators, pcall/error, and a JSON-like serializer. The same
-- output on every run; the amount of work scales with the first argument (default 3).
local rounds = tonumber(arg and arg[1]) or 3

-- Tokenizer and evaluator ---------------------------------------------------------------------
local function tokens(s)
  local out = {}
  for num, op in s:gmatch("%s*(%d*%.?%d+)%s*([%+%-%*/%%%^%(%)]?)") do
    out[#out + 1] = tonumber(num)
    if op ~= "" then out[#out + 1] = op end
  end
  return out
end

local function evaluate(toks)
  local pos = 1
  local expr
  local function atom()
    local t = toks[pos]; pos = pos + 1
    if t == "(" then
      local v = expr(); pos = pos + 1; return v
    end
    return t or 0
  end
  local function power()
    local v = atom()
    while toks[pos] == "^" do pos = pos + 1; v = v ^ atom() end
    return v
  end
  local function term()
    local v = power()
    while toks[pos] == "*" or toks[pos] == "/" or toks[pos] == "%" do
      local op = toks[pos]; pos = pos + 1
      local r = power()
      if op == "*" then v = v * r elseif op == "/" then v = v / r else v = v % r end
    end
    return v
  end
  expr = function()
    local v = term()
    while toks[pos] == "+" or toks[pos] == "-" do
      local op = toks[pos]; pos = pos + 1
      local r = term()
      if op == "+" then v = v + r else v = v - r end
    end
    return v
  end
  return expr()
end

-- Priority queue -------------------------------------------------------------------------------
local Heap = {}
Heap.__index = Heap
function Heap.new(less) return setmetatable({n = 0, less = less}, Heap) end
function Heap:push(x)
  self.n = self.n + 1
  local i = self.n
  self[i] = x
  while i > 1 do
    local p = i // 2
    if not self.less(self[i], self[p]) then break end
    self[i], self[p] = self[p], self[i]
    i = p
  end
end
function Heap:pop()
  local top = self[1]
  self[1] = self[self.n]; self[self.n] = nil; self.n = self.n - 1
  local i = 1
  while true do
    local l, r, m = 2 * i, 2 * i + 1, i
    if l <= self.n and self.less(self[l], self[m]) then m = l end
    if r <= self.n and self.less(self[r], self[m]) then m = r end
    if m == i then break end
    self[i], self[m] = self[m], self[i]
    i = m
  end
  return top
end

-- Vectors with metatables ----------------------------------------------------------------------
local Vec = {}
Vec.__index = Vec
local function vec(x, y) return setmetatable({x = x, y = y}, Vec) end
Vec.__add = function(a, b) return vec(a.x + b.x, a.y + b.y) end
Vec.__eq = function(a, b) return a.x == b.x and a.y == b.y end
Vec.__tostring = function(a) return string.format("(%g, %g)", a.x, a.y) end
function Vec:len() return math.sqrt(self.x * self.x + self.y * self.y) end

-- Generators -----------------------------------------------------------------------------------
local function primes(limit)
  return coroutine.wrap(function()
    local sieve = {}
    for i = 2, limit do
      if not sieve[i] then
        coroutine.yield(i)
        for j = i * i, limit, i do sieve[j] = true end
      end
    end
  end)
end

-- Serializer -----------------------------------------------------------------------------------
local function serialize(v, out)
  local t = type(v)
  if t == "table" then
    local keys = {}
    for k in pairs(v) do keys[#keys + 1] = tostring(k) end
    table.sort(keys)
    out[#out + 1] = "{"
    for i, k in ipairs(keys) do
      if i > 1 then out[#out + 1] = "," end
      out[#out + 1] = string.format("%q:", k)
      serialize(v[k] ~= nil and v[k] or v[tonumber(k)], out)
    end
    out[#out + 1] = "}"
  elseif t == "string" then
    out[#out + 1] = string.format("%q", v)
  else
    out[#out + 1] = tostring(v)
  end
  return out
end

-- The run --------------------------------------------------------------------------------------
local checksum = 0
local function mix(x) checksum = (checksum * 31 + math.floor(x)) % 1000000007 end

for round = 1, rounds do
  local exprs = {"1 + 2 * 3", "(4 + 5) * (6 - 2) / 3", "2 ^ 10 - 24 % 7", "((1+2)*(3+4))*5"}
  for i = 1, 40 do
    exprs[#exprs + 1] = string.format("%d * (%d + %d) - %d / 2", i, round, i % 7, i * 3)
  end
  for _, e in ipairs(exprs) do mix(evaluate(tokens(e))) end

  local h = Heap.new(function(a, b) return a.key < b.key end)
  for i = 1, 200 do h:push({key = (i * 7919 + round) % 1009, id = i}) end
  local last = -1
  while h.n > 0 do
    local x = h:pop()
    assert(x.key >= last)
    last = x.key
    mix(x.id)
  end

  local acc = vec(0, 0)
  for i = 1, 100 do acc = acc + vec(i % 13, -(i % 7)) end
  assert(acc == vec(acc.x, acc.y))
  mix(acc:len())

  local words = {}
  local text = string.rep("the quick brown fox jumps over the lazy dog ", 8)
  for w in text:gmatch("%a+") do words[w] = (words[w] or 0) + 1 end
  local list = {}
  for w, n in pairs(words) do list[#list + 1] = {w = w, n = n} end
  table.sort(list, function(a, b) if a.n ~= b.n then return a.n > b.n end return a.w < b.w end)
  for _, e in ipairs(list) do mix(#e.w * e.n) end
  mix(#text:gsub("o", "0"))

  for p in primes(400 + round) do mix(p) end

  local ok, err = pcall(function() error({code = round}) end)
  assert(not ok and err.code == round)
  ok = pcall(function() local t = nil; return t.x end)
  assert(not ok)

  local s = table.concat(serialize({name = "round", n = round, tags = {"a", "b"},
                                    nested = {x = 1.5, y = {true, false}}}, {}))
  mix(#s)
end
print(string.format("checksum %d", checksum))
