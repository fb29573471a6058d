/**
 * The Lua of {@link RedisPoolStore}: one Redis function library (Redis ≥ 7: `FUNCTION LOAD`, `FCALL`), one function
 * per operation, so each operation is atomic across every client and instance on the Redis (no read-modify-write
 * race: zero over-commit). Time is the Redis server's own (`TIME`), so instances whose clocks disagree still agree on
 * expiry and windows. A library rather than `EVALSHA` scripts: its helpers and constant tables are built once, when
 * it is loaded, instead of on every call (measured in docs/decisions/009-pools.md). The library's and its functions' names carry a hash of its source, so that instances of
 * two barometer versions on one Redis each call their own.
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
 * The reserve function makes four Redis calls (HMGET, TIME, ZADD NX, HSET) on a pool without per-minute limits,
 * none due to expire (it is the hot path). The branches mirror MemoryPoolStore; one contract suite runs both.
 * Every function takes the clock as an optional last argument: absent, the server's TIME (always, outside tests).
 */

import { createHash } from 'node:crypto';
import { RESERVATION_RETENTION_SECONDS } from './pool-schemas.js';

/** The library's functions: the Redis function named `br_pools_<hash>_<operation>` for each. */
export type PoolOperation = 'create' | 'view' | 'delete' | 'reserve' | 'settle' | 'release';

/** `<NAME>` stands for the library's function-name prefix, filled in once the source's hash is known. */
const SOURCE = `
local WINDOW = 60000
local SCAN = 1000
local RETENTION = ${RESERVATION_RETENTION_SECONDS * 1000}
-- The hash fields a reservation of each priority reads: its share of the budget, tokens/min, requests/min.
-- (Built with no library call: Redis runs a library's load with few globals.)
local LIMIT_FIELDS = {}
local PRIORITIES = { 'low', 'normal', 'high', 'urgent' }
for i = 1, #PRIORITIES do
  local p = PRIORITIES[i]
  LIMIT_FIELDS[p] = { 'b_' .. p, 't_' .. p, 'q_' .. p }
end
-- An active reservation's tokens are the pool hash's field 'a:<rid>', written with 'reserved' in one HSET.
local function active_fields(ids)
  local fields = {}
  for i = 1, #ids do fields[i] = 'a:' .. ids[i] end
  return fields
end
-- The clock: the argument tests pass, else the Redis server's.
local function now_ms(clock)
  if clock then return tonumber(clock) end
  local t = redis.call('TIME')
  return tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
end
-- Releases expired reservations (remembered as ended until their retention ends) and slides the window, at most
-- SCAN of each per call: what is left over keeps counting until the next call, which errs on the side of
-- refusing, never of over-committing. Returns the tokens freed and the tokens slid out of the window.
-- The pool's 'next' field is a lower bound of the earliest expiry (absent: none outstanding), so that a
-- reservation skips the expiry scan until one may be due; 'due' is false only when it says none can be.
local function sweep(base, now, windowed, due)
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
      forget[#forget + 1] = tonumber(expired[2 * i]) + RETENTION
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
-- Sweeps a pool before an operation other than reserve. → now, or nil when the pool does not exist.
local function prepare(base, clock)
  local windowed = redis.call('HGET', base, 'win')
  if not windowed and redis.call('EXISTS', base) == 0 then return nil end
  local now = now_ms(clock)
  sweep(base, now, windowed, true)
  forget(base, now)
  return now
end
-- A refusal: { reason, retry seconds (-1: waiting cannot help), limit, current, requested }.
local function failure(failures, reason, retry, limit, current, requested)
  failures = failures or {}
  failures[#failures + 1] = { reason, retry, limit, current, requested }
  return failures
end

-- KEYS: base, pools set. ARGV: id, field/value pairs, [clock] (there when the count is even). → created ms, or
-- 'exists'.
redis.register_function('<NAME>_create', function(KEYS, ARGV)
  if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
  local last, clock = #ARGV, nil
  if last % 2 == 0 then clock, last = ARGV[last], last - 1 end
  local now = now_ms(clock)
  local fields = {}
  for i = 2, last do fields[#fields + 1] = ARGV[i] end
  redis.call('HSET', KEYS[1], 'created', now, 'used', 0, 'reserved', 0, 'wtokens', 0, unpack(fields))
  redis.call('SADD', KEYS[2], ARGV[1])
  return now
end)

-- KEYS: base. ARGV: [clock]. → { hash fields…, reservations, window requests, now } or false.
redis.register_function('<NAME>_view', function(KEYS, ARGV)
  local base = KEYS[1]
  local now = prepare(base, ARGV[1])
  if not now then return false end
  local all, fields = redis.call('HGETALL', base), {}
  for i = 1, #all, 2 do
    if string.sub(all[i], 1, 2) ~= 'a:' then
      fields[#fields + 1] = all[i]
      fields[#fields + 1] = all[i + 1]
    end
  end
  return { fields, redis.call('ZCARD', base .. ':exp'), redis.call('ZCARD', base .. ':win'), now }
end)

-- KEYS: base, pools set. ARGV: id. → 1 deleted, 0 none.
redis.register_function('<NAME>_delete', function(KEYS, ARGV)
  if redis.call('EXISTS', KEYS[1]) == 0 then return 0 end
  local base = KEYS[1]
  redis.call('DEL', base, base .. ':exp', base .. ':win', base .. ':wtok', base .. ':end', base .. ':endz')
  redis.call('SREM', KEYS[2], ARGV[1])
  return 1
end)

-- KEYS: base. ARGV: rid, priority, tokens, ttl ms, [clock].
-- → expiresAt (admitted: a bare integer, no table to build and collect) | { 'refused', reason, retryAfterSeconds (-1: null), limit, current, requested }
--   | { 'missing' } | { 'collision' } | { 'priority' } (not one of the four)
redis.register_function('<NAME>_reserve', function(KEYS, ARGV)
  local base = KEYS[1]
  local rid, tokens = ARGV[1], tonumber(ARGV[3])
  local f = LIMIT_FIELDS[ARGV[2]]
  if not f then return { 'priority' } end
  local h = redis.call('HMGET', base, 'used', 'reserved', 'wtokens', f[1], f[2], f[3], 'win', 'next')
  if not h[1] then return { 'missing' } end
  local now = now_ms(ARGV[5])
  local due = h[8] and tonumber(h[8]) <= now
  local freed, slid = 0, 0
  if due or h[7] then freed, slid = sweep(base, now, h[7], due) end
  local used, reserved = tonumber(h[1]), tonumber(h[2]) - freed
  local failures = nil
  if h[4] then
    local budget = tonumber(h[4])
    local current = used + reserved
    if tokens > budget then failures = failure(failures, 'request_too_large', -1, budget, current, tokens)
    elseif used + tokens > budget then failures = failure(failures, 'budget_exhausted', -1, budget, current, tokens)
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
      failures = failure(failures, 'budget_reserved', seconds_until(at, now), budget, current, tokens)
    end
  end
  local count = 0
  if h[7] then count = redis.call('ZCARD', base .. ':win') end
  if h[5] then
    local wtokens = tonumber(h[3]) - slid
    local limit = tonumber(h[5])
    if tokens > limit then failures = failure(failures, 'request_too_large', -1, limit, wtokens, tokens)
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
      failures = failure(failures, 'tokens_per_minute', seconds_until(at, now), limit, wtokens, tokens)
    end
  end
  if h[6] then
    local limit = tonumber(h[6])
    if limit < 1 then failures = failure(failures, 'request_too_large', -1, limit, count, 1)
    elseif count + 1 > limit then
      local oldest = redis.call('ZRANGE', base .. ':win', count - limit, count - limit, 'WITHSCORES')
      failures = failure(failures, 'requests_per_minute', seconds_until(tonumber(oldest[2]) + WINDOW, now), limit,
        count, 1)
    end
  end
  if failures then
    -- One that waiting cannot help, if any; else the first, with the longest wait of them all.
    local first, retry = failures[1], 0
    for _, one in ipairs(failures) do
      if one[2] == -1 then return { 'refused', one[1], -1, one[3], one[4], one[5] } end
      if one[2] > retry then retry = one[2] end
    end
    return { 'refused', first[1], retry, first[3], first[4], first[5] }
  end
  local expiresAt = now + tonumber(ARGV[4])
  if redis.call('ZADD', base .. ':exp', 'NX', expiresAt, rid) == 0 then return { 'collision' } end
  -- 'next' changes when there was none (this one is the earliest), when this reservation expires first, or when
  -- the sweep moved it (then the earliest is read back). The tokens are written as they came (ARGV[3]): a string
  -- costs Redis no conversion.
  if not h[8] or (not due and expiresAt < tonumber(h[8])) then
    redis.call('HSET', base, 'a:' .. rid, ARGV[3], 'reserved', reserved + tokens, 'next', expiresAt)
  elseif due then
    local first = redis.call('ZRANGE', base .. ':exp', 0, 0, 'WITHSCORES')
    redis.call('HSET', base, 'a:' .. rid, ARGV[3], 'reserved', reserved + tokens, 'next', first[2])
  else
    redis.call('HSET', base, 'a:' .. rid, ARGV[3], 'reserved', reserved + tokens)
  end
  if h[7] then
    redis.call('ZADD', base .. ':win', now, rid)
    redis.call('HSET', base .. ':wtok', rid, ARGV[3])
    redis.call('HINCRBY', base, 'wtokens', tokens)
  end
  return expiresAt
end)

-- KEYS: base. ARGV: rid, actual tokens, [clock].
-- → { 'settled', alreadySettled (0/1), reserved tokens, actual tokens, settledFrom, settledAt } | { 'missing' }
--   | { 'no_reservation' }
redis.register_function('<NAME>_settle', function(KEYS, ARGV)
  local base = KEYS[1]
  local now = prepare(base, ARGV[3])
  if not now then return { 'missing' } end
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
  redis.call('ZADD', base .. ':endz', now + RETENTION, rid)
  return { 'settled', 0, tokens, actual, from, now }
end)

-- KEYS: base. ARGV: rid, [clock]. → { 'done', state, released (0/1) } | { 'missing' } | { 'no_reservation' }
redis.register_function('<NAME>_release', function(KEYS, ARGV)
  local base = KEYS[1]
  local now = prepare(base, ARGV[2])
  if not now then return { 'missing' } end
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
  redis.call('ZADD', base .. ':endz', now + RETENTION, rid)
  return { 'done', 'released', 1 }
end)
`;

const HASH = createHash('sha1').update(SOURCE).digest('hex').slice(0, 12);

/** The prefix of the library's function names: `br_pools_<first 12 hex of the source's sha1>`. */
export const POOL_FUNCTION_PREFIX = `br_pools_${HASH}`;

/** The library's name on the server: `barometer_pools_<the same hash>`. */
export const POOL_LIBRARY_NAME = `barometer_pools_${HASH}`;

/** The library as `FUNCTION LOAD` takes it. */
export const POOL_LIBRARY = `#!lua name=${POOL_LIBRARY_NAME}\n${SOURCE.replaceAll('<NAME>', POOL_FUNCTION_PREFIX)}`;

const OPERATIONS: readonly PoolOperation[] = ['create', 'view', 'delete', 'reserve', 'settle', 'release'];

/** The Redis function name of each operation. */
export const POOL_FUNCTIONS = Object.fromEntries(
  OPERATIONS.map((operation) => [operation, `${POOL_FUNCTION_PREFIX}_${operation}`]),
) as Readonly<Record<PoolOperation, string>>;
