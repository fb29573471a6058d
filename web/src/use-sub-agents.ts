import { useEffect, useState } from 'preact/hooks';
import type { SessionView, SubAgentsAnswer } from '../../src/contract/index.js';
import { api } from './api.js';

/** How often a parent's page reads its sub-agents again (their calls do not change the parent's view). */
const REFRESH_MS = 10_000;

/**
 * A session's sub-agents and its totals with them: read when the session lists any, again when the session changes
 * and every {@link REFRESH_MS} while the page is open. Null until read, or when it has none.
 */
export function useSubAgents(view: SessionView | null): SubAgentsAnswer | null {
  const [answer, setAnswer] = useState<SubAgentsAnswer | null>(null);
  const id = view?.id;
  const count = view?.subAgents.length ?? 0;
  const generations = view?.generations ?? 0;
  useEffect(() => {
    if (id === undefined || count === 0) {
      setAnswer(null);
      return;
    }
    let live = true;
    const read = () =>
      api.getSubAgents(id).then(
        (next) => {
          if (live) setAnswer(next);
        },
        () => {
          // A failed read keeps the last answer; the next change or tick reads again.
        },
      );
    void read();
    const timer = setInterval(read, REFRESH_MS);
    return () => {
      live = false;
      clearInterval(timer);
    };
  }, [id, count, generations]);
  return answer;
}
