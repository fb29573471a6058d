/**
 * `npm run kv-engines`: installs the real llama.cpp engines of the KV suites (lloyal's native binary and
 * node-llama-cpp with its CPU build) into `test/kv-engines/node_modules`, from that folder's own lock file, with
 * `--omit=optional` so that node-llama-cpp's optional GPU builds (CUDA, Vulkan: ~600 MB) stay out
 * (docs/decisions/101-kv-engines-installed-apart.md). `.ci/run` runs it after `npm ci`.
 *
 * The engines are built for linux-x64 only: elsewhere it installs nothing and says why (the suites say so too).
 * Plain JavaScript, run by plain Node, like scripts/build.mjs.
 */
import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';

const FOLDER = fileURLToPath(new URL('../test/kv-engines/', import.meta.url));

if (process.platform !== 'linux' || process.arch !== 'x64') {
  console.log(
    `kv-engines: nothing installed: the native llama.cpp engines of test/kv-engines are built for linux-x64 only ` +
      `(this is ${process.platform}-${process.arch}); the KV engine suites say so and do not run.`,
  );
  process.exit(0);
}

// Under `npm run`, npm_execpath is the npm that runs us: the same npm installs the engines.
const npm = process.env.npm_execpath;
const [command, prefix] = npm ? [process.execPath, [npm]] : ['npm', []];
const result = spawnSync(command, [...prefix, 'ci', '--omit=optional', '--no-audit', '--no-fund'], {
  cwd: FOLDER,
  stdio: 'inherit',
});
if (result.error) {
  console.error(`kv-engines: could not run npm: ${result.error.message}`);
  process.exit(1);
}
process.exit(result.status ?? 1);
