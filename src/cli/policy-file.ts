import { readFile } from 'node:fs/promises';
import { extname, resolve } from 'node:path';
import { parse as parseYaml } from 'yaml';
import { type EvictionPolicyOptions, EvictionPolicyOptionsSchema } from '../compaction/eviction-policy.js';
import { parseWith } from '../errors/validation.js';
import { UsageError } from './io.js';
import { issuesText } from './issues-text.js';

/**
 * Reads an eviction policy file (`--policy FILE`): the policy's options as JSON, or YAML for `.yaml`/`.yml`,
 * checked by the same schema as the library (unknown keys and values out of range are named).
 * @throws UsageError when the file cannot be read, parsed or checked
 */
export async function readPolicyFile(cwd: string, file: string): Promise<EvictionPolicyOptions> {
  let text: string;
  try {
    text = await readFile(resolve(cwd, file), 'utf8');
  } catch (error) {
    throw new UsageError(
      `cannot read the policy file ${file}: ${(error as NodeJS.ErrnoException).code ?? (error as Error).message}`,
    );
  }
  let value: unknown;
  try {
    value = /^\.ya?ml$/i.test(extname(file)) ? parseYaml(text) : JSON.parse(text);
  } catch (error) {
    throw new UsageError(
      `the policy file ${file} is not valid ${/^\.ya?ml$/i.test(extname(file)) ? 'YAML' : 'JSON'}: ${(error as Error).message}`,
    );
  }
  const parsed = parseWith(EvictionPolicyOptionsSchema, value ?? {});
  if (!parsed.ok)
    throw new UsageError(`the policy file ${file} is invalid:\n${issuesText(parsed.issues, false)}`);
  return parsed.value;
}
