import * as z from 'zod';
import { OpenAIChatMessageSchema } from '../compaction/openai-messages.js';

/**
 * `POST /api/v1/compact` (and the MCP tools `compact_history`, `evict_task`, the command `barometer compact`): the
 * request is the compaction core's own schema, re-exported; the answer agrees with the library's
 * `CompactAnswer` (a type-level test checks it).
 */
export { CompactRequestSchema } from '../compaction/compact-request.js';
export { OpenAIChatMessageSchema } from '../compaction/openai-messages.js';

const count = z.number().int().min(0);
const size = z.strictObject({ messages: count, tokens: count });

/** A compaction done: what it removed, where it archived it, the history to send from now on. */
export const CompactAnswerSchema = z
  .strictObject({
    /** `recap` (recap and flush) or `eviction` (completed tasks' outputs replaced by tombstones). */
    mode: z.enum(['recap', 'eviction', 'policy']),
    /** With eviction: each completed task, how many items left the context, and where they went. */
    evicted: z.array(z.strictObject({ task: z.string(), items: count, archive: z.string().nullable() })),
    before: size,
    after: size,
    /** Where the replaced messages are archived (over HTTP, as API addresses; never a path on the server). */
    archives: z.array(z.string()),
    /** The compacted history. */
    messages: z.array(OpenAIChatMessageSchema),
    counter: z.string(),
    /** What went wrong but did not stop the compaction (a failed summarizer replaced by the recap). */
    warnings: z.array(z.string()),
    /** Whether a live session of `sessionId` recorded the compaction. */
    sessionRecorded: z.boolean(),
  })
  .meta({ id: 'CompactAnswer' });
export type CompactAnswer = z.infer<typeof CompactAnswerSchema>;
