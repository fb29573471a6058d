/**
 * `npm start`: builds what is stale (scripts/build.mjs), then runs `barometer serve` in this same process, with the
 * arguments given after `--` (`npm start -- --port 9000`): one Node start rather than two.
 */
import { build } from './build.mjs';

build({ onlyStale: true });
process.argv.splice(2, 0, 'serve');
await import('../dist/cli/main.js');
