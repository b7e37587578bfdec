-- Copyright 2026 swconfig developers
--
--    Licensed under the Apache License, Version 2.0 (the "License"); you may
--    not use this file except in compliance with the License. You may obtain
--    a copy of the License at
--
--         http://www.apache.org/licenses/LICENSE-2.0
--
--    Unless required by applicable law or agreed to in writing, software
--    distributed under the License is distributed on an "AS IS" BASIS, WITHOUT
--    WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied. See the
--    License for the specific language governing permissions and limitations
--    under the License.

-- wrk script: agents polling their signed metadata URLs the way
-- os-collect-config does, a HEAD then a GET of the same URL. Every
-- BENCH_CONDITIONAL-th GET carries If-None-Match with the document's
-- current ETag (the server answers 304). Targets come from BENCH_TARGETS,
-- one "path?query etag" per line. With BENCH_RATE (requests/s, one wrk
-- thread) the requests are paced like agents polling on a timer (open
-- loop) instead of sent back to back. done() prints one JSON line for
-- benchmarks/loadgen.py.

local threads = {}
local ffi = require("ffi")
ffi.cdef[[
typedef struct { long tv_sec; long tv_nsec; } bench_timespec;
int clock_gettime(int clk_id, bench_timespec *tp);
]]
local clock = ffi.new("bench_timespec")

local function now_ms()
   ffi.C.clock_gettime(1, clock)  -- CLOCK_MONOTONIC
   return tonumber(clock.tv_sec) * 1000 + tonumber(clock.tv_nsec) / 1e6
end

function setup(thread)
   table.insert(threads, thread)
   thread:set("thread_number", #threads)
end

function init(args)
   targets = {}
   for line in io.lines(os.getenv("BENCH_TARGETS")) do
      local path, etag = line:match("^(%S+) (%S+)$")
      targets[#targets + 1] = {path, etag}
   end
   conditional = tonumber(os.getenv("BENCH_CONDITIONAL") or "4")
   math.randomseed(7919 * thread_number)
   sent = 0
   pairs_sent = 0
   current = targets[1]
   s200 = 0
   s304 = 0
   sother = 0
   rate = tonumber(os.getenv("BENCH_RATE") or "0")
   slot = 0
   start_ms = nil
end

function delay()
   -- milliseconds to wait before the next request: its slot in the
   -- schedule, or at once when the server is behind
   if rate <= 0 then
      return 0
   end
   if start_ms == nil then
      start_ms = now_ms()
   end
   slot = slot + 1
   local wait = start_ms + slot * 1000 / rate - now_ms()
   if wait < 1 then
      return 0
   end
   return wait
end

function request()
   sent = sent + 1
   if sent % 2 == 1 then
      current = targets[math.random(#targets)]
      return wrk.format("HEAD", current[1])
   end
   pairs_sent = pairs_sent + 1
   if pairs_sent % conditional == 0 then
      return wrk.format("GET", current[1],
                        {["If-None-Match"] = '"' .. current[2] .. '"'})
   end
   return wrk.format("GET", current[1])
end

function response(status, headers, body)
   if status == 200 then
      s200 = s200 + 1
   elseif status == 304 then
      s304 = s304 + 1
   else
      sother = sother + 1
   end
end

function done(summary, latency, requests)
   local c200, c304, cother = 0, 0, 0
   for _, thread in ipairs(threads) do
      c200 = c200 + thread:get("s200")
      c304 = c304 + thread:get("s304")
      cother = cother + thread:get("sother")
   end
   local e = summary.errors
   io.write(string.format(
      'BENCH {"requests": %d, "duration_us": %d, "bytes": %d, ' ..
      '"connect": %d, "read": %d, "write": %d, "status": %d, ' ..
      '"timeout": %d, "p50_us": %d, "p99_us": %d, "max_us": %d, ' ..
      '"s200": %d, "s304": %d, "sother": %d}\n',
      summary.requests, summary.duration, summary.bytes, e.connect, e.read,
      e.write, e.status, e.timeout, latency:percentile(50),
      latency:percentile(99), latency.max, c200, c304, cother))
end
