import type { SessionContext } from '../session/describe-session.js';
import type { SessionSummary } from '../session/session-schemas.js';
import { requestContext } from './request-context.js';
import type { WireFormat } from './session-key.js';

type Json = Record<string, unknown>;

/**
 * Names the proxy's sessions from their requests (`requestContext`): once the monitor's session exists, what a
 * request says that the session was not told yet goes to `SessionMonitor.describe`, where each field is set once.
 * A session told everything is not read again.
 */
export class RequestDescriber {
  /** Sessions (the proxy's entries) whose working directory and title are known. */
  readonly #complete = new WeakSet<object>();
  readonly #describe: (id: string, context: SessionContext) => Promise<SessionSummary>;
  readonly #onFailure: (error: unknown) => void;

  constructor(options: {
    describe: (id: string, context: SessionContext) => Promise<SessionSummary>;
    onFailure: (error: unknown) => void;
  }) {
    this.#describe = options.describe;
    this.#onFailure = options.onFailure;
  }

  /** After `ready` (the session exists): tells the session what this request says of it. Never throws. */
  observe(entry: { id: string }, format: WireFormat, body: Json, ready: Promise<boolean>): void {
    if (this.#complete.has(entry)) return;
    void ready
      .then(async (exists) => {
        if (!exists || this.#complete.has(entry)) return;
        const context = requestContext(format, body);
        if (context.workingDirectory === undefined && context.title === undefined) return;
        const summary = await this.#describe(entry.id, context);
        if (summary.workingDirectory !== null && summary.title !== null) this.#complete.add(entry);
      })
      .catch(this.#onFailure);
  }
}
