import type { Redis } from 'ioredis';
import { BarometerError } from '../errors/barometer-error.js';
import { type AppendOnlyList, type ReadBackCheck, readBack, splitLists } from './append-only-list.js';
import type { PageOptions, StatePage, StateStore } from './state-store.js';

export interface RedisStateStoreOptions<T> {
  /** Key prefix shared by every instance of one service. @default 'barometer:' */
  prefix?: string;
  /** What is stored (`sessions`): keys are `<prefix><namespace>:…`. */
  namespace: string;
  /** Checks a value read back; a value that fails is an error naming the id and the reason. */
  parse?: ReadBackCheck<T>;
  /** Values kept at most; creating one more is refused (`full`). 0: no limit. @default 10000 */
  maxEntries?: number;
  /** Append-only lists kept beside the value (see {@link AppendOnlyList}). */
  lists?: readonly AppendOnlyList[];
  /** Attempts of one update before it gives up under contention. @default 64 */
  maxAttempts?: number;
}

/** The default number of values a Redis store keeps, as the memory store does. */
export const DEFAULT_REDIS_MAX_ENTRIES = 10_000;
/** Values whose last written version this process remembers (the busiest ids). */
const KNOWN_LIMIT = 1000;

// A version per value makes every update a compare-and-set: the script writes only if no other update was
// applied since the value was read. Lists are appended and trimmed in the same script, so a value and its lists
// never disagree. ARGV after the fixed ones: per list, its limit, its item count, then the items.
const APPEND_LISTS = `
local function appendLists(first, a)
  local n = tonumber(ARGV[a]); a = a + 1
  for i = 1, n do
    local limit = tonumber(ARGV[a]); local count = tonumber(ARGV[a + 1]); a = a + 2
    local key = KEYS[first + i - 1]
    local from = a
    while from < a + count do
      local to = math.min(from + 999, a + count - 1)
      redis.call('RPUSH', key, unpack(ARGV, from, to))
      from = to + 1
    end
    if count > 0 then redis.call('LTRIM', key, -limit, -1) end
    a = a + count
  end
end
`;

/**
 * Versions come from one counter of the store, never from the value alone: a value deleted and created again
 * gets a version no process can still hold, so a remembered version cannot match a different value.
 * KEYS: value, ids, counter, lists… ARGV: id, json, maxEntries, lists.
 */
const CREATE_SCRIPT = `${APPEND_LISTS}
if redis.call('EXISTS', KEYS[1]) == 1 then return 'exists' end
local max = tonumber(ARGV[3])
if max > 0 and redis.call('SCARD', KEYS[2]) >= max then return 'full' end
for i = 4, #KEYS do redis.call('DEL', KEYS[i]) end
redis.call('HSET', KEYS[1], 'v', tostring(redis.call('INCR', KEYS[3])), 'd', ARGV[2])
redis.call('SADD', KEYS[2], ARGV[1])
appendLists(4, 4)
return 'created'
`;

/**
 * KEYS: value, counter, lists… ARGV: expected version, json, lists. Answers the new version (written), -1
 * (gone), or, when another write came first, the current version and JSON (the retry needs no second read).
 */
const UPDATE_SCRIPT = `${APPEND_LISTS}
local v = redis.call('HGET', KEYS[1], 'v')
if not v then return -1 end
if v ~= ARGV[1] then return { v, redis.call('HGET', KEYS[1], 'd') } end
local version = tostring(redis.call('INCR', KEYS[2]))
redis.call('HSET', KEYS[1], 'v', version, 'd', ARGV[2])
appendLists(3, 3)
return { version }
`;

/** KEYS: value, ids, lists… ARGV: id. */
const DELETE_SCRIPT = `
local existed = redis.call('DEL', KEYS[1])
redis.call('SREM', KEYS[2], ARGV[1])
for i = 3, #KEYS do redis.call('DEL', KEYS[i]) end
return existed
`;

type Commands = {
  hrCreate(...args: Array<string | number>): Promise<string>;
  hrUpdate(...args: Array<string | number>): Promise<number | [string] | [string, string]>;
  hrDelete(...args: Array<string | number>): Promise<number>;
};

function unavailable(action: string, cause: unknown): BarometerError {
  const reason = cause instanceof Error ? cause.message : String(cause);
  return new BarometerError(
    'BR_ERR_STORE_UNAVAILABLE',
    `The shared store (Redis) failed to ${action}: ${reason}`,
    {
      cause,
    },
  );
}

/**
 * Values in Redis, shared by every barometer instance that names the same Redis and prefix. Each value is a hash
 * (`v` its version, `d` its JSON) and the ids are a set. An update reads the value, applies `change` here, and
 * writes back with a script that succeeds only if the version is still the one read (optimistic concurrency):
 * there is no lock to leak when an instance dies, an update is applied whole or not at all, and a conflict is
 * retried with the newer value. Updates of one id from this process are queued, so they conflict only with
 * other instances.
 *
 * With {@link AppendOnlyList}s, `change` sees those lists empty and what it returns in them is appended; the
 * value `update` resolves to holds, in them, only what it appended. `get` and `values` return them whole.
 */
export class RedisStateStore<T> implements StateStore<T> {
  readonly #redis: Redis & Commands;
  readonly #prefix: string;
  readonly #idsKey: string;
  readonly #counterKey: string;
  readonly #parse: RedisStateStoreOptions<T>['parse'];
  readonly #maxEntries: number;
  readonly #lists: readonly AppendOnlyList[];
  readonly #maxAttempts: number;
  readonly #queues = new Map<string, Promise<unknown>>();
  /**
   * The version and value (lists emptied) this process last wrote or read per id, most recent last: the next
   * update of the id tries it directly, and a write by another instance in between only costs the retry.
   */
  readonly #known = new Map<string, { version: string; value: T }>();

  constructor(redis: Redis, options: RedisStateStoreOptions<T>) {
    this.#prefix = `${options.prefix ?? 'barometer:'}${options.namespace}:`;
    this.#idsKey = `${this.#prefix}ids`;
    this.#counterKey = `${this.#prefix}version`;
    this.#parse = options.parse;
    this.#maxEntries = options.maxEntries ?? DEFAULT_REDIS_MAX_ENTRIES;
    this.#lists = options.lists ?? [];
    this.#maxAttempts = options.maxAttempts ?? 64;
    const commands = redis as Redis & Partial<Commands>;
    if (!commands.hrCreate) redis.defineCommand('hrCreate', { lua: CREATE_SCRIPT });
    if (!commands.hrUpdate) redis.defineCommand('hrUpdate', { lua: UPDATE_SCRIPT });
    if (!commands.hrDelete) redis.defineCommand('hrDelete', { lua: DELETE_SCRIPT });
    this.#redis = redis as Redis & Commands;
  }

  get maxEntries(): number {
    return this.#maxEntries;
  }

  #valueKey(id: string): string {
    return `${this.#prefix}v:${id}`;
  }

  #listKeys(id: string): string[] {
    return this.#lists.map((_, index) => `${this.#prefix}l${index}:${id}`);
  }

  /** The value without its lists, as JSON, and the lists' items as JSON strings (ARGV form). */
  #encode(value: T): { bare: T; json: string; lists: Array<string | number> } {
    const { bare, items } = splitLists(value, this.#lists);
    const lists: Array<string | number> = [this.#lists.length];
    this.#lists.forEach((list, index) => {
      const texts = items[index] as string[];
      lists.push(list.limit, texts.length, ...texts);
    });
    return { bare, json: JSON.stringify(bare), lists };
  }

  #decode(id: string, json: string, lists: ReadonlyArray<readonly string[]> | undefined): T {
    return readBack(id, json, this.#lists, (index) => lists?.[index], this.#parse);
  }

  async get(id: string): Promise<T | undefined> {
    const [value] = await this.#read([id]);
    return value;
  }

  async values(): Promise<T[]> {
    let ids: string[];
    try {
      ids = await this.#redis.smembers(this.#idsKey);
    } catch (error) {
      throw unavailable('list its values', error);
    }
    const values = await this.#read(ids);
    return values.filter((value): value is T => value !== undefined);
  }

  /**
   * A page in id order. Redis keeps the ids in a set (no order): they are read and sorted here for each page, and
   * only the page's values are read.
   */
  async page(after: string | null, limit: number, options: PageOptions = {}): Promise<StatePage<T>> {
    let ids: string[];
    try {
      ids = await this.#redis.smembers(this.#idsKey);
    } catch (error) {
      throw unavailable('list its values', error);
    }
    ids.sort((a, b) => (a < b ? -1 : a > b ? 1 : 0));
    const start = after === null ? 0 : ids.findIndex((id) => id > after);
    const chosen = start < 0 ? [] : ids.slice(start, start + limit);
    const values = (await this.#read(chosen, options.lists !== false)).filter(
      (value): value is T => value !== undefined,
    );
    const more = start >= 0 && start + limit < ids.length;
    return { values, next: more && chosen.length > 0 ? (chosen[chosen.length - 1] as string) : null };
  }

  async #read(ids: readonly string[], withLists = true): Promise<Array<T | undefined>> {
    if (ids.length === 0) return [];
    const pipeline = this.#redis.pipeline();
    for (const id of ids) {
      pipeline.hget(this.#valueKey(id), 'd');
      // Without its lists a value comes with them empty, as `change` sees it.
      for (const key of this.#listKeys(id)) pipeline.lrange(key, withLists ? 0 : 1, withLists ? -1 : 0);
    }
    let results: Array<[Error | null, unknown]>;
    try {
      results = (await pipeline.exec()) ?? [];
    } catch (error) {
      throw unavailable('read', error);
    }
    const stride = 1 + this.#lists.length;
    return ids.map((id, index) => {
      const row = results.slice(index * stride, (index + 1) * stride);
      const failed = row.find(([error]) => error);
      if (failed?.[0]) throw unavailable('read', failed[0]);
      const json = row[0]?.[1];
      if (typeof json !== 'string') return undefined;
      return this.#decode(
        id,
        json,
        row.slice(1).map(([, items]) => items as string[]),
      );
    });
  }

  async create(id: string, value: T): Promise<'created' | 'exists' | 'full'> {
    const { json, lists } = this.#encode(value);
    const keys = [this.#valueKey(id), this.#idsKey, this.#counterKey, ...this.#listKeys(id)];
    try {
      const outcome = await this.#redis.hrCreate(keys.length, ...keys, id, json, this.#maxEntries, ...lists);
      return outcome as 'created' | 'exists' | 'full';
    } catch (error) {
      throw unavailable('create a value', error);
    }
  }

  update(id: string, change: (current: T) => T): Promise<T | undefined> {
    // One update of an id at a time from this process: they would only conflict with each other.
    const previous = this.#queues.get(id) ?? Promise.resolve();
    const next = previous.then(
      () => this.#update(id, change),
      () => this.#update(id, change),
    );
    this.#queues.set(id, next);
    const clear = () => {
      if (this.#queues.get(id) === next) this.#queues.delete(id);
    };
    next.then(clear, clear);
    return next;
  }

  async #update(id: string, change: (current: T) => T): Promise<T | undefined> {
    const valueKey = this.#valueKey(id);
    const keys = [valueKey, this.#counterKey, ...this.#listKeys(id)];
    let known = this.#known.get(id);
    for (let attempt = 1; attempt <= this.#maxAttempts; attempt += 1) {
      if (!known) {
        let read: [string | null, string | null];
        try {
          read = (await this.#redis.hmget(valueKey, 'v', 'd')) as [string | null, string | null];
        } catch (error) {
          throw unavailable('read a value', error);
        }
        const [version, json] = read;
        if (version === null || json === null) return undefined;
        known = { version, value: this.#decode(id, json, undefined) };
      }
      const next = change(known.value);
      const encoded = this.#encode(next);
      let outcome: number | [string] | [string, string];
      try {
        outcome = await this.#redis.hrUpdate(
          keys.length,
          ...keys,
          known.version,
          encoded.json,
          ...encoded.lists,
        );
      } catch (error) {
        this.#known.delete(id);
        throw unavailable('write a value', error);
      }
      if (!Array.isArray(outcome)) {
        this.#known.delete(id);
        return undefined;
      }
      if (outcome.length === 1) {
        this.#remember(id, outcome[0], encoded.bare);
        return next;
      }
      // Another instance wrote first: go on from its value, after a short random pause that grows with the
      // attempts when the contention goes on (the first retry is immediate: the value came with the refusal).
      const [version, json] = outcome as [string, string];
      known = { version, value: this.#decode(id, json, undefined) };
      if (attempt > 1) {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * Math.min(50, 2 ** attempt)));
      }
    }
    this.#known.delete(id);
    throw new BarometerError(
      'BR_ERR_STORE_UNAVAILABLE',
      `The update of ${JSON.stringify(id)} conflicted with other instances ${this.#maxAttempts} times and was not applied; retry it`,
    );
  }

  #remember(id: string, version: string, value: T): void {
    this.#known.delete(id);
    this.#known.set(id, { version, value });
    if (this.#known.size > KNOWN_LIMIT) {
      const oldest = this.#known.keys().next().value;
      if (oldest !== undefined) this.#known.delete(oldest);
    }
  }

  async delete(id: string): Promise<boolean> {
    this.#known.delete(id);
    const keys = [this.#valueKey(id), this.#idsKey, ...this.#listKeys(id)];
    try {
      return (await this.#redis.hrDelete(keys.length, ...keys, id)) === 1;
    } catch (error) {
      throw unavailable('delete a value', error);
    }
  }

  async size(): Promise<number> {
    try {
      return await this.#redis.scard(this.#idsKey);
    } catch (error) {
      throw unavailable('count its values', error);
    }
  }

  /** The Redis connection is its owner's to close. */
  async close(): Promise<void> {
    await Promise.allSettled([...this.#queues.values()]);
  }
}
