import { BarometerError } from '../errors/barometer-error.js';

/** `host:port`, with an IPv6 host in brackets. */
export function addressText(host: string, port: number): string {
  return `${host.includes(':') ? `[${host}]` : host}:${port}`;
}

/**
 * What a failed `listen` means, in barometer's words, for every surface that starts a listener (`serve`, `watch`'s
 * embedded service, a proxy): a taken port is BR_ERR_PORT_IN_USE (exit 6) naming the address; an address this
 * machine does not have, or a port it may not open, is bad input naming it. Any other error is returned as it is.
 * The message says what happened; a command adds how to choose another port in its own flags.
 */
export function listenFailure(error: unknown, host: string, port: number): unknown {
  const code = (error as NodeJS.ErrnoException | undefined)?.code;
  const address = addressText(host, port);
  if (code === 'EADDRINUSE')
    return new BarometerError(
      'BR_ERR_PORT_IN_USE',
      `${address} is already in use: another process (perhaps another barometer) listens there`,
      { cause: error, details: { host, port } },
    );
  if (code === 'EADDRNOTAVAIL')
    return new BarometerError(
      'BR_ERR_INVALID_PARAM',
      `cannot listen on ${address}: ${host} is not an address of this machine`,
      {
        cause: error,
        issues: [{ field: 'host', value: host, message: 'is not an address of this machine' }],
      },
    );
  if (code === 'EACCES')
    return new BarometerError(
      'BR_ERR_INVALID_PARAM',
      `cannot listen on ${address}: permission denied (ports under 1024 need privileges; choose a higher one)`,
      { cause: error, issues: [{ field: 'port', value: port, message: 'permission denied' }] },
    );
  return error;
}
