/**
 * `npm run bench -- durability` (issue 39): `barometer serve` in a child process takes usage posts from concurrent
 * writers (keep-alive connections, each posting its next update on the previous answer) for a while, is killed with
 * SIGKILL in the middle of them, and is started again on the same data dir. Every acknowledged update (an answer
 * 200 with the session's generation) must be there after the restart: the bench counts the acknowledged updates
 * lost, the sessions lost, and how old the oldest lost acknowledgement was at the kill, and checks that every
 * timeline ends at its session's generation. Two loads: 10 hot sessions and 8 writers, 200 sessions and 4 writers.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Agent, request } from 'undici';
import { exitOf, startServeProcess } from '../src/test-helpers/spawn-cli.js';

export interface DurabilityFigures {
  sessions: number;
  writers: number;
  seconds: number;
  acknowledged: number;
  postsPerSecond: number;
  lost: number;
  sessionsLost: number;
  /** How long before the kill the oldest lost acknowledgement was answered (0 when none was lost). */
  oldestLostMs: number;
  /** Sessions whose timeline's last point is not their generation's. */
  inconsistent: number;
  restartListenMs: number;
}

/** Each session's acknowledged generations, with when each was answered. */
type Acknowledged = Map<string, Array<{ generation: number; at: number }>>;

async function post(agent: Agent, url: string, path: string, body: unknown) {
  const answer = await request(`${url}${path}`, {
    method: 'POST',
    dispatcher: agent,
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(body),
  });
  return { status: answer.statusCode, body: (await answer.body.json()) as { generation?: number } };
}

export async function benchDurability(
  sessions: number,
  writers: number,
  seconds: number,
): Promise<DurabilityFigures> {
  const dataDir = mkdtempSync(join(tmpdir(), 'barometer-bench-durability-'));
  const environment = { HOME: dataDir, XDG_STATE_HOME: join(dataDir, 'state') };
  const agent = new Agent({ connections: writers + 2 });
  try {
    const first = await startServeProcess(
      ['--data-dir', dataDir, '--rate-limit-per-minute', '0', '--ingest-rate-limit-per-minute', '0'],
      environment,
    );
    const ids = Array.from({ length: sessions }, (_, index) => `d${index}`);
    for (const id of ids) await post(agent, first.url, '/api/v1/sessions', { id, model: 'claude-opus-4-6' });
    const acknowledged: Acknowledged = new Map(ids.map((id) => [id, []]));
    let posting = true;
    let count = 0;
    const writer = async (offset: number) => {
      for (let round = 0; posting; round++) {
        const id = ids[(round * writers + offset) % sessions] as string;
        try {
          const answer = await post(agent, first.url, `/api/v1/sessions/${id}/usage`, {
            promptTokens: 1000 + (round % 5000),
            completionTokens: 10,
          });
          if (answer.status !== 200 || answer.body.generation === undefined) continue;
          acknowledged.get(id)?.push({ generation: answer.body.generation, at: performance.now() });
          count++;
        } catch {
          return; // killed
        }
      }
    };
    const began = performance.now();
    const running = Array.from({ length: writers }, (_, offset) => writer(offset));
    await new Promise((resolve) => setTimeout(resolve, seconds * 1000));
    first.child.kill('SIGKILL');
    const killedAt = performance.now();
    posting = false;
    await exitOf(first.child);
    await Promise.all(running);

    const restartBegan = performance.now();
    const second = await startServeProcess(['--data-dir', dataDir], environment);
    const restartListenMs = performance.now() - restartBegan;
    let lost = 0;
    let sessionsLost = 0;
    let oldestLostMs = 0;
    let inconsistent = 0;
    for (const id of ids) {
      const answer = await request(`${second.url}/api/v1/sessions/${id}`, { dispatcher: agent });
      const view = (await answer.body.json()) as { generations: number; timeline: Array<{ index: number }> };
      const acks = acknowledged.get(id) ?? [];
      if (answer.statusCode === 404) {
        sessionsLost++;
        lost += acks.length;
        if (acks[0]) oldestLostMs = Math.max(oldestLostMs, killedAt - acks[0].at);
        continue;
      }
      const missing = acks.filter((ack) => ack.generation > view.generations);
      lost += missing.length;
      if (missing[0]) oldestLostMs = Math.max(oldestLostMs, killedAt - missing[0].at);
      const last = view.timeline.at(-1)?.index;
      if (view.generations > 0 ? last !== view.generations - 1 : last !== undefined) inconsistent++;
    }
    second.child.kill('SIGTERM');
    await exitOf(second.child);
    return {
      sessions,
      writers,
      seconds,
      acknowledged: count,
      postsPerSecond: count / ((killedAt - began) / 1000),
      lost,
      sessionsLost,
      oldestLostMs,
      inconsistent,
      restartListenMs,
    };
  } finally {
    await agent.close();
    rmSync(dataDir, { recursive: true, force: true });
  }
}
