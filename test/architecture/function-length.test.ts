import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
/** CONVENTIONS.md's hard limit on a function's length (14: "a function fits on a screen"), in lines. */
const MAX_FUNCTION_LINES = 150;

/** The shipped sources: every `.ts` under src/ and web/src/ but the vendored code, the tests and their helpers. */
function shippedSources(): string[] {
  const files: string[] = [];
  for (const folder of ['src', 'web/src']) {
    for (const entry of readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !entry.name.endsWith('.ts') || entry.name.endsWith('.d.ts')) continue;
      if (entry.name.endsWith('.test.ts')) continue;
      const path = relative(ROOT, join(entry.parentPath, entry.name)).split('\\').join('/');
      // Vendored dependencies are not written here; test helpers are not shipped.
      if (path.startsWith('src/vendor/') || /(^|\/)test-helpers\//.test(path)) continue;
      files.push(path);
    }
  }
  return files.sort();
}

/** The name a function-like node is known by: its own, its variable's, its property's, else its kind. */
function nameOf(node: ts.FunctionLikeDeclaration): string {
  if (node.name) return node.name.getText();
  const parent = node.parent;
  if ((ts.isVariableDeclaration(parent) || ts.isPropertyAssignment(parent)) && parent.name)
    return parent.name.getText();
  return ts.SyntaxKind[node.kind];
}

/** Every function-like node with a body longer than `limit` lines (first to last line inclusive) in one file. */
function longFunctions(path: string, text: string, limit: number): string[] {
  const source = ts.createSourceFile(path, text, ts.ScriptTarget.Latest, true);
  const found: string[] = [];
  const visit = (node: ts.Node): void => {
    if (ts.isFunctionLike(node) && (node as ts.FunctionLikeDeclaration).body) {
      const first = source.getLineAndCharacterOfPosition(node.getStart()).line;
      const last = source.getLineAndCharacterOfPosition(node.getEnd()).line;
      const lines = last - first + 1;
      if (lines > limit)
        found.push(`${path}:${first + 1} ${nameOf(node as ts.FunctionLikeDeclaration)} (${lines} lines)`);
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

describe('function length', () => {
  it('measures a function from its first to its last line and names it by its variable', () => {
    const body = Array.from({ length: 3 }, (_, index) => `  const line${index} = ${index};`).join('\n');
    const text = `export const short = () => {\n${body}\n};\n`;
    expect(longFunctions('example.ts', text, 5)).toEqual([]);
    expect(longFunctions('example.ts', text, 4)).toEqual(['example.ts:1 short (5 lines)']);
  });

  it(`has no function over ${MAX_FUNCTION_LINES} lines in src/ and web/src/`, () => {
    const files = shippedSources();
    expect(files.length).toBeGreaterThan(0);
    const found = files.flatMap((path) =>
      longFunctions(path, readFileSync(join(ROOT, path), 'utf8'), MAX_FUNCTION_LINES),
    );
    expect(found).toEqual([]);
  });
});
