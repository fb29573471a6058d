import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { isId } from '../ids/id-schema.js';
import { type AppendOnlyList, type ReadBackCheck, withPath } from './append-only-list.js';
import { keptName } from './import-json-files.js';
import type { SqliteStateStore, StoreProblem } from './sqlite-state-store.js';

export interface ImportSessionFolderOptions {
  /** The lists the folder kept in files of their own (`<id>.<path joined by dots>.jsonl`). */
  lists?: readonly AppendOnlyList[];
  /** Checks (and mends) a value read from the files, as the store's own `parse`. */
  parse: ReadBackCheck<unknown>;
  onProblem?: (problem: StoreProblem) => void;
}

/** What an import did: values written, values left in the kept folder (they did not read back), and that folder. */
export interface ImportedFolder {
  imported: number;
  existing: number;
  setAside: number;
  keptAs: string;
}

/** Values written per transaction while importing. */
const BATCH = 1000;

/**
 * Reads a folder of values written by barometer before its embedded database (f817969 and earlier: one
 * `<id>.json` per value, newer states appended to `<id>.state.jsonl`, each append-only list in a `.jsonl` file of
 * its own) into `store`, once: the folder is then renamed `<folder>.imported` and kept as it was, so that nothing
 * is lost and the next start finds nothing to import. A value already in the store (an import cut short by a
 * kill, then run again) is left as the store has it. A value that does not read back is told to `onProblem` and
 * stays only in the kept folder. Undefined when there is no such folder.
 */
export function importSessionFolder<T>(
  folder: string,
  store: SqliteStateStore<T>,
  options: ImportSessionFolderOptions,
): ImportedFolder | undefined {
  if (!existsSync(folder)) return undefined;
  const names = readdirSync(folder);
  const ids = new Set<string>();
  for (const name of names) {
    const id = name.endsWith('.state.jsonl')
      ? name.slice(0, -12)
      : name.endsWith('.json')
        ? name.slice(0, -5)
        : '';
    if (isId(id)) ids.add(id);
  }
  const result = { imported: 0, existing: 0, setAside: 0 };
  const all = [...ids].sort();
  for (let start = 0; start < all.length; start += BATCH) {
    store.database.transaction(() => {
      for (const id of all.slice(start, start + BATCH)) {
        const value = readValue(folder, id, options);
        if (value === undefined) result.setAside++;
        else if (store.insert(id, value as T) === 'created') result.imported++;
        else result.existing++;
      }
    });
  }
  const keptAs = keptName(folder);
  renameSync(folder, keptAs);
  return { ...result, keptAs };
}

/** One value from its files, checked; undefined (told to `onProblem`) when it does not read back. */
function readValue(folder: string, id: string, options: ImportSessionFolderOptions): unknown {
  let reason: string;
  try {
    let value =
      lastLine(join(folder, `${id}.state.jsonl`)) ??
      JSON.parse(readFileSync(join(folder, `${id}.json`), 'utf8'));
    for (const list of options.lists ?? []) {
      const file = join(folder, `${id}.${list.path.join('.')}.jsonl`);
      const items = readList(file, list, (lines) =>
        options.onProblem?.({
          id,
          action: 'skip',
          reason: `${file}: line ${lines.join(', ')} skipped (not a valid ${list.path.join('.')} item)`,
        }),
      );
      // A file written before its lists had files of their own keeps them inside.
      if (items !== undefined) value = withPath(value, list.path, items);
    }
    const parsed = options.parse(value);
    if (parsed.ok) {
      if (parsed.repaired !== undefined)
        options.onProblem?.({ id, action: 'repair', reason: parsed.repaired });
      return parsed.value;
    }
    reason = parsed.reason;
  } catch (error) {
    reason = (error as Error).message;
  }
  options.onProblem?.({ id, action: 'load', reason: `${reason} (its files stay in the imported folder)` });
  return undefined;
}

/** A list's last `limit` items; a torn last line (a kill during an append) is dropped, other bad lines told. */
function readList(
  file: string,
  list: AppendOnlyList,
  skipped: (lines: number[]) => void,
): unknown[] | undefined {
  const text = readIfThere(file);
  if (text === undefined) return undefined;
  const items: unknown[] = [];
  const bad: number[] = [];
  const lines = text.split('\n');
  lines.forEach((line, index) => {
    if (line === '') return;
    let item: unknown;
    try {
      item = JSON.parse(line);
    } catch {
      if (index < lines.length - 1) bad.push(index + 1);
      return;
    }
    if (list.isItem && !list.isItem(item)) bad.push(index + 1);
    else items.push(item);
  });
  if (bad.length > 0) skipped(bad);
  return items.slice(-list.limit);
}

/** The last whole line of a state log, parsed (the newest state); undefined without a log or a whole line. */
function lastLine(file: string): unknown {
  const lines = (readIfThere(file) ?? '').split('\n');
  for (let index = lines.length - 1; index >= 0; index--) {
    if (lines[index] === '') continue;
    try {
      return JSON.parse(lines[index] as string);
    } catch {
      // Torn by a kill during its append: the line before it is the newest whole state.
    }
  }
  return undefined;
}

function readIfThere(file: string): string | undefined {
  try {
    return readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
}
