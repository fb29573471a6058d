import { cp, mkdir, mkdtemp, rm, stat } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { openSessionMonitor } from '../session/open-session-monitor.js';
import type { ReceiptInput } from '../session/proxy-receipt.js';
import { memoryIo } from '../test-helpers/memory-io.js';
import { run } from './program.js';

// The bundled sample (samples/README.md gives its provenance): a Claude Code session of claude-sonnet-4-20250514.
const SAMPLE = fileURLToPath(new URL('../../samples/claude-code-small.jsonl', import.meta.url));
const SESSION = 'e9f146fa-3b20-48d0-9be4-d99ca901cae4';
const MODEL = 'claude-sonnet-4-20250514';

let home: string;
let dataDir: string;

async function reportJson(args: string[] = []) {
  const terminal = memoryIo({ env: { HOME: home, BAROMETER_DATA_DIR: dataDir } });
  const code = await run(['report', '--time-zone', 'UTC', '--no-what-if', ...args], { io: terminal.io });
  return { code, stdout: terminal.stdout, stderr: terminal.stderr };
}

/** Two requests the proxy forwarded acting: the first writes the cache, the second reads it. */
const receipts: ReceiptInput[] = [
  {
    provider: 'anthropic',
    model: MODEL,
    wouldHave: {
      promptTokens: 100_000,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 100_000,
      cacheWrite1hTokens: 0,
    },
    predicted: {
      promptTokens: 60_000,
      cacheReadTokens: 0,
      cacheWrite5mTokens: 60_000,
      cacheWrite1hTokens: 0,
    },
    reported: { promptTokens: 60_000, cacheReadTokens: 0, cacheWrite5mTokens: 60_000, cacheWrite1hTokens: 0 },
    completionTokens: 1000,
  },
  {
    provider: 'anthropic',
    model: MODEL,
    wouldHave: {
      promptTokens: 100_000,
      cacheReadTokens: 100_000,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
    },
    predicted: {
      promptTokens: 60_000,
      cacheReadTokens: 60_000,
      cacheWrite5mTokens: 0,
      cacheWrite1hTokens: 0,
    },
    reported: { promptTokens: 60_000, cacheReadTokens: 60_000, cacheWrite5mTokens: 0, cacheWrite1hTokens: 0 },
    completionTokens: 1000,
  },
];

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'barometer-report-receipts-'));
  dataDir = join(home, 'barometer-data');
  const project = join(home, '.claude', 'projects', '-home-wei-repo');
  await mkdir(project, { recursive: true });
  await cp(SAMPLE, join(project, `${SESSION}.jsonl`));
});

afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('barometer report: the proxy receipts beside the what-if', () => {
  it('shows no proxy figures, and creates no database, when the data folder has none', async () => {
    // Without the report's own cache (which lives in the same database), nothing creates the file.
    const { code, stdout } = await reportJson(['--json', '--no-cache']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.rows[0].proxy).toEqual({
      sessions: 0,
      calls: 0,
      wouldHaveCostUsd: 0,
      costUsd: 0,
      savedUsd: 0,
      departures: 0,
    });
    await expect(stat(join(dataDir, 'barometer.db'))).rejects.toThrow(/ENOENT/);
  });

  it("adds up a proxied session's receipts, as the provider's prices bill them, in the session's row and the total", async () => {
    const monitor = await openSessionMonitor({ dataDir });
    await monitor.create({ id: SESSION, model: MODEL });
    for (const input of receipts) await monitor.recordReceipt(SESSION, input);
    const kept = await monitor.receipt(SESSION);
    await monitor.close();
    // Sonnet 4 per million tokens: input $3, 5-minute cache write $3.75, cache read $0.30, output $15 (the registry,
    // `barometer models claude-sonnet-4-20250514`). As sent by the agent: 100K written, then 100K read; as sent by
    // barometer: 60K written, then 60K read; 1,000 output tokens each.
    const wouldHave = 0.1 * 3.75 + 0.001 * 15 + (0.1 * 0.3 + 0.001 * 15);
    const cost = 0.06 * 3.75 + 0.001 * 15 + (0.06 * 0.3 + 0.001 * 15);
    const { code, stdout } = await reportJson(['--json', '--view', 'session']);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    const row = result.rows.find((entry: { key: string }) => entry.key === SESSION);
    expect(row.proxy.sessions).toBe(1);
    expect(row.proxy.calls).toBe(2);
    expect(row.proxy.wouldHaveCostUsd).toBeCloseTo(wouldHave, 9);
    expect(row.proxy.costUsd).toBeCloseTo(cost, 9);
    expect(row.proxy.savedUsd).toBeCloseTo(wouldHave - cost, 9);
    // The same receipt the sessions API shows for the session.
    expect(row.proxy.savedUsd).toBeCloseTo(kept?.savedUsd ?? Number.NaN, 9);
    expect(result.total.proxy.savedUsd).toBeCloseTo(wouldHave - cost, 9);
    // Counted once, on the day of the session's first call.
    const daily = JSON.parse((await reportJson(['--json', '--view', 'daily'])).stdout);
    expect(
      daily.rows.filter((entry: { proxy: { sessions: number } }) => entry.proxy.sessions > 0),
    ).toHaveLength(1);
    // The table's measured column beside the what-if's forecast.
    const table = (await reportJson(['--view', 'session'])).stdout;
    const [header, , line] = table.split('\n');
    expect(header).toContain('what-if saved $');
    expect(header).toContain('proxy saved $');
    expect(line).toContain(`$${(wouldHave - cost).toFixed(2)}`);
  });
});
