import { existsSync, readdirSync, readFileSync, renameSync } from 'node:fs';
import { join } from 'node:path';
import { isId } from '../ids/id-schema.js';
import type { KeyValueTable } from './key-value-table.js';

/** Where an imported file or folder is kept: `<path>.imported` (or `-2`, `-3`… when that is taken). */
export function keptName(path: string): string {
  let kept = `${path}.imported`;
  for (let n = 2; existsSync(kept); n++) kept = `${path}.imported-${n}`;
  return kept;
}

/**
 * A JSON file an older release wrote (`<data dir>/webhooks/webhooks.json`) read into `table` under `key`, once:
 * the file is then renamed `<file>.imported`. Nothing is done when the table holds the key already or there is no
 * file. Answers where the file is kept, or undefined.
 */
export function importJsonFile(file: string, table: KeyValueTable, key: string): string | undefined {
  if (!existsSync(file) || table.get(key) !== undefined) return undefined;
  const text = readFileSync(file, 'utf8');
  JSON.parse(text);
  table.set(key, text);
  const kept = keptName(file);
  renameSync(file, kept);
  return kept;
}

/**
 * A folder of `<id>.json` files an older release wrote (`<data dir>/proxy`) read into `table`, one row per id
 * (a row already there is kept), once: the folder is then renamed `<folder>.imported`. A file that is not JSON is
 * left out, and stays in the kept folder. Answers how many were imported and where the folder is kept.
 */
export function importJsonFolder(
  folder: string,
  table: KeyValueTable,
): { imported: number; skipped: number; keptAs: string } | undefined {
  if (!existsSync(folder)) return undefined;
  let imported = 0;
  let skipped = 0;
  table.database.transaction(() => {
    for (const name of readdirSync(folder)) {
      const id = name.slice(0, -'.json'.length);
      if (!name.endsWith('.json') || !isId(id)) continue;
      try {
        const text = readFileSync(join(folder, name), 'utf8');
        JSON.parse(text);
        if (table.get(id) === undefined) table.set(id, text);
        imported++;
      } catch {
        skipped++;
      }
    }
  });
  const keptAs = keptName(folder);
  renameSync(folder, keptAs);
  return { imported, skipped, keptAs };
}
