import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { memoryIo } from '../test-helpers/memory-io.js';
import { run } from './program.js';

const FIXTURE = fileURLToPath(new URL('../../test/fixtures/openai-history.json', import.meta.url));
let directory: string;
beforeEach(async () => {
  directory = await mkdtemp(join(tmpdir(), 'barometer-compact-'));
});
afterEach(async () => {
  await rm(directory, { recursive: true, force: true });
});

async function cli(args: string[]) {
  // The archives go to the data folder: the state folder under this XDG_STATE_HOME, not the working directory.
  const terminal = memoryIo({ env: { HOME: directory, XDG_STATE_HOME: join(directory, 'state') } });
  terminal.io.cwd = directory;
  const code = await run(args, { io: terminal.io });
  return { code, stdout: terminal.stdout, stderr: terminal.stderr };
}

describe('barometer compact', () => {
  it('prints before/after token counts and where the archive went', async () => {
    const { code, stdout } = await cli(['compact', FIXTURE, '--output', 'out.json']);
    expect(code).toBe(0);
    expect(stdout).toMatch(/^before: 25 messages, \d+ tokens \(o200k_base\)$/m);
    expect(stdout).toMatch(/^after: {2}\d+ messages, \d+ tokens/m);
    expect(stdout).toContain(
      `archived to: ${join(directory, 'state/barometer/archives/openai-history/compaction-1.log')}`,
    );
    const written = JSON.parse(await readFile(join(directory, 'out.json'), 'utf8'));
    expect(written[0].role).toBe('system');
  });

  it('prints { before, after, archives, messages } with --json and keeps the system message and recent turns', async () => {
    const { code, stdout } = await cli([
      'compact',
      FIXTURE,
      '--json',
      '--session',
      'run-7',
      '--keep-turns',
      '1',
      '--archive-dir',
      'arch',
    ]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(Object.keys(result)).toEqual(['before', 'after', 'archives', 'messages', 'warnings']);
    expect(result.before).toEqual({ messages: 25, tokens: expect.any(Number) });
    expect(result.after.tokens).toBeLessThan(result.before.tokens);
    expect(result.archives).toEqual([join(directory, 'arch/run-7/compaction-1.log')]);
    const history = JSON.parse(await readFile(FIXTURE, 'utf8'));
    expect(result.messages[0]).toEqual(history[0]);
    // The last turn (user, tool call, tool result, answer) is kept verbatim.
    expect(result.messages.slice(-4)).toEqual(history.slice(-4));
  });

  it('archives every replaced message so that barometer archive gives it back byte for byte', async () => {
    await cli(['compact', FIXTURE, '--session', 's1']);
    const history = JSON.parse(await readFile(FIXTURE, 'utf8'));
    const item = await cli(['archive', 's1', 'compaction-1', '--item', 'call_0:result']);
    expect(item.code).toBe(0);
    expect(JSON.parse(item.stdout).content).toBe(history[3].content);
  });

  it('archives each replaced message as given: grep finds a tool output in the file and --item gives the message back', async () => {
    await cli(['compact', FIXTURE, '--session', 'as-sent']);
    const history = JSON.parse(await readFile(FIXTURE, 'utf8'));
    const file = await readFile(join(directory, 'state/barometer/archives/as-sent/compaction-1.log'), 'utf8');
    const line = (history[3].content as string).split('\n')[0] as string;
    expect(line).not.toMatch(/["\\]/);
    expect(file).toContain(line);
    const message = await cli(['archive', 'as-sent', 'compaction-1', '--item', 'message-1']);
    expect(message.code).toBe(0);
    expect(message.stdout).toBe(JSON.stringify(history[1]));
    const tool = await cli(['archive', 'as-sent', 'compaction-1', '--item', 'call_0:result']);
    expect(JSON.parse(tool.stdout)).toEqual(history[3]);
  });

  it('reads an archive with a torn record buried mid-file, saying on stderr what it skipped', async () => {
    await cli(['compact', FIXTURE, '--session', 'torn']);
    const path = join(directory, 'state/barometer/archives/torn/compaction-1.log');
    const whole = await readFile(path);
    // A killed process's torn append, then another process's whole one.
    await writeFile(path, Buffer.concat([whole, whole.subarray(0, 100), whole]));
    const listed = await cli(['archive', 'torn', 'compaction-1', '--item', 'call_0:result']);
    expect(listed.code).toBe(0);
    expect(listed.stderr).toContain('skipped 100 bytes in 1 region(s)');
    const history = JSON.parse(await readFile(FIXTURE, 'utf8'));
    expect(JSON.parse(listed.stdout)).toEqual(history[3]);
  });

  it('numbers a second compaction of the same session past the first, so both stay addressable', async () => {
    await cli(['compact', FIXTURE, '--session', 'again', '--output', 'once.json']);
    const second = await cli([
      'compact',
      join(directory, 'once.json'),
      '--session',
      'again',
      '--json',
      '--keep-turns',
      '1',
    ]);
    expect(second.code).toBe(0);
    expect(JSON.parse(second.stdout).archives).toEqual([
      join(directory, 'state/barometer/archives/again/compaction-2.log'),
    ]);
    const history = JSON.parse(await readFile(FIXTURE, 'utf8'));
    const first = await cli(['archive', 'again', 'compaction-1', '--item', 'call_0:result']);
    expect(JSON.parse(first.stdout).content).toBe(history[3].content);
  });

  it('checks --output before archiving anything', async () => {
    const { code, stderr } = await cli([
      'compact',
      FIXTURE,
      '--session',
      'nowhere',
      '--output',
      '/no/such/dir/out.json',
    ]);
    expect(code).toBe(2);
    expect(stderr).toContain('--output');
    // Exit 3: no such archive.
    expect((await cli(['archive', 'nowhere', 'compaction-1'])).code).toBe(3);
  });

  it('evicts the outputs of completed tasks to the archive, leaving tombstones, and gives them back byte for byte', async () => {
    const history = JSON.parse(await readFile(FIXTURE, 'utf8'));
    // Tag each turn's tool output with a task: t1 … t6 in the order of the turns.
    let turn = 0;
    const tagged = history.map((message: { role: string }) =>
      message.role === 'tool' ? { ...message, task_id: `t${++turn}` } : message,
    );
    const tasks = [
      { id: 't1', summary: 'invoice.ts rounds per line; fixed to round the total' },
      { id: 't2', summary: 'tax.ts had the same per-line rounding bug' },
    ];
    await writeFile(join(directory, 'tasks.json'), JSON.stringify({ messages: tagged, tasks }));
    const { code, stdout } = await cli([
      'compact',
      join(directory, 'tasks.json'),
      '--session',
      'evict',
      '--json',
    ]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.archives).toEqual([
      join(directory, 'state/barometer/archives/evict/t1.log'),
      join(directory, 'state/barometer/archives/evict/t2.log'),
    ]);
    expect(result.messages).toHaveLength(history.length);
    const tools = result.messages.filter((message: { role: string }) => message.role === 'tool');
    expect(tools[0].content).toMatch(
      /^\[Task t1 completed: output evicted to archive\] \S+t1\.log#call_0:result/,
    );
    expect(tools[0].content).toContain('Task t1 result: invoice.ts rounds per line');
    expect(tools[1].content).toMatch(/^\[Task t2 completed: output evicted to archive\]/);
    // Tasks not completed keep their outputs.
    expect(tools[2].content).toBe(history[11].content);
    expect(result.after.tokens).toBeLessThan(result.before.tokens);
    const archived = await cli(['archive', 'evict', 't1', '--item', 'call_0:result']);
    expect(archived.stdout).toBe(history[3].content);
  });

  it('refuses to evict a task whose summary is shorter than 15 characters, naming the field', async () => {
    const history = JSON.parse(await readFile(FIXTURE, 'utf8'));
    await writeFile(
      join(directory, 'short.json'),
      JSON.stringify({ messages: history, tasks: [{ id: 't1', summary: 'done' }] }),
    );
    const { code, stderr } = await cli(['compact', join(directory, 'short.json')]);
    expect(code).toBe(2);
    expect(stderr).toContain('tasks[0].summary');
  });

  it('accepts { "messages": [...] }', async () => {
    const history = JSON.parse(await readFile(FIXTURE, 'utf8'));
    await writeFile(join(directory, 'wrapped.json'), JSON.stringify({ messages: history }));
    const { code, stdout } = await cli(['compact', join(directory, 'wrapped.json'), '--json']);
    expect(code).toBe(0);
    expect(JSON.parse(stdout).before.messages).toBe(25);
  });

  it('refuses (exit 5) a compaction that would not shrink the history, and writes nothing', async () => {
    const history = JSON.parse(await readFile(FIXTURE, 'utf8'));
    await writeFile(join(directory, 'short.json'), JSON.stringify(history.slice(0, 3)));
    const { code, stderr } = await cli(['compact', join(directory, 'short.json'), '--output', 'out.json']);
    expect(code).toBe(5);
    expect(stderr).toContain('compaction refused');
    await expect(readFile(join(directory, 'out.json'))).rejects.toThrow();
  });

  it.each([
    [['compact', '/no/such.json'], 'cannot read /no/such.json'],
    [['compact', FIXTURE, '--keep-turns', 'two'], '--keep-turns must be a whole number'],
    [['compact', FIXTURE, '--session', '../up'], '--session must start with a letter or digit'],
    [['compact', FIXTURE, '--keep-tokens', '-5'], '--keep-tokens must be a whole number of tokens'],
  ])('exits 2 with a clear message for %j', async (args, message) => {
    const { code, stderr } = await cli(args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it.each([
    [['archive', '../up', 'task'], '<session> must start with a letter or digit'],
    [['archive', 'run', 'a..b'], '<task> must not contain ".."'],
    [['archive', 'run', 'task', '--item', ''], '--item'],
  ])('checks the archive arguments by the archive route’s schemas: exit 2 for %j', async (args, message) => {
    const { code, stderr } = await cli(args);
    expect(code).toBe(2);
    expect(stderr).toContain(message);
  });

  it('exits 3 naming the archive when there is none', async () => {
    const { code, stderr } = await cli(['archive', 'nobody', 'nothing']);
    expect(code).toBe(3);
    expect(stderr).toContain('no archive for session nobody');
  });

  it('exits 2 naming the message at fault for a malformed history', async () => {
    await writeFile(join(directory, 'bad.json'), JSON.stringify([{ role: 'wizard', content: 'x' }]));
    const { code, stderr } = await cli(['compact', join(directory, 'bad.json')]);
    expect(code).toBe(2);
    expect(stderr).toContain('[0].role');
  });
});

describe('barometer compact with a summarizer command', () => {
  const node = (script: string) => `"${process.execPath}" -e ${JSON.stringify(script)}`;

  it("uses the command's summary as the recap", async () => {
    const { code, stdout } = await cli([
      'compact',
      FIXTURE,
      '--json',
      '--summarizer-command',
      node("process.stdin.resume();process.stdin.on('end',()=>process.stdout.write('LLM recap.'))"),
    ]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.messages.some((message: { content?: unknown }) => message.content === 'LLM recap.')).toBe(
      true,
    );
    expect(result.warnings).toEqual([]);
  });

  it('falls back to the deterministic recap with a warning when the command fails', async () => {
    const { code, stdout, stderr } = await cli([
      'compact',
      FIXTURE,
      '--json',
      '--summarizer-command',
      node('process.exit(7)'),
    ]);
    expect(code).toBe(0);
    const result = JSON.parse(stdout);
    expect(result.warnings).toEqual([
      'summarizer failed (summarizer command exited with 7); the deterministic recap was used',
    ]);
    expect(stderr).toContain('warning: summarizer failed (summarizer command exited with 7)');
    expect(JSON.stringify(result.messages)).toContain('[Recap of the session so far]');
  });

  it('refuses a compaction under --min-gain, and rejects a --min-gain over 100', async () => {
    const refused = await cli(['compact', FIXTURE, '--min-gain', '99']);
    expect(refused.code).toBe(5);
    expect(refused.stderr).toMatch(/less than minGainPercent 99%/);
    const bad = await cli(['compact', FIXTURE, '--min-gain', '120']);
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--min-gain must be a percentage from 0 to 100; got "120"');
  });
});
