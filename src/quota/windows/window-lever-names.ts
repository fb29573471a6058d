import * as z from 'zod';

/**
 * The levers of the window policy, each its own switch (off unless listed): `thinking` lowers the thinking budget of
 * sub-agents' conversations, `hold` holds sub-agents' requests, while the 5-hour window binds. One name everywhere:
 * `--window-policy thinking,hold`, `BAROMETER_WINDOW_POLICY`, `window_policy` in barometer.config.json, the proxy
 * option `windowPolicy`.
 */
export const WINDOW_LEVERS = ['thinking', 'hold'] as const;
export type WindowLever = (typeof WINDOW_LEVERS)[number];

/** The levers switched on, each at most once; empty (the default): nothing acts on a window. */
export const WindowPolicySchema = z
  .array(z.enum(WINDOW_LEVERS))
  .max(WINDOW_LEVERS.length)
  .refine((levers) => new Set(levers).size === levers.length, 'names a lever twice');
