import { mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { memoryIo } from '../test-helpers/memory-io.js';
import { ZOD_DEFAULT_WORDING } from '../test-helpers/zod-default-wording.js';
import { run } from './program.js';

const SAMPLE = fileURLToPath(new URL('../../samples/claude-code-small.jsonl', import.meta.url));
/** A port nothing listens on: a pool command that reached the network would fail with exit 6, not 2. */
const NO_SERVICE = 'http://127.0.0.1:9';

let folder: string;
beforeAll(() => {
  folder = mkdtempSync(join(tmpdir(), 'barometer-wording-'));
  writeFileSync(join(folder, 'history.json'), JSON.stringify([{ role: 'bot', content: 5 }]));
  writeFileSync(join(folder, 'tasks.json'), JSON.stringify({ messages: [{ role: 'user' }], tasks: [{}] }));
  writeFileSync(join(folder, 'policy.json'), JSON.stringify({ minResultTokens: 'many' }));
});
afterAll(() => {
  rmSync(folder, { recursive: true, force: true });
});

/** Files of the temporary folder, named in the cases before it exists. */
const FILES: Readonly<Record<string, string>> = { HISTORY: 'history.json', TASKS: 'tasks.json' };

async function cli(args: string[], stdin?: string) {
  const terminal = memoryIo(stdin === undefined ? {} : { stdin });
  terminal.io.cwd = folder;
  const argv = args.map((arg) => (arg in FILES ? join(folder, FILES[arg]!) : arg));
  const code = await run(argv, { io: terminal.io });
  return { code, stderr: terminal.stderr, stdout: terminal.stdout };
}

/**
 * A bad flag, argument or input for every command, and what the message must name: the field or flag, the value
 * given, and what is allowed. zod's own sentences ("Invalid input: expected number, received NaN") must not
 * appear anywhere.
 */
/**
 * `bar`: the status line, which Claude Code shows as printed: input it cannot read is explained in the bar itself
 * (stdout, exit 0: a blank bar and exit 2 would explain nothing), in the same words.
 */
const CASES: Array<{ args: string[]; stdin?: string; names: string[]; bar?: true }> = [
  {
    args: ['pressure', '--memory-used-percent', 'abc'],
    names: ['--memory-used-percent', '"abc"', '0 to 100'],
  },
  {
    args: ['pressure', '--system-mode', 'loud'],
    names: ['--system-mode', '"loud"', 'demo, production, diagnostic'],
  },
  { args: ['serve', '--log-level', 'loud'], names: ['--log-level', '"loud"', 'fatal, error, warn'] },
  { args: ['serve', '--port', '70000'], names: ['--port', '70000', '65535'] },
  { args: ['replay', SAMPLE, '--format', 'nope'], names: ['--format', '"nope"', 'claude-code'] },
  {
    args: ['replay', SAMPLE, '--what-if', '--policy', 'policy.json'],
    names: ['minResultTokens', '"many"', 'must be a number'],
  },
  {
    args: ['compact', 'HISTORY'],
    names: ['[0].role', '"bot"', 'system, developer, user, assistant, tool'],
  },
  { args: ['compact', 'TASKS'], names: ['messages[0]', 'tasks[0]', 'is required'] },
  { args: ['compact', 'HISTORY', '--session', 'a b'], names: ['--session', '"a b"', 'letters, digits'] },
  { args: ['archive', 'a b', 't1'], names: ['<session>', '"a b"'] },
  { args: ['watch', '--since', 'soon'], names: ['--since', '"soon"', '30m'] },
  { args: ['mcp', '--log-level', 'loud'], names: ['--log-level', '"loud"', 'fatal, error, warn'] },
  {
    args: ['statusline'],
    stdin: '{"model":{"id":""},"context_window":{"current_usage":{"input_tokens":"many"}}}',
    names: ['model.id', 'must not be empty', 'input_tokens', 'must be a number'],
    bar: true,
  },
  { args: ['statusline'], stdin: '{}', names: ['model', 'is required'], bar: true },
  { args: ['hook'], stdin: '{"hook_event_name":5}', names: ['hook input', 'session_id', 'is required', '5'] },
  {
    args: ['pool', 'create', 'team', '--token-budget', 'NaN', '--server', NO_SERVICE],
    names: ['--token-budget', '"NaN"', 'whole number from 1 to 1,000,000,000,000,000'],
  },
  {
    args: ['pool', 'create', 'team', '--token-budget', '100', '--ceiling', 'low=2', '--server', NO_SERVICE],
    names: ['--ceiling low=', '2', 'at most 1'],
  },
  {
    args: ['pool', 'create', 'team', '--ceiling', 'low', '--server', NO_SERVICE],
    names: ['--ceiling', 'low=0.4'],
  },
  {
    args: ['pool', 'create', 'team', '--server', NO_SERVICE],
    names: ['--token-budget', 'at least one limit'],
  },
  {
    args: ['pool', 'create', 'a b', '--token-budget', '5', '--server', NO_SERVICE],
    names: ['<id>', '"a b"'],
  },
  {
    args: ['pool', 'reserve', 'team', '--agent-id', 'a1', '--tokens', '1.5', '--server', NO_SERVICE],
    names: ['--tokens', '1.5', 'whole number'],
  },
  {
    args: [
      'pool',
      'reserve',
      'team',
      '--agent-id',
      'a1',
      '--tokens',
      '5',
      '--priority',
      'top',
      '--server',
      NO_SERVICE,
    ],
    names: ['--priority', '"top"', 'low, normal, high, urgent'],
  },
  {
    args: [
      'pool',
      'reserve',
      'team',
      '--agent-id',
      'a1',
      '--tokens',
      '5',
      '--ttl-seconds',
      '0',
      '--server',
      NO_SERVICE,
    ],
    names: ['--ttl-seconds', '0', 'from 1 to 3,600'],
  },
  {
    args: ['pool', 'settle', 'team', 'rsv_1', '--actual-tokens', '5', '--server', NO_SERVICE],
    names: ['<reservationId>', '"rsv_1"', 'rsv_'],
  },
  {
    args: ['pool', 'settle', 'team', `rsv_${'0'.repeat(32)}`, '--actual-tokens', 'x', '--server', NO_SERVICE],
    names: ['--actual-tokens', '"x"', 'from 0 to'],
  },
  { args: ['pool', 'show', 'team', '--server', 'not a url'], names: ['--server', '"not a url"', 'http://'] },
];

describe('every command words bad input in barometer’s terms, naming the flag, the value and what is allowed', () => {
  it.each(CASES.map((entry) => ({ ...entry, command: entry.args.join(' ') })))(
    'barometer $command',
    async ({ args, stdin, names, bar }) => {
      const result = await cli(args, stdin);
      expect(result.code, result.stderr).toBe(bar ? 0 : 2);
      const text = bar ? result.stdout : result.stderr;
      expect(text).toMatch(bar ? /barometer: status line input not understood/ : /^barometer: /);
      if (bar) expect(text.trim().split('\n')).toHaveLength(1);
      expect(text).not.toMatch(ZOD_DEFAULT_WORDING);
      for (const name of names) expect(text, name).toContain(name);
    },
  );
});
