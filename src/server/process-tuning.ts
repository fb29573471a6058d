import { setFlagsFromString } from 'node:v8';

/** Set (to anything but an empty string), `barometer serve` leaves V8's heap settings as they are. */
export const V8_DEFAULTS_ENV = 'BAROMETER_V8_DEFAULTS';

/** The V8 settings the service changes (docs/decisions/012-service-heap.md has the figures). */
export const SERVICE_V8_FLAGS = ['--no-allocation-site-pretenuring'] as const;

/**
 * Tunes V8 for a process whose job is to run the service (`barometer serve`), before the app is built: turns off
 * allocation-site pretenuring. With it on, V8 watches which object literals survive its first young-generation
 * collections; at start-up, when the young generation is still small, a session's per-update objects (its state,
 * the verdict's arrays) outlive a collection as often as not, so V8 may start allocating them straight in the old
 * generation, where they die young and keep what they point to alive; a process that took that turn spent 25 %
 * more CPU on every usage post, for as long as it ran (docs/decisions/012-service-heap.md). Off, every process
 * runs like the lucky ones. It changes where objects are allocated, nothing of what the program does.
 *
 * Called by the CLI only: a library user's process keeps its own settings. Returns the flags it set (none when
 * `BAROMETER_V8_DEFAULTS` is set).
 */
export function tuneServiceProcess(
  env: Readonly<Record<string, string | undefined>> = process.env,
): string[] {
  if (env[V8_DEFAULTS_ENV]) return [];
  for (const flag of SERVICE_V8_FLAGS) setFlagsFromString(flag);
  return [...SERVICE_V8_FLAGS];
}
