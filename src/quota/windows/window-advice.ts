import type { WindowForecast } from './window-forecast.js';

/** Windows up to this length are waited out; a longer (weekly) one is optimized against: nobody waits days. @default 300 */
export const LONGEST_WAITED_WINDOW_MINUTES = 300;

/** What the subscription windows advise. */
export interface WindowAdvice {
  action: 'continue' | 'optimize' | 'wait';
  priority: 'low' | 'normal' | 'high' | 'urgent';
  reason: string;
  /** The window that asks to wait, how long (seconds) and until when (epoch ms); null unless `wait`. */
  wait: { id: string; seconds: number; until: number } | null;
}

function clock(ms: number): string {
  return `${new Date(ms).toISOString().slice(11, 16)}Z`;
}

function pace(forecast: WindowForecast): string {
  if (forecast.burnPercentPerHour === null) return 'pace not measured';
  const basis = forecast.burnBasis === 'recent' ? 'recently' : 'on average since the window began';
  return `${forecast.burnPercentPerHour}%/h ${basis}`;
}

function describe(forecast: WindowForecast): string {
  const reset = forecast.resetsAt === null ? 'reset unknown' : `resets ${clock(forecast.resetsAt)}`;
  if (forecast.exhausted) return `${forecast.label} window spent (${forecast.usedPercent}% used), ${reset}`;
  const runs = forecast.runsOutAt === null ? 'not depleting' : `runs out ${clock(forecast.runsOutAt)}`;
  return `${forecast.label} window ${forecast.usedPercent}% used at ${pace(forecast)}: ${runs}, ${reset}`;
}

/**
 * The windows' say in the verdict. A window that will run out before it resets at the measured pace binds: a short
 * one (≤ 5 hours) is waited out — `wait` with the pause after which the share left lasts until the reset (the whole
 * time to the reset when it is spent); a longer one asks to `optimize` (a cheaper model, less thinking), as waiting
 * days helps no one. No binding window: `continue`. The longest wait wins; `null` without any window.
 */
export function windowAdvice(forecasts: readonly WindowForecast[]): WindowAdvice | null {
  if (forecasts.length === 0) return null;
  let wait: WindowAdvice['wait'] = null;
  let optimize = false;
  let spent = false;
  const parts: string[] = [];
  for (const forecast of forecasts) {
    let part = describe(forecast);
    if (forecast.bindsBeforeReset) {
      const short = (forecast.windowMinutes ?? Number.POSITIVE_INFINITY) <= LONGEST_WAITED_WINDOW_MINUTES;
      if (short && forecast.pauseMinutes !== null && forecast.resetsAt !== null) {
        const seconds = Math.ceil(forecast.pauseMinutes * 60);
        if (wait === null || seconds > wait.seconds)
          wait = { id: forecast.id, seconds, until: forecast.at + seconds * 1000 };
        part += forecast.exhausted
          ? `: wait for the reset (${forecast.pauseMinutes} min)`
          : `: before it resets; a pause of ${forecast.pauseMinutes} min now makes the ${forecast.leftPercent}% left last until then`;
        spent ||= forecast.exhausted;
      } else {
        optimize = true;
        part += forecast.exhausted ? '' : ': before it resets; spend less per call';
      }
    }
    parts.push(part);
  }
  const reason = parts.join('; ');
  if (wait !== null) return { action: 'wait', priority: spent ? 'urgent' : 'high', reason, wait };
  if (optimize) return { action: 'optimize', priority: 'normal', reason, wait: null };
  return { action: 'continue', priority: 'low', reason: `${reason}: lasts until its reset`, wait: null };
}
