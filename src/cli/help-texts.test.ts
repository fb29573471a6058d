import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, it } from 'vitest';
import { ERROR_CATALOGUE, EXIT_CODES } from '../errors/error-catalogue.js';
import { DEFAULT_SERVER_URL } from '../integrations/barometer-client.js';
import { memoryIo } from '../test-helpers/memory-io.js';
import { buildProgram, run } from './program.js';

async function helpOf(path: string[]): Promise<string> {
  const terminal = memoryIo();
  const code = await run([...path, '--help'], { io: terminal.io });
  expect(code, path.join(' ')).toBe(0);
  return terminal.stdout;
}

/** The help of the root, every command and every subcommand (`pool create`, …), by command path. */
const helps = new Map<string, string>();
beforeAll(async () => {
  const paths: string[][] = [[]];
  for (const command of buildProgram({ io: memoryIo().io }).commands) {
    paths.push([command.name()]);
    for (const sub of command.commands) paths.push([command.name(), sub.name()]);
  }
  for (const path of paths) helps.set(path.join(' '), await helpOf(path));
});

/** The exit codes docs/errors.md documents ("Exit codes of the CLI"). */
function documentedExitCodes(): number[] {
  const doc = readFileSync(fileURLToPath(new URL('../../docs/errors.md', import.meta.url)), 'utf8');
  const section = doc.slice(doc.indexOf('## Exit codes of the CLI'), doc.indexOf('## Codes'));
  return [...section.matchAll(/^\| (\d) \|/gm)].map((match) => Number(match[1]));
}

describe('help texts agree with the error catalogue (docs/errors.md)', () => {
  it('barometer compact --help says a refused compaction exits 5, BR_ERR_COMPACTION_REFUSED’s code', () => {
    const help = helps.get('compact')!;
    expect(help).toMatch(/refused \(exit \d\)/);
    expect(/refused \(exit (\d)\)/.exec(help)![1]).toBe(
      String(ERROR_CATALOGUE.BR_ERR_COMPACTION_REFUSED.exit),
    );
    expect(ERROR_CATALOGUE.BR_ERR_COMPACTION_REFUSED.exit).toBe(5);
  });

  it('barometer --help lists every exit code docs/errors.md documents', () => {
    const root = helps.get('')!;
    const listed = [...root.slice(root.indexOf('Exit codes')).matchAll(/^ {2}(\d) {2}\S/gm)].map((match) =>
      Number(match[1]),
    );
    expect(listed).toEqual(documentedExitCodes());
    expect(listed).toEqual(Object.values(EXIT_CODES));
  });

  it('names only documented exit codes anywhere, and the right one where it names a failure', () => {
    const documented = new Set(documentedExitCodes());
    const named: string[] = [];
    for (const [path, help] of helps) {
      for (const match of help.matchAll(/\bexits? (?:only )?(\d)\b/g)) {
        named.push(`${path}: ${match[0]}`);
        expect(documented.has(Number(match[1])), `${path}: ${match[0]}`).toBe(true);
      }
    }
    expect(named.length).toBeGreaterThan(5);
    const pool = helps.get('pool')!;
    expect(pool).toContain(`A refusal exits ${ERROR_CATALOGUE.BR_ERR_POOL_EXHAUSTED.exit}`);
    expect(pool).toContain(`exits ${ERROR_CATALOGUE.BR_ERR_UNAVAILABLE.exit}`);
    expect(pool).toContain(`Bad flags exit ${ERROR_CATALOGUE.BR_ERR_INVALID_PARAM.exit}`);
    expect(helps.get('pressure')).toContain(`${EXIT_CODES.invalidInput} bad flags`);
  });
});

describe('commands that talk to a service say which one', () => {
  it('barometer pool --help states the default URL and BAROMETER_URL', () => {
    const pool = helps.get('pool')!;
    expect(pool).toContain(DEFAULT_SERVER_URL);
    expect(pool).toContain('$BAROMETER_URL');
    for (const sub of ['create', 'show', 'list', 'delete', 'reserve', 'settle', 'release']) {
      // Commander wraps option descriptions: compare the words.
      expect(helps.get(`pool ${sub}`)!.replace(/\s+/g, ' '), sub).toContain(
        `default: $BAROMETER_URL, else ${DEFAULT_SERVER_URL}`,
      );
    }
  });

  it('barometer hook --help says what it writes when no service answers, and that it exits 0', () => {
    const hook = helps.get('hook')!.replace(/\s+/g, ' ');
    expect(hook).toContain(`else $BAROMETER_URL, else ${DEFAULT_SERVER_URL}`);
    expect(hook).toContain('prints nothing on stdout, writes one line on stderr');
    expect(hook).toContain('exits 0');
    expect(hook).not.toContain('it prints nothing and exits 0');
  });
});

describe('barometer models --help', () => {
  it('names every source a figure can have, the agents it takes and where the config file is read from', () => {
    const help = helps.get('models')!.replace(/\s+/g, ' ');
    for (const source of ['registry', 'family estimate', 'agent reported', 'config file', 'session'])
      expect(help, source).toContain(source);
    expect(help).toContain('--agent <agent>');
    expect(help).toContain('claude-code|codex|gemini-cli|openhands|pi');
    expect(help).toContain('default: the one in the working directory, if any');
    expect(help).toContain('barometer models claude-opus-5-5 --agent claude-code');
  });
});
