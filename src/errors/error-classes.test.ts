import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli/io.js';
import * as library from '../internal.js';
import { ArchiveError } from '../store/archive.js';
import { ArtifactRegistryError } from '../store/artifact-registry.js';
import { BarometerError } from './barometer-error.js';
import { BarometerValidationError } from './validation.js';

describe('the error classes', () => {
  it('exports BarometerError and the catalogue from the library root', () => {
    expect(library.BarometerError).toBe(BarometerError);
    expect(library.ERROR_CATALOGUE.BR_ERR_INTERNAL.status).toBe(500);
  });

  it('has every error class the library exports extend BarometerError', () => {
    const classes = Object.entries(library).filter(
      ([, value]) => typeof value === 'function' && value.prototype instanceof Error,
    );
    expect(classes.map(([name]) => name).sort()).toEqual(
      [
        'ArchiveError',
        'ArtifactRegistryError',
        'BarometerError',
        'BarometerValidationError',
        'ReferenceIdMismatchError',
      ].sort(),
    );
    for (const [name, value] of classes) {
      if (name !== 'BarometerError')
        expect((value as { prototype: unknown }).prototype, name).toBeInstanceOf(BarometerError);
    }
  });

  it.each([
    [
      new BarometerValidationError([{ field: 'x', value: 1, message: 'must be 0' }]),
      'BR_ERR_INVALID_PARAM',
      400,
      2,
    ],
    [
      new BarometerValidationError([], 'session', 'BR_ERR_SESSION_NOT_FOUND'),
      'BR_ERR_SESSION_NOT_FOUND',
      404,
      3,
    ],
    [
      new ArchiveError('BR_ERR_ARCHIVE_NOT_FOUND', '/a/s/t.log', 'no archive'),
      'BR_ERR_ARCHIVE_NOT_FOUND',
      404,
      3,
    ],
    [new ArchiveError('BR_ERR_INTEGRITY', '/a/s/t.log', 'damaged'), 'BR_ERR_INTEGRITY', 500, 4],
    [
      new ArtifactRegistryError('BR_ERR_ARTIFACT_TOO_LARGE', 'too large'),
      'BR_ERR_ARTIFACT_TOO_LARGE',
      413,
      2,
    ],
    [new library.ReferenceIdMismatchError('a'.repeat(64), 'b'.repeat(64)), 'BR_ERR_INTEGRITY', 500, 4],
    [new UsageError('--port must be a number'), 'BR_ERR_INVALID_PARAM', 400, 2],
  ])('%s carries %s, HTTP %i, exit %i', (error, code, status, exit) => {
    expect(error).toBeInstanceOf(BarometerError);
    expect(error).toMatchObject({ code, status, exitCode: exit });
  });

  it('keeps each class its own name and fields', () => {
    const archive = new ArchiveError('BR_ERR_INTEGRITY', '/a/s/t.log', 'damaged');
    expect([archive.name, archive.path]).toEqual(['ArchiveError', '/a/s/t.log']);
    const validation = new BarometerValidationError(
      [{ field: 'x', value: 1, message: 'must be 0' }],
      'thing',
    );
    expect([validation.name, validation.message, validation.issues.length]).toEqual([
      'BarometerValidationError',
      'Invalid thing: x: must be 0',
      1,
    ]);
    expect(new UsageError('bad').name).toBe('UsageError');
  });
});
