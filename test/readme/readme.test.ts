/**
 * Runs the README's shell blocks as printed, in order, as a new user of a clone would: the service of the set-up
 * command, then every block against it, each command's output checked against what the README shows. Commands run
 * in a scratch folder that holds the clone's `samples/`, `examples/` and `test/` (what the README points at) and a
 * `node_modules/.bin` with `barometer` (this clone's build, `npm test` builds it first) and `tsx`, with a scratch
 * HOME, so nothing is written into the repository or the user's home.
 */
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import { mkdirSync, mkdtempSync, readFileSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join, resolve } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { firstMissingLine, type ReadmeBlock, readmeBlocks } from './readme-blocks.js';

const ROOT = resolve(import.meta.dirname, '../..');
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const SERVICE = 'http://127.0.0.1:8797';

let scratch: string;
let environment: NodeJS.ProcessEnv;
const background: ChildProcess[] = [];

beforeAll(() => {
  scratch = mkdtempSync(join(tmpdir(), 'barometer-readme-'));
  const bin = join(scratch, 'node_modules', '.bin');
  mkdirSync(bin, { recursive: true });
  mkdirSync(join(scratch, 'home'));
  writeFileSync(join(scratch, 'package.json'), '{ "name": "readme-scratch", "private": true }\n');
  // As npm links a package's bin: a launcher of the built CLI (the build does not mark main.js executable; npm does).
  writeFileSync(
    join(bin, 'barometer'),
    `#!/bin/sh\nexec node "${join(ROOT, 'dist', 'cli', 'main.js')}" "$@"\n`,
    {
      mode: 0o755,
    },
  );
  symlinkSync(join(ROOT, 'node_modules', '.bin', 'tsx'), join(bin, 'tsx'));
  for (const folder of ['samples', 'examples', 'test'])
    symlinkSync(join(ROOT, folder), join(scratch, folder));
  environment = {
    ...process.env,
    HOME: join(scratch, 'home'),
    NO_COLOR: '1',
    BAROMETER_DATA_DIR: join(scratch, 'data'),
    CLAUDE_CONFIG_DIR: join(scratch, 'home', '.claude'),
    CODEX_HOME: join(scratch, 'home', '.codex'),
    npm_config_yes: 'false',
    npm_config_update_notifier: 'false',
  };
});

afterAll(async () => {
  for (const child of background) {
    if (child.pid !== undefined && child.exitCode === null) {
      const exited = new Promise((done) => child.once('exit', done));
      try {
        process.kill(-child.pid, 'SIGTERM');
      } catch {
        // already gone
      }
      // The service flushes its sessions into the scratch folder as it stops: wait for it before removing the folder.
      await Promise.race([exited, new Promise((done) => setTimeout(done, 10_000))]);
    }
  }
  rmSync(scratch, { recursive: true, force: true, maxRetries: 10, retryDelay: 200 });
});

/** Starts a command in its own process group (so that npm's children stop with it) and keeps what it prints. */
function startInBackground(command: string, cwd: string): { child: ChildProcess; output: () => string } {
  const child = spawn('bash', ['-c', command], { cwd, env: environment, detached: true });
  background.push(child);
  let printed = '';
  child.stdout?.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  child.stderr?.on('data', (chunk: Buffer) => {
    printed += chunk.toString();
  });
  return { child, output: () => printed };
}

async function waitFor(
  what: string,
  ready: () => Promise<boolean> | boolean,
  child: ChildProcess,
  log: () => string,
) {
  const deadline = Date.now() + 120_000;
  while (Date.now() < deadline) {
    if (await ready()) return;
    if (child.exitCode !== null)
      throw new Error(`${what} exited (${child.exitCode}) before it was ready:\n${log()}`);
    await new Promise((done) => setTimeout(done, 200));
  }
  throw new Error(`${what} was not ready after 120 s:\n${log()}`);
}

const answers = async () => {
  try {
    return (await fetch(`${SERVICE}/healthz`)).ok;
  } catch {
    return false;
  }
};

function describeBlock(block: ReadmeBlock): string {
  const first = block.commands[0]?.command ?? '(empty)';
  return `line ${block.line}: ${first.length > 70 ? `${first.slice(0, 70)}…` : first}`;
}

describe('the README, run as printed', () => {
  const blocks = readmeBlocks(README);

  it('has the two set-up commands first, and shell blocks to run', () => {
    expect(blocks.slice(0, 2).map((block) => block.directive.kind)).toEqual(['service', 'ci']);
    expect(blocks.filter((block) => block.directive.kind === 'run').length).toBeGreaterThan(5);
  });

  for (const block of blocks) {
    it(describeBlock(block), async () => {
      const { directive } = block;
      if (directive.kind === 'ci') {
        // `npm ci` would replace the node_modules this test runs from; .ci/run runs this very command.
        const command = block.commands[0]?.command.replace(/\s+#.*$/, '').trim();
        expect(readFileSync(join(ROOT, '.ci', 'run'), 'utf8').split('\n')).toContain(command);
        console.log(`README line ${block.line}: \`${command}\` is .ci/run's own command, run by CI itself`);
        return;
      }
      if (directive.kind === 'service') {
        // The set-up command's `npm start`, from the clone (its `npm ci` is .ci/run's, as above).
        const command = block.commands[0]?.command.replace(/\s+#.*$/, '').trim() ?? '';
        expect(command).toMatch(/^npm ci && npm start$/);
        expect(await answers(), `something already listens on ${SERVICE}: stop it to run this test`).toBe(
          false,
        );
        const started = startInBackground('npm start', ROOT);
        await waitFor('npm start', answers, started.child, started.output);
        expect(started.output()).toContain(`${SERVICE}`);
        return;
      }
      if (directive.kind === 'background') {
        const started = startInBackground(
          block.commands.map((command) => command.command).join('\n'),
          scratch,
        );
        await waitFor(
          block.commands[0]?.command ?? '',
          () => started.output().includes(directive.readyText),
          started.child,
          started.output,
        );
        return;
      }
      for (const { command, expected } of block.commands) {
        const run = spawnSync('bash', ['-c', command], {
          cwd: scratch,
          env: environment,
          encoding: 'utf8',
          timeout: 120_000,
        });
        const context = `README line ${block.line}: \`${command}\`\nstdout:\n${run.stdout}\nstderr:\n${run.stderr}`;
        expect(run.status, context).toBe(0);
        expect(firstMissingLine(run.stdout, expected), context).toBeNull();
      }
    }, 180_000);
  }
});
