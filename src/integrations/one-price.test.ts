import { mkdir, mkdtemp, readdir, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildApp } from '../server/app.js';
import { replayLogText } from '../session/replay.js';
import { replayWhatIf } from '../session/what-if-replay.js';
import { ArchiveStore, readArchiveFile } from '../store/archive.js';
import { attachSubagentLogs } from '../usage/attach-subagent-logs.js';
import { readSessionLog } from '../usage/read-session-log.js';
import type { SessionLog } from '../usage/session-log.js';
import { TRACES } from '../usage/test-helpers/traces.js';
import { parseStatuslineInput, statuslineReport } from './claude-code-statusline.js';
import { usageBody } from './live-sessions.js';

// A recorded Claude Code session (Opus) whose sub-agent wrote its own transcript beside it
// (test/fixtures/traces/SOURCES.md). No recorded fixture switches models mid-session, so the test makes one: the
// calls of its second half are written as Haiku's, as `/model haiku` would have them.
const RECORDED = fileURLToPath(new URL('claude-code/4d5611e5-241a-462a-8d15-5122611a9569.jsonl', TRACES));
const SUBAGENTS = RECORDED.replace(/\.jsonl$/, '/subagents');
const SWITCHED_TO = 'claude-haiku-4-5-20251001';

const cents = (usd: number | null | undefined) =>
  usd === null || usd === undefined ? null : Math.round(usd * 100);

let root: string;
let transcript: string;
let text: string;
let subagents: Array<{ name: string; text: string }>;
beforeAll(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-one-price-'));
  const lines = (await readFile(RECORDED, 'utf8')).split('\n');
  const half = Math.floor(lines.length / 2);
  text = lines
    .map((line, index) =>
      index >= half ? line.replaceAll('"model":"claude-opus-4-6"', `"model":"${SWITCHED_TO}"`) : line,
    )
    .join('\n');
  transcript = join(root, 'switched.jsonl');
  await writeFile(transcript, text);
  const names = (await readdir(SUBAGENTS)).filter((name) => name.endsWith('.jsonl'));
  subagents = await Promise.all(
    names.map(async (name) => ({ name, text: await readFile(join(SUBAGENTS, name), 'utf8') })),
  );
  await mkdir(join(root, 'switched', 'subagents'), { recursive: true });
  for (const file of subagents) await writeFile(join(root, 'switched', 'subagents', file.name), file.text);
});
afterAll(() => rm(root, { recursive: true, force: true }));

/** Every session of the log: the main conversation and each sub-agent's. */
function sessionsOf(log: SessionLog): SessionLog[] {
  return [log, ...(log.children ?? []).flatMap(sessionsOf)];
}

describe('one price for a call: replay, whatIf.real, live sessions, the dashboard and the status line agree', () => {
  it('prices the same calls of a session that switched models, its sub-agents included, to the same cent', async () => {
    const log = attachSubagentLogs(readSessionLog(text), subagents);
    expect(new Set(log.calls.map((call) => call.model))).toEqual(new Set(['claude-opus-4-6', SWITCHED_TO]));
    expect(log.children?.length ?? 0).toBeGreaterThan(0);

    // Replay: the summary's total counts the sub-agents' calls.
    const replay = replayLogText(text, { subagents });
    const total = replay.summary.total.costUsd;
    expect(total).not.toBeNull();

    // The what-if's real cost: each session's own, which add up to the same total.
    const whatIf = await replayWhatIf(text, {
      archive: new ArchiveStore({ root, durable: false }),
      reader: { readFile: readArchiveFile },
      subagents,
    });
    const whatIfReal =
      (whatIf.whatIf.real.costUsd ?? 0) +
      (whatIf.children ?? []).reduce((sum, child) => sum + (child.whatIf?.real.costUsd ?? 0), 0);
    expect(cents(whatIfReal)).toBe(cents(total));

    // Live: each session's calls posted as the log adapters post them (`barometer watch` against a service), then
    // the sessions list the dashboard shows.
    const dataDir = await mkdtemp(join(root, 'data-'));
    const app = await buildApp({ logLevel: 'silent', rateLimitPerMinute: 0, dataDir, dashboard: false });
    try {
      for (const [index, session] of sessionsOf(log).entries()) {
        const id = `one-price-${index}`;
        const created = await app.inject({
          method: 'POST',
          url: '/api/v1/sessions',
          payload: { id, model: session.calls[0]!.model, agent: 'claude-code' },
        });
        expect(created.statusCode).toBe(201);
        for (const call of session.calls) {
          const body = usageBody({ usage: call.usage, timestamp: call.timestamp });
          if (!body) continue;
          const posted = await app.inject({
            method: 'POST',
            url: `/api/v1/sessions/${id}/usage`,
            payload: body,
          });
          expect(posted.statusCode).toBe(200);
        }
      }
      const listed = (await app.inject({ method: 'GET', url: '/api/v1/sessions?limit=100' })).json() as {
        sessions: Array<{ id: string; model: string; signals: { costUsd: number | null } }>;
      };
      const live = listed.sessions.reduce((sum, session) => sum + (session.signals.costUsd ?? 0), 0);
      expect(cents(live)).toBe(cents(total));
      // The live session followed the user's switch: it ends on the model of its last call, as replay does.
      const main = listed.sessions.find((session) => session.id === 'one-price-0');
      expect(main?.model).toBe(log.calls.at(-1)!.model);
      expect(main?.model).toBe(replay.calls.at(-1)!.model);
    } finally {
      await app.close();
    }

    // The status line: barometer's own price of the transcript, not Claude Code's `cost.total_cost_usd`.
    const report = statuslineReport(
      parseStatuslineInput(
        JSON.stringify({
          model: { id: 'claude-opus-4-6' },
          transcript_path: transcript,
          cost: { total_cost_usd: 123.45 },
        }),
      ),
    );
    expect(cents(report.costUsd)).toBe(cents(total));
  });
});
