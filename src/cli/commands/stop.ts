import { setTimeout as sleep } from 'node:timers/promises';
import type { Command } from 'commander';
import { BarometerError } from '../../errors/barometer-error.js';
import { removeServiceFile } from '../../store/service-file.js';
import { dataFolderFor } from '../data-folder-for.js';
import type { CliIo } from '../io.js';
import { DATA_DIR_HELP } from '../proxy-flags.js';
import { processRuns, runningService } from '../running-service.js';

/** How long a stopped service has to write its sessions out and exit. */
const STOP_WAIT_MS = 15_000;

/**
 * `barometer stop`: stops the barometer service of the data folder (the one `wrap` started, or a `serve` or `proxy`)
 * by the pid its service file names, once its URL answers as barometer (a pid reused by another program is left
 * alone). It writes its sessions out and exits, as on Ctrl-C.
 */
export function registerStopCommand(program: Command, io: CliIo): void {
  program
    .command('stop')
    .description(
      'Stop the barometer service of the data folder (the one barometer wrap started, or a serve or proxy): it writes its sessions out and exits',
    )
    .option('--data-dir <dir>', DATA_DIR_HELP)
    .action(async (flags: { dataDir?: string }) => {
      const folder = dataFolderFor(io, flags.dataDir);
      const service = await runningService(folder.path);
      if (service === undefined) {
        io.stdout.write(`no barometer service runs on ${folder.path}\n`);
        return;
      }
      const { pid, url } = service.record;
      process.kill(pid, 'SIGTERM');
      const deadline = Date.now() + STOP_WAIT_MS;
      while (processRuns(pid) && Date.now() < deadline) await sleep(50);
      if (processRuns(pid))
        throw new BarometerError(
          'BR_ERR_UNAVAILABLE',
          `the barometer service at ${url} (process ${pid}) was asked to stop but still runs after ${STOP_WAIT_MS / 1000} s: it may still be writing its sessions; try again, or end process ${pid} yourself`,
        );
      // A service that could not remove its own file (killed meanwhile) leaves none behind.
      removeServiceFile(folder.path, pid);
      io.stdout.write(`stopped the barometer service at ${url} (process ${pid})\n`);
    });
}
