import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../test-helpers/memory-io.js';
import { TRACES } from '../usage/test-helpers/traces.js';
import { run } from './program.js';

const SMALL = fileURLToPath(new URL('claude-code/small-sonnet-session.jsonl', TRACES));

let home: string;

/** The recorded Claude Code session with every call's model renamed: the same calls on another model. */
async function sessionOn(model: string): Promise<string> {
  const text = (await readFile(SMALL, 'utf8')).replaceAll(
    '"model":"claude-sonnet-4-20250514"',
    `"model":"${model}"`,
  );
  const folder = join(home, model);
  await mkdir(folder, { recursive: true });
  await writeFile(join(folder, 'session.jsonl'), text);
  return folder;
}

async function report(args: string[]) {
  const terminal = memoryIo({ env: { HOME: home, BAROMETER_DATA_DIR: join(home, 'data') } });
  const code = await run(['report', '--time-zone', 'UTC', '--no-what-if', '--no-cache', ...args], {
    io: terminal.io,
  });
  expect(code, terminal.stderr).toBe(0);
  return terminal.stdout;
}

beforeAll(async () => {
  home = await mkdtemp(join(tmpdir(), 'barometer-report-estimated-'));
});
afterAll(async () => {
  await rm(home, { recursive: true, force: true });
});

describe('barometer report on a model the registry does not list', () => {
  it('prices claude-opus-5-5 as the newest claude-opus-* and marks that cost estimated, in the table and the JSON', async () => {
    const estimated = JSON.parse(await report([await sessionOn('claude-opus-5-5'), '--json']));
    // The same calls on claude-opus-4-8, the model the estimate takes its price from.
    const listed = JSON.parse(await report([await sessionOn('claude-opus-4-8'), '--json']));
    expect(estimated.total.calls).toBe(listed.total.calls);
    expect(estimated.total.unpricedCalls).toBe(0);
    expect(estimated.total.costUsd).toBeGreaterThan(0);
    expect(estimated.total.costUsd).toBeCloseTo(listed.total.costUsd, 9);
    expect(estimated.total.estimatedCostUsd).toBeCloseTo(estimated.total.costUsd, 9);
    expect(listed.total.estimatedCostUsd).toBe(0);

    const table = await report([await sessionOn('claude-opus-5-5'), '--view', 'model']);
    const row = table.split('\n').find((line) => line.startsWith('claude-opus-5-5 '));
    expect(row).toMatch(/ ~\$\d/);
    expect(table).toContain('~ $');
    expect(table).toContain('of the cost is at estimated prices');
    const plain = await report([await sessionOn('claude-opus-4-8'), '--view', 'model']);
    expect(plain).not.toContain('~$');
  }, 60_000);

  it('leaves a model of no known family unpriced, with the mark it always had', async () => {
    const result = JSON.parse(await report([await sessionOn('acme-7'), '--json']));
    expect(result.total).toMatchObject({ costUsd: 0, estimatedCostUsd: 0 });
    expect(result.total.unpricedCalls).toBe(result.total.calls);
  }, 60_000);
});
