import { useEffect, useRef, useState } from 'preact/hooks';

/** The current time, refreshed every `intervalMs`, so "updated 5s ago" ticks without new data. */
export function useNow(intervalMs = 1000): number {
  const [now, setNow] = useState(() => Date.now());
  useEffect(() => {
    const timer = window.setInterval(() => setNow(Date.now()), intervalMs);
    return () => window.clearInterval(timer);
  }, [intervalMs]);
  return now;
}

export type StreamStatus = 'connecting' | 'live' | 'reconnecting' | 'closed';

/**
 * Subscribes to a server-sent event stream and calls the handler of each named event with its parsed data.
 * EventSource reconnects by itself after a drop; the status says whether updates are flowing.
 */
export function useEventStream(
  url: string | null,
  handlers: Record<string, (data: unknown) => void>,
): StreamStatus {
  const [status, setStatus] = useState<StreamStatus>('connecting');
  // The latest handlers, without reconnecting each time the page re-renders with new closures.
  const current = useRef(handlers);
  current.current = handlers;
  const names = Object.keys(handlers).sort().join(',');

  useEffect(() => {
    if (url === null) return;
    setStatus('connecting');
    const source = new EventSource(url);
    source.onopen = () => setStatus('live');
    // CLOSED means the browser gave up (the stream answered with an error status); otherwise it retries.
    source.onerror = () => setStatus(source.readyState === EventSource.CLOSED ? 'closed' : 'reconnecting');
    const listeners = names.split(',').map((name) => {
      const listener = (event: MessageEvent<string>) => {
        setStatus('live');
        let data: unknown;
        try {
          data = JSON.parse(event.data);
        } catch {
          return;
        }
        current.current[name]?.(data);
      };
      source.addEventListener(name, listener as EventListener);
      return [name, listener] as const;
    });
    return () => {
      for (const [name, listener] of listeners) source.removeEventListener(name, listener as EventListener);
      source.close();
    };
  }, [url, names]);

  return status;
}
