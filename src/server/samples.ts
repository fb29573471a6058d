import { readFile } from 'node:fs/promises';
import type { LogFormat } from '../usage/session-log.js';

/** The recorded sessions shipped in `samples/` (see samples/README.md for their sources and licence). */
export const SAMPLES: ReadonlyArray<{ name: string; file: string; format: LogFormat; description: string }> =
  [
    {
      name: 'codex-compaction',
      file: 'codex-compaction.jsonl',
      format: 'codex',
      description:
        'Codex CLI, gpt-5.3-codex: 286 calls over a day, one automatic compaction at 209,950 tokens',
    },
    {
      name: 'claude-code-small',
      file: 'claude-code-small.jsonl',
      format: 'claude-code',
      description: 'Claude Code, claude-sonnet-4: 31 calls over 16 minutes',
    },
    {
      name: 'gemini-cli-small',
      file: 'gemini-cli-small.jsonl',
      format: 'gemini-cli',
      description: 'Gemini CLI: 6 calls with a model switch',
    },
    {
      name: 'openhands-small',
      file: 'openhands-small.json',
      format: 'openhands',
      description: 'OpenHands trajectory: 4 LLM calls',
    },
  ];

/** samples/ at the package root, from src/server or dist/server alike. */
const SAMPLES_DIR = new URL('../../samples/', import.meta.url);

export function readSample(name: string): Promise<string> | undefined {
  const sample = SAMPLES.find((candidate) => candidate.name === name);
  return sample ? readFile(new URL(sample.file, SAMPLES_DIR), 'utf8') : undefined;
}
