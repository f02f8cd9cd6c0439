/**
 * The sliding-log script, run with EVALSHA (ioredis defineCommand). Kept as a string so
 * the build needs no asset-copy step.
 */
export const SLIDING_WINDOW_LUA = `
-- Sliding-log rate limit, atomic in Redis and timed by Redis's own clock, so every
-- gateway instance shares one budget regardless of their clocks.
-- KEYS[1]  sorted set of admitted units, scored by admission time in microseconds
-- ARGV[1]  limit (units per window)      ARGV[2] window in milliseconds
-- ARGV[3]  cost (units asked for; 0 only inspects)
-- ARGV[4]  a member prefix unique to this call
-- KEYS[2]  optional: a key read along, in the same round trip (the brand's change version
--          of the listed resource, so a conditional GET needs no second call)
-- Returns { allowed (0/1), remaining, reset_us, retry_us, value of KEYS[2] or nil }.
local key = KEYS[1]
local limit = tonumber(ARGV[1])
local window_us = tonumber(ARGV[2]) * 1000
local cost = tonumber(ARGV[3])

local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000000 + tonumber(t[2])

redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window_us)
local used = redis.call('ZCARD', key)

local allowed = 0
if used + cost <= limit then
  allowed = 1
  for i = 1, cost do
    redis.call('ZADD', key, now, ARGV[4] .. ':' .. i)
  end
  used = used + cost
end
if used > 0 then
  redis.call('PEXPIRE', key, ARGV[2])
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

-- a nil (missing key) ends the array: the caller reads it as absent
local peeked = false
if KEYS[2] then
  peeked = redis.call('GET', KEYS[2])
end
return { allowed, limit - used, reset_us, retry_us, peeked }
`;
