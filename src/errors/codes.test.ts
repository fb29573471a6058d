import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { ERROR_CODES } from './codes.js';

describe('the error code catalogue', () => {
  it('lists in docs/errors.md exactly the codes of src/errors/codes.ts', () => {
    const doc = readFileSync(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const documented = [...doc.matchAll(/^\| `(HR_ERR_[A-Z_]+)` \|/gm)].map((match) => match[1]);
    expect(documented.sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });
});
