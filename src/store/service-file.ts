import { readFileSync, renameSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import * as z from 'zod';
import { ensureOwnerOnlyFolder, OWNER_ONLY_FILE_MODE } from './owner-only.js';

/** The file in a data folder that says which barometer service runs on it, and where. */
export const SERVICE_FILE = 'service.json';

/** What a running service writes into `<data folder>/service.json` once it listens. */
export const ServiceRecordSchema = z.object({
  /** Where it answers, e.g. `http://127.0.0.1:8797`. */
  url: z.string().regex(/^https?:\/\/\S+$/),
  pid: z.number().int().positive(),
  /** barometer's version. */
  version: z.string(),
  /** When it started listening, ISO 8601. */
  started: z.string(),
  /** The proxy routes it serves (`barometer proxy`), or null (`barometer serve`: none). */
  proxy: z
    .object({
      mode: z.enum(['act', 'observe']),
      anthropicUpstream: z.string(),
      openaiUpstream: z.string(),
      chatgptUpstream: z.string(),
      /** The window policy's levers on (absent in a file of a version before it: none). */
      windowPolicy: z.array(z.string()).optional(),
    })
    .nullable(),
});
export type ServiceRecord = z.infer<typeof ServiceRecordSchema>;

/** Writes the record whole (a temporary file renamed over the old one), owner-only. */
export function writeServiceFile(dataDir: string, record: ServiceRecord): void {
  ensureOwnerOnlyFolder(dataDir);
  const path = join(dataDir, SERVICE_FILE);
  const temporary = `${path}.${process.pid}.tmp`;
  writeFileSync(temporary, `${JSON.stringify(record, null, 2)}\n`, { mode: OWNER_ONLY_FILE_MODE });
  renameSync(temporary, path);
}

/** The record of a data folder, or undefined when there is none or it does not read as one. */
export function readServiceFile(dataDir: string): ServiceRecord | undefined {
  try {
    const parsed = ServiceRecordSchema.safeParse(
      JSON.parse(readFileSync(join(dataDir, SERVICE_FILE), 'utf8')),
    );
    return parsed.success ? parsed.data : undefined;
  } catch {
    return undefined;
  }
}

/** Removes the record if process `pid` wrote it (a service started since on the same folder keeps its own). */
export function removeServiceFile(dataDir: string, pid: number): void {
  if (readServiceFile(dataDir)?.pid !== pid) return;
  try {
    unlinkSync(join(dataDir, SERVICE_FILE));
  } catch {
    // Already gone.
  }
}
