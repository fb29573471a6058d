import type { Worker } from 'node:worker_threads';
import type { BarometerError } from '../errors/barometer-error.js';
import { storeFailure } from './state-database.js';
import { startThread } from './thread-entry.js';
import type { WriterAnswer, WriterData, WriterMessage } from './writer-messages.js';

/** A write sent and not answered yet; `done` is told undefined once it is committed, or the error. */
interface Waiting {
  seq: number;
  done: (failure: BarometerError | undefined) => void;
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
  /**
   * The checkpointer thread (state-checkpointer-worker.ts), nudged after each committed batch; the process stays up
   * while it checkpoints (a thread stopped inside a libsql call can abort the whole process).
   */
  #checkpointer: Worker | undefined;
  #checkpointing = false;
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

  /** Resolves once every write sent before is answered (committed, or failed): reads then find them in the file. */
  drained(): Promise<void> {
    if (this.waiting === 0) return Promise.resolve();
    return new Promise((resolve) => this.#waiting.push({ seq: this.#seq, done: () => resolve() }));
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
    this.#closed = new Promise<void>((resolve) => {
      worker.once('exit', () => resolve());
      this.send({ kind: 'close', seq: 0 }, () => {});
    }).then(() => this.#stopCheckpointer());
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
    await this.#stopCheckpointer();
  }

  /** Stops the checkpointer between two checkpoints (it closes its connection from JavaScript), once. */
  #stopCheckpointer(): Promise<void> {
    const checkpointer = this.#checkpointer;
    if (checkpointer === undefined) return Promise.resolve();
    this.#checkpointer = undefined;
    return new Promise((resolve) => {
      checkpointer.once('exit', () => resolve());
      checkpointer.ref();
      checkpointer.postMessage('close');
    });
  }

  /** After a committed batch: the checkpointer folds it into the file, the process kept up meanwhile. */
  #nudge(): void {
    let checkpointer = this.#checkpointer;
    if (checkpointer === undefined) {
      checkpointer = startThread(import.meta.url, 'state-checkpointer-worker', {
        workerData: { path: this.path },
      });
      checkpointer.on('message', () => {
        this.#checkpointing = false;
        checkpointer?.unref();
      });
      // A checkpointer that fails is not the writes' failure: the log grows until the next one.
      checkpointer.on('error', () => {});
      this.#checkpointer = checkpointer;
    }
    if (!this.#checkpointing) checkpointer.ref();
    this.#checkpointing = true;
    checkpointer.postMessage('checkpoint');
  }

  #start(): Worker {
    const worker = startThread(import.meta.url, 'state-writer-worker', { workerData: this.#data });
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
    if (this.#closed === undefined && this.#stopped === undefined) this.#nudge();
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
      // Once closing, the thread keeps the process up until it has exited (else a process with nothing else to do
      // ends while its close is awaited: Node's code 13, an unsettled await; `npm run bench -- scale` did).
      if (this.#closed === undefined) this.#worker?.unref();
    } else if (this.#head > 1024 && this.#head * 2 > this.#waiting.length) {
      this.#waiting = this.#waiting.slice(this.#head);
      this.#head = 0;
    }
  }
}
