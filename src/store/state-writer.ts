import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { pathToFileURL } from 'node:url';
import { Worker } from 'node:worker_threads';
import type { BarometerError } from '../errors/barometer-error.js';
import { storeFailure } from './state-database.js';
import type { WriterAnswer, WriterData, WriterMessage } from './writer-messages.js';

/** A write sent and not answered yet; `done` is told undefined once it is committed, or the error. */
interface Waiting {
  seq: number;
  done: (failure: BarometerError | undefined) => void;
}

/** Whether this module runs from its TypeScript source (tsx, vitest), so the thread must load TypeScript too. */
const FROM_SOURCE = import.meta.url.endsWith('.ts');
const WORKER_URL = new URL(`./state-writer-worker.${FROM_SOURCE ? 'ts' : 'js'}`, import.meta.url);

/**
 * The thread's entry from source: the worker's TypeScript through tsx's API. Node 20 does not run a worker's
 * module through the hooks `--import tsx` registers (the thread fails on the `.ts` extension), so they are
 * registered in the thread itself. tsx is a development dependency: a build runs the compiled `.js` instead.
 */
function sourceEntry(): string {
  // The ES module of the API (its CommonJS twin imports a file of its own that is not in the package).
  const api = pathToFileURL(
    join(dirname(createRequire(import.meta.url).resolve('tsx/package.json')), 'dist/esm/api/index.mjs'),
  );
  return `import(${JSON.stringify(api.href)}).then((api) => api.tsImport(${JSON.stringify(WORKER_URL.href)}, ${JSON.stringify(import.meta.url)}))`;
}

/**
 * The writer thread of a store over a database file (group commit, decision 095): the store sends each write,
 * the thread writes every write waiting in one transaction and answers once it is committed, so that a write is
 * acknowledged only once durable (a commit to the write-ahead log). Answers come in the order of the writes. The
 * thread starts at the first write; when it stops (an error, a crash), every write waiting and every later one
 * fails with BR_ERR_STORE_UNAVAILABLE naming the file: nothing waits for an answer that cannot come.
 */
export class StateWriter {
  readonly path: string;
  readonly #data: WriterData;
  #worker: Worker | undefined;
  /** The writes waiting, in order, from `#head` on (the answered ones before it are cleared now and then). */
  #waiting: Array<Waiting | undefined> = [];
  #head = 0;
  #seq = 0;
  #stopped: BarometerError | undefined;
  #closed: Promise<void> | undefined;

  constructor(data: WriterData) {
    this.path = data.path;
    this.#data = data;
  }

  /** Writes sent and not answered yet. */
  get waiting(): number {
    return this.#waiting.length - this.#head;
  }

  /** Why writes fail from now on (the thread stopped, or the store closed), or undefined while it runs. */
  get stopped(): BarometerError | undefined {
    return this.#stopped;
  }

  /**
   * Sends `message` (its `seq` set here); `done` is called once the thread has committed it (undefined) or it
   * failed (the error) — at once when the thread has stopped.
   */
  send(message: WriterMessage, done: (failure: BarometerError | undefined) => void): void {
    if (this.#stopped !== undefined) {
      done(this.#stopped);
      return;
    }
    const worker = this.#worker ?? this.#start();
    message.seq = ++this.#seq;
    // The process stays up while a write waits for its commit, and only then.
    if (this.waiting === 0) worker.ref();
    this.#waiting.push({ seq: message.seq, done });
    worker.postMessage(message);
  }

  /** Waits for every write sent, then stops the thread (it closes its connection). */
  close(): Promise<void> {
    if (this.#closed) return this.#closed;
    const worker = this.#worker;
    if (worker === undefined || this.#stopped !== undefined) {
      this.#stopped ??= storeFailure(`write to ${this.path}`, 'the store is closed');
      this.#closed = Promise.resolve();
      return this.#closed;
    }
    this.#closed = new Promise((resolve) => {
      worker.once('exit', () => resolve());
      this.send({ kind: 'close', seq: 0 }, () => {});
    });
    return this.#closed;
  }

  /**
   * Stops the thread as a crash between two of its transactions would: what waits fails (for tests of a writer that
   * died). Not `Worker.terminate`, which stops the thread wherever it is: inside a libsql call it aborts the whole
   * process (seen twice in CI: the test file's process exited unexpectedly).
   */
  async terminate(): Promise<void> {
    const worker = this.#worker;
    if (worker === undefined || this.#stopped !== undefined) return;
    await new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      worker.postMessage({ kind: 'crash', seq: 0 } satisfies WriterMessage);
    });
  }

  #start(): Worker {
    const worker = FROM_SOURCE
      ? new Worker(sourceEntry(), { eval: true, workerData: this.#data })
      : new Worker(WORKER_URL, { workerData: this.#data });
    worker.on('message', (answer: WriterAnswer) => this.#answer(answer));
    worker.on('error', (error) => this.#stop(error));
    worker.on('exit', (code) =>
      this.#stop(this.#closed ? 'the store is closed' : `its writer thread exited (code ${code})`),
    );
    this.#worker = worker;
    return worker;
  }

  #answer(answer: WriterAnswer): void {
    const failed = answer.failed.length === 0 ? undefined : new Set(answer.failed);
    const failure =
      failed &&
      storeFailure(`write to ${this.path}`, answer.reason || 'an earlier write of the same id failed');
    while (this.#head < this.#waiting.length) {
      const waiting = this.#waiting[this.#head] as Waiting;
      if (waiting.seq > answer.upTo) break;
      this.#waiting[this.#head++] = undefined;
      waiting.done(failed?.has(waiting.seq) ? failure : undefined);
    }
    this.#compact();
  }

  #stop(cause: unknown): void {
    if (this.#stopped !== undefined && this.waiting === 0) return;
    this.#stopped ??= storeFailure(`write to ${this.path}`, cause);
    while (this.#head < this.#waiting.length) {
      const waiting = this.#waiting[this.#head] as Waiting;
      this.#waiting[this.#head++] = undefined;
      waiting.done(this.#stopped);
    }
    this.#compact();
  }

  /** Drops the answered writes from the queue's start; lets the process exit when none waits. */
  #compact(): void {
    if (this.#head === this.#waiting.length) {
      this.#waiting = [];
      this.#head = 0;
      this.#worker?.unref();
    } else if (this.#head > 1024 && this.#head * 2 > this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#head);
      this.#head = 0;
    }
  }
}
