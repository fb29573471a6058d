import * as z from 'zod';
import { IdSchema } from '../ids/id-schema.js';
import { CompletedTaskSchema } from './compact-messages.js';

const PERCENTAGE = 'must be a percentage from 0 to 100';

/** A count of `unit` from 0 to `max`, refused in barometer's words (the CLI's flags are checked by it too). */
function wholeNumber(unit: string, max: number) {
  const message = `must be a whole number of ${unit} from 0 to ${max}`;
  return z.number({ error: message }).int(message).min(0, message).max(max, message);
}

/**
 * A compaction request as a surface receives it (`POST /api/v1/compact`, the MCP tools `compact_history` and
 * `evict_task`, the flags of `barometer compact`): an OpenAI chat history, optionally the completed tasks whose tagged outputs to evict, the live
 * session to tell, and the recap's options. One schema, so that every surface validates and documents it alike.
 */
export const CompactRequestSchema = z.strictObject({
  messages: z.array(z.unknown()),
  /** Completed tasks: their tagged tool outputs (`task_id`) are evicted instead of a recap being made. */
  tasks: z.array(CompletedTaskSchema).optional(),
  sessionId: IdSchema.optional(),
  keepTurns: wholeNumber('turns', 10_000).optional(),
  /** The kept turns are shortened to at most this many tokens, at a step boundary. @default 20,000 */
  keepTokens: wholeNumber('tokens', 100_000_000).optional(),
  /** A compaction saving less than this share of the history's tokens is refused. @default 5 */
  minGainPercent: z.number({ error: PERCENTAGE }).min(0, PERCENTAGE).max(100, PERCENTAGE).optional(),
});
export type CompactRequestInput = z.infer<typeof CompactRequestSchema>;
