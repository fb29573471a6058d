import { readFile, stat } from 'node:fs/promises';
import { extname, join, resolve } from 'node:path';
import { BarometerValidationError, type ValidationIssue } from '../errors/validation.js';
import { type BarometerConfig, type ConfigFormat, emptyConfig, parseConfigText } from './barometer-config.js';

/** The file names looked for in a directory, in this order. */
export const CONFIG_FILE_NAMES = [
  'barometer.config.json',
  'barometer.config.yaml',
  'barometer.config.yml',
] as const;

const FORMATS: Record<string, ConfigFormat> = { '.json': 'json', '.yaml': 'yaml', '.yml': 'yaml' };

function fail(issue: ValidationIssue, context: string): never {
  throw new BarometerValidationError([issue], context);
}

async function kind(path: string): Promise<'file' | 'directory' | 'missing'> {
  try {
    const info = await stat(path);
    return info.isDirectory() ? 'directory' : 'file';
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return 'missing';
    throw error;
  }
}

async function findInDirectory(directory: string): Promise<string | undefined> {
  const found: string[] = [];
  for (const name of CONFIG_FILE_NAMES) {
    const candidate = join(directory, name);
    if ((await kind(candidate)) === 'file') found.push(candidate);
  }
  // Two config files side by side would leave one silently ignored; make the user choose.
  if (found.length > 1) {
    fail(
      { field: 'path', value: directory, message: `more than one config file: ${found.join(', ')}` },
      'config',
    );
  }
  return found[0];
}

async function readConfigFile(file: string): Promise<BarometerConfig> {
  const format = FORMATS[extname(file).toLowerCase()];
  if (!format) {
    fail(
      {
        field: 'path',
        value: file,
        message: 'unsupported config file type',
        allowed: { values: Object.keys(FORMATS) },
      },
      'config',
    );
  }
  const result = parseConfigText(await readFile(file, 'utf8'), format);
  if (!result.ok) throw new BarometerValidationError(result.issues, `config file ${file}`);
  return result.value;
}

/**
 * Reads and validates barometer's config file. The only I/O in the models folder.
 *
 * @param path a config file (`.json`, `.yaml`, `.yml`) or a directory to look in for `barometer.config.json`,
 *   `barometer.config.yaml` or `barometer.config.yml`.
 *   @default process.cwd()
 * @returns the parsed config; an empty config when a directory holds no config file.
 * @throws BarometerValidationError naming the field (`models.gpt-5.context_length`) when the file is invalid, when an
 *   explicit path does not exist, or when a directory holds more than one config file.
 * @example const config = await loadConfig(); resolveProfile('gpt-5.3-codex', { config, agent: 'codex' });
 */
export async function loadConfig(path?: string): Promise<BarometerConfig> {
  const target = resolve(path ?? process.cwd());
  const found = await kind(target);
  if (found === 'missing')
    fail({ field: 'path', value: path, message: 'no such file or directory' }, 'config');
  if (found === 'file') return readConfigFile(target);
  const file = await findInDirectory(target);
  return file ? readConfigFile(file) : emptyConfig();
}
