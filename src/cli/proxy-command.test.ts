import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { performance } from 'node:perf_hooks';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { EXIT_CODES } from '../errors/error-catalogue.js';
import { chunk, head, startMisbehavingProvider } from '../proxy/test-helpers/misbehaving-provider.js';
import { memoryIo } from '../test-helpers/memory-io.js';
import { spawnCli } from '../test-helpers/spawn-cli.js';
import { run } from './program.js';

let root: string;
const children: Array<ReturnType<typeof spawnCli>> = [];
beforeAll(() => {
  root = mkdtempSync(join(tmpdir(), 'barometer-proxy-command-'));
});
afterEach(() => {
  for (const child of children.splice(0)) if (child.exitCode === null) child.kill('SIGKILL');
});
afterAll(() => rmSync(root, { recursive: true, force: true }));

describe('barometer proxy --upstream-headers-timeout / --upstream-idle-timeout', () => {
  it.each(['--upstream-headers-timeout', '--upstream-idle-timeout'])(
    'exits 2 naming %s when its value is no duration',
    async (flag) => {
      const terminal = memoryIo();
      const code = await run(['proxy', '--port', '0', flag, 'soon'], { io: terminal.io });
      expect(code).toBe(EXIT_CODES.invalidInput);
      expect(terminal.stderr).toContain(
        `${flag} must be a duration such as 10m, 90s or a number of seconds; got "soon"`,
      );
    },
  );

  it('gives up on an upstream silent past the limits it was given: a 502 without headers, a cut answer after them', async () => {
    const provider = await startMisbehavingProvider((headers) =>
      headers['x-test-script'] === 'silent-after-headers'
        ? [
            { write: head({ 'content-type': 'text/event-stream', 'transfer-encoding': 'chunked' }) },
            { write: chunk('event: ping\ndata: {"type":"ping"}\n\n') },
            { fail: 'silence' },
          ]
        : [{ fail: 'silence' }],
    );
    const home = join(root, 'home');
    const child = spawnCli(
      [
        'proxy',
        '--port',
        '0',
        '--data-dir',
        join(root, 'data'),
        '--anthropic-upstream',
        provider.url,
        '--upstream-headers-timeout',
        '300ms',
        '--upstream-idle-timeout',
        '0.3',
      ],
      { HOME: home, XDG_STATE_HOME: join(home, 'state') },
    );
    children.push(child);
    try {
      let output = '';
      const url = await new Promise<string>((resolve, reject) => {
        child.stdout.on('data', (data: Buffer) => {
          output += data.toString();
          const match = /listening on (http:\/\/\S+?) /.exec(output);
          if (match) resolve(match[1]!);
        });
        child.on('exit', (code) => reject(new Error(`proxy exited ${code}: ${output}`)));
      });
      const post = (script: string) =>
        fetch(`${url}/v1/messages`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-test-script': script },
          body: '{"model":"claude-sonnet-4-5","max_tokens":8,"messages":[]}',
        });
      const noHeaders = await post('no-headers');
      expect(noHeaders.status).toBe(502);
      expect(await noHeaders.json()).toMatchObject({
        code: 'BR_ERR_UPSTREAM_UNREACHABLE',
        reason: 'timeout',
      });
      const started = performance.now();
      const silent = await post('silent-after-headers');
      expect(silent.status).toBe(200);
      await expect(silent.text()).rejects.toThrow();
      // Cut once silent for 0.3 s (undici's timers tick every half second): long before any default limit.
      expect(performance.now() - started).toBeLessThan(2000);
    } finally {
      child.kill('SIGTERM');
      await provider.close();
    }
  });
});
