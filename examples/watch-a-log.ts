/**
 * What `barometer watch` does, in one process and without a server: a recorded Claude Code log is written into a
 * temporary folder line by line, as the agent would write it, and followed into a live session; then the session is
 * compared with `barometer replay` of the same file. Run: npx tsx examples/watch-a-log.ts
 */
import { appendFileSync, mkdtempSync, readFileSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { replayLogText, SessionMonitor } from '../src/index.js';
import { MonitorSessions } from '../src/integrations/live-sessions.js';
import { LogWatcher } from '../src/integrations/log-watcher.js';

const log = readFileSync(
  new URL('../test/fixtures/traces/claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl', import.meta.url),
  'utf8',
);
const folder = mkdtempSync(join(tmpdir(), 'barometer-example-'));
const monitor = new SessionMonitor();
const watcher = new LogWatcher({
  roots: [folder],
  sessions: new MonitorSessions(monitor),
  onEvent: (event) => {
    if (event.type === 'session')
      console.log(`live session ${event.id} on ${event.model}, window ${event.contextWindow}`);
    if (event.type === 'compaction') console.log(`  compaction (${event.trigger}) recorded`);
  },
});
await watcher.start();
const path = join(folder, '4d5611e5-241a-462a-8d15-5122611a9569.jsonl');
for (const line of log.split('\n').filter(Boolean)) {
  appendFileSync(path, `${line}\n`);
  // The watcher's timers and change notices would find the new lines within a second; here it is told at once.
  watcher.scan();
  await watcher.poll();
}
await watcher.close();

const live = await monitor.view('4d5611e5-241a-462a-8d15-5122611a9569');
const replay = replayLogText(log);
console.log({
  live: { calls: live.generations, lastPrompt: live.signals.lastPromptTokens, verdict: live.verdict?.action },
  replay: {
    calls: replay.summary.calls,
    lastPrompt: replay.calls.at(-1)?.promptTokens,
    verdict: replay.calls.at(-1)?.action,
  },
});
rmSync(folder, { recursive: true, force: true });
