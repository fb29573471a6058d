import { describe, expect, it } from 'vitest';
import { ServiceUnreachableError } from '../integrations/barometer-client.js';
import { serviceTarget, serviceUnreachable, unreachableText } from './service-target.js';

const refused = (address: string) =>
  Object.assign(new Error(`connect ECONNREFUSED ${address}`), { code: 'ECONNREFUSED' });

describe('serviceTarget', () => {
  it('takes --server, else BAROMETER_URL, else http://127.0.0.1:8797, and says which', () => {
    expect(serviceTarget('http://10.0.0.5:9000/', { BAROMETER_URL: 'http://x:1' })).toEqual({
      url: 'http://10.0.0.5:9000',
      source: '--server',
    });
    expect(serviceTarget(undefined, { BAROMETER_URL: 'https://barometer.internal' })).toEqual({
      url: 'https://barometer.internal',
      source: 'BAROMETER_URL',
    });
    expect(serviceTarget(undefined, { BAROMETER_URL: '' })).toEqual({
      url: 'http://127.0.0.1:8797',
      source: 'default',
    });
  });

  it('takes the running service a data folder’s service file names after the flag and the variable, before the default', () => {
    const found = { url: 'http://127.0.0.1:40123', file: '/s/barometer/service.json' };
    expect(serviceTarget(undefined, {}, found)).toEqual({ ...found, source: 'service file' });
    expect(serviceTarget(undefined, { BAROMETER_URL: 'http://x:1' }, found).source).toBe('BAROMETER_URL');
    expect(serviceTarget('http://y:2', {}, found).source).toBe('--server');
    expect(
      unreachableText(serviceTarget(undefined, {}, found), new Error('connect ECONNREFUSED 127.0.0.1:40123')),
    ).toContain('at http://127.0.0.1:40123 (named by /s/barometer/service.json; connect ECONNREFUSED');
  });

  it('refuses what is not an http(s) URL as bad input (exit 2), naming where it came from', () => {
    expect(() => serviceTarget('127.0.0.1:8797', {})).toThrow(
      '--server must be the http:// or https:// URL of a barometer service, such as http://127.0.0.1:8797; got "127.0.0.1:8797"',
    );
    try {
      serviceTarget(undefined, { BAROMETER_URL: 'redis://127.0.0.1:6379' });
      expect.unreachable();
    } catch (error) {
      expect(error).toMatchObject({ exitCode: 2, message: expect.stringMatching(/^BAROMETER_URL must be/) });
    }
  });
});

describe('unreachableText', () => {
  it('names the URL, what chose it, why, and how to get a service that answers', () => {
    const cause = new ServiceUnreachableError('http://127.0.0.1:8797', refused('127.0.0.1:8797'));
    expect(unreachableText({ url: 'http://127.0.0.1:8797', source: 'default' }, cause)).toBe(
      'no barometer service answers at http://127.0.0.1:8797 (the default: no --server, BAROMETER_URL unset; ' +
        'connect ECONNREFUSED 127.0.0.1:8797): start one with `barometer serve`, or point --server or BAROMETER_URL at yours',
    );
  });

  it('reads the reasons of a name with two addresses (an AggregateError has no message of its own)', () => {
    const both = new AggregateError([refused('::1:8797'), refused('127.0.0.1:8797')], '');
    const cause = new ServiceUnreachableError('http://localhost:8797', both);
    expect(unreachableText({ url: 'http://localhost:8797', source: '--server' }, cause, '; or not')).toBe(
      'no barometer service answers at http://localhost:8797 (given by --server; connect ECONNREFUSED ::1:8797, ' +
        'connect ECONNREFUSED 127.0.0.1:8797): start one with `barometer serve`, or point --server or BAROMETER_URL at yours; or not',
    );
  });

  it('fails a command with BR_ERR_UNAVAILABLE, exit 6', () => {
    const error = serviceUnreachable(
      { url: 'http://127.0.0.1:9', source: '--server' },
      refused('127.0.0.1:9'),
    );
    expect(error).toMatchObject({
      code: 'BR_ERR_UNAVAILABLE',
      exitCode: 6,
      details: { url: 'http://127.0.0.1:9' },
    });
  });
});
