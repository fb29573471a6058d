/** Client-side routes. The server answers index.html for each of these paths (src/server/dashboard.ts). */
export type Route =
  | { name: 'sessions' }
  | { name: 'session'; id: string }
  | { name: 'archive'; sessionId: string; taskId: string }
  | { name: 'replay' }
  | { name: 'report' }
  | { name: 'regulator' }
  | { name: 'not-found'; path: string };

/** The route of a URL path; a trailing slash is ignored. */
export function matchRoute(pathname: string): Route {
  const path = pathname.length > 1 ? pathname.replace(/\/+$/, '') : pathname;
  if (path === '/' || path === '/sessions') return { name: 'sessions' };
  if (path === '/replay') return { name: 'replay' };
  if (path === '/report') return { name: 'report' };
  if (path === '/regulator') return { name: 'regulator' };
  const archive = /^\/sessions\/([^/]+)\/archives\/([^/]+)$/.exec(path);
  if (archive) {
    try {
      return {
        name: 'archive',
        sessionId: decodeURIComponent(archive[1]!),
        taskId: decodeURIComponent(archive[2]!),
      };
    } catch {
      return { name: 'not-found', path };
    }
  }
  const session = /^\/sessions\/([^/]+)$/.exec(path);
  if (session) {
    try {
      return { name: 'session', id: decodeURIComponent(session[1]!) };
    } catch {
      return { name: 'not-found', path };
    }
  }
  return { name: 'not-found', path };
}

/** The path of a session's page; ids are user-chosen, so they are encoded. */
export function sessionPath(id: string): string {
  return `/sessions/${encodeURIComponent(id)}`;
}

/** The page of the originals an eviction archived (`GET /api/v1/archives/:session/:task`). */
export function archivePath(sessionId: string, taskId: string): string {
  return `${sessionPath(sessionId)}/archives/${encodeURIComponent(taskId)}`;
}

const NAVIGATE_EVENT = 'barometer:navigate';

/** Moves to `path` without reloading the page. */
export function navigate(path: string): void {
  if (path === window.location.pathname) return;
  window.history.pushState(null, '', path);
  window.dispatchEvent(new Event(NAVIGATE_EVENT));
}

/** Calls `listener` whenever the path changes (links, back and forward); returns the unsubscribe. */
export function onNavigate(listener: () => void): () => void {
  window.addEventListener('popstate', listener);
  window.addEventListener(NAVIGATE_EVENT, listener);
  return () => {
    window.removeEventListener('popstate', listener);
    window.removeEventListener(NAVIGATE_EVENT, listener);
  };
}

/**
 * Turns clicks on same-origin links into client-side navigation, leaving modified clicks (new tab,
 * download) and links with a target to the browser.
 */
export function interceptLinks(root: HTMLElement): () => void {
  const onClick = (event: MouseEvent) => {
    if (event.defaultPrevented || event.button !== 0) return;
    if (event.metaKey || event.ctrlKey || event.shiftKey || event.altKey) return;
    const anchor = (event.target as Element | null)?.closest?.('a');
    if (!anchor || anchor.target || anchor.hasAttribute('download')) return;
    const url = new URL(anchor.href, window.location.href);
    // Only the dashboard's own pages; /openapi.json and the API are documents for the browser to open.
    if (url.origin !== window.location.origin || matchRoute(url.pathname).name === 'not-found') return;
    event.preventDefault();
    navigate(url.pathname + url.search);
  };
  root.addEventListener('click', onClick);
  return () => root.removeEventListener('click', onClick);
}
