import { join } from 'node:path';
import { handleHookEvent, parseHookInput } from '../integrations/agent-hook.js';
import { BarometerClient, ServiceError, ServiceUnreachableError } from '../integrations/barometer-client.js';
import { withSessionLock } from '../integrations/file-lock.js';
import { ServiceSessions } from '../integrations/live-sessions.js';
import { readServiceFile, SERVICE_FILE } from '../store/service-file.js';
import { dataFolderFor } from './data-folder-for.js';
import { type CliIo, UsageError } from './io.js';
import { readStdin } from './read-stdin.js';
import { processRuns } from './running-service.js';
import { serviceTarget, unreachableText } from './service-target.js';

/**
 * The service the data folder's service file names, if its process runs (a `wrap` started it on a port of its
 * own, or `serve` runs elsewhere than 8797). Quiet: what a hook prints, Claude Code shows.
 */
function serviceOfDataFolder(io: CliIo): { url: string; file: string } | undefined {
  const folder = dataFolderFor(io, undefined, { quiet: true });
  const record = readServiceFile(folder.path);
  return record && processRuns(record.pid)
    ? { url: record.url, file: join(folder.path, SERVICE_FILE) }
    : undefined;
}

/** Reads one hook event from stdin, tells the service, prints the agent's JSON output when there is one. */
export async function runHook(
  io: CliIo,
  flags: { server?: string; timeout: string; windowReminder?: string },
): Promise<void> {
  if (!/^\d+$/.test(flags.timeout) || Number(flags.timeout) < 1) {
    throw new UsageError(
      `--timeout must be a whole number of milliseconds ≥ 1; got ${JSON.stringify(flags.timeout)}`,
    );
  }
  const within = flags.windowReminder ?? io.env.BAROMETER_WINDOW_REMINDER_MINUTES;
  if (within !== undefined && (!/^\d+$/.test(within) || Number(within) > 10_080)) {
    throw new UsageError(
      `--window-reminder must be a whole number of minutes from 0 (off) to 10080; got ${JSON.stringify(within)}`,
    );
  }
  const text = await readStdin(io);
  if (text.trim() === '') {
    throw new UsageError("no input: the agent pipes the hook event (JSON) to this command's stdin");
  }
  const input = parseHookInput(text);
  const target = serviceTarget(flags.server, io.env, serviceOfDataFolder(io));
  const client = new BarometerClient({ url: target.url, timeoutMs: Number(flags.timeout) });
  try {
    const result = await handleHookEvent(input, {
      sessions: new ServiceSessions(client),
      exclusive: (sessionId, work) => withSessionLock(client.url, sessionId, work),
      ...(io.env.HOME ? { home: io.env.HOME } : {}),
      // The agent runs this command as its child: its process is ours' parent.
      agentProcessId: process.ppid,
      ...(within === undefined ? {} : { windowReminderMinutes: Number(within) }),
    });
    if (result.output) io.stdout.write(`${JSON.stringify(result.output)}\n`);
  } catch (error) {
    // The agent carries on whatever happens to the service: say why on stderr (one line), print nothing on
    // stdout (which the agent would read), exit 0.
    if (error instanceof ServiceUnreachableError) {
      io.stderr.write(`barometer hook: ${unreachableText(target, error)}; this event was not recorded\n`);
      return;
    }
    if (error instanceof ServiceError) {
      io.stderr.write(`barometer hook: ${error.message} (at ${target.url}); this event was not recorded\n`);
      return;
    }
    throw error;
  }
}
