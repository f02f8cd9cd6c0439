-- wrk script of the walk (scripts/bench/lib/wrk.mjs): run with as many threads as
-- connections (-t N -c N), so every connection is one thread and replays its own list of
-- distinct requests, in order, from <dir>/<thread index>.tsv (written by the bench): one
-- request a line, tab-separated: method, path, body (may be empty), then header name and
-- value pairs. The requests are formatted once, in init; request() only hands them out.
-- done() prints one line, WRK_RESULT {json}: counts, errors, and the latency distribution
-- as 1,000 quantiles (each 0.1 % of the requests) so slices can be merged exactly enough.

local threads = 0

function setup(thread)
  thread:set("index", threads)
  threads = threads + 1
end

function init(args)
  local file = assert(io.open(args[1] .. "/" .. index .. ".tsv", "r"))
  list = {}
  for line in file:lines() do
    local fields = {}
    for field in (line .. "\t"):gmatch("([^\t]*)\t") do
      fields[#fields + 1] = field
    end
    local headers = {}
    for i = 4, #fields - 1, 2 do
      headers[fields[i]] = fields[i + 1]
    end
    local body = nil
    if fields[3] ~= "" then body = fields[3] end
    list[#list + 1] = wrk.format(fields[1], fields[2], headers, body)
  end
  file:close()
  assert(#list > 0, "no requests for thread " .. index)
  position = 0
end

function request()
  position = position % #list + 1
  return list[position]
end

function done(summary, latency, requests)
  local quantiles = {}
  for k = 1, 1000 do
    quantiles[k] = string.format("%d", latency:percentile((k - 0.5) / 10))
  end
  local e = summary.errors
  io.write(string.format(
    'WRK_RESULT {"requests":%d,"duration_us":%d,"bytes":%d,' ..
    '"errors":{"connect":%d,"read":%d,"write":%d,"status":%d,"timeout":%d},' ..
    '"latency_us":[%s]}\n',
    summary.requests, summary.duration, summary.bytes,
    e.connect, e.read, e.write, e.status, e.timeout,
    table.concat(quantiles, ",")))
end
