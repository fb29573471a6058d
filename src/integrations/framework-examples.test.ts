import { execFile } from 'node:child_process';
import { createRequire } from 'node:module';
import { fileURLToPath } from 'node:url';
import { promisify } from 'node:util';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const run = promisify(execFile);

/** An example of examples/, run as a user runs it (`npx tsx examples/<name>.ts`), its output returned. */
async function example(name: string): Promise<string> {
  const { stdout } = await run(process.execPath, ['--import', 'tsx', `examples/${name}.ts`], {
    cwd: ROOT,
    timeout: 60_000,
    env: { ...process.env, NO_COLOR: '1' },
  });
  return stdout;
}

describe('the framework adapters’ examples', () => {
  it('examples/langchain.ts: a createAgent loop whose finished sub-tasks are evicted at their boundaries', async () => {
    const output = await example('langchain');
    expect(output).toContain('evicted 2 items at todo-completed');
    expect(output).toContain('Both parts reviewed.');
    expect(output).toMatch(/call 5: 10 messages, 2 tombstones/);
    expect(output).toMatch(/call 8: 16 messages, 4 tombstones/);
    expect(output).toContain('session: 8 calls');
  }, 90_000);

  it('examples/openai-agents.ts: an Agents SDK run whose finished sub-tasks are evicted at their boundaries', async () => {
    const output = await example('openai-agents');
    expect(output).toContain('evicted 2 items at todo-completed');
    expect(output).toContain('Both parts reviewed.');
    expect(output).toMatch(/call 5: 9 items, 2 tombstones/);
    expect(output).toMatch(/call 8: 15 items, 4 tombstones/);
    expect(output).toContain('session: 8 calls');
  }, 90_000);

  it('examples/mastra.ts: a Mastra agent whose finished sub-tasks are evicted at their boundaries', async () => {
    const output = await example('mastra');
    expect(output).toContain('evicted 2 items at todo-completed');
    expect(output).toContain('Both parts reviewed.');
    expect(output).toMatch(/call 5: 10 messages, 2 tombstones/);
    expect(output).toMatch(/call 8: 16 messages, 4 tombstones/);
    expect(output).toContain('session: 8 calls');
  }, 90_000);

  it('examples/claude-agent-sdk.ts: query() through barometer’s proxy, its session seen with every main call', async (context) => {
    let sdk: string | undefined;
    try {
      sdk = createRequire(import.meta.url).resolve(
        `@anthropic-ai/claude-agent-sdk-${process.platform}-${process.arch}/package.json`,
      );
    } catch {
      sdk = undefined;
    }
    if (!sdk) {
      if (process.env.CI === 'true')
        throw new Error('the Claude Agent SDK’s Claude Code binary is missing under CI');
      console.warn('skipping examples/claude-agent-sdk.ts: the SDK’s Claude Code binary is not installed');
      context.skip();
    }
    const output = await example('claude-agent-sdk');
    expect(output).toContain('Both files read.');
    expect(output).toContain('query: 3 main calls, result success');
    expect(output).toContain("barometer's session: 3 calls");
  }, 90_000);
});
