import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import type { z } from 'zod';
import { type EvictionPolicyOptions, EvictionPolicyOptionsSchema } from '../../compaction/eviction-policy.js';
import { ReplayQuerySchema, ReplayResultSchema } from '../../contract/replay.js';
import { parseWith, type ValidationIssue } from '../../errors/validation.js';
import { sendInvalid } from '../../http/problem.js';
import type { ApiRoute } from '../../http/route-table.js';
import { replayLogText } from '../../session/replay.js';
import { replayWhatIf } from '../../session/what-if-replay.js';
import { ArchiveStore, readArchiveFile } from '../../store/archive.js';

const EXAMPLE =
  'POST /api/v1/replay?format=auto&whatIf=true (body: the log file, as text/plain or application/x-ndjson)';

/** The `policy` query parameter: JSON of the policy's options, checked by the library's schema. */
function policyOf(
  text: string | undefined,
): { ok: true; value?: EvictionPolicyOptions } | { ok: false; issues: ValidationIssue[] } {
  if (text === undefined) return { ok: true };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return {
      ok: false,
      issues: [{ field: 'policy', value: text, message: 'must be the JSON of the eviction policy options' }],
    };
  }
  const parsed = parseWith(EvictionPolicyOptionsSchema, value);
  if (parsed.ok) return { ok: true, value: parsed.value };
  return {
    ok: false,
    issues: parsed.issues.map((issue) => ({
      ...issue,
      field: issue.field ? `policy.${issue.field}` : 'policy',
    })),
  };
}

/** `POST /api/v1/replay`: the same replay as `barometer replay --json`, on an uploaded log. */
export function replayRoutes(bodyLimit: number, archiveDir: string): ApiRoute[] {
  return [
    {
      method: 'POST',
      url: '/api/v1/replay',
      scope: 'text',
      summary:
        "Replay a recorded agent session log (body: the log as text); whatIf=true also replays barometer's eviction policy on it",
      query: ReplayQuerySchema,
      example: EXAMPLE,
      textBody: 'The log file: JSON Lines, or one JSON document (OpenHands)',
      responses: {
        '200': {
          description:
            '{ format, model, contextWindow, calls, compactions, summary }, and with whatIf=true `whatIf` ({ real, policy, savedPercent, costSavedPercent, archiveVerified, … }) and calls[].whatIfPromptTokens',
          schema: ReplayResultSchema,
        },
      },
      options: { bodyLimit },
      handler: async (request, reply) => {
        if (typeof request.body !== 'string' || request.body.trim() === '') {
          return sendInvalid(
            reply,
            [{ field: '(body)', value: null, message: 'must be the text of a session log' }],
            EXAMPLE,
          );
        }
        const {
          whatIf,
          policy: policyText,
          ...options
        } = request.query as z.output<typeof ReplayQuerySchema>;
        const policy = policyOf(policyText);
        if (!policy.ok) return sendInvalid(reply, policy.issues, EXAMPLE);
        if (whatIf !== 'true') {
          if (policyText !== undefined) {
            return sendInvalid(
              reply,
              [{ field: 'policy', value: policyText, message: 'goes with whatIf=true' }],
              EXAMPLE,
            );
          }
          return replayLogText(request.body, options);
        }
        // The evicted content goes to a directory of its own, read back and checked, then removed: the service
        // keeps nothing of an uploaded log.
        const root = await mkdtemp(join(tmpdir(), 'barometer-replay-upload-'));
        try {
          return await replayWhatIf(request.body, {
            ...options,
            archive: new ArchiveStore({ root, durable: false }),
            reader: { readFile: readArchiveFile },
            sessionId: 'whatif',
            // Sized as the service's own archive folder writes tombstones: the temporary name must not change figures.
            tombstoneArchiveDir: archiveDir,
            ...(policy.value ? { policy: policy.value } : {}),
          });
        } finally {
          await rm(root, { recursive: true, force: true });
        }
      },
    },
  ];
}

/** The content types the replay route reads as text. */
export const REPLAY_CONTENT_TYPES = [
  'application/json',
  'text/plain',
  'application/x-ndjson',
  'application/jsonl',
  'application/octet-stream',
] as const;
