import { existsSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';

/** The native Codex binary of the devDependency, for this platform. */
export function codexBinary(): string | undefined {
  const targets: Record<string, string> = {
    'linux-x64': 'x86_64-unknown-linux-musl',
    'linux-arm64': 'aarch64-unknown-linux-musl',
    'darwin-x64': 'x86_64-apple-darwin',
    'darwin-arm64': 'aarch64-apple-darwin',
  };
  const platform = `${process.platform}-${process.arch}`;
  try {
    const packageJson = createRequire(import.meta.url).resolve(`@openai/codex-${platform}/package.json`);
    const binary = join(dirname(packageJson), 'vendor', targets[platform] ?? '', 'bin', 'codex');
    return existsSync(binary) ? binary : undefined;
  } catch {
    return undefined;
  }
}
