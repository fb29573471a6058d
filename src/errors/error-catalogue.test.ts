import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, it } from 'vitest';
import { BarometerError } from './barometer-error.js';
import { ERROR_CATALOGUE, ERROR_CODES, EXIT_CODES, isErrorCode } from './error-catalogue.js';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const CATALOGUE_FILE = 'src/errors/error-catalogue.ts';

/** The rows of docs/errors.md's code table: `| \`BR_ERR_X\` | status | exit | meaning | what to do |`. */
function documentedRows(): Map<string, { status: number; exit: number }> {
  const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
  const rows = new Map<string, { status: number; exit: number }>();
  for (const match of doc.matchAll(/^\| `(BR_ERR_[A-Z_]+)` \| (\d{3}) \| (\d) \|/gm)) {
    rows.set(match[1]!, { status: Number(match[2]), exit: Number(match[3]) });
  }
  return rows;
}

function sourceFiles(directory: string): string[] {
  return readdirSync(directory, { withFileTypes: true, recursive: true })
    .filter((entry) => entry.isFile() && /\.tsx?$/.test(entry.name))
    .map((entry) => join(entry.parentPath, entry.name));
}

/** Every `'BR_ERR_…'` string literal (any quote) in src/, with the file it is in. */
function codeLiterals(): Array<{ file: string; code: string }> {
  const found: Array<{ file: string; code: string }> = [];
  for (const path of sourceFiles(join(ROOT, 'src'))) {
    const text = readFileSync(path, 'utf8');
    for (const match of text.matchAll(/(['"`])(BR_ERR_[A-Za-z0-9_]*)\1/g)) {
      found.push({ file: relative(ROOT, path), code: match[2]! });
    }
  }
  return found;
}

describe('the error catalogue', () => {
  it('documents in docs/errors.md every code with its HTTP status and CLI exit code', () => {
    const documented = documentedRows();
    const expected = new Map(
      ERROR_CODES.map((code) => [
        code,
        { status: ERROR_CATALOGUE[code].status, exit: ERROR_CATALOGUE[code].exit },
      ]),
    );
    expect(Object.fromEntries(documented)).toEqual(Object.fromEntries(expected));
  });

  it('knows every BR_ERR_ code that docs/errors.md mentions anywhere', () => {
    const doc = readFileSync(join(ROOT, 'docs/errors.md'), 'utf8');
    // The one code the document names as retired, to say that nothing carries it (not spelled whole here, so
    // that the scan of src/ below does not take it for a code in use).
    const retired = new Set(['USAGE_UNAVAILABLE'].map((name) => `BR_ERR_${name}`));
    const mentioned = new Set([...doc.matchAll(/BR_ERR_[A-Z_]+/g)].map((match) => match[0]));
    expect([...mentioned].filter((code) => !retired.has(code) && !isErrorCode(code))).toEqual([]);
  });

  it('lists every BR_ERR_ string literal used in src/', () => {
    const literals = codeLiterals();
    expect(literals.length).toBeGreaterThan(20);
    expect(literals.filter(({ code }) => !isErrorCode(code))).toEqual([]);
  });

  it('has no code that nothing in src/ answers with (each is used outside the catalogue)', () => {
    const used = new Set(
      codeLiterals()
        .filter(({ file }) => file !== CATALOGUE_FILE && !file.endsWith('.test.ts'))
        .map(({ code }) => code),
    );
    expect(ERROR_CODES.filter((code) => !used.has(code))).toEqual([]);
  });

  it('gives each code an error status and one of the documented exit codes', () => {
    const failures = new Set<number>(Object.values(EXIT_CODES).filter((exit) => exit !== EXIT_CODES.ok));
    for (const code of ERROR_CODES) {
      const { status, exit, meaning } = ERROR_CATALOGUE[code];
      expect(status, code).toBeGreaterThanOrEqual(400);
      expect(status, code).toBeLessThan(600);
      expect(failures.has(exit), code).toBe(true);
      expect(meaning.length, code).toBeGreaterThan(10);
    }
  });

  it('exits 2 for bad input, 3 for not found, 4 for damaged data and 1 for a fault', () => {
    expect(ERROR_CATALOGUE.BR_ERR_INVALID_PARAM.exit).toBe(2);
    expect(ERROR_CATALOGUE.BR_ERR_ARCHIVE_NOT_FOUND.exit).toBe(3);
    expect(ERROR_CATALOGUE.BR_ERR_INTEGRITY.exit).toBe(4);
    expect(ERROR_CATALOGUE.BR_ERR_INTERNAL.exit).toBe(1);
  });
});

describe('BarometerError', () => {
  it('takes its status and exit code from the catalogue', () => {
    const error = new BarometerError('BR_ERR_SESSION_EXISTS', 'session s1 exists', {
      details: { id: 's1' },
    });
    expect(error).toBeInstanceOf(Error);
    expect(error).toMatchObject({
      name: 'BarometerError',
      code: 'BR_ERR_SESSION_EXISTS',
      status: 409,
      exitCode: 5,
      issues: [],
      details: { id: 's1' },
      message: 'session s1 exists',
    });
  });

  it('keeps the cause for the log', () => {
    const cause = new Error('EACCES');
    expect(new BarometerError('BR_ERR_INTERNAL', 'cannot write', { cause }).cause).toBe(cause);
  });
});
