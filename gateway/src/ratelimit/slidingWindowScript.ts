/**
 * The sliding-log script, run with EVALSHA (ioredis defineCommand). Kept as a string so
 * the build needs no asset-copy step.
 */
export const SLIDING_WINDOW_LUA = `
-- Sliding-log rate limit, atomic in Redis and timed by Redis's own clock, so every
-- gateway instance shares one budget regardless of their clocks.
-- KEYS[1]  sorted set of admitted units, scored by admission time in microseconds
-- KEYS[2]  the epoch: Redis's clock when the first call found none, set once per Redis
--          lifetime. A Redis that restarted empty (or lost its keys) has none, or a new one,
--          so callers learn that it forgot their units.
-- KEYS[3..] optional: keys read along, in the same round trip (the brand's change versions
--          of its lists, so a conditional GET needs no second call; peekedValues.ts)
-- ARGV[1]  limit (units per window)      ARGV[2] window in milliseconds
-- ARGV[3]  cost (units asked for; 0 only inspects)
-- ARGV[4]  a member prefix unique to this call
-- ARGV[5]  the epoch the caller last saw ('' for none)
-- ARGV[6]  '1' when the call carries the caller's own units of this budget (its ledger)
-- ARGV[7]  units asked for beyond the call's own, as a lease (0: none; admissionLeases.ts)
-- ARGV[8]  the lease's member prefix      ARGV[9] the lease's span in milliseconds
-- ARGV[10..] the caller's units: member, age in microseconds, member, age, ... (a unit
--          counted from ahead of now, a lease's, has a negative age)
-- Returns { allowed (0/1), remaining, reset_us, retry_us, epoch, values of KEYS[3..], leased },
-- epoch nil when it is the caller's, the values nil when no key is named (each nil when absent);
-- allowed is -1 when the epoch is not the caller's and it sent no units: nothing was
-- decided, call again with them. leased: the lease's units granted.
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2]) * 1000
local cost = tonumber(ARGV[3])
local lease_want = tonumber(ARGV[7])
local span_us = tonumber(ARGV[9]) * 1000

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])

local epoch = redis.call('GET', KEYS[2])
if not epoch then
  epoch = t[1] .. '.' .. t[2]
  redis.call('SET', KEYS[2], epoch)
end
local seeded = ARGV[6] == '1'
if epoch ~= ARGV[5] and not seeded then
  return { -1, 0, 0, 0, epoch }
end

-- Put back the caller's units Redis does not hold (lost in a restart, or admitted by its
-- fallback while Redis was away). NX: a unit Redis still holds keeps its own time.
if seeded then
  for i = 10, #ARGV - 1, 2 do
    local age = tonumber(ARGV[i + 1])
    if age < window_us then
      redis.call('ZADD', key, 'NX', now - age, ARGV[i])
    end
  end
end

redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window_us)
local used = redis.call('ZCARD', key)

local allowed = 0
local leased = 0
if used + cost <= limit then
  allowed = 1
  for i = 1, cost do
    redis.call('ZADD', key, now, ARGV[4] .. ':' .. i)
  end
  used = used + cost
  -- A lease: counted from the end of its span (the caller hands its units out only before
  -- then), and granted only while half the limit stays free after it, so in the second half of
  -- a budget every request is decided here and no lease sits on units near the limit.
  if lease_want > 0 then
    leased = math.max(0, math.min(lease_want, limit - math.ceil(limit / 2) - used))
    for i = 1, leased do
      redis.call('ZADD', key, now + span_us, ARGV[8] .. ':' .. i)
    end
    used = used + leased
  end
end
if used > 0 then
  -- until the last unit, a lease's counted from ahead of now, has left the window
  redis.call('PEXPIRE', key, tonumber(ARGV[2]) + tonumber(ARGV[9]))
end

local reset_us = 0
local oldest = redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')
if oldest[2] then
  reset_us = tonumber(oldest[2]) + window_us - now
end

-- Refused: wait until the unit that must leave for \`cost\` to fit has left.
local retry_us = 0
if allowed == 0 then
  local index = used + cost - limit - 1
  local blocking = redis.call('ZRANGE', key, index, index, 'WITHSCORES')
  if blocking[2] then
    retry_us = tonumber(blocking[2]) + window_us - now
  else
    retry_us = window_us
  end
end

-- The epoch only when it is news to the caller (false becomes a nil reply, and unlike a
-- Lua nil it does not end the array).
local news = false
if epoch ~= ARGV[5] then
  news = epoch
end
local peeked = false
if #KEYS > 2 then
  peeked = {}
  for i = 3, #KEYS do
    peeked[i - 2] = redis.call('GET', KEYS[i])
  end
end
return { allowed, limit - used, reset_us, retry_us, news, peeked, leased }
`;
