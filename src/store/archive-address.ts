import { sep } from 'node:path';
import * as z from 'zod';
import { IdSchema } from '../ids/id-schema.js';

/** The session and task of one archive (`<archive root>/<session>/<task>.log`), by the one id rule. */
export const ArchiveParamsSchema = z.strictObject({ session: IdSchema, task: IdSchema });
/** One record of an archive: the item id a tombstone names. */
export const ArchiveItemIdSchema = z.string().min(1).max(300);
export const ArchiveQuerySchema = z.strictObject({ item: ArchiveItemIdSchema.optional() });

/** Where an archived item lives, whichever way a tombstone wrote it. */
export interface ArchiveAddress {
  sessionId: string;
  taskId: string;
  /** The record a tombstone points at; absent for the whole archive. */
  itemId?: string;
}

/** `/api/v1/archives/<session>/<task>[?item=<id>]`: an archive as the HTTP service names it. */
export function archiveApiAddress(sessionId: string, taskId: string, itemId?: string): string {
  return `/api/v1/archives/${sessionId}/${taskId}${itemId === undefined ? '' : `?item=${encodeURIComponent(itemId)}`}`;
}

/** After `<root>/`: `<session>/<task>.log` and, optionally, `#<item id>` (ids hold no slash nor space). */
const PATH_TAIL = /^([^/\\\s]+)[/\\]([^/\\\s]+?)\.log(?:#(\S+))?/;
const API_ADDRESS = /\/api\/v1\/archives\/([^/?#\s]+)\/([^/?#\s]+)(?:\?(?:[^#\s]*&)?item=([^&#\s]+)|#(\S+))?/;

/**
 * Tombstones and archive lists over HTTP name an archive by its API address
 * (`/api/v1/archives/<session>/<task>?item=<id>`), never by the server's file system path.
 */
export function apiAddresses<T>(value: T, archiveRoot: string): T {
  const prefix = archiveRoot + sep;
  const rewrite = (text: string): string => {
    if (!text.includes(prefix)) return text;
    let out = '';
    let from = 0;
    for (let at = text.indexOf(prefix); at !== -1; at = text.indexOf(prefix, from)) {
      out += text.slice(from, at);
      const match = PATH_TAIL.exec(text.slice(at + prefix.length));
      if (!match) {
        out += prefix;
        from = at + prefix.length;
        continue;
      }
      const [whole, session, task, item] = match;
      out += archiveApiAddress(session!, task!, item);
      from = at + prefix.length + whole.length;
    }
    return out + text.slice(from);
  };
  const walk = (node: unknown): unknown => {
    if (typeof node === 'string') return rewrite(node);
    if (Array.isArray(node)) return node.map(walk);
    if (node !== null && typeof node === 'object') {
      const copy: Record<string, unknown> = {};
      for (const [key, inner] of Object.entries(node)) copy[key] = walk(inner);
      return copy;
    }
    return node;
  };
  return walk(value) as T;
}

function decoded(text: string): string | undefined {
  try {
    return decodeURIComponent(text);
  } catch {
    return undefined;
  }
}

/**
 * The archive address in a text: a tombstone (`[Task <id> completed: output evicted to archive] <where>`), an
 * archive path under `archiveRoot` (`<root>/<session>/<task>.log#<item id>`) or an API address
 * (`/api/v1/archives/<session>/<task>?item=<id>`, with or without scheme and host). The ids are not checked
 * here (see {@link ArchiveParamsSchema}); undefined when the text holds no address.
 */
export function findArchiveAddress(text: string, archiveRoot: string): ArchiveAddress | undefined {
  const api = API_ADDRESS.exec(text);
  if (api) {
    // The item as a query (`?item=`) or, as an archive path writes it, a fragment (`#<item>`).
    const [, session, task, query, fragment] = api;
    const item = query ?? fragment;
    const sessionId = decoded(session!);
    const taskId = decoded(task!);
    const itemId = item === undefined ? undefined : decoded(item.replaceAll('+', ' '));
    if (sessionId === undefined || taskId === undefined || (item !== undefined && itemId === undefined))
      return undefined;
    return { sessionId, taskId, ...(itemId === undefined ? {} : { itemId }) };
  }
  const prefix = archiveRoot + sep;
  const at = text.indexOf(prefix);
  if (at === -1) return undefined;
  const match = PATH_TAIL.exec(text.slice(at + prefix.length));
  if (!match) return undefined;
  const [, sessionId, taskId, itemId] = match;
  return { sessionId: sessionId!, taskId: taskId!, ...(itemId === undefined ? {} : { itemId }) };
}
