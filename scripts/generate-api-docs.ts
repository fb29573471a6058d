/**
 * Writes the generated reference of docs/sessions-api.md (between its reference markers) from the route table
 * and the schemas: `npm run docs:api`. src/server/route-table.test.ts fails when the file is out of date.
 */
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { apiReference } from '../src/server/api-reference.js';
import { buildApp } from '../src/server/app.js';

const file = new URL('../docs/sessions-api.md', import.meta.url);
const dataDir = mkdtempSync(join(tmpdir(), 'barometer-docs-'));
const app = await buildApp({ logLevel: 'silent', dataDir, dashboard: false });
const reference = apiReference(app.barometerRoutes);
await app.close();
rmSync(dataDir, { recursive: true, force: true });
const START = '<!-- reference:start -->';
const END = '<!-- reference:end -->';
const doc = readFileSync(file, 'utf8');
const start = doc.indexOf(START);
const end = doc.indexOf(END);
const next =
  start === -1 || end === -1
    ? `${doc.trimEnd()}\n\n${START}\n${reference}\n${END}\n`
    : `${doc.slice(0, start + START.length)}\n${reference}\n${doc.slice(end)}`;
writeFileSync(file, next);
console.log(`docs/sessions-api.md: reference of ${app.barometerRoutes.length} routes written`);
