import { resolve } from 'node:path';
import type { Command } from 'commander';
import { ArchiveParamsSchema, ArchiveQuerySchema } from '../../contract/archives.js';
import {
  ArchiveError,
  type ArchiveRecord,
  ArchiveStore,
  type DecodedArchive,
  findArchivedItem,
} from '../../store/archive.js';
import { archiveDirFor } from '../data-folder-for.js';
import { parseFlags } from '../flag-schema.js';
import type { CliIo } from '../io.js';

/** `barometer archive <session> <task>`: what eviction or compaction archived, byte for byte. */
export function registerArchiveCommand(program: Command, io: CliIo): void {
  program
    .command('archive')
    .description('Read what was evicted or compacted away: the archive of a session task')
    .argument('<session>', 'the session id')
    .argument('<task>', 'the task id (or compaction-<n>)')
    .option('--archive-dir <dir>', 'where archives live (default: <data folder>/archives)')
    .option('--item <id>', 'print only this item, exactly as archived (no added newline)')
    .option('--json', 'print the records as JSON')
    .action(
      async (
        session: string,
        task: string,
        flags: { archiveDir?: string; item?: string; json?: boolean },
      ) => {
        // The arguments of GET /api/v1/archives/:session/:task?item=, checked by its schemas.
        parseFlags(
          ArchiveParamsSchema.extend(ArchiveQuerySchema.shape),
          { session, task, item: flags.item },
          { names: { session: '<session>', task: '<task>' } },
        );
        const root = flags.archiveDir === undefined ? archiveDirFor(io) : resolve(io.cwd, flags.archiveDir);
        const store = new ArchiveStore({ root });
        let decoded: DecodedArchive;
        try {
          decoded = await store.inspectArchive(session, task);
          // On stderr, so that --item and --json output stay exactly the archived bytes.
          if (decoded.skipped.length > 0) {
            const bytes = decoded.skipped.reduce((sum, region) => sum + region.bytes, 0);
            io.stderr.write(
              `note: skipped ${bytes} bytes in ${decoded.skipped.length} region(s) that are not whole records (a write cut short); every whole record is shown\n`,
            );
          }
        } catch (error) {
          if (error instanceof ArchiveError && error.code === 'BR_ERR_ARCHIVE_NOT_FOUND') {
            throw new ArchiveError(
              error.code,
              error.path,
              `no archive for session ${session}, task ${task} under ${root}`,
            );
          }
          throw error;
        }
        const records = decoded.records;
        if (flags.item !== undefined) {
          const path = store.pathFor(session, task);
          let record: ArchiveRecord;
          try {
            record = findArchivedItem(decoded, flags.item, path);
          } catch (error) {
            if (error instanceof ArchiveError && error.code === 'BR_ERR_ARCHIVE_NOT_FOUND') {
              throw new ArchiveError(
                error.code,
                path,
                `no item ${flags.item} in ${session}/${task}; items: ${records.map((entry) => entry.itemId).join(', ')}`,
              );
            }
            throw error;
          }
          io.stdout.write(record.content);
          return;
        }
        if (flags.json) {
          io.stdout.write(`${JSON.stringify(records, null, 2)}\n`);
          return;
        }
        for (const record of records) {
          io.stdout.write(
            `── ${record.itemId} (${record.kind} ${record.field}, archived ${record.archivedAt}, ${Buffer.byteLength(record.content)} bytes)\n`,
          );
          io.stdout.write(record.content.endsWith('\n') ? record.content : `${record.content}\n`);
        }
      },
    );
}
