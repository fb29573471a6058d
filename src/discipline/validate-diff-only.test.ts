import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { isCodeModificationTask, validateDiffOnly } from './validate-diff-only.js';

const code = { taskType: 'code-modification' } as const;
const goodDiff = [
  '--- a/src/main.ts',
  '+++ b/src/main.ts',
  '@@ -1,3 +1,4 @@',
  ' export function handler() {',
  '-  return run();',
  '+  if (!config.enabled) return null;',
  '+  return run();',
  ' }',
  '',
].join('\n');
const fileContent = Array.from({ length: 30 }, (_, i) => `export const value${i} = compute(${i});`).join(
  '\n',
);

describe('validateDiffOnly', () => {
  describe('unified diffs', () => {
    it('accepts a well-formed diff and lists the files it touches', () => {
      expect(validateDiffOnly(goodDiff, code)).toEqual({
        ok: true,
        kind: 'unified-diff',
        checked: true,
        files: ['src/main.ts'],
        reasons: [],
      });
    });

    it('accepts git diffs with several files, a new file included', () => {
      const diff = [
        'diff --git a/x.ts b/x.ts',
        'index 1111111..2222222 100644',
        '--- a/x.ts',
        '+++ b/x.ts',
        '@@ -1 +1 @@',
        '-a',
        '+b',
        '--- /dev/null',
        '+++ b/new.ts',
        '@@ -0,0 +1,2 @@',
        '+one',
        '+two',
      ].join('\n');
      expect(validateDiffOnly(diff, code)).toMatchObject({ ok: true, files: ['x.ts', 'new.ts'] });
    });

    it('accepts a diff inside a fenced block', () => {
      expect(validateDiffOnly(`Here is the change:\n\`\`\`diff\n${goodDiff}\`\`\`\n`, code).ok).toBe(true);
    });

    it("refuses the seed's own example, whose hunk header claims 6 old lines for 1", () => {
      const seedExample = [
        '--- a/src/main.ts',
        '+++ b/src/main.ts',
        '@@ -12,6 +12,9 @@',
        ' def handler():',
        '+    if not config.enabled:',
        '+        return None',
      ].join('\n');
      const result = validateDiffOnly(seedExample, code);
      expect(result.ok).toBe(false);
      expect(result.kind).toBe('unified-diff');
      expect(result.reasons[0]?.code).toBe('malformed_unified_diff');
    });

    it('refuses a hunk with a line that is neither context, addition nor removal', () => {
      const diff = '--- a/x\n+++ b/x\n@@ -1,2 +1,2 @@\n line1\nGARBAGE\n-line2\n+x\n';
      const result = validateDiffOnly(diff, code);
      expect(result.ok).toBe(false);
      expect(result.reasons).toEqual([
        { code: 'malformed_unified_diff', detail: expect.stringContaining('GARBAGE') },
      ]);
    });

    it('refuses a hunk header without line numbers', () => {
      const result = validateDiffOnly('--- a/x\n+++ b/x\n@@ -x,1 +1,1 @@\n-a\n+b\n', code);
      expect(result.ok).toBe(false);
      expect(result.reasons[0]?.code).toBe('malformed_unified_diff');
    });

    it('refuses file headers with no hunk', () => {
      expect(validateDiffOnly('--- a/x\n+++ b/x\n', code)).toMatchObject({
        ok: false,
        kind: 'unified-diff',
        reasons: [{ code: 'no_hunks' }],
      });
    });
  });

  describe('JSON Patch', () => {
    it('accepts an RFC 6902 patch', () => {
      const patch = JSON.stringify([
        { op: 'replace', path: '/timeout', value: 30 },
        { op: 'move', from: '/a', path: '/b' },
        { op: 'remove', path: '/legacy' },
      ]);
      expect(validateDiffOnly(patch, code)).toEqual({
        ok: true,
        kind: 'json-patch',
        checked: true,
        files: [],
        reasons: [],
      });
    });

    it('refuses an operation without its value, naming where', () => {
      const result = validateDiffOnly('[{"op":"replace","path":"/a"},{"op":"add","path":"/b"}]', code);
      expect(result.ok).toBe(false);
      expect(result.reasons.map((r) => (r.code === 'malformed_json_patch' ? r.field : r.code))).toEqual([
        '[0].value',
        '[1].value',
      ]);
    });

    it('refuses a path that is not a JSON Pointer', () => {
      const result = validateDiffOnly('[{"op":"remove","path":"/a"},{"op":"remove","path":"b"}]', code);
      expect(result.reasons).toEqual([
        { code: 'malformed_json_patch', field: '[1].path', detail: 'must be a JSON Pointer' },
      ]);
    });

    it('refuses a patch that is not JSON', () => {
      const result = validateDiffOnly('[{"op":"add","path":"/a","value":1},', code);
      expect(result).toMatchObject({ ok: false, kind: 'json-patch' });
      expect(result.reasons[0]?.code).toBe('malformed_json_patch');
    });
  });

  describe('full-file rewrites', () => {
    it('refuses 30 lines of plain source for a code modification', () => {
      expect(validateDiffOnly(fileContent, code)).toEqual({
        ok: false,
        kind: 'full-file-rewrite',
        checked: true,
        files: [],
        reasons: [{ code: 'full_file_rewrite', lines: 30, diffLines: 0 }],
      });
    });

    it('refuses a large fenced code block, even one too short for the line count rule', () => {
      // 10 lines of 60 characters: under the 15 code lines of the line rule, over the 500 characters of a block.
      const body = Array.from({ length: 10 }, () => 'x'.repeat(60)).join('\n');
      const result = validateDiffOnly(`Updated file:\n\`\`\`ts\n${body}\n\`\`\``, code);
      expect(result).toMatchObject({ ok: false, kind: 'full-file-rewrite' });
      expect(result.reasons).toEqual([{ code: 'large_code_block', chars: 10 * 60 + 9 }]);
    });

    it('accepts the same output when the task is not a code modification', () => {
      expect(validateDiffOnly(fileContent, { taskType: 'other' })).toMatchObject({
        ok: true,
        checked: false,
        kind: 'full-file-rewrite',
      });
    });
  });

  it('accepts empty output and short prose', () => {
    expect(validateDiffOnly('  \n', code)).toMatchObject({ ok: true, kind: 'empty' });
    expect(validateDiffOnly('The handler already returns early; no change needed.', code)).toMatchObject({
      ok: true,
      kind: 'other',
    });
  });

  describe('which tasks are checked', () => {
    it('recognises a code modification from its description', () => {
      expect(validateDiffOnly(fileContent, { taskDescription: 'modify the handler function' }).ok).toBe(
        false,
      );
      expect(validateDiffOnly(fileContent, { taskDescription: 'summarize the meeting notes' })).toMatchObject(
        {
          ok: true,
          checked: false,
        },
      );
    });

    it('checks when nothing says what the task is (fail closed)', () => {
      expect(validateDiffOnly(fileContent)).toMatchObject({ ok: false, checked: true });
    });

    it('lets taskType win over the description', () => {
      expect(validateDiffOnly(fileContent, { taskType: 'other', taskDescription: 'fix the file' }).ok).toBe(
        true,
      );
    });
  });

  it('rejects unknown options', () => {
    expect(() => validateDiffOnly('', { forceCheck: true } as never)).toThrow(BarometerValidationError);
  });
});

describe('isCodeModificationTask', () => {
  it('needs both a modification verb and a code noun', () => {
    expect(isCodeModificationTask('Refactor src/app.ts')).toBe(true);
    expect(isCodeModificationTask('Update the README.md')).toBe(true);
    expect(isCodeModificationTask('Explain the function')).toBe(false);
    expect(isCodeModificationTask('Update the team')).toBe(false);
  });

  it('refuses a full file smuggled after one small valid hunk (regression: the hunk alone was checked)', () => {
    const hunk = [
      '--- a/src/tax.ts',
      '+++ b/src/tax.ts',
      '@@ -1,1 +1,1 @@',
      '-export const rate = 0.2;',
      '+export const rate = 0.21;',
    ];
    const file = Array.from({ length: 40 }, (_, line) => `export const value${line} = compute(${line});`);
    const result = validateDiffOnly([...hunk, ...file].join('\n'), { taskType: 'code-modification' });
    expect(result.kind).toBe('unified-diff');
    expect(result.ok).toBe(false);
    expect(result.reasons.map((reason) => reason.code)).toContain('full_file_rewrite');
    // The same hunk with a few lines of explanation is fine.
    const explained = validateDiffOnly([...hunk, '', 'Raises the rate to 21%.'].join('\n'), {
      taskType: 'code-modification',
    });
    expect(explained.ok).toBe(true);
  });
});
