import { readdirSync, readFileSync } from 'node:fs';
import { join, relative } from 'node:path';
import { fileURLToPath } from 'node:url';
import ts from 'typescript';
import { describe, expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));

/** The source files whose strings users read: help texts, route and tool descriptions, messages, the dashboard. */
function shippedSources(): string[] {
  const files: string[] = [];
  for (const folder of ['src', 'web/src']) {
    for (const entry of readdirSync(join(ROOT, folder), { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.tsx?$/.test(entry.name) || /\.test\.tsx?$/.test(entry.name)) continue;
      const path = join(entry.parentPath, entry.name);
      // Test helpers and fixtures ship nothing a user reads.
      if (/[/\\](test-helpers|fixtures)[/\\]/.test(path)) continue;
      files.push(path);
    }
  }
  return files;
}

/** Every string a file's code holds (literals and template parts), never its comments. */
function stringsIn(name: string, text: string): Array<{ line: number; text: string }> {
  const source = ts.createSourceFile(name, text, ts.ScriptTarget.Latest, true);
  const found: Array<{ line: number; text: string }> = [];
  const visit = (node: ts.Node): void => {
    if (
      ts.isStringLiteral(node) ||
      ts.isNoSubstitutionTemplateLiteral(node) ||
      ts.isTemplateHead(node) ||
      ts.isTemplateMiddle(node) ||
      ts.isTemplateTail(node)
    ) {
      found.push({ line: source.getLineAndCharacterOfPosition(node.getStart()).line + 1, text: node.text });
    }
    ts.forEachChild(node, visit);
  };
  visit(source);
  return found;
}

/**
 * "seed 000" is how barometer's own design notes number the five systems it takes its rules from; a user reads
 * what a thing does ("the context-pressure regulator"), and docs/rules.md names the sources.
 */
const INTERNAL_WORDS = /\bseeds?\b|DESIGN\.md/i;

describe('what users read names what things do, not the design notes', () => {
  it('no string in src/ or web/src/ says "seed" or cites DESIGN.md', () => {
    const files = shippedSources();
    expect(files.length).toBeGreaterThan(100);
    const offending = files.flatMap((path) =>
      stringsIn(path, readFileSync(path, 'utf8'))
        .filter(({ text }) => INTERNAL_WORDS.test(text))
        .map(({ line, text }) => `${relative(ROOT, path)}:${line}: ${text.slice(0, 120)}`),
    );
    expect(offending).toEqual([]);
  });

  it('the checker finds a seed number in a template literal and ignores it in a comment', () => {
    // A template literal with a placeholder, written without one here: `Evaluate (seed ${1}00)`.
    const text = `// seed 000 in a comment\nconst a = \`Evaluate (seed $\{1}00)\`;\nconst b = "the regulator";\n`;
    expect(stringsIn('x.ts', text).filter(({ text: string }) => INTERNAL_WORDS.test(string))).toEqual([
      { line: 2, text: 'Evaluate (seed ' },
    ]);
  });

  it('the user documents other than docs/rules.md (which names the sources) say no "seed 00x"', () => {
    for (const document of ['docs/errors.md', 'docs/mcp.md', 'docs/sessions-api.md']) {
      const text = readFileSync(join(ROOT, document), 'utf8');
      expect(text.match(/seed \d{3}/gi) ?? [], document).toEqual([]);
    }
  });

  it('docs/rules.md cites no DESIGN.md and names each of the five source systems', () => {
    const rules = readFileSync(join(ROOT, 'docs/rules.md'), 'utf8');
    expect(rules).not.toContain('DESIGN.md');
    for (const source of [
      'context-pressure regulator',
      'lloyal-agents',
      'OpenClaw',
      'Dominds',
      'Cognition Σ',
    ])
      expect(rules, source).toContain(source);
  });
});
