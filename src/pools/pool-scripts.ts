/**
 * The Lua scripts of {@link RedisPoolStore}: each operation is one script, so it is atomic across every client
 * and instance on the Redis (no read-modify-write race: zero over-commit). Time is the Redis server's own
 * (`TIME`), so instances whose clocks disagree still agree on expiry and windows.
 *
 * Keys of a pool (`P` the prefix, `{id}` a hash tag keeping them in one Cluster slot), all under `KEYS[1]` = base:
 * - `P pool:{id}`        hash: limits per priority (`b_`, `t_`, `q_` + priority), ceilings (`c_`…), used, reserved,
 *                        wtokens (the window's tokens), created, win (1 when the pool has a per-minute limit),
 *                        next (a lower bound of the earliest expiry of an outstanding reservation), and
 *                        `a:<rid>` per active reservation: its reserved tokens (written with `reserved`: one HSET)
 * - `P pool:{id}:exp`    zset: active reservation id → expiresAt (ms)
 * - `P pool:{id}:win`    zset: reservation id → admitted at (ms), the last 60 s (per-minute pools only)
 * - `P pool:{id}:wtok`   hash: reservation id → tokens it counts in the window
 * - `P pool:{id}:end`    hash: ended reservation id → `state|tokens|actual|settledFrom|settledAt`
 * - `P pool:{id}:endz`   zset: ended reservation id → when it is forgotten (a day after it ended)
 * - `P pools`            set of pool ids
 * The reserve script makes four Redis calls (HMGET, TIME, ZADD NX, HSET) on a pool without per-minute limits, none due to expire (it is the hot path: measured by
 * `npm run bench -- pools`). The branches mirror MemoryPoolStore; one contract suite runs both. The last argument
 * of every script is the clock: empty for the server's TIME (always, outside tests).
 */

const COMMON = `
local WINDOW = 60000
local SCAN = 1000
-- An active reservation's tokens are the pool hash's field 'a:<rid>', written with 'reserved' in one HSET.
local function active_fields(ids)
  local fields = {}
  for i = 1, #ids do fields[i] = 'a:' .. ids[i] end
  return fields
end
local function now_ms()
  if ARGV[#ARGV] ~= '' then return tonumber(ARGV[#ARGV]) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Releases expired reservations (remembered as ended until their retention ends) and slides the window, at most
-- SCAN of each per call: what is left over keeps counting until the next call, which errs on the side of
-- refusing, never of over-committing. Returns the tokens freed and the tokens slid out of the window.
-- The pool's 'next' field is a lower bound of the earliest expiry (absent: none outstanding), so that a
-- reservation skips the expiry scan until one may be due; 'due' is false only when it says none can be.
local function sweep(base, now, retention, windowed, due)
  local freed, slid = 0, 0
  local expired = {}
  if due then
    expired = redis.call('ZRANGEBYSCORE', base .. ':exp', '-inf', now, 'WITHSCORES', 'LIMIT', 0, SCAN)
    local first = redis.call('ZRANGE', base .. ':exp', #expired / 2, #expired / 2, 'WITHSCORES')
    if first[2] then redis.call('HSET', base, 'next', first[2]) else redis.call('HDEL', base, 'next') end
  end
  if #expired > 0 then
    local ids = {}
    for i = 1, #expired, 2 do ids[#ids + 1] = expired[i] end
    local tokens = redis.call('HMGET', base, unpack(active_fields(ids)))
    local ended, forget = {}, {}
    for i, rid in ipairs(ids) do
      local amount = tonumber(tokens[i] or '0')
      freed = freed + amount
      ended[#ended + 1] = rid
      ended[#ended + 1] = 'expired|' .. amount .. '|||'
      forget[#forget + 1] = tonumber(expired[2 * i]) + retention
      forget[#forget + 1] = rid
    end
    redis.call('HSET', base .. ':end', unpack(ended))
    redis.call('ZADD', base .. ':endz', unpack(forget))
    redis.call('ZREM', base .. ':exp', unpack(ids))
    redis.call('HDEL', base, unpack(active_fields(ids)))
    redis.call('HINCRBY', base, 'reserved', -freed)
  end
  if windowed then
    local old = redis.call('ZRANGEBYSCORE', base .. ':win', '-inf', now - WINDOW, 'LIMIT', 0, SCAN)
    if #old > 0 then
      local tokens = redis.call('HMGET', base .. ':wtok', unpack(old))
      for i = 1, #old do slid = slid + tonumber(tokens[i] or '0') end
      redis.call('ZREM', base .. ':win', unpack(old))
      redis.call('HDEL', base .. ':wtok', unpack(old))
      redis.call('HINCRBY', base, 'wtokens', -slid)
    end
  end
  return freed, slid
end
local function seconds_until(at, now)
  local s = math.ceil((at - now) / 1000)
  if s < 1 then return 1 end
  return s
end
`;

/** What the scripts other than reserve also need (reserve, the hot path, defines no more than it uses). */
const ENDED = `
-- Forgets ended reservations past their retention (at most SCAN per call).
local function forget(base, now)
  local old = redis.call('ZRANGEBYSCORE', base .. ':endz', '-inf', now, 'LIMIT', 0, SCAN)
  if #old > 0 then
    redis.call('HDEL', base .. ':end', unpack(old))
    redis.call('ZREM', base .. ':endz', unpack(old))
  end
end
local function split(text)
  local parts = {}
  for part in string.gmatch(text .. '|', '([^|]*)|') do parts[#parts + 1] = part end
  return parts
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
${ENDED}
local base = KEYS[1]
local windowed = redis.call('HGET', base, 'win')
if not windowed and redis.call('EXISTS', base) == 0 then return false end
local now = now_ms()
sweep(base, now, tonumber(ARGV[1]), windowed, true)
forget(base, now)
local all, fields = redis.call('HGETALL', base), {}
for i = 1, #all, 2 do
  if string.sub(all[i], 1, 2) ~= 'a:' then
    fields[#fields + 1] = all[i]
    fields[#fields + 1] = all[i + 1]
  end
end
return { fields, redis.call('ZCARD', base .. ':exp'), redis.call('ZCARD', base .. ':win'), now }
`;

/** KEYS: base, pools set. ARGV: id, clock. → 1 deleted, 0 none. */
export const DELETE_SCRIPT = `
if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
local base = KEYS[1]
redis.call('DEL', base, base .. ':exp', base .. ':win', base .. ':wtok', base .. ':end',
  base .. ':endz')
redis.call('SREM', KEYS[2], ARGV[1])
return 1
`;

/**
 * KEYS: base. ARGV: rid, priority, tokens, ttl ms, retention ms, clock.
 * → { 'ok', expiresAt } | { 'refused', reason, retryAfterSeconds (-1: null), limit, current, requested }
 *   | { 'missing' } | { 'collision' }
 */
export const RESERVE_SCRIPT = `
${COMMON}
local base = KEYS[1]
local rid, priority, tokens = ARGV[1], ARGV[2], tonumber(ARGV[3])
local h = redis.call('HMGET', base, 'used', 'reserved', 'wtokens', 'b_' .. priority, 't_' .. priority,
  'q_' .. priority, 'win', 'next')
if not h[1] then return { 'missing' } end
local now = now_ms()
local due = h[8] and tonumber(h[8]) <= now
local freed, slid = 0, 0
if due or h[7] then freed, slid = sweep(base, now, tonumber(ARGV[5]), h[7], due) end
local used, reserved, wtokens = tonumber(h[1]), tonumber(h[2]) - freed, tonumber(h[3]) - slid
local failures = nil
local function fail(reason, retry, limit, current, requested)
  failures = failures or {}
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
    local amounts = redis.call('HMGET', base, unpack(active_fields(ids)))
    local released, at = 0, now
    for i = 1, #ids do
      released = released + tonumber(amounts[i] or '0')
      at = tonumber(expiries[2 * i])
      if current - released + tokens <= budget then break end
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
    local left, at = 0, now
    for i = 1, #ids do
      left = left + tonumber(amounts[i] or '0')
      at = tonumber(entries[2 * i]) + WINDOW
      if wtokens - left + tokens <= limit then break end
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
if failures then
  -- One that waiting cannot help, if any; else the first, with the longest wait of them all.
  local first, retry = failures[1], 0
  for _, failure in ipairs(failures) do
    if failure[2] == -1 then return { 'refused', failure[1], -1, failure[3], failure[4], failure[5] } end
    if failure[2] > retry then retry = failure[2] end
  end
  return { 'refused', first[1], retry, first[3], first[4], first[5] }
end
local expiresAt = now + tonumber(ARGV[4])
if redis.call('ZADD', base .. ':exp', 'NX', expiresAt, rid) == 0 then return { 'collision' } end
-- 'next' changes when there was none (this one is the earliest), when this reservation expires first, or when
-- the sweep moved it (then the earliest is read back).
if not h[8] or (not due and expiresAt < tonumber(h[8])) then
  redis.call('HSET', base, 'a:' .. rid, tokens, 'reserved', reserved + tokens, 'next', expiresAt)
elseif due then
  local first = redis.call('ZRANGE', base .. ':exp', 0, 0, 'WITHSCORES')
  redis.call('HSET', base, 'a:' .. rid, tokens, 'reserved', reserved + tokens, 'next', first[2])
else
  redis.call('HSET', base, 'a:' .. rid, tokens, 'reserved', reserved + tokens)
end
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
${ENDED}
local base = KEYS[1]
local windowed = redis.call('HGET', base, 'win')
if not windowed and redis.call('EXISTS', base) == 0 then return { 'missing' } end
local now = now_ms()
local retention = tonumber(ARGV[3])
sweep(base, now, retention, windowed, true)
forget(base, now)
local rid, actual = ARGV[1], tonumber(ARGV[2])
local tokens = redis.call('HGET', base, 'a:' .. rid)
local from = 'active'
if tokens then
  tokens = tonumber(tokens)
  redis.call('ZREM', base .. ':exp', rid)
  redis.call('HDEL', base, 'a:' .. rid)
  redis.call('HINCRBY', base, 'reserved', -tokens)
else
  local ended = redis.call('HGET', base .. ':end', rid)
  if not ended then return { 'no_reservation' } end
  local r = split(ended)
  tokens = tonumber(r[2])
  if r[1] == 'settled' then return { 'settled', 1, tokens, tonumber(r[3]), r[4], tonumber(r[5]) } end
  from = r[1]
end
redis.call('HINCRBY', base, 'used', actual)
local counted = redis.call('HGET', base .. ':wtok', rid)
if counted then
  redis.call('HSET', base .. ':wtok', rid, actual)
  redis.call('HINCRBY', base, 'wtokens', actual - tonumber(counted))
end
redis.call('HSET', base .. ':end', rid, 'settled|' .. tokens .. '|' .. actual .. '|' .. from .. '|' .. now)
redis.call('ZADD', base .. ':endz', now + retention, rid)
return { 'settled', 0, tokens, actual, from, now }
`;

/** KEYS: base. ARGV: rid, retention ms, clock. → { 'done', state, released (0/1) } | { 'missing' } | { 'no_reservation' } */
export const RELEASE_SCRIPT = `
${COMMON}
${ENDED}
local base = KEYS[1]
local windowed = redis.call('HGET', base, 'win')
if not windowed and redis.call('EXISTS', base) == 0 then return { 'missing' } end
local now = now_ms()
local retention = tonumber(ARGV[2])
sweep(base, now, retention, windowed, true)
forget(base, now)
local rid = ARGV[1]
local tokens = redis.call('HGET', base, 'a:' .. rid)
if not tokens then
  local ended = redis.call('HGET', base .. ':end', rid)
  if not ended then return { 'no_reservation' } end
  return { 'done', split(ended)[1], 0 }
end
tokens = tonumber(tokens)
redis.call('ZREM', base .. ':exp', rid)
redis.call('HDEL', base, 'a:' .. rid)
redis.call('HINCRBY', base, 'reserved', -tokens)
local counted = redis.call('HGET', base .. ':wtok', rid)
if counted then
  redis.call('ZREM', base .. ':win', rid)
  redis.call('HDEL', base .. ':wtok', rid)
  redis.call('HINCRBY', base, 'wtokens', -tonumber(counted))
end
redis.call('HSET', base .. ':end', rid, 'released|' .. tokens .. '|||')
redis.call('ZADD', base .. ':endz', now + retention, rid)
return { 'done', 'released', 1 }
`;
