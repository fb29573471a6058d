import { createHash } from 'node:crypto';
import { mkdtemp, readdir, readFile, rm, stat, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { enforceBudget } from '../discipline/enforce-budget.js';
import { buildHotState } from '../discipline/hot-state.js';
import { storeReferences } from '../discipline/store-references.js';
import { BarometerValidationError } from '../errors/validation.js';
import { ArtifactRegistry, ArtifactRegistryError, DEFAULT_MAX_ARTIFACT_BYTES } from './artifact-registry.js';

const sha256 = (data: string | Buffer) => createHash('sha256').update(data).digest('hex');

let root: string;
let registry: ArtifactRegistry;

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-artifacts-'));
  registry = new ArtifactRegistry({ root });
});

afterEach(async () => {
  await rm(root, { recursive: true, force: true });
});

/** Every file under the root, relative to it. */
async function filesUnder(directory: string): Promise<string[]> {
  const entries = await readdir(directory, { recursive: true, withFileTypes: true });
  return entries
    .filter((entry) => entry.isFile())
    .map((entry) => join(entry.parentPath, entry.name).slice(directory.length + 1));
}

describe('ArtifactRegistry', () => {
  it('names an artifact by the sha256 of its content and gives it back', async () => {
    const stored = await registry.putText('hello world');
    expect(stored).toEqual({ id: sha256('hello world'), bytes: 11, created: true });
    expect(await registry.getText(stored.id)).toBe('hello world');
    expect(await registry.has(stored.id)).toBe(true);
  });

  it('stores the same content once', async () => {
    const first = await registry.putText('same content');
    const path = join(root, first.id.slice(0, 2), first.id);
    const before = await stat(path);
    const second = await registry.putText('same content');
    expect(second).toEqual({ ...first, created: false });
    const after = await stat(path);
    expect(after.ino).toBe(before.ino);
    expect(after.mtimeMs).toBe(before.mtimeMs);
    expect(await filesUnder(root)).toEqual([join(first.id.slice(0, 2), first.id)]);
  });

  it('leaves no temporary file behind', async () => {
    await Promise.all(['a', 'b', 'a', 'c'].map((text) => registry.putText(text)));
    const files = await filesUnder(root);
    expect(files).toHaveLength(3);
    expect(files.some((file) => file.endsWith('.tmp'))).toBe(false);
  });

  it('stores JSON and UTF-8 text byte for byte', async () => {
    const value = { constraints: ['garder l’API stable', '不要新增依赖'], n: 3 };
    const { id, bytes } = await registry.putJson(value);
    expect(id).toBe(sha256(JSON.stringify(value)));
    expect(bytes).toBe(Buffer.byteLength(JSON.stringify(value), 'utf8'));
    expect(await registry.getJson(id)).toEqual(value);
  });

  it('stores binary content', async () => {
    const data = Buffer.from([0, 255, 1, 254]);
    const { id } = await registry.put(data);
    expect(id).toBe(sha256(data));
    expect(Buffer.compare(await registry.get(id), data)).toBe(0);
  });

  describe('integrity', () => {
    it('refuses content that no longer matches its hash', async () => {
      const { id } = await registry.putText('original');
      await writeFile(join(root, id.slice(0, 2), id), 'tampered');
      await expect(registry.getText(id)).rejects.toMatchObject({ code: 'BR_ERR_INTEGRITY', id });
    });

    it('repairs a tampered copy when the content is put again', async () => {
      const { id } = await registry.putText('original');
      await writeFile(join(root, id.slice(0, 2), id), 'tampered');
      expect((await registry.putText('original')).created).toBe(true);
      expect(await registry.getText(id)).toBe('original');
    });
  });

  describe('size limit', () => {
    it('defaults to 512 KiB and refuses more with a clear error, writing nothing', async () => {
      expect(DEFAULT_MAX_ARTIFACT_BYTES).toBe(524_288);
      expect((await registry.putText('x'.repeat(524_288))).bytes).toBe(524_288);
      const tooLarge = registry.putText('x'.repeat(524_289));
      await expect(tooLarge).rejects.toBeInstanceOf(ArtifactRegistryError);
      await expect(registry.putText('x'.repeat(524_289))).rejects.toMatchObject({
        code: 'BR_ERR_ARTIFACT_TOO_LARGE',
        message: expect.stringMatching(/524289 bytes.*at most 524288/),
      });
      expect(await filesUnder(root)).toHaveLength(1);
    });

    it('counts bytes, not characters', async () => {
      const small = new ArtifactRegistry({ root, maxBytes: 4 });
      await expect(small.putText('éé')).resolves.toMatchObject({ bytes: 4 });
      await expect(small.putText('ééé')).rejects.toMatchObject({ code: 'BR_ERR_ARTIFACT_TOO_LARGE' });
    });
  });

  describe('ids', () => {
    it('refuses a path-like id before touching the filesystem', async () => {
      // A file a naive join would reach: it must stay unread, so the error is a validation error, not not-found.
      await writeFile(join(root, 'secret'), 'do not read');
      for (const bad of ['../../etc/passwd', '../secret', `${'a'.repeat(63)}/`, '']) {
        await expect(registry.getText(bad)).rejects.toBeInstanceOf(BarometerValidationError);
        await expect(registry.has(bad)).rejects.toMatchObject({ code: 'BR_ERR_INVALID_PARAM' });
      }
    });

    it('refuses an uppercase id even when its lowercase twin exists', async () => {
      const { id } = await registry.putText('hello');
      await expect(registry.getText(id.toUpperCase())).rejects.toMatchObject({
        code: 'BR_ERR_INVALID_PARAM',
        issues: [expect.objectContaining({ field: 'id' })],
      });
    });

    it('says when a valid id is not stored', async () => {
      const missing = sha256('never stored');
      expect(await registry.has(missing)).toBe(false);
      await expect(registry.getText(missing)).rejects.toMatchObject({
        code: 'BR_ERR_ARTIFACT_NOT_FOUND',
        id: missing,
      });
    });
  });

  it('refuses values without a JSON form, and content that is not JSON when JSON is asked for', async () => {
    await expect(registry.putJson(undefined)).rejects.toBeInstanceOf(BarometerValidationError);
    const cyclic: Record<string, unknown> = {};
    cyclic.self = cyclic;
    await expect(registry.putJson(cyclic)).rejects.toBeInstanceOf(BarometerValidationError);
    const { id } = await registry.putText('not json');
    await expect(registry.getJson(id)).rejects.toMatchObject({ code: 'BR_ERR_INVALID_PARAM' });
  });

  it('rejects unknown and invalid options', () => {
    expect(() => new ArtifactRegistry({ root, maxSize: 1 } as never)).toThrow(BarometerValidationError);
    expect(() => new ArtifactRegistry({ root, maxBytes: 0 })).toThrow(BarometerValidationError);
  });

  it('holds the lists the budgeter moved out of a hot state, under the ids the state refers to', async () => {
    const constraints = Array.from({ length: 500 }, (_, i) => `constraint ${i}: keep the public API stable`);
    const decision = await storeReferences(
      enforceBudget(buildHotState({ session_id: 's1', constraints })),
      registry,
    );
    expect(decision.type).toBe('reference');
    const reference = decision.state.artifact_index?.find((entry) => entry.label === 'constraints.json');
    expect(await registry.getJson(reference?.artifact_id ?? '')).toEqual(constraints);
    expect(
      await readFile(
        join(root, reference?.artifact_id.slice(0, 2) ?? '', reference?.artifact_id ?? ''),
        'utf8',
      ),
    ).toBe(JSON.stringify(constraints));
  });
});
