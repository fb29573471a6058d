import { BarometerError } from '../errors/barometer-error.js';

/** How a command lets its user choose another port, besides `--port`. */
export interface PortChoice {
  /** The environment variable that sets the port, if the command reads one (serve: BAROMETER_PORT). */
  variable?: string;
  /** The command's other way out, e.g. `; or send to the service already there with --server <url>`. */
  otherwise?: string;
}

/**
 * Starts a command's listener (`serve`, `watch`'s embedded service, a proxy); when its port is taken it fails with
 * BR_ERR_PORT_IN_USE (exit 6), saying which address and how to choose another, e.g. `127.0.0.1:8797 is already in
 * use: another process (perhaps another barometer) listens there. Choose another port with --port <n> (or
 * BAROMETER_PORT), or --port 0 for any free one`.
 */
export async function startListening<T>(start: () => Promise<T>, choice: PortChoice = {}): Promise<T> {
  try {
    return await start();
  } catch (error) {
    if (!(error instanceof BarometerError) || error.code !== 'BR_ERR_PORT_IN_USE') throw error;
    const variable = choice.variable === undefined ? '' : ` (or ${choice.variable})`;
    throw new BarometerError(
      'BR_ERR_PORT_IN_USE',
      `${error.message}. Choose another port with --port <n>${variable}, or --port 0 for any free one${choice.otherwise ?? ''}`,
      { cause: error.cause, ...(error.details ? { details: error.details } : {}) },
    );
  }
}
