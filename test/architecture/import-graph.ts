import { readdirSync, readFileSync, statSync } from 'node:fs';
import { dirname, join, relative, resolve } from 'node:path';

/** One import of a file: what it names, whether it is type-only, and the repository file it resolves to. */
export interface ImportEdge {
  from: string;
  specifier: string;
  typeOnly: boolean;
  /** `import('…')`: loaded only when the code runs it. */
  dynamic?: boolean;
  /** Repository-relative path of the imported file, or null for a package. */
  to: string | null;
}

const IMPORT = /(?:^|\n)\s*(import|export)\s+(type\s+)?([^'";]*?\s+from\s+)?['"]([^'"]+)['"]/g;
const DYNAMIC = /\bimport\(\s*['"]([^'"]+)['"]\s*\)/g;

/** The imports of one source text (static, re-exports, `import type`, dynamic). */
export function importsOf(text: string): Array<{ specifier: string; typeOnly: boolean; dynamic?: boolean }> {
  const found: Array<{ specifier: string; typeOnly: boolean; dynamic?: boolean }> = [];
  // Comments are not code: an example in a JSDoc must not count as an import.
  const code = text.replace(/\/\*[\s\S]*?\*\//g, '').replace(/(^|[^:])\/\/.*$/gm, '$1');
  for (const match of code.matchAll(IMPORT)) {
    const [, keyword, typeWord, clause, specifier] = match;
    if (keyword === 'export' && !clause) continue;
    const typeOnly =
      typeWord !== undefined || /^\{\s*(type\s+[\w$]+\s*,?\s*)+\}\s+from\s+$/.test(clause ?? '');
    found.push({ specifier: specifier!, typeOnly });
  }
  for (const match of code.matchAll(DYNAMIC))
    found.push({ specifier: match[1]!, typeOnly: false, dynamic: true });
  return found;
}

function walk(directory: string, files: string[]): void {
  for (const name of readdirSync(directory)) {
    if (name === 'node_modules' || name === 'dist' || name.startsWith('.')) continue;
    const path = join(directory, name);
    if (statSync(path).isDirectory()) walk(path, files);
    else if (name.endsWith('.ts') && !name.endsWith('.d.ts')) files.push(path);
  }
}

/** Every import edge of the `.ts` files under `folders` (repository-relative), resolved to files. */
export function importGraph(root: string, folders: readonly string[]): ImportEdge[] {
  const files: string[] = [];
  for (const folder of folders) walk(join(root, folder), files);
  const edges: ImportEdge[] = [];
  for (const file of files) {
    const from = relative(root, file);
    for (const { specifier, typeOnly, dynamic } of importsOf(readFileSync(file, 'utf8'))) {
      const to = specifier.startsWith('.')
        ? relative(root, resolve(dirname(file), specifier)).replace(/\.js$/, '.ts')
        : null;
      edges.push({ from, specifier, typeOnly, ...(dynamic ? { dynamic } : {}), to });
    }
  }
  return edges;
}

/** A cycle among files (following value and type imports alike), as a path, or null. */
export function findCycle(edges: readonly ImportEdge[]): string[] | null {
  const next = new Map<string, string[]>();
  for (const edge of edges) {
    if (edge.to === null) continue;
    next.set(edge.from, [...(next.get(edge.from) ?? []), edge.to]);
  }
  const state = new Map<string, 'visiting' | 'done'>();
  const stack: string[] = [];
  const visit = (node: string): string[] | null => {
    if (state.get(node) === 'done') return null;
    if (state.get(node) === 'visiting') return [...stack.slice(stack.indexOf(node)), node];
    state.set(node, 'visiting');
    stack.push(node);
    for (const target of next.get(node) ?? []) {
      const cycle = visit(target);
      if (cycle) return cycle;
    }
    stack.pop();
    state.set(node, 'done');
    return null;
  };
  for (const node of next.keys()) {
    const cycle = visit(node);
    if (cycle) return cycle;
  }
  return null;
}

/** Every file reachable from `entry` through value imports (type-only imports load nothing at run time). */
export function reachable(
  edges: readonly ImportEdge[],
  entry: string,
): { files: Set<string>; packages: Set<string> } {
  const files = new Set<string>([entry]);
  const packages = new Set<string>();
  const queue = [entry];
  while (queue.length) {
    const file = queue.pop()!;
    for (const edge of edges) {
      if (edge.from !== file || edge.typeOnly) continue;
      if (edge.to === null) packages.add(edge.specifier);
      else if (!files.has(edge.to)) {
        files.add(edge.to);
        queue.push(edge.to);
      }
    }
  }
  return { files, packages };
}
