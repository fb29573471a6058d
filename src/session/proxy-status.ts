import * as z from 'zod';
import { isoTime } from './iso-time.js';
import type { ProxyStatus } from './session-schemas.js';

/** Where recording a proxied session failed: creating the session, or recording an answer's usage. */
export const ProxyPauseStageSchema = z.enum(['session', 'record']);
export type ProxyPauseStage = z.infer<typeof ProxyPauseStageSchema>;

/**
 * What barometer's proxy does with a session's requests, as the session keeps it (times in epoch ms): `act` (the
 * eviction policy edits them) or `observe` (seen through `/observe` or an observing proxy: never edited, for the
 * rest of the session), and the latest pause, a time when recording failed and the proxy stopped acting.
 */
/**
 * What the proxy's window policy did to the session's sub-agents (docs/rules.md, "Window policy"): the levers on,
 * the lowered budget, the sub-agent conversations and requests lowered, the requests held and for how long.
 */
export const WindowPolicyStateSchema = z.strictObject({
  levers: z.array(z.enum(['thinking', 'hold'])),
  budgetTokens: z.number().int().min(0),
  conversationsLowered: z.number().int().min(0),
  requestsLowered: z.number().int().min(0),
  requestsHeld: z.number().int().min(0),
  heldSeconds: z.number().min(0),
});
export type WindowPolicyState = z.infer<typeof WindowPolicyStateSchema>;

export const ProxyStateSchema = z.strictObject({
  mode: z.enum(['act', 'observe']),
  pause: z
    .strictObject({
      stage: ProxyPauseStageSchema,
      /** The error's catalogue code (BR_ERR_…), or null for an error without one. */
      code: z.string().nullable(),
      /** The error's message: never the request's content or keys. */
      message: z.string().max(500),
      since: z.number(),
      /** When recording worked again and the proxy resumed; null while it lasts. */
      until: z.number().nullable(),
    })
    .nullable(),
  /** Absent when no lever is on and none acted. */
  windowPolicy: WindowPolicyStateSchema.optional(),
});
export type ProxyState = z.infer<typeof ProxyStateSchema>;

/** The proxy's standing as the session's answers show it; null for a session no proxy has seen. */
export function proxyStatus(state: ProxyState | undefined): ProxyStatus | null {
  if (!state) return null;
  const pause = state.pause;
  return {
    mode: state.mode,
    acting: state.mode === 'act' && (pause === null || pause.until !== null),
    pause:
      pause === null
        ? null
        : {
            stage: pause.stage,
            code: pause.code,
            message: pause.message,
            since: isoTime(pause.since),
            until: pause.until === null ? null : isoTime(pause.until),
          },
    ...(state.windowPolicy ? { windowPolicy: state.windowPolicy } : {}),
  };
}
