import { existsSync } from 'node:fs';
import { join, resolve } from 'node:path';
import type { BarometerConfig } from '../models/barometer-config.js';
import type { CliIo } from './io.js';

// The names `loadConfig` looks for (CONFIG_FILE_NAMES), repeated here: importing them would load the config reader.
const CONFIG_NAMES = ['barometer.config.json', 'barometer.config.yaml', 'barometer.config.yml'];

/**
 * The config file (`--config <path>`, else one in the working directory), loaded only when there is one: the config
 * reader and its YAML parser cost the lean entries (`statusline`, `report`) start-up time they otherwise skip.
 */
export async function configFor(io: CliIo, path: string | undefined): Promise<BarometerConfig | undefined> {
  if (path === undefined && !CONFIG_NAMES.some((name) => existsSync(join(io.cwd, name)))) return undefined;
  const { loadConfig } = await import('../models/load-config.js');
  return loadConfig(path === undefined ? io.cwd : resolve(io.cwd, path));
}

/**
 * The config file a command would read, as an absolute path (`--config <path>`, else $BAROMETER_CONFIG, else one in
 * the working directory), or undefined: what `wrap` hands the service it starts, which runs in the data folder.
 */
export function configPathFor(io: CliIo, path: string | undefined): string | undefined {
  const given = path ?? io.env.BAROMETER_CONFIG;
  if (given !== undefined && given !== '') return resolve(io.cwd, given);
  const name = CONFIG_NAMES.find((candidate) => existsSync(join(io.cwd, candidate)));
  return name === undefined ? undefined : join(io.cwd, name);
}
