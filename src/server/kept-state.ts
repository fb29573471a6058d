import type { FastifyBaseLogger } from 'fastify';
import { importJsonFile, importJsonFolder } from '../store/import-json-files.js';
import { KeyValueTable } from '../store/key-value-table.js';
import type { StateDatabase } from '../store/state-database.js';
import type { KeptWebhookState } from './webhooks/webhook-service.js';

/** The webhooks' row of the data dir's database; an older release's `webhooks.json` is read into it once. */
export function keptWebhooks(
  database: StateDatabase,
  file: string,
  log: FastifyBaseLogger,
): KeptWebhookState {
  const table = new KeyValueTable(database, 'webhooks');
  const keptAs = importJsonFile(file, table, 'state');
  if (keptAs) log.info({ file, keptAs }, 'webhooks imported into the database');
  return { read: () => table.get('state'), write: (text: string) => table.set('state', text) };
}

/** The proxy's rows (one per session); an older release's `<data dir>/proxy/` folder is read into them once. */
export function keptProxySessions(
  database: StateDatabase,
  folder: string,
  log: FastifyBaseLogger,
): KeyValueTable {
  const table = new KeyValueTable(database, 'proxy-sessions');
  const imported = importJsonFolder(folder, table);
  if (imported) log.info(imported, "the proxy's sessions imported into the database");
  return table;
}
