import { mkdtempSync, rmSync } from 'node:fs';
import { Agent, request as httpRequest } from 'node:http';
import { connect } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import Fastify, { type FastifyInstance } from 'fastify';
import { afterEach, describe, expect, it } from 'vitest';
import { buildApp } from './app.js';
import { registerCoalescedAnswers, TurnQueue } from './coalesced-answers.js';

const endOfTurn = () => new Promise<void>((resolve) => setImmediate(resolve));

let app: FastifyInstance | undefined;
let dataDir: string | undefined;
afterEach(async () => {
  await app?.close();
  app = undefined;
  if (dataDir) rmSync(dataDir, { recursive: true, force: true });
  dataDir = undefined;
});

function portOf(server: FastifyInstance): number {
  const address = server.server.address();
  if (typeof address !== 'object' || address === null) throw new Error('not listening');
  return address.port;
}

/** POSTs `body` over `agent`'s sockets and reads the answer. */
function post(port: number, agent: Agent, path: string, body: string) {
  return new Promise<{ status: number; text: string }>((resolve, reject) => {
    const outgoing = httpRequest(
      {
        host: '127.0.0.1',
        port,
        path,
        method: 'POST',
        agent,
        headers: { 'content-type': 'application/json' },
      },
      (response) => {
        let text = '';
        response.setEncoding('utf8');
        response.on('data', (chunk) => (text += chunk));
        response.on('end', () => resolve({ status: response.statusCode ?? 0, text }));
        response.on('error', reject);
      },
    );
    outgoing.on('error', reject);
    outgoing.end(body);
  });
}

/** Records when each request (its body's `n`) is handled and when its answer goes to be written. */
function recordOrder(
  server: FastifyInstance,
  nOf = (body: unknown) => (body as { n?: number } | undefined)?.n,
): string[] {
  const order: string[] = [];
  server.addHook('preHandler', (request, _reply, done) => {
    order.push(`handled ${nOf(request.body)}`);
    done();
  });
  // Added after the coalescing hook: runs when the answer goes on to be written.
  server.addHook('onSend', (request, _reply, payload, done) => {
    order.push(`written ${nOf(request.body)}`);
    done(null, payload);
  });
  return order;
}

/** Writes one POST per body on one connection, all in one write, and reads the answers (one per body). */
function pipelined(port: number, paths: string | string[], bodies: string[]): Promise<string> {
  const requests = bodies.map((body, index) => {
    const path = typeof paths === 'string' ? paths : paths[index];
    return `POST ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: ${Buffer.byteLength(body)}\r\n\r\n${body}`;
  });
  return new Promise<string>((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    let text = '';
    const answers = () => text.split('HTTP/1.1 ').length - 1;
    socket.setEncoding('utf8');
    // Done when the last answer's body is whole: its Content-Length, or the last chunk of a chunked one.
    const lastIsWhole = () => {
      const last = text.slice(text.lastIndexOf('HTTP/1.1 '));
      const head = last.indexOf('\r\n\r\n');
      if (head < 0) return false;
      if (/transfer-encoding: chunked/i.test(last.slice(0, head))) return last.endsWith('\r\n0\r\n\r\n');
      const length = /content-length: (\d+)/i.exec(last.slice(0, head));
      return length !== null && Buffer.byteLength(last.slice(head + 4)) >= Number(length[1]);
    };
    socket.on('data', (chunk) => {
      text += chunk;
      if (answers() === bodies.length && lastIsWhole()) {
        socket.destroy();
        resolve(text);
      }
    });
    socket.on('close', () =>
      reject(new Error(`closed after ${answers()} of ${bodies.length} answers: ${text}`)),
    );
    socket.on('error', reject);
    socket.write(requests.join(''));
  });
}

/** A Fastify app with the coalesced answers and an echo route. */
async function echoApp(errors: unknown[] = []) {
  app = Fastify({ logger: false });
  registerCoalescedAnswers(app, (error) => errors.push(error));
  app.post('/echo', (request, reply) => reply.send(request.body));
  return app;
}

/** A stand-in for a Fastify reply: Fastify's `sent` is a getter on the prototype, as here. */
class FakeReply {
  destroyed = false;
  readonly raw = {
    headersSent: false,
    destroy: () => {
      this.destroyed = true;
    },
  };
  get sent(): boolean {
    return false;
  }
}

describe('TurnQueue', () => {
  const failing = (error: unknown) => {
    throw error;
  };

  it('lets the first answer of a turn go on at once and the others together at its end, in order, each with its payload', async () => {
    const calls: string[] = [];
    const queue = new TurnQueue(failing);
    const add = (name: string) =>
      queue.add(new FakeReply(), (_error, payload) => calls.push(`${name}:${payload}`), name);
    for (const name of ['a', 'b', 'c']) add(name);
    expect(calls).toEqual(['a:a']);
    expect(queue.size).toBe(2);
    await endOfTurn();
    expect(calls).toEqual(['a:a', 'b:b', 'c:c']);
    expect(queue.size).toBe(0);
    add('d');
    add('e');
    expect(calls).toEqual(['a:a', 'b:b', 'c:c', 'd:d']);
    await endOfTurn();
    expect(calls).toEqual(['a:a', 'b:b', 'c:c', 'd:d', 'e:e']);
  });

  it('has a waiting reply read as sent, then as Fastify reads it', async () => {
    const queue = new TurnQueue(failing);
    const first = new FakeReply();
    const waiting = new FakeReply();
    queue.add(first, () => {}, null);
    queue.add(waiting, () => {}, null);
    expect(first.sent).toBe(false);
    expect(waiting.sent).toBe(true);
    expect(Object.hasOwn(waiting, 'sent')).toBe(true);
    await endOfTurn();
    expect(Object.hasOwn(waiting, 'sent')).toBe(false);
    expect(waiting.sent).toBe(false);
  });

  it('answers the error of a write that throws at the turn’s end, closes a connection whose head was out, and goes on', async () => {
    const errors: unknown[] = [];
    const seen: unknown[] = [];
    const queue = new TurnQueue((error) => errors.push(error));
    queue.add(new FakeReply(), (_error, payload) => seen.push(payload), 1);
    const answerable = new FakeReply();
    const throwing = (error: Error | null, payload?: unknown) => {
      seen.push(error ?? payload);
      if (error === null) throw new Error('invalid header');
    };
    queue.add(answerable, throwing, 2);
    const headOut = new FakeReply();
    headOut.raw.headersSent = true;
    queue.add(headOut, throwing, 3);
    queue.add(new FakeReply(), (_error, payload) => seen.push(payload), 4);
    await endOfTurn();
    // The first failure is handed back to Fastify as an error; the second cannot be answered any more.
    expect(seen).toEqual([1, 2, new Error('invalid header'), 3, 4]);
    expect(errors).toEqual([new Error('invalid header'), new Error('invalid header')]);
    expect([answerable.destroyed, headOut.destroyed]).toEqual([false, true]);
  });

  it('takes an answer that comes while the turn’s end goes on as the next turn’s first', async () => {
    const calls: string[] = [];
    const queue = new TurnQueue(failing);
    const add = (call: () => unknown) => queue.add(new FakeReply(), call, null);
    add(() => calls.push('first'));
    add(() => {
      calls.push('second');
      add(() => calls.push('next turn, first'));
      add(() => calls.push('next turn, second'));
    });
    add(() => calls.push('third'));
    await endOfTurn();
    expect(calls).toEqual(['first', 'second', 'next turn, first', 'third']);
    await endOfTurn();
    expect(calls).toEqual(['first', 'second', 'next turn, first', 'third', 'next turn, second']);
  });
});

describe('answers written at the end of the turn', () => {
  it('writes the first answer of a turn at once, and the answers finished after it at the turn’s end', async () => {
    const server = await echoApp();
    const order = recordOrder(server);
    await server.listen({ host: '127.0.0.1', port: 0 });
    // Three requests in one write: the server reads and handles them in one turn.
    const text = await pipelined(portOf(server), '/echo', ['{"n":1}', '{"n":2}', '{"n":3}']);
    expect(order).toEqual(['handled 1', 'written 1', 'handled 2', 'handled 3', 'written 2', 'written 3']);
    expect(text.indexOf('{"n":1}')).toBeGreaterThan(0);
    expect(text.indexOf('{"n":1}')).toBeLessThan(text.indexOf('{"n":2}'));
    expect(text.indexOf('{"n":2}')).toBeLessThan(text.indexOf('{"n":3}'));
  });

  it('gives each of many concurrent connections its own answer', async () => {
    const server = await echoApp();
    await server.listen({ host: '127.0.0.1', port: 0 });
    const agent = new Agent({ keepAlive: true, maxSockets: 64 });
    try {
      const bodies = Array.from({ length: 256 }, (_, index) =>
        JSON.stringify({ index, text: `answer ${index}` }),
      );
      const answers = await Promise.all(bodies.map((body) => post(portOf(server), agent, '/echo', body)));
      expect(answers.map((answer) => answer.status)).toEqual(bodies.map(() => 200));
      expect(answers.map((answer) => answer.text)).toEqual(bodies);
    } finally {
      agent.destroy();
    }
  });

  it('stays up when a client is gone before its answer is written', async () => {
    const errors: unknown[] = [];
    const server = await echoApp(errors);
    server.post('/gone', (request, reply) => {
      request.raw.socket.destroy();
      return reply.send({ late: true });
    });
    await server.listen({ host: '127.0.0.1', port: 0 });
    // The second request's answer waits for the turn's end, by which time its socket is gone.
    await expect(pipelined(portOf(server), ['/echo', '/gone'], ['{"n":1}', '{}'])).rejects.toThrow(
      /closed after 1 of 2 answers/,
    );
    await endOfTurn();
    const agent = new Agent({ keepAlive: false });
    try {
      expect(await post(portOf(server), agent, '/echo', '{"still":"up"}')).toEqual({
        status: 200,
        text: '{"still":"up"}',
      });
    } finally {
      agent.destroy();
    }
    expect(errors).toEqual([]);
  });

  it('answers once a request whose async handler sends without returning the reply', async () => {
    const errors: unknown[] = [];
    const server = await echoApp(errors);
    server.post('/async', async (request, reply) => {
      reply.send(request.body);
    });
    await server.listen({ host: '127.0.0.1', port: 0 });
    // The second and third answers wait for the turn's end; Fastify must not send them a second time meanwhile.
    const text = await pipelined(portOf(server), '/async', ['{"n":1}', '{"n":2}', '{"n":3}']);
    expect(
      text
        .split('HTTP/1.1 ')
        .slice(1)
        .map((answer) => answer.slice(0, 3)),
    ).toEqual(['200', '200', '200']);
    expect(text.indexOf('{"n":2}')).toBeLessThan(text.indexOf('{"n":3}'));
    await endOfTurn();
    expect(errors).toEqual([]);
  });

  it('answers 500 when a waiting answer cannot be written, as when it goes at once', async () => {
    const errors: unknown[] = [];
    const server = await echoApp(errors);
    server.post('/bad-header', (_request, reply) => reply.header('x-bad', 'line\nbreak').send({ ok: true }));
    await server.listen({ host: '127.0.0.1', port: 0 });
    // The first goes at once (Fastify's own path), the second waits (the queue's).
    const text = await pipelined(portOf(server), '/bad-header', ['{"n":1}', '{"n":2}']);
    expect(
      text
        .split('HTTP/1.1 ')
        .slice(1)
        .map((answer) => answer.slice(0, 3)),
    ).toEqual(['500', '500']);
    // Reported for the waiting answer, and for the first one's error answer, which waited too.
    expect(errors.length).toBeGreaterThan(0);
    expect(errors.map((error) => (error as { code?: string }).code)).toEqual(
      errors.map(() => 'ERR_INVALID_CHAR'),
    );
  });

  it('is how the service writes its answers', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'barometer-coalesced-'));
    const service = await buildApp({ logLevel: 'silent', rateLimitPerMinute: 0, dataDir, dashboard: false });
    app = service;
    // The pressure route takes no field of ours: `n` is told by the memory figure.
    const order = recordOrder(
      service,
      (body) => (body as { memoryUsedPercent: number }).memoryUsedPercent - 40,
    );
    await service.listen({ host: '127.0.0.1', port: 0 });
    const bodies = [1, 2, 3].map((n) => JSON.stringify({ memoryUsedPercent: 40 + n }));
    await pipelined(portOf(service), '/api/v1/pressure', bodies);
    expect(order).toEqual(['handled 1', 'written 1', 'handled 2', 'handled 3', 'written 2', 'written 3']);
  });

  it('answers every usage post with its own session’s verdict when many arrive at once (the service)', async () => {
    dataDir = mkdtempSync(join(tmpdir(), 'barometer-coalesced-'));
    app = await buildApp({ logLevel: 'silent', rateLimitPerMinute: 0, dataDir, dashboard: false });
    const ids = Array.from({ length: 10 }, (_, index) => `turn-${index}`);
    for (const id of ids) {
      const created = await app.inject({
        method: 'POST',
        url: '/api/v1/sessions',
        payload: { id, model: 'claude-opus-4-6', agent: 'claude-code' },
      });
      expect(created.statusCode).toBe(201);
    }
    await app.listen({ host: '127.0.0.1', port: 0 });
    const agent = new Agent({ keepAlive: true, maxSockets: 50 });
    try {
      // Five posts a session, each session's with its own prompt size.
      const posts = ids.flatMap((id, index) =>
        Array.from({ length: 5 }, () => ({ id, promptTokens: 10_000 * (index + 1) })),
      );
      const answers = await Promise.all(
        posts.map(({ id, promptTokens }) =>
          post(
            portOf(app as FastifyInstance),
            agent,
            `/api/v1/sessions/${id}/usage`,
            JSON.stringify({ promptTokens }),
          ),
        ),
      );
      const parsed = answers.map((answer) => {
        expect(answer.status).toBe(200);
        return JSON.parse(answer.text) as {
          sessionId: string;
          generation: number;
          signals: { lastPromptTokens: number };
        };
      });
      expect(parsed.map((answer) => [answer.sessionId, answer.signals.lastPromptTokens])).toEqual(
        posts.map(({ id, promptTokens }) => [id, promptTokens]),
      );
      for (const id of ids)
        expect(
          parsed
            .filter((answer) => answer.sessionId === id)
            .map((answer) => answer.generation)
            .sort(),
        ).toEqual([1, 2, 3, 4, 5]);
    } finally {
      agent.destroy();
    }
  });
});
