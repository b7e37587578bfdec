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

-- wrk script: the Heat-compatible tenant metadata view,
-- GET /v1/{project}/software_deployments/metadata/{server_id}, of a
-- random seeded server, as its owner (the benchmark's setups use noauth,
-- which makes the caller a reader and member of the URL's project).
-- Targets come from BENCH_TARGETS, one "path -" per line. done() prints
-- the same JSON line as poll.lua for benchmarks/loadgen.py.

local threads = {}

function setup(thread)
   table.insert(threads, thread)
   thread:set("thread_number", #threads)
end

function init(args)
   targets = {}
   for line in io.lines(os.getenv("BENCH_TARGETS")) do
      local path = line:match("^(%S+)")
      targets[#targets + 1] = path
   end
   math.randomseed(7919 * thread_number)
   s200 = 0
   sother = 0
end

function request()
   return wrk.format("GET", targets[math.random(#targets)],
                     {["Accept"] = "application/json"})
end

function response(status, headers, body)
   if status == 200 then
      s200 = s200 + 1
   else
      sother = sother + 1
   end
end

function done(summary, latency, requests)
   local c200, cother = 0, 0
   for _, thread in ipairs(threads) do
      c200 = c200 + thread:get("s200")
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
      latency:percentile(99), latency.max, c200, 0, cother))
end
