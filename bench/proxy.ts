/**
 * The proxy's overhead (`npm run bench -- proxy`), against the same fake provider reached directly in the same run:
 * - a 500 KB Messages request (a Claude Code-like history of tool results): the time from the client starting to
 *   send it to the provider having all of it (a provider starts on a whole request), through the proxy and
 *   directly; the difference is what the proxy adds (it must have the whole body before it can send its first
 *   byte when it edits). Measured for a session with no edits (bytes streamed upstream as received) and
 *   for one whose earlier boundary left edits, each request its previous one plus a turn (the tombstones written
 *   into the bytes received where the previous request had them, decision 065);
 * - a streamed answer: the time from the provider writing its first event to the client reading it.
 * The client, the proxy and the fake provider share this process (one core each would be fairer; the machine has 2).
 */

import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, createServer, request as httpRequest } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { setTimeout as sleep } from 'node:timers/promises';
import { startServer } from '../src/server/serve.js';
import { percentile } from './tokens.js';

const now = () => Number(process.hrtime.bigint()) / 1e6;

/** A Claude Code-like request of about `bytes`: reads of 25 KB, a commit (a sub-task boundary) in the middle. */
function messagesBody(bytes: number, withCommit: boolean, stream = false): string {
  const messages: unknown[] = [{ role: 'user', content: 'Read the files and commit as you go.' }];
  const reads = Math.ceil(bytes / 11_500);
  for (let index = 0; index < reads; index++) {
    const commit = withCommit && index === Math.floor(reads / 2);
    const id = `toolu_${index}`;
    messages.push({
      role: 'assistant',
      content: [
        commit
          ? { type: 'tool_use', id, name: 'Bash', input: { command: 'git commit -qm step' } }
          : { type: 'tool_use', id, name: 'Read', input: { file_path: `/work/file-${index}.ts` } },
      ],
    });
    const text = commit
      ? '[main 1a2b3c4] step'
      : Array.from(
          { length: 400 },
          (_, line) => `file ${index} line ${line}: value ${(line * 7919) % 1000};`,
        ).join('\n');
    messages.push({ role: 'user', content: [{ type: 'tool_result', tool_use_id: id, content: text }] });
  }
  return JSON.stringify({ model: 'claude-sonnet-4-5', max_tokens: 1024, stream, messages });
}

/** The fake provider streams its answer on this path: its first event at once, its last 5 ms later. */
const STREAMED = '/v1/messages?stream=bench';

export interface ProxyBenchFigures {
  requestBytes: number;
  passedP50Ms: number;
  passedP99Ms: number;
  editedP50Ms: number;
  editedP99Ms: number;
  /** An edited session's requests sent as soon as the previous answer arrived (no pause: the analysis may still run). */
  backToBackP50Ms: number;
  backToBackP99Ms: number;
  /**
   * From the client starting to send each back-to-back request to the end of its streamed answer, and the same for
   * the direct baseline: the proxy's reading of a request while its answer streams shows here if it outlasts the
   * answer (the fake provider's takes 5 ms; a model's, seconds).
   */
  backToBackAnsweredP50Ms: number;
  directAnsweredP50Ms: number;
  /** How many of the back-to-back requests went upstream edited (all of them: the session has tombstones). */
  backToBackEdited: number;
  backToBackRequests: number;
  directP50Ms: number;
  directP99Ms: number;
  firstTokenP50Ms: number;
  firstTokenP99Ms: number;
  firstTokenDirectP50Ms: number;
  firstTokenDirectP99Ms: number;
}

/** The proxy's count of edited requests on the Messages route, from its /metrics. */
async function editedCount(base: string): Promise<number> {
  const text = await (await fetch(`${base}/metrics`)).text();
  const line = text
    .split('\n')
    .find((row) => row.startsWith('barometer_proxy_requests_total{') && row.includes('outcome="edited"'));
  return line ? Number(line.slice(line.lastIndexOf(' ') + 1)) : 0;
}

export async function benchProxy(rounds = 200): Promise<ProxyBenchFigures> {
  let arrivedAt = 0;
  let firstEventAt = 0;
  const upstream = createServer((incoming, outgoing) => {
    incoming.resume();
    incoming.on('end', () => {
      arrivedAt = now();
      if (incoming.url?.includes('stream=bench')) {
        outgoing.writeHead(200, { 'content-type': 'text/event-stream' });
        firstEventAt = now();
        outgoing.write(
          'event: message_start\ndata: {"type":"message_start","message":{"usage":{"input_tokens":5,"output_tokens":1}}}\n\n',
        );
        setTimeout(() => outgoing.end('event: message_stop\ndata: {"type":"message_stop"}\n\n'), 5);
        return;
      }
      outgoing.writeHead(200, { 'content-type': 'application/json' });
      outgoing.end('{"type":"message","usage":{"input_tokens":5,"output_tokens":1}}');
    });
  });
  await new Promise<void>((resolve) => upstream.listen(0, '127.0.0.1', resolve));
  const upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
  const dataDir = mkdtempSync(join(tmpdir(), 'barometer-bench-proxy-'));
  const proxy = await startServer({
    port: 0,
    logLevel: 'silent',
    dashboard: false,
    dataDir,
    proxy: { anthropicUpstream: upstreamUrl },
  });
  const agent = new Agent({ keepAlive: true, maxSockets: 1 });
  const body = Buffer.from(messagesBody(500_000, true));
  // Streamed, as Claude Code and Codex ask for their answers.
  const streamed = Buffer.from(messagesBody(500_000, true, true));
  // The edited session's requests grow by a turn each, as an agent's do: its history resent, a turn appended.
  const growing = (base: Buffer) => {
    const open = base.subarray(0, base.length - 2);
    let turns = '';
    return (round: number) => {
      turns += `,{"role":"assistant","content":"step ${round}"},{"role":"user","content":"go on ${round}"}`;
      return Buffer.concat([open, Buffer.from(`${turns}]}`)]);
    };
  };
  const nextTurn = growing(body);
  const nextBackToBack = growing(streamed);
  // A session whose history has no boundary: nothing to edit, its bytes are forwarded as received.
  const plain = Buffer.from(messagesBody(500_000, false));

  /** Sends one request; answers the time to the provider's arrival and to the first answer byte after the first event. */
  const send = (base: string, path: string, session: string, bytes = body) =>
    new Promise<{ arrival: number; firstByte: number; answered: number }>((resolve, reject) => {
      const start = now();
      const outgoing = httpRequest(`${base}${path}`, {
        method: 'POST',
        agent,
        headers: {
          'content-type': 'application/json',
          'content-length': bytes.length,
          'x-api-key': 'bench',
          'x-barometer-session': session,
        },
      });
      outgoing.on('response', (answer) => {
        let first = Number.NaN;
        answer.on('data', () => {
          if (Number.isNaN(first)) first = now();
        });
        answer.on('end', () =>
          resolve({ arrival: arrivedAt - start, firstByte: first - firstEventAt, answered: now() - start }),
        );
      });
      outgoing.on('error', reject);
      outgoing.end(bytes);
    });

  const direct: number[] = [];
  const directAnswered: number[] = [];
  const passed: number[] = [];
  const edited: number[] = [];
  const firstToken: number[] = [];
  const firstTokenDirect: number[] = [];
  const backToBack: number[] = [];
  const backToBackAnswered: number[] = [];
  // Warm up, and leave the edited session its edits: the commit in the history is a boundary.
  for (let index = 0; index < 20; index++) {
    await send(proxy.url, '/v1/messages', 'bench-edited', nextTurn(index));
    await send(proxy.url, '/v1/messages', 'bench-passed', plain);
    await send(upstreamUrl, '/v1/messages', 'x');
    await sleep(20);
  }
  for (let round = 0; round < rounds; round++) {
    direct.push((await send(upstreamUrl, '/v1/messages', 'x')).arrival);
    passed.push((await send(proxy.url, '/v1/messages', 'bench-passed', plain)).arrival);
    await sleep(15);
    const grown = nextTurn(20 + round);
    edited.push((await send(proxy.url, '/v1/messages', 'bench-edited', grown)).arrival);
    await sleep(15);
    const streamedAlone = await send(upstreamUrl, STREAMED, 'x', streamed);
    firstTokenDirect.push(streamedAlone.firstByte);
    directAnswered.push(streamedAlone.answered);
    firstToken.push((await send(proxy.url, STREAMED, 'bench-stream', streamed)).firstByte);
  }
  // Back to back: each request of the session leaves as soon as the previous answer came (an agent whose tool runs
  // at once); the previous request's analysis may still be running, and the request must not wait for it.
  for (let index = 0; index < 5; index++) {
    await send(proxy.url, STREAMED, 'bench-b2b', nextBackToBack(index));
    await sleep(20);
  }
  // In runs of ten with nothing between them (each leaves the moment the previous answer has been read), after a
  // pause: compared with the direct requests above, sent to an idle process (a direct request sent right after them
  // would wait for their leftover work and flatter the figure).
  const editedBefore = await editedCount(proxy.url);
  for (let round = 0; round < rounds; round += 10) {
    await sleep(20);
    const bodies = Array.from({ length: 10 }, (_, index) => nextBackToBack(5 + round + index));
    for (const next of bodies) {
      const sent = await send(proxy.url, STREAMED, 'bench-b2b', next);
      backToBack.push(sent.arrival);
      backToBackAnswered.push(sent.answered);
    }
  }
  // Every back-to-back request carried the session's tombstones (else the figure would time a request left alone).
  const backToBackEdited = (await editedCount(proxy.url)) - editedBefore;
  agent.destroy();
  await proxy.close();
  await new Promise<void>((resolve) => upstream.close(() => resolve()));
  rmSync(dataDir, { recursive: true, force: true });
  return {
    requestBytes: body.length,
    passedP50Ms: percentile(passed, 50),
    passedP99Ms: percentile(passed, 99),
    editedP50Ms: percentile(edited, 50),
    editedP99Ms: percentile(edited, 99),
    directP50Ms: percentile(direct, 50),
    directP99Ms: percentile(direct, 99),
    backToBackP50Ms: percentile(backToBack, 50),
    backToBackP99Ms: percentile(backToBack, 99),
    backToBackAnsweredP50Ms: percentile(backToBackAnswered, 50),
    directAnsweredP50Ms: percentile(directAnswered, 50),
    backToBackEdited,
    backToBackRequests: backToBack.length,
    firstTokenP50Ms: percentile(firstToken, 50),
    firstTokenP99Ms: percentile(firstToken, 99),
    firstTokenDirectP50Ms: percentile(firstTokenDirect, 50),
    firstTokenDirectP99Ms: percentile(firstTokenDirect, 99),
  };
}
