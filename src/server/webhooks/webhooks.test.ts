import { mkdtempSync, rmSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Webhook } from 'standardwebhooks';
import { afterEach, describe, expect, it } from 'vitest';
import { KeyValueTable } from '../../store/key-value-table.js';
import { StateDatabase } from '../../store/state-database.js';
import { checkWebhookUrl, isBlockedAddress, ownAddresses } from './address-guard.js';
import { attemptDelivery } from './deliver.js';
import { generateSecret, signWebhook, verifyWebhook } from './signing.js';
import { WebhookService } from './webhook-service.js';

interface Received {
  headers: IncomingMessage['headers'];
  body: string;
}

/** A receiver on 127.0.0.1 answering each request with the next status of `statuses` (the last repeats). */
async function receiver(
  statuses: number[],
  extra: (response: import('node:http').ServerResponse) => void = () => {},
) {
  const received: Received[] = [];
  const server: Server = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk) => {
      body += chunk;
    });
    request.on('end', () => {
      received.push({ headers: request.headers, body });
      const status = statuses[Math.min(received.length - 1, statuses.length - 1)] as number;
      if (status === 0) return; // never answers
      extra(response);
      response.writeHead(status).end('ok');
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as AddressInfo).port;
  servers.push(server);
  return { url: `http://127.0.0.1:${port}/hook`, port, received, server };
}

const servers: Server[] = [];
const dirs: string[] = [];
afterEach(() => {
  for (const server of servers.splice(0)) {
    server.closeAllConnections?.();
    server.close();
  }
  for (const dir of dirs.splice(0)) rmSync(dir, { recursive: true, force: true });
});

const waitFor = async (check: () => boolean, ms = 5000) => {
  const until = Date.now() + ms;
  while (!check()) {
    if (Date.now() > until) throw new Error('timed out waiting');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
};

describe('Standard Webhooks signatures', () => {
  it('signs id.timestamp.body so that the standardwebhooks library verifies it', () => {
    const secret = generateSecret();
    const body = JSON.stringify({ event: 'compaction', sessionId: 's1' });
    const timestamp = Math.floor(Date.now() / 1000);
    const signature = signWebhook(secret, 'msg_1', timestamp, body);
    expect(signature).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    const verified = new Webhook(secret).verify(body, {
      'webhook-id': 'msg_1',
      'webhook-timestamp': String(timestamp),
      'webhook-signature': signature,
    });
    expect(verified).toEqual({ event: 'compaction', sessionId: 's1' });
    expect(verifyWebhook(secret, 'msg_1', timestamp, body, `v1,bogus ${signature}`)).toBe(true);
    expect(verifyWebhook(secret, 'msg_1', timestamp, `${body} `, signature)).toBe(false);
  });
});

describe('no server-side request forgery', () => {
  it.each([
    ['127.0.0.1', true],
    ['10.2.3.4', true],
    ['172.20.0.1', true],
    ['192.168.1.1', true],
    ['169.254.169.254', true],
    ['100.64.0.1', true],
    ['0.0.0.0', true],
    ['::1', true],
    ['fd00:ec2::254', true],
    ['fe80::1', true],
    ['::ffff:127.0.0.1', true],
    ['::ffff:7f00:1', true],
    ['93.184.216.34', false],
    ['2606:4700::6810:84e5', false],
    // Issue 29, F10: every IANA special-purpose block, and the IPv6 forms that carry a private IPv4 address.
    ['192.0.2.10', true],
    ['198.51.100.7', true],
    ['203.0.113.1', true],
    ['192.88.99.1', true],
    ['255.255.255.255', true],
    ['2001:db8::1', true],
    ['3fff::1', true],
    ['100::1', true],
    ['5f00::1', true],
    ['::10.0.0.1', true],
    ['::a00:1', true],
    ['::ffff:a00:1', true],
    ['64:ff9b::a00:1', true],
    ['64:ff9b:1::1', true],
    ['2002:a00:1::1', true], // 6to4 of 10.0.0.1
    ['2002:7f00:1::', true], // 6to4 of 127.0.0.1
    ['2002:c0a8:101::1', true], // 6to4 of 192.168.1.1
    ['2001:0:4136:e378:8000:63bf:3fff:fdd2', true], // Teredo
    ['2001:0:a00:1::1', true], // Teredo, server 10.0.0.1
    ['2002:5db8:d822::1', false], // 6to4 of 93.184.216.34, a public address
  ])('%s is blocked: %s', (address, blocked) => {
    expect(isBlockedAddress(address)).toBe(blocked);
  });

  it("refuses the host's own addresses, public ones included, and their IPv6 forms (F10)", () => {
    const own = new Set(['93.184.216.34', '2606:4700::6810:84e5']);
    expect(isBlockedAddress('93.184.216.34', own)).toBe(true);
    expect(isBlockedAddress('::ffff:93.184.216.34', own)).toBe(true);
    expect(isBlockedAddress('2002:5db8:d822::1', own)).toBe(true);
    expect(isBlockedAddress('2606:4700:0:0:0:0:6810:84e5', own)).toBe(true);
    expect(isBlockedAddress('93.184.216.35', own)).toBe(false);
    // And this machine's real interfaces, whatever they are.
    for (const address of ownAddresses()) expect(isBlockedAddress(address), address).toBe(true);
  });

  it('refuses loopback, private and metadata targets at registration, by literal or by name', async () => {
    expect(await checkWebhookUrl('http://127.0.0.1:9/x', false)).toMatch(/127\.0\.0\.1, a loopback/);
    expect(await checkWebhookUrl('http://localhost:9/x', false)).toMatch(
      /localhost resolves to (127\.0\.0\.1|::1)/,
    );
    expect(await checkWebhookUrl('http://[::ffff:169.254.169.254]/', false)).toMatch(/metadata/);
    expect(await checkWebhookUrl('ftp://example.com/', false)).toBe('must be an http or https URL');
    expect(await checkWebhookUrl('http://user:pw@example.com/', false)).toBe('must not carry credentials');
    expect(await checkWebhookUrl('http://127.0.0.1:9/x', true)).toBeUndefined();
  });

  it('checks the address it actually dials: a name resolving to loopback is refused at connection time', async () => {
    const target = await receiver([200]);
    const outcome = await attemptDelivery({
      url: `http://localhost:${target.port}/hook`,
      headers: {},
      body: '{}',
      timeoutMs: 2000,
      allowPrivate: false,
    });
    expect(outcome).toMatchObject({ ok: false, status: null, error: 'refused_target' });
    expect(target.received).toHaveLength(0);
  });

  it('names a network failure by its code (a refused connection)', async () => {
    const closed = await receiver([200]);
    const port = closed.port;
    await new Promise((resolve) => closed.server.close(resolve));
    const outcome = await attemptDelivery({
      url: `http://127.0.0.1:${port}/hook`,
      headers: {},
      body: '{}',
      timeoutMs: 2000,
      allowPrivate: true,
    });
    expect(outcome).toMatchObject({ ok: false, status: null, error: 'ECONNREFUSED' });
  });

  it('does not follow redirects, and stops an attempt at its timeout', async () => {
    const redirecting = await receiver([302], (response) =>
      response.setHeader('location', 'http://169.254.169.254/'),
    );
    expect(
      await attemptDelivery({
        url: redirecting.url,
        headers: {},
        body: '{}',
        timeoutMs: 2000,
        allowPrivate: true,
      }),
    ).toMatchObject({ ok: false, status: 302, error: 'status 302' });
    const silent = await receiver([0]);
    expect(
      await attemptDelivery({ url: silent.url, headers: {}, body: '{}', timeoutMs: 200, allowPrivate: true }),
    ).toMatchObject({ ok: false, status: null, error: 'timeout' });
  });
});

describe('WebhookService: at-least-once delivery', () => {
  it('retries a failing receiver on the schedule and logs each attempt; every attempt is signed with one id', async () => {
    const target = await receiver([500, 503, 204]);
    const service = new WebhookService({
      retryDelaysMs: [50, 100, 200],
      allowPrivate: true,
      random: () => 0,
    });
    const registration = await service.register({ url: target.url, events: ['compaction'] });
    expect(registration.secret).toMatch(/^whsec_/);
    service.emit('compaction', { event: 'compaction', sessionId: 's1' });
    await waitFor(() => service.deliveries(registration.id)?.[0]?.status === 'delivered');
    const [delivery] = service.deliveries(registration.id) ?? [];
    expect(delivery?.attempts.map((attempt) => [attempt.attempt, attempt.status, attempt.ok])).toEqual([
      [1, 500, false],
      [2, 503, false],
      [3, 204, true],
    ]);
    expect(new Set(target.received.map((request) => request.headers['webhook-id']))).toEqual(
      new Set([delivery?.id]),
    );
    for (const request of target.received) {
      new Webhook(registration.secret).verify(request.body, request.headers as Record<string, string>);
    }
    expect(service.list()).toEqual([
      { id: registration.id, url: target.url, events: ['compaction'], createdAt: registration.createdAt },
    ]);
    await service.close();
  });

  it('gives up after the last retry and says so', async () => {
    const target = await receiver([500]);
    const service = new WebhookService({ retryDelaysMs: [20, 20], allowPrivate: true, random: () => 0 });
    const registration = await service.register({ url: target.url, events: ['verdict_changed'] });
    service.emit('verdict_changed', { event: 'verdict_changed' });
    await waitFor(() => service.deliveries(registration.id)?.[0]?.status === 'failed');
    expect(service.deliveries(registration.id)?.[0]?.attempts).toHaveLength(3);
    await service.close();
  });

  it('keeps pending deliveries across a restart (in the database) and delivers them after it', async () => {
    const directory = mkdtempSync(join(tmpdir(), 'barometer-webhooks-'));
    dirs.push(directory);
    const keptIn = (database: StateDatabase) => {
      const table = new KeyValueTable(database, 'webhooks');
      return { read: () => table.get('state'), write: (text: string) => table.set('state', text) };
    };
    const firstDatabase = StateDatabase.open(join(directory, 'barometer.db'));
    const target = await receiver([200]);
    const url = target.url;
    await new Promise<void>((resolve) => target.server.close(() => resolve()));
    const first = new WebhookService({
      kept: keptIn(firstDatabase),
      retryDelaysMs: [60_000],
      allowPrivate: true,
      random: () => 0,
    });
    const registration = await first.register({ url, events: ['new_round_due'] });
    first.emit('new_round_due', { event: 'new_round_due', sessionId: 's2' });
    await waitFor(() => (first.deliveries(registration.id)?.[0]?.attempts.length ?? 0) === 1);
    await first.close();
    firstDatabase.close();
    // The receiver comes back on the same port; the restarted service delivers what was pending.
    const received: string[] = [];
    const revived = createServer((request, response) => {
      let body = '';
      request.on('data', (chunk) => {
        body += chunk;
      });
      request.on('end', () => {
        received.push(body);
        response.writeHead(200).end();
      });
    });
    servers.push(revived);
    await new Promise<void>((resolve) => revived.listen(target.port, '127.0.0.1', resolve));
    const secondDatabase = StateDatabase.open(join(directory, 'barometer.db'));
    const second = new WebhookService({
      kept: keptIn(secondDatabase),
      retryDelaysMs: [60_000],
      allowPrivate: true,
      now: () => Date.now() + 61_000,
    });
    await second.start();
    await waitFor(() => second.deliveries(registration.id)?.[0]?.status === 'delivered');
    expect(received).toEqual([JSON.stringify({ event: 'new_round_due', sessionId: 's2' })]);
    await second.close();
    secondDatabase.close();
  });

  it('names a bad field at registration: an unknown event, a secret not in the whsec_ form', async () => {
    const { WebhookRequestSchema } = await import('./webhook-service.js');
    expect(WebhookRequestSchema.safeParse({ url: 'https://example.com', events: ['nope'] }).success).toBe(
      false,
    );
    const badSecret = WebhookRequestSchema.safeParse({
      url: 'https://example.com',
      events: ['compaction'],
      secret: 'hunter2',
    });
    expect(badSecret.success).toBe(false);
    expect(JSON.stringify(badSecret.error?.issues)).toContain('whsec_');
  });
});
