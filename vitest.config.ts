import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    include: ['src/**/*.test.ts', 'web/**/*.test.ts', 'test/**/*.test.ts'],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: 'forks',
    // Fails the run when a test wrote into the repository root (.barometer/ and the like): tests write under os.tmpdir().
    globalSetup: ['test/repository-guard.ts'],
  },
});
