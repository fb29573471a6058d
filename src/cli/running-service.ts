import { readServiceFile, type ServiceRecord } from '../store/service-file.js';

/** What answers at a URL when it is a barometer service. */
export interface BarometerAnswer {
  /** It serves the proxy routes (`barometer proxy`), not only the API and dashboard (`barometer serve`). */
  proxy: boolean;
}

/**
 * Whether a barometer service answers at `url`: its `/openapi.json` is titled barometer; `proxy` says whether it
 * lists the proxy routes. Undefined when nothing answers in `timeoutMs`, or something else does.
 */
export async function barometerAt(url: string, timeoutMs = 1000): Promise<BarometerAnswer | undefined> {
  try {
    const answer = await fetch(`${url}/openapi.json`, { signal: AbortSignal.timeout(timeoutMs) });
    if (!answer.ok) return undefined;
    const document = (await answer.json()) as { info?: { title?: unknown }; paths?: Record<string, unknown> };
    if (document.info?.title !== 'barometer') return undefined;
    const paths = document.paths ?? {};
    return { proxy: paths['/v1/messages'] !== undefined && paths['/v1/responses'] !== undefined };
  } catch {
    return undefined;
  }
}

/** Whether a process with this pid runs (EPERM: it does, as another user). */
export function processRuns(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM';
  }
}

/** A service found from its data folder's service file, and what answers at its URL. */
export interface RunningService {
  record: ServiceRecord;
  answer: BarometerAnswer;
}

/**
 * The barometer service of a data folder: the one its `service.json` names, if that process still runs and its URL
 * answers as barometer. A stale file (its process gone, or something else at its URL) counts as none.
 */
export async function runningService(dataDir: string, timeoutMs = 1000): Promise<RunningService | undefined> {
  const record = readServiceFile(dataDir);
  if (record === undefined || !processRuns(record.pid)) return undefined;
  const answer = await barometerAt(record.url, timeoutMs);
  return answer === undefined ? undefined : { record, answer };
}
