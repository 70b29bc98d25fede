-- cpu.lua - the Lua workload: a CPU-bound mix for the Lua 5.4 interpreter.
--   lua cpu.lua SCALE
-- Recursion (calls and returns), table building and sorting, string building and pattern
-- matching, closures and metatables (method calls), floating-point loops. Each part's size
-- grows linearly with SCALE; the printed checksum is the same for every build.
local scale = tonumber(arg and arg[1]) or 10

local function fib(n) if n < 2 then return n end return fib(n - 1) + fib(n - 2) end

local function tables(n)
  local t = {}
  local x = 7
  for i = 1, n do x = (x * 1103515245 + 12345) % 2147483648; t[i] = x % 100000 end
  table.sort(t)
  local m = {}
  for i = 1, n do local k = t[i] % 1000; m[k] = (m[k] or 0) + 1 end
  local s = 0
  for k, v in pairs(m) do s = s + k * v end
  return s + t[1] + t[n]
end

local function strings(n)
  local parts = {}
  for i = 1, n do parts[#parts + 1] = string.format("%d:%s", i, string.rep("ab", i % 7)) end
  local s = table.concat(parts, ",")
  local count = 0
  for num, word in s:gmatch("(%d+):(%a*)") do count = count + #word + (tonumber(num) % 3) end
  local u = s:gsub("ab", "x"):upper()
  return count + #u + (s:find("99:", 1, true) or 0)
end

local Point = {}
Point.__index = Point
function Point.new(x, y) return setmetatable({x = x, y = y}, Point) end
function Point:add(o) return Point.new(self.x + o.x, self.y + o.y) end
function Point:len2() return self.x * self.x + self.y * self.y end

local function objects(n)
  local acc = Point.new(0, 0)
  local step = Point.new(1, -1)
  local total = 0
  for i = 1, n do
    acc = acc:add(step)
    if i % 3 == 0 then total = total + acc:len2() % 7 end
  end
  local adders = {}
  for i = 1, 64 do adders[i] = function(v) return v + i end end
  for i = 1, n do total = adders[i % 64 + 1](total) % 1000003 end
  return total
end

local function mandel(n)
  local inside = 0
  for py = 0, n - 1 do
    for px = 0, n - 1 do
      local cr, ci = 2.5 * px / n - 2.0, 2.0 * py / n - 1.0
      local zr, zi, k = 0.0, 0.0, 0
      while k < 50 and zr * zr + zi * zi < 4.0 do
        zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci
        k = k + 1
      end
      if k == 50 then inside = inside + 1 end
    end
  end
  return inside
end

local sum = 0
for _ = 1, scale do
  sum = sum + fib(22) + tables(20000) + strings(4000) + objects(40000) + mandel(60)
end
print(string.format("cpu.lua: scale %d checksum %d", scale, sum))
