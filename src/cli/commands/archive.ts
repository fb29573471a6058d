import { resolve } from 'node:path';
import type { Command } from 'commander';
import { ArchiveError, ArchiveStore } from '../../store/archive.js';
import { type CliIo, UsageError } from '../io.js';
import { DEFAULT_ARCHIVE_DIR } from './compact.js';

/** `headroom archive <session> <task>`: what eviction or compaction archived, byte for byte. */
export function registerArchiveCommand(program: Command, io: CliIo): void {
  program
    .command('archive')
    .description('Read what was evicted or compacted away: the archive of a session task')
    .argument('<session>', 'the session id')
    .argument('<task>', 'the task id (or compaction-<n>)')
    .option('--archive-dir <dir>', 'where archives live', DEFAULT_ARCHIVE_DIR)
    .option('--item <id>', 'print only this item, exactly as archived (no added newline)')
    .option('--json', 'print the records as JSON')
    .action(
      async (session: string, task: string, flags: { archiveDir: string; item?: string; json?: boolean }) => {
        const store = new ArchiveStore({ root: resolve(io.cwd, flags.archiveDir) });
        let records: Awaited<ReturnType<ArchiveStore['readArchive']>>;
        try {
          const decoded = await store.inspectArchive(session, task);
          records = decoded.records;
          // On stderr, so that --item and --json output stay exactly the archived bytes.
          if (decoded.skipped.length > 0) {
            const bytes = decoded.skipped.reduce((sum, region) => sum + region.bytes, 0);
            io.stderr.write(
              `note: skipped ${bytes} bytes in ${decoded.skipped.length} region(s) that are not whole records (a write cut short); every whole record is shown\n`,
            );
          }
        } catch (error) {
          if (error instanceof ArchiveError && error.code === 'HR_ERR_ARCHIVE_NOT_FOUND') {
            throw new UsageError(`no archive for session ${session}, task ${task} under ${flags.archiveDir}`);
          }
          throw error;
        }
        if (flags.item !== undefined) {
          const record = records.findLast((entry) => entry.itemId === flags.item);
          if (!record) {
            throw new UsageError(
              `no item ${flags.item} in ${session}/${task}; items: ${records.map((entry) => entry.itemId).join(', ')}`,
            );
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
