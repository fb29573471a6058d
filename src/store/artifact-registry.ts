import { createHash } from 'node:crypto';
import { mkdir, open, readFile, rename, stat, unlink } from 'node:fs/promises';
import { join, resolve } from 'node:path';
import * as z from 'zod';
import { BarometerError } from '../errors/barometer-error.js';
import type { ErrorCode } from '../errors/error-catalogue.js';
import { BarometerValidationError, parseWith } from '../errors/validation.js';
import { OWNER_ONLY_FILE_MODE, OWNER_ONLY_FOLDER_MODE } from './owner-only.js';

/** Artifacts larger than 512 KiB are refused: the registry holds references' content, not bulk data. */
export const DEFAULT_MAX_ARTIFACT_BYTES = 512 * 1024;

/** An artifact id: the sha256 of its content, 64 lowercase hex characters. */
export const ArtifactIdSchema = z
  .string()
  .regex(/^[0-9a-f]{64}$/, 'must be 64 lowercase hex characters (a sha256)')
  .meta({ id: 'ArtifactId' });

/** Options of {@link ArtifactRegistry}; unknown keys are rejected. */
export const ArtifactRegistryOptionsSchema = z.strictObject({
  /** The directory artifacts are stored under (created on first write). */
  root: z.string().min(1),
  /** The largest artifact accepted, in bytes. @default 524288 (512 KiB) */
  maxBytes: z.number().int().min(1).optional(),
});
export type ArtifactRegistryOptions = z.infer<typeof ArtifactRegistryOptionsSchema>;

/** A failure of the registry, with its machine code from the error catalogue. */
export class ArtifactRegistryError extends BarometerError {
  readonly id: string | undefined;
  constructor(code: ErrorCode, message: string, id?: string) {
    super(code, message);
    this.name = 'ArtifactRegistryError';
    this.id = id;
  }
}

/** What a put stored. */
export interface StoredArtifact {
  id: string;
  bytes: number;
  /** False when the same content was already stored: nothing was written. */
  created: boolean;
}

function sha256(bytes: Uint8Array): string {
  return createHash('sha256').update(bytes).digest('hex');
}

function hasCode(error: unknown, code: string): boolean {
  return (error as NodeJS.ErrnoException | null)?.code === code;
}

// Temporary names are unique per process and per write without randomness: pid plus a counter.
let writeSequence = 0;

/**
 * Content-addressed artifact storage on the local filesystem: the id of an artifact is the sha256 of its
 * bytes, so the same content is stored once and a reference can never silently point at other content.
 * Writes are atomic (temporary file in the same directory, fsync, rename, fsync of the directory); every
 * read verifies the hash; ids are validated before they are used in a path.
 *
 * @example
 * const registry = new ArtifactRegistry({ root: join(defaultStateFolder(), 'artifacts') });
 * const { id } = await registry.putText(largeLog);
 * const again = await registry.getText(id);
 */
export class ArtifactRegistry {
  readonly root: string;
  readonly maxBytes: number;

  /** @throws BarometerValidationError when the options are invalid */
  constructor(options: ArtifactRegistryOptions) {
    const parsed = parseWith(ArtifactRegistryOptionsSchema, options);
    if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'artifact registry options');
    this.root = resolve(parsed.value.root);
    this.maxBytes = parsed.value.maxBytes ?? DEFAULT_MAX_ARTIFACT_BYTES;
  }

  /**
   * Stores bytes or text (as UTF-8) and returns its id; content already stored (and intact) is not written again.
   * @throws ArtifactRegistryError BR_ERR_ARTIFACT_TOO_LARGE when over `maxBytes` (nothing is written)
   */
  async put(content: string | Uint8Array): Promise<StoredArtifact> {
    const bytes = typeof content === 'string' ? Buffer.from(content, 'utf8') : Buffer.from(content);
    if (bytes.length > this.maxBytes) {
      throw new ArtifactRegistryError(
        'BR_ERR_ARTIFACT_TOO_LARGE',
        `Artifact is ${bytes.length} bytes; the registry accepts at most ${this.maxBytes} bytes`,
      );
    }
    const id = sha256(bytes);
    const path = this.pathOf(id);
    if (await this.isIntact(path, id)) return { id, bytes: bytes.length, created: false };
    await this.writeAtomically(path, bytes);
    return { id, bytes: bytes.length, created: true };
  }

  /** Stores text as UTF-8. @throws ArtifactRegistryError BR_ERR_ARTIFACT_TOO_LARGE */
  putText(content: string): Promise<StoredArtifact> {
    return this.put(content);
  }

  /**
   * Stores a value as JSON text (`JSON.stringify`, no indentation).
   * @throws BarometerValidationError when the value has no JSON form (undefined, a function, a cycle)
   */
  async putJson(value: unknown): Promise<StoredArtifact> {
    let text: string | undefined;
    try {
      text = JSON.stringify(value);
    } catch (error) {
      throw new BarometerValidationError(
        [{ field: 'value', value, message: (error as Error).message }],
        'artifact',
      );
    }
    if (text === undefined) {
      throw new BarometerValidationError(
        [{ field: 'value', value, message: 'has no JSON form' }],
        'artifact',
      );
    }
    return this.put(text);
  }

  /**
   * The artifact's bytes, verified against its id.
   * @throws BarometerValidationError when the id is not a sha256 (nothing is read)
   * @throws ArtifactRegistryError BR_ERR_ARTIFACT_NOT_FOUND, or BR_ERR_INTEGRITY when the bytes do not match the id
   */
  async get(id: string): Promise<Buffer> {
    const path = this.pathOf(id);
    let bytes: Buffer;
    try {
      bytes = await readFile(path);
    } catch (error) {
      if (hasCode(error, 'ENOENT')) {
        throw new ArtifactRegistryError('BR_ERR_ARTIFACT_NOT_FOUND', `No artifact ${id}`, id);
      }
      throw error;
    }
    if (sha256(bytes) !== id) {
      throw new ArtifactRegistryError(
        'BR_ERR_INTEGRITY',
        `Stored artifact ${id} does not match its hash`,
        id,
      );
    }
    return bytes;
  }

  /** The artifact as UTF-8 text. @throws as {@link ArtifactRegistry.get} */
  async getText(id: string): Promise<string> {
    return (await this.get(id)).toString('utf8');
  }

  /**
   * The artifact parsed as JSON.
   * @throws as {@link ArtifactRegistry.get}; ArtifactRegistryError BR_ERR_INVALID_PARAM when it is not JSON
   */
  async getJson<T = unknown>(id: string): Promise<T> {
    const text = await this.getText(id);
    try {
      return JSON.parse(text) as T;
    } catch {
      throw new ArtifactRegistryError('BR_ERR_INVALID_PARAM', `Artifact ${id} is not JSON`, id);
    }
  }

  /**
   * Whether an artifact with this id is stored (its content is verified on read, not here).
   * @throws BarometerValidationError when the id is not a sha256
   */
  async has(id: string): Promise<boolean> {
    const path = this.pathOf(id);
    try {
      return (await stat(path)).isFile();
    } catch (error) {
      if (hasCode(error, 'ENOENT')) return false;
      throw error;
    }
  }

  // The only place an id becomes a path, so a bad id ("../../etc/passwd") is refused before any file access.
  private pathOf(id: string): string {
    const parsed = parseWith(ArtifactIdSchema, id);
    if (!parsed.ok) {
      throw new BarometerValidationError(
        parsed.issues.map((issue) => ({ ...issue, field: 'id' })),
        'artifact id',
      );
    }
    // Two-character fan-out keeps directories small when there are many artifacts.
    return join(this.root, parsed.value.slice(0, 2), parsed.value);
  }

  private async isIntact(path: string, id: string): Promise<boolean> {
    try {
      return sha256(await readFile(path)) === id;
    } catch (error) {
      if (hasCode(error, 'ENOENT')) return false;
      throw error;
    }
  }

  private async writeAtomically(path: string, bytes: Buffer): Promise<void> {
    const directory = join(path, '..');
    await mkdir(directory, { recursive: true, mode: OWNER_ONLY_FOLDER_MODE });
    writeSequence += 1;
    const temporary = `${path}.${process.pid}.${writeSequence}.tmp`;
    try {
      const file = await open(temporary, 'wx', OWNER_ONLY_FILE_MODE);
      try {
        await file.writeFile(bytes);
        await file.sync();
      } finally {
        await file.close();
      }
      await rename(temporary, path);
    } catch (error) {
      await unlink(temporary).catch(() => undefined);
      throw error;
    }
    await syncDirectory(directory);
  }
}

// The rename is durable only once the directory entry is on disk. Some platforms (Windows) cannot open or
// fsync a directory; there the rename's own atomicity is all that is available.
async function syncDirectory(directory: string): Promise<void> {
  let handle: Awaited<ReturnType<typeof open>> | undefined;
  try {
    handle = await open(directory, 'r');
    await handle.sync();
  } catch (error) {
    if (!['EISDIR', 'EPERM', 'EINVAL', 'EACCES'].some((code) => hasCode(error, code))) throw error;
  } finally {
    await handle?.close();
  }
}
