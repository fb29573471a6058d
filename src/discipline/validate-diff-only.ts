import { parsePatch } from 'diff';
import * as z from 'zod';
import { BarometerValidationError, parseWith } from '../errors/validation.js';

/** Whether a task modifies code (and so must answer with a diff). */
export const TASK_TYPES = ['code-modification', 'other'] as const;
export type TaskType = (typeof TASK_TYPES)[number];

/** Options of {@link validateDiffOnly}; unknown keys are rejected. */
export const DiffOnlyOptionsSchema = z.strictObject({
  /** The task's type; wins over `taskDescription`. */
  taskType: z.enum(TASK_TYPES).optional(),
  /** The task in words; code modification is recognised by a verb and a code noun ("fix the handler function"). */
  taskDescription: z.string().optional(),
});
export type DiffOnlyOptions = z.infer<typeof DiffOnlyOptionsSchema>;

/** What an executor's output looks like. */
export type DiffOnlyKind = 'unified-diff' | 'json-patch' | 'full-file-rewrite' | 'empty' | 'other';

/** Why an output was refused, as data. */
export type DiffOnlyReason =
  | { code: 'full_file_rewrite'; lines: number; diffLines: number }
  | { code: 'large_code_block'; chars: number }
  | { code: 'malformed_unified_diff'; detail: string }
  | { code: 'no_hunks' }
  | { code: 'malformed_json_patch'; field: string; detail: string };

export interface DiffOnlyResult {
  ok: boolean;
  kind: DiffOnlyKind;
  /** False when the task is not a code modification: the output is then accepted whatever it is. */
  checked: boolean;
  /** Files a unified diff touches (without `a/` `b/` prefixes and `/dev/null`). */
  files: string[];
  reasons: DiffOnlyReason[];
}

// The seed's heuristics: two of the three unified-diff markers, or a JSON array with two of the three
// JSON Patch markers, make a candidate; a real parse then decides.
const UNIFIED_DIFF_MARKERS = [/^---\s+\S/m, /^\+\+\+\s+\S/m, /^@@\s+-\d+/m];
const JSON_PATCH_MARKERS = [
  /^\s*\[\s*\{/,
  /"op"\s*:\s*"(add|remove|replace|move|copy|test)"/,
  /"path"\s*:\s*"\//,
];
/** A fenced code block this large, outside a diff, is a file's content rather than an explanation. */
export const LARGE_CODE_BLOCK_CHARS = 500;
const FENCED_BLOCK = /^```[\w+-]*\n([\s\S]*?)\n```/gm;

const MODIFICATION_VERBS = [
  'modify',
  'update',
  'change',
  'edit',
  'fix',
  'refactor',
  'patch',
  'rewrite',
  'rename',
  'move',
  'replace',
  'add to',
  'remove from',
  'delete from',
  'insert',
  'append',
  'prepend',
];
const CODE_NOUNS = [
  'code',
  'file',
  'function',
  'class',
  'method',
  'module',
  'component',
  'script',
  'source',
  'implementation',
  '.ts',
  '.js',
  '.py',
  '.go',
  '.rs',
  '.java',
  '.tsx',
  '.jsx',
  '.css',
  '.html',
  '.md',
  '.json',
  '.yaml',
  '.yml',
  '.toml',
];

/** True when a task description has both a modification verb and a code noun (the seed's heuristic). */
export function isCodeModificationTask(taskDescription: string): boolean {
  const lower = taskDescription.toLowerCase();
  return (
    MODIFICATION_VERBS.some((verb) => lower.includes(verb)) && CODE_NOUNS.some((noun) => lower.includes(noun))
  );
}

const JsonPointer = z
  .string()
  .refine((path) => path === '' || path.startsWith('/'), 'must be a JSON Pointer');
/** One RFC 6902 operation. */
export const JsonPatchOperationSchema = z.discriminatedUnion('op', [
  z.strictObject({ op: z.literal('add'), path: JsonPointer, value: z.unknown() }),
  z.strictObject({ op: z.literal('remove'), path: JsonPointer }),
  z.strictObject({ op: z.literal('replace'), path: JsonPointer, value: z.unknown() }),
  z.strictObject({ op: z.literal('move'), from: JsonPointer, path: JsonPointer }),
  z.strictObject({ op: z.literal('copy'), from: JsonPointer, path: JsonPointer }),
  z.strictObject({ op: z.literal('test'), path: JsonPointer, value: z.unknown() }),
]);
/** An RFC 6902 JSON Patch: a non-empty array of operations. */
export const JsonPatchSchema = z.array(JsonPatchOperationSchema).min(1);

function looksLikeUnifiedDiff(text: string): boolean {
  return UNIFIED_DIFF_MARKERS.filter((marker) => marker.test(text)).length >= 2;
}

function looksLikeJsonPatch(text: string): boolean {
  return text.startsWith('[') && JSON_PATCH_MARKERS.filter((marker) => marker.test(text)).length >= 2;
}

function stripPrefix(path: string | undefined): string | null {
  if (!path || path === '/dev/null') return null;
  return path.replace(/^[ab]\//, '');
}

function checkUnifiedDiff(text: string): { files: string[]; reasons: DiffOnlyReason[] } {
  let patches: ReturnType<typeof parsePatch>;
  try {
    patches = parsePatch(text);
  } catch (error) {
    return { files: [], reasons: [{ code: 'malformed_unified_diff', detail: (error as Error).message }] };
  }
  const files = new Set<string>();
  const reasons: DiffOnlyReason[] = [];
  let hunks = 0;
  for (const patch of patches) {
    const file = stripPrefix(patch.newFileName) ?? stripPrefix(patch.oldFileName);
    if (file) files.add(file);
    for (const hunk of patch.hunks) {
      hunks += 1;
      // jsdiff accepts a header such as "@@ -x,2 +1,2 @@" and leaves NaN/null starts; that is not a hunk.
      if (!Number.isInteger(hunk.oldStart) || !Number.isInteger(hunk.newStart)) {
        reasons.push({ code: 'malformed_unified_diff', detail: `hunk ${hunks} has an invalid @@ header` });
      }
    }
  }
  if (hunks === 0) reasons.push({ code: 'no_hunks' });
  return { files: [...files], reasons };
}

const HUNK_HEADER = /^@@ -\d+(?:,(\d+))? \+\d+(?:,(\d+))? @@/;
const FILE_HEADER =
  /^(diff |index |--- |\+\+\+ |new file mode|deleted file mode|similarity index|rename (from|to) |old mode|new mode|Binary files)/;

/**
 * The lines of a unified diff that belong to no file header and no hunk (each hunk consumes exactly the lines
 * its header counts). A real diff has none but a few lines of prose; a rewrite smuggled after one small valid
 * hunk has the whole file here.
 */
function linesOutsideHunks(text: string): string {
  const lines = text.split('\n');
  const outside: string[] = [];
  for (let index = 0; index < lines.length; index++) {
    const line = lines[index]!;
    const header = HUNK_HEADER.exec(line);
    if (header) {
      let oldLeft = header[1] === undefined ? 1 : Number(header[1]);
      let newLeft = header[2] === undefined ? 1 : Number(header[2]);
      while ((oldLeft > 0 || newLeft > 0) && index + 1 < lines.length) {
        const body = lines[++index]!;
        if (body.startsWith('\\')) continue;
        if (body.startsWith('-')) oldLeft--;
        else if (body.startsWith('+')) newLeft--;
        else {
          oldLeft--;
          newLeft--;
        }
      }
      continue;
    }
    if (!FILE_HEADER.test(line)) outside.push(line);
  }
  return outside.join('\n');
}

function checkJsonPatch(text: string): DiffOnlyReason[] {
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    return [{ code: 'malformed_json_patch', field: '', detail: (error as Error).message }];
  }
  const parsed = parseWith(JsonPatchSchema, value);
  if (parsed.ok) return [];
  return parsed.issues.map((issue) => ({
    code: 'malformed_json_patch',
    field: issue.field,
    detail: issue.message,
  }));
}

// The seed's measure: in 10 or more lines, more than 15 code-like lines and under 10% of lines carrying
// diff prefixes is a file's content, not a change to it.
function fullFileRewrite(text: string): DiffOnlyReason | null {
  const lines = text.split('\n');
  if (lines.length >= 10) {
    let diffLines = 0;
    let codeLines = 0;
    for (const line of lines) {
      if (/^([+-]|@@)/.test(line)) diffLines += 1;
      else if (line.trim().length > 0) codeLines += 1;
    }
    if (codeLines > 15 && diffLines / (diffLines + codeLines) < 0.1) {
      return { code: 'full_file_rewrite', lines: diffLines + codeLines, diffLines };
    }
  }
  for (const match of text.matchAll(FENCED_BLOCK)) {
    const body = match[1] ?? '';
    if (body.length >= LARGE_CODE_BLOCK_CHARS) return { code: 'large_code_block', chars: body.length };
  }
  return null;
}

/**
 * Checks that an executor answered a code-modification task with a change, not a rewrite: a unified diff
 * (parsed for real with jsdiff: a malformed hunk is refused) or an RFC 6902 JSON Patch (each operation
 * validated). A full-file rewrite or a large fenced code block is refused. Empty output and short prose
 * are accepted (the seed's rule). Tasks that are not code modifications are not checked.
 * Without `taskType` or `taskDescription` the task is treated as a code modification (fail closed).
 *
 * @throws BarometerValidationError when the options are invalid
 * @example
 * validateDiffOnly(output, { taskType: 'code-modification' }).ok;
 */
export function validateDiffOnly(output: string, options: DiffOnlyOptions = {}): DiffOnlyResult {
  const parsed = parseWith(DiffOnlyOptionsSchema, options);
  if (!parsed.ok) throw new BarometerValidationError(parsed.issues, 'diff-only options');
  const { taskType, taskDescription } = parsed.value;
  const checked =
    taskType !== undefined
      ? taskType === 'code-modification'
      : taskDescription === undefined || isCodeModificationTask(taskDescription);
  const text = output.trim();
  let kind: DiffOnlyKind;
  let files: string[] = [];
  let reasons: DiffOnlyReason[] = [];
  if (text.length === 0) {
    kind = 'empty';
  } else if (looksLikeUnifiedDiff(text)) {
    kind = 'unified-diff';
    ({ files, reasons } = checkUnifiedDiff(output));
    // What the hunks do not account for is judged like any other output: a valid one-line hunk must not
    // carry a full file after it.
    const rewrite = fullFileRewrite(linesOutsideHunks(output));
    if (rewrite) reasons.push(rewrite);
  } else if (looksLikeJsonPatch(text)) {
    kind = 'json-patch';
    reasons = checkJsonPatch(text);
  } else {
    const rewrite = fullFileRewrite(output);
    kind = rewrite ? 'full-file-rewrite' : 'other';
    if (rewrite) reasons = [rewrite];
  }
  return { ok: !checked || reasons.length === 0, kind, checked, files, reasons };
}
