/**
 * The Lua scripts of {@link RedisPoolStore}: each operation is one script, so it is atomic across every client
 * and instance on the Redis (no read-modify-write race: zero over-commit). Time is the Redis server's own
 * (`TIME`), so instances whose clocks disagree still agree on expiry and windows.
 *
 * Keys of a pool (`P` the prefix, `{id}` a hash tag keeping them in one Cluster slot), all under `KEYS[1]` = base:
 * - `P pool:{id}`          hash: limits per priority (`b_`, `t_`, `q_` + priority), ceilings (`c_`…), used,
 *                          reserved, wtokens (the window's tokens), created, win (1 when per-minute limits exist)
 * - `P pool:{id}:exp`      zset: active reservation id → expiresAt (ms)
 * - `P pool:{id}:act`      hash: active reservation id → reserved tokens
 * - `P pool:{id}:win`      zset: reservation id → admitted at (ms), the last 60 s (per-minute pools only)
 * - `P pool:{id}:wtok`     hash: reservation id → tokens it counts in the window
 * - `P pool:{id}:r:<rid>`  hash: the reservation (agent, priority, tokens, expiresAt, state, actual, …), kept a
 *                          day after it ends (Redis expires the key)
 * - `P pools`              set of pool ids
 * The branches mirror MemoryPoolStore line by line; one contract suite runs both. The last argument of every
 * script is the clock: empty for the server's TIME (always, outside tests).
 */

const COMMON = `
local WINDOW = 60000
local SCAN = 1000
-- The last argument of every script: '' for the server's clock, else a time in ms (tests drive the clock).
local function now_ms()
  if ARGV[#ARGV] ~= '' then return tonumber(ARGV[#ARGV]) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Releases expired reservations and slides the window (at most SCAN of each per call: what is left over keeps
-- counting until the next call, which errs on the side of refusing, never of over-committing).
local function sweep(base, now, retention)
  local expired = redis.call('ZRANGEBYSCORE', base .. ':exp', '-inf', now, 'LIMIT', 0, SCAN)
  if #expired > 0 then
    local tokens = redis.call('HMGET', base .. ':act', unpack(expired))
    local freed = 0
    for i, rid in ipairs(expired) do
      freed = freed + tonumber(tokens[i] or '0')
      local key = base .. ':r:' .. rid
      if redis.call('HGET', key, 'state') == 'active' then
        redis.call('HSET', key, 'state', 'expired')
        redis.call('PEXPIREAT', key, tonumber(redis.call('HGET', key, 'expiresAt')) + retention)
      end
    end
    redis.call('ZREM', base .. ':exp', unpack(expired))
    redis.call('HDEL', base .. ':act', unpack(expired))
    redis.call('HINCRBY', base, 'reserved', -freed)
  end
  local old = redis.call('ZRANGEBYSCORE', base .. ':win', '-inf', now - WINDOW, 'LIMIT', 0, SCAN)
  if #old > 0 then
    local tokens = redis.call('HMGET', base .. ':wtok', unpack(old))
    local slid = 0
    for i = 1, #old do slid = slid + tonumber(tokens[i] or '0') end
    redis.call('ZREM', base .. ':win', unpack(old))
    redis.call('HDEL', base .. ':wtok', unpack(old))
    redis.call('HINCRBY', base, 'wtokens', -slid)
  end
end
local function seconds_until(at, now)
  local s = math.ceil((at - now) / 1000)
  if s < 1 then return 1 end
  return s
end
`;

/** KEYS: base, pools set. ARGV: id, then field/value pairs, clock. → created ms, or 'exists'. */
export const CREATE_SCRIPT = `
${COMMON}
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
local now = now_ms()
local fields = {}
for i = 2, #ARGV - 1 do fields[#fields + 1] = ARGV[i] end
redis.call('HSET', KEYS[1], 'created', now, 'used', 0, 'reserved', 0, 'wtokens', 0, unpack(fields))
redis.call('SADD', KEYS[2], ARGV[1])
return now
`;

/** KEYS: base. ARGV: retention ms, clock. → { hash fields…, reservations, window requests, now } or false. */
export const VIEW_SCRIPT = `
${COMMON}
if redis.call('EXISTS', KEYS[1]) == 0 then return false end
local now = now_ms()
sweep(KEYS[1], now, tonumber(ARGV[1]))
return { redis.call('HGETALL', KEYS[1]), redis.call('ZCARD', KEYS[1] .. ':exp'),
  redis.call('ZCARD', KEYS[1] .. ':win'), now }
`;

/** KEYS: base, pools set. ARGV: id. → 1 deleted, 0 none. */
export const DELETE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local active = redis.call('ZRANGE', KEYS[1] .. ':exp', 0, -1)
for _, rid in ipairs(active) do redis.call('DEL', KEYS[1] .. ':r:' .. rid) end
redis.call('DEL', KEYS[1], KEYS[1] .. ':exp', KEYS[1] .. ':act', KEYS[1] .. ':win', KEYS[1] .. ':wtok')
redis.call('SREM', KEYS[2], ARGV[1])
return 1
`;

/**
 * KEYS: base. ARGV: rid, agentId, priority, tokens, ttl ms, retention ms, clock.
 * → { 'ok', expiresAt } | { 'refused', reason, retryAfterSeconds (-1: null), limit, current, requested }
 *   | { 'missing' } | { 'collision' }
 */
export const RESERVE_SCRIPT = `
${COMMON}
local base = KEYS[1]
if redis.call('EXISTS', base) == 0 then return { 'missing' } end
local now = now_ms()
local retention = tonumber(ARGV[6])
sweep(base, now, retention)
local rid, priority, tokens = ARGV[1], ARGV[3], tonumber(ARGV[4])
local h = redis.call('HMGET', base, 'used', 'reserved', 'wtokens', 'b_' .. priority, 't_' .. priority,
  'q_' .. priority, 'win')
local used, reserved, wtokens = tonumber(h[1]), tonumber(h[2]), tonumber(h[3])
local failures = {}
local function fail(reason, retry, limit, current, requested)
  failures[#failures + 1] = { reason, retry, limit, current, requested }
end
if h[4] then
  local budget = tonumber(h[4])
  local current = used + reserved
  if tokens > budget then fail('request_too_large', -1, budget, current, tokens)
  elseif used + tokens > budget then fail('budget_exhausted', -1, budget, current, tokens)
  elseif current + tokens > budget then
    local expiries = redis.call('ZRANGE', base .. ':exp', 0, SCAN - 1, 'WITHSCORES')
    local ids = {}
    for i = 1, #expiries, 2 do ids[#ids + 1] = expiries[i] end
    local amounts = redis.call('HMGET', base .. ':act', unpack(ids))
    local freed, at = 0, now
    for i = 1, #ids do
      freed = freed + tonumber(amounts[i] or '0')
      at = tonumber(expiries[2 * i])
      if current - freed + tokens <= budget then break end
    end
    fail('budget_reserved', seconds_until(at, now), budget, current, tokens)
  end
end
local count = 0
if h[7] then count = redis.call('ZCARD', base .. ':win') end
if h[5] then
  local limit = tonumber(h[5])
  if tokens > limit then fail('request_too_large', -1, limit, wtokens, tokens)
  elseif wtokens + tokens > limit then
    local entries = redis.call('ZRANGE', base .. ':win', 0, SCAN - 1, 'WITHSCORES')
    local ids = {}
    for i = 1, #entries, 2 do ids[#ids + 1] = entries[i] end
    local amounts = redis.call('HMGET', base .. ':wtok', unpack(ids))
    local freed, at = 0, now
    for i = 1, #ids do
      freed = freed + tonumber(amounts[i] or '0')
      at = tonumber(entries[2 * i]) + WINDOW
      if wtokens - freed + tokens <= limit then break end
    end
    fail('tokens_per_minute', seconds_until(at, now), limit, wtokens, tokens)
  end
end
if h[6] then
  local limit = tonumber(h[6])
  if limit < 1 then fail('request_too_large', -1, limit, count, 1)
  elseif count + 1 > limit then
    local oldest = redis.call('ZRANGE', base .. ':win', count - limit, count - limit, 'WITHSCORES')
    fail('requests_per_minute', seconds_until(tonumber(oldest[2]) + WINDOW, now), limit, count, 1)
  end
end
if #failures > 0 then
  local first = failures[1]
  local retry = 0
  for _, failure in ipairs(failures) do
    if failure[2] == -1 or retry == -1 then retry = -1
    elseif failure[2] > retry then retry = failure[2] end
  end
  return { 'refused', first[1], retry, first[3], first[4], first[5] }
end
local key = base .. ':r:' .. rid
if redis.call('EXISTS', key) == 1 then return { 'collision' } end
local expiresAt = now + tonumber(ARGV[5])
redis.call('HSET', key, 'agent', ARGV[2], 'priority', priority, 'tokens', tokens, 'expiresAt', expiresAt,
  'state', 'active')
redis.call('PEXPIREAT', key, expiresAt + retention)
redis.call('ZADD', base .. ':exp', expiresAt, rid)
redis.call('HSET', base .. ':act', rid, tokens)
redis.call('HINCRBY', base, 'reserved', tokens)
if h[7] then
  redis.call('ZADD', base .. ':win', now, rid)
  redis.call('HSET', base .. ':wtok', rid, tokens)
  redis.call('HINCRBY', base, 'wtokens', tokens)
end
return { 'ok', expiresAt }
`;

/**
 * KEYS: base. ARGV: rid, actual tokens, retention ms, clock.
 * → { 'settled', alreadySettled (0/1), reserved tokens, actual tokens, settledFrom, settledAt } | { 'missing' }
 *   | { 'no_reservation' }
 */
export const SETTLE_SCRIPT = `
${COMMON}
local base = KEYS[1]
if redis.call('EXISTS', base) == 0 then return { 'missing' } end
local now = now_ms()
local retention = tonumber(ARGV[3])
sweep(base, now, retention)
local rid, actual = ARGV[1], tonumber(ARGV[2])
local key = base .. ':r:' .. rid
local r = redis.call('HMGET', key, 'state', 'tokens', 'actual', 'settledFrom', 'settledAt')
if not r[1] then return { 'no_reservation' } end
local tokens = tonumber(r[2])
if r[1] == 'settled' then return { 'settled', 1, tokens, tonumber(r[3]), r[4], tonumber(r[5]) } end
if r[1] == 'active' then
  redis.call('ZREM', base .. ':exp', rid)
  redis.call('HDEL', base .. ':act', rid)
  redis.call('HINCRBY', base, 'reserved', -tokens)
end
redis.call('HINCRBY', base, 'used', actual)
local counted = redis.call('HGET', base .. ':wtok', rid)
if counted then
  redis.call('HSET', base .. ':wtok', rid, actual)
  redis.call('HINCRBY', base, 'wtokens', actual - tonumber(counted))
end
redis.call('HSET', key, 'state', 'settled', 'actual', actual, 'settledFrom', r[1], 'settledAt', now)
redis.call('PEXPIREAT', key, now + retention)
return { 'settled', 0, tokens, actual, r[1], now }
`;

/** KEYS: base. ARGV: rid, retention ms, clock. → { 'done', state, released (0/1) } | { 'missing' } | { 'no_reservation' } */
export const RELEASE_SCRIPT = `
${COMMON}
local base = KEYS[1]
if redis.call('EXISTS', base) == 0 then return { 'missing' } end
local now = now_ms()
local retention = tonumber(ARGV[2])
sweep(base, now, retention)
local rid = ARGV[1]
local key = base .. ':r:' .. rid
local r = redis.call('HMGET', key, 'state', 'tokens')
if not r[1] then return { 'no_reservation' } end
if r[1] ~= 'active' then return { 'done', r[1], 0 } end
local tokens = tonumber(r[2])
redis.call('ZREM', base .. ':exp', rid)
redis.call('HDEL', base .. ':act', rid)
redis.call('HINCRBY', base, 'reserved', -tokens)
local counted = redis.call('HGET', base .. ':wtok', rid)
if counted then
  redis.call('ZREM', base .. ':win', rid)
  redis.call('HDEL', base .. ':wtok', rid)
  redis.call('HINCRBY', base, 'wtokens', -tonumber(counted))
end
redis.call('HSET', key, 'state', 'released')
redis.call('PEXPIREAT', key, now + retention)
return { 'done', 'released', 1 }
`;
