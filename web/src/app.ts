import { html } from 'htm/preact';
import { useEffect, useRef, useState } from 'preact/hooks';
import { onUnauthorized, setApiKey } from './api.js';
import { ArchivePage } from './pages/archive-page.js';
import { RegulatorPage } from './pages/regulator-page.js';
import { ReplayPage } from './pages/replay-page.js';
import { ReportPage } from './pages/report-page.js';
import { SessionPage } from './pages/session-page.js';
import { SessionsPage } from './pages/sessions-page.js';
import { interceptLinks, matchRoute, onNavigate, type Route } from './router.js';

const NAV: ReadonlyArray<{ path: string; label: string; routes: Route['name'][] }> = [
  { path: '/', label: 'Sessions', routes: ['sessions', 'session', 'archive'] },
  { path: '/report', label: 'Report', routes: ['report'] },
  { path: '/replay', label: 'Replay', routes: ['replay'] },
  { path: '/regulator', label: 'Regulator', routes: ['regulator'] },
];

const TITLES: Readonly<Record<Route['name'], string>> = {
  sessions: 'Sessions',
  session: 'Session',
  archive: 'Archive',
  replay: 'Replay',
  report: 'Report',
  regulator: 'Regulator',
  'not-found': 'Not found',
};

/** Asks for the API key a protected service wants, keeps it for this tab, and reloads the page with it. */
function KeyPrompt() {
  const [value, setValue] = useState('');
  return html`<section class="key-prompt" aria-labelledby="key-title">
    <h2 id="key-title">This barometer service requires an API key</h2>
    <p>Paste a key with the <code>read</code> scope (the service's <code>--api-key</code> or <code>BAROMETER_API_KEYS</code>).
      It is kept in this tab only.</p>
    <form
      onSubmit=${(event: Event) => {
        event.preventDefault();
        if (value.trim() === '') return;
        setApiKey(value.trim());
        window.location.reload();
      }}
    >
      <label>API key <input type="password" name="api-key" autocomplete="off" value=${value}
        onInput=${(event: Event) => setValue((event.target as HTMLInputElement).value)} /></label>
      <button type="submit" class="button">Use this key</button>
    </form>
  </section>`;
}

/** The dashboard shell: navigation, and the page of the current path. */
export function App() {
  const [route, setRoute] = useState<Route>(() => matchRoute(window.location.pathname));
  const [needsKey, setNeedsKey] = useState(false);
  useEffect(
    () =>
      onUnauthorized(() => {
        // A stored key the service refused is dropped, so the prompt asks again.
        setApiKey(null);
        setNeedsKey(true);
      }),
    [],
  );
  const main = useRef<HTMLElement>(null);

  useEffect(() => onNavigate(() => setRoute(matchRoute(window.location.pathname))), []);
  useEffect(() => interceptLinks(document.body), []);
  const first = useRef(true);
  useEffect(() => {
    document.title = `${
      route.name === 'session' ? route.id : route.name === 'archive' ? route.taskId : TITLES[route.name]
    } · barometer`;
    // After a client-side move, start keyboard and screen-reader users at the new page, as a load would.
    if (first.current) first.current = false;
    else main.current?.focus();
  }, [route]);

  return html`<a class="skip-link" href="#main">Skip to content</a>
    <header class="top">
      <a href="/" class="brand" aria-label="barometer, sessions">
        <svg viewBox="0 0 32 32" width="22" height="22" aria-hidden="true">
          <rect width="32" height="32" rx="7" fill="#0b2a3c" />
          <rect x="7" y="18" width="4" height="8" rx="1" fill="#2da44e" />
          <rect x="14" y="12" width="4" height="14" rx="1" fill="#d4a72c" />
          <rect x="21" y="6" width="4" height="20" rx="1" fill="#cf222e" />
        </svg>
        barometer
      </a>
      <nav aria-label="Main">
        <ul>
          ${NAV.map(
            (item) =>
              html`<li>
                <a href=${item.path} aria-current=${item.routes.includes(route.name) ? 'page' : undefined}>${item.label}</a>
              </li>`,
          )}
        </ul>
      </nav>
    </header>
    <main id="main" ref=${main} tabindex="-1">${needsKey ? html`<${KeyPrompt} />` : page(route)}</main>
    <footer class="foot muted">
      Everything here comes from the barometer API at <code>/api/v1</code> (<a href="/openapi.json">OpenAPI</a>).
    </footer>`;
}

function page(route: Route) {
  switch (route.name) {
    case 'sessions':
      return html`<${SessionsPage} />`;
    case 'session':
      return html`<${SessionPage} key=${route.id} id=${route.id} />`;
    case 'archive':
      return html`<${ArchivePage} sessionId=${route.sessionId} taskId=${route.taskId} />`;
    case 'replay':
      return html`<${ReplayPage} />`;
    case 'report':
      return html`<${ReportPage} />`;
    case 'regulator':
      return html`<${RegulatorPage} />`;
    case 'not-found':
      return html`<section>
        <h1>Page not found</h1>
        <p>Nothing lives at <code>${route.path}</code>. <a href="/">Back to the sessions</a>.</p>
      </section>`;
  }
}
