import { describe, expect, it } from 'vitest';
import { UsageError } from '../cli/io.js';
import * as library from '../index.js';
import { ArchiveError } from '../store/archive.js';
import { ArtifactRegistryError } from '../store/artifact-registry.js';
import { HeadroomError } from './headroom-error.js';
import { HeadroomValidationError } from './validation.js';

describe('the error classes', () => {
  it('exports HeadroomError and the catalogue from the library root', () => {
    expect(library.HeadroomError).toBe(HeadroomError);
    expect(library.ERROR_CATALOGUE.HR_ERR_INTERNAL.status).toBe(500);
  });

  it('has every error class the library exports extend HeadroomError', () => {
    const classes = Object.entries(library).filter(
      ([, value]) => typeof value === 'function' && value.prototype instanceof Error,
    );
    expect(classes.map(([name]) => name).sort()).toEqual(
      [
        'ArchiveError',
        'ArtifactRegistryError',
        'HeadroomError',
        'HeadroomValidationError',
        'ReferenceIdMismatchError',
      ].sort(),
    );
    for (const [name, value] of classes) {
      if (name !== 'HeadroomError')
        expect((value as { prototype: unknown }).prototype, name).toBeInstanceOf(HeadroomError);
    }
  });

  it.each([
    [
      new HeadroomValidationError([{ field: 'x', value: 1, message: 'must be 0' }]),
      'HR_ERR_INVALID_PARAM',
      400,
      2,
    ],
    [
      new HeadroomValidationError([], 'session', 'HR_ERR_SESSION_NOT_FOUND'),
      'HR_ERR_SESSION_NOT_FOUND',
      404,
      3,
    ],
    [
      new ArchiveError('HR_ERR_ARCHIVE_NOT_FOUND', '/a/s/t.log', 'no archive'),
      'HR_ERR_ARCHIVE_NOT_FOUND',
      404,
      3,
    ],
    [new ArchiveError('HR_ERR_INTEGRITY', '/a/s/t.log', 'damaged'), 'HR_ERR_INTEGRITY', 500, 4],
    [
      new ArtifactRegistryError('HR_ERR_ARTIFACT_TOO_LARGE', 'too large'),
      'HR_ERR_ARTIFACT_TOO_LARGE',
      413,
      2,
    ],
    [new library.ReferenceIdMismatchError('a'.repeat(64), 'b'.repeat(64)), 'HR_ERR_INTEGRITY', 500, 4],
    [new UsageError('--port must be a number'), 'HR_ERR_INVALID_PARAM', 400, 2],
  ])('%s carries %s, HTTP %i, exit %i', (error, code, status, exit) => {
    expect(error).toBeInstanceOf(HeadroomError);
    expect(error).toMatchObject({ code, status, exitCode: exit });
  });

  it('keeps each class its own name and fields', () => {
    const archive = new ArchiveError('HR_ERR_INTEGRITY', '/a/s/t.log', 'damaged');
    expect([archive.name, archive.path]).toEqual(['ArchiveError', '/a/s/t.log']);
    const validation = new HeadroomValidationError([{ field: 'x', value: 1, message: 'must be 0' }], 'thing');
    expect([validation.name, validation.message, validation.issues.length]).toEqual([
      'HeadroomValidationError',
      'Invalid thing: x: must be 0',
      1,
    ]);
    expect(new UsageError('bad').name).toBe('UsageError');
  });
});
