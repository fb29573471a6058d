/**
 * Adds the lock-file entries of @biomejs/biome's platform binaries that this machine's registry mirror does not
 * serve (404), so that `npm ci` accepts the lock file. Each entry names its os/cpu, so npm skips it on every
 * other platform and never fetches it. Run after any `npm install` that rewrites package-lock.json:
 *   npx tsx scripts/complete-lockfile.ts
 * See docs/decisions/002-lockfile-platform-entries.md.
 */
import { readFileSync, writeFileSync } from 'node:fs';

const path = new URL('../package-lock.json', import.meta.url);
const lock = JSON.parse(readFileSync(path, 'utf8')) as {
  packages: Record<string, { version?: string; optionalDependencies?: Record<string, string> }>;
};
const biome = lock.packages['node_modules/@biomejs/biome'];
const platforms: Record<string, { os: string; cpu: string; libc?: string }> = {
  'android-arm64': { os: 'android', cpu: 'arm64' },
  'android-x64': { os: 'android', cpu: 'x64' },
  'darwin-arm64': { os: 'darwin', cpu: 'arm64' },
  'darwin-x64': { os: 'darwin', cpu: 'x64' },
  'linux-arm64': { os: 'linux', cpu: 'arm64', libc: 'glibc' },
  'linux-arm64-musl': { os: 'linux', cpu: 'arm64', libc: 'musl' },
  'linux-x64': { os: 'linux', cpu: 'x64', libc: 'glibc' },
  'linux-x64-musl': { os: 'linux', cpu: 'x64', libc: 'musl' },
  'win32-arm64': { os: 'win32', cpu: 'arm64' },
  'win32-x64': { os: 'win32', cpu: 'x64' },
};
let added = 0;
for (const [name, version] of Object.entries(biome?.optionalDependencies ?? {})) {
  const key = `node_modules/${name}`;
  const platform = platforms[name.replace('@biomejs/cli-', '')];
  if (lock.packages[key] || !platform) continue;
  lock.packages[key] = {
    version,
    cpu: [platform.cpu],
    dev: true,
    ...(platform.libc ? { libc: [platform.libc] } : {}),
    license: 'MIT OR Apache-2.0',
    optional: true,
    os: [platform.os],
    engines: { node: '>=14.21.3' },
  } as never;
  added++;
}
const { '': root, ...rest } = lock.packages;
lock.packages = {
  '': root!,
  ...Object.fromEntries(Object.entries(rest).sort(([a], [b]) => (a < b ? -1 : 1))),
};
writeFileSync(path, `${JSON.stringify(lock, null, 2)}\n`);
console.log(`added ${added} platform entries`);
