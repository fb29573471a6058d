import { describe, expect, it } from 'vitest';
import { BarometerError } from '../errors/barometer-error.js';
import { ERROR_CATALOGUE } from '../errors/error-catalogue.js';
import { occupiedPort } from '../test-helpers/occupied-port.js';
import { listenFailure } from './listen-failure.js';
import { startServer } from './serve.js';

function errno(code: string): NodeJS.ErrnoException {
  return Object.assign(new Error(`listen ${code}: 127.0.0.1:8797`), { code });
}

describe('startServer on a busy port', () => {
  it('throws BR_ERR_PORT_IN_USE (exit 6) naming the address, not a bare EADDRINUSE', async () => {
    const taken = await occupiedPort();
    try {
      const failure = await startServer({
        port: taken.port,
        logLevel: 'silent',
        persistSessions: false,
        dashboard: false,
      }).then(
        () => undefined,
        (error: unknown) => error,
      );
      expect(failure).toBeInstanceOf(BarometerError);
      expect(failure).toMatchObject({
        code: 'BR_ERR_PORT_IN_USE',
        exitCode: ERROR_CATALOGUE.BR_ERR_PORT_IN_USE.exit,
        details: { host: '127.0.0.1', port: taken.port },
        message: `127.0.0.1:${taken.port} is already in use: another process (perhaps another barometer) listens there`,
      });
      expect(ERROR_CATALOGUE.BR_ERR_PORT_IN_USE.exit).toBe(6);
      expect(((failure as BarometerError).cause as NodeJS.ErrnoException).code).toBe('EADDRINUSE');
    } finally {
      await taken.close();
    }
  });
});

describe('listenFailure', () => {
  it('words an address this machine does not have, and a port it may not open, as bad input naming it', () => {
    expect(listenFailure(errno('EADDRNOTAVAIL'), '10.9.9.9', 8797)).toMatchObject({
      code: 'BR_ERR_INVALID_PARAM',
      message: 'cannot listen on 10.9.9.9:8797: 10.9.9.9 is not an address of this machine',
      issues: [{ field: 'host', value: '10.9.9.9' }],
    });
    expect(listenFailure(errno('EACCES'), '::1', 80)).toMatchObject({
      code: 'BR_ERR_INVALID_PARAM',
      message:
        'cannot listen on [::1]:80: permission denied (ports under 1024 need privileges; choose a higher one)',
      issues: [{ field: 'port', value: 80 }],
    });
  });

  it('hands any other error back as it is', () => {
    const other = errno('EMFILE');
    expect(listenFailure(other, '127.0.0.1', 8797)).toBe(other);
  });
});
