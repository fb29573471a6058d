import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { InMemoryTransport } from '@modelcontextprotocol/sdk/inMemory.js';
import { AjvJsonSchemaValidator } from '@modelcontextprotocol/sdk/validation/ajv';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { CompactRequestSchema } from '../compaction/compact-request.js';
import {
  CompactHistoryOutputSchema,
  ContextStatusOutputSchema,
  CreateSessionOutputSchema,
  EndSubtaskOutputSchema,
  EvaluatePressureOutputSchema,
  EvictTaskOutputSchema,
  ReadArchiveOutputSchema,
  ReportUsageOutputSchema,
} from '../contract/mcp-tools.js';
import { evaluatePressure } from '../pressure/evaluate.js';
import { PressureInputSchema } from '../pressure/schemas.js';
import type { PressureReport } from '../pressure/types.js';
import { SessionMonitor } from '../session/session-monitor.js';
import { SessionOptionsSchema } from '../session/session-options.js';
import type { SessionSummary, TimelineMarker, UsageAnswer } from '../session/session-schemas.js';
import { UsageInputSchema } from '../session/usage-input.js';
import { ArchiveStore } from '../store/archive.js';
import { agentHistory, callTool, SEED_SAMPLE, TOOL_NAMES, toolOutput } from '../test-helpers/mcp-fixtures.js';
import { BAROMETER_VERSION } from '../version.js';
import { createBarometerMcpServer, toolInputJsonSchema, toolOutputJsonSchema } from './create-mcp-server.js';

const NOW = Date.parse('2026-11-22T12:00:00Z');

interface CompactionContent {
  mode: string;
  before: { messages: number; tokens: number };
  after: { messages: number; tokens: number };
  archives: string[];
  evicted: Array<{ task: string; items: number; archive: string | null }>;
  messages: Array<{ role: string; content: unknown; tool_call_id?: string }>;
  sessionRecorded: boolean;
}

let root: string;
let monitor: SessionMonitor;
let archive: ArchiveStore;
let client: Client;

async function connect(archiveAddresses: 'path' | 'api' = 'path'): Promise<Client> {
  const server = createBarometerMcpServer({ monitor, archive, now: () => NOW, archiveAddresses });
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  const connected = new Client({ name: 'barometer-test', version: '1.0.0' });
  await Promise.all([server.connect(serverSide), connected.connect(clientSide)]);
  // The SDK's client checks every structuredContent against the tool's outputSchema once it has listed the tools
  // (as real clients do first): every call of these tests is checked against the contract.
  await connected.listTools();
  return connected;
}

beforeEach(async () => {
  root = await mkdtemp(join(tmpdir(), 'barometer-mcp-'));
  archive = new ArchiveStore({ root: join(root, 'archives'), durable: false });
  monitor = new SessionMonitor({ archive, now: () => NOW });
  client = await connect();
});
afterEach(async () => {
  await client.close();
  await rm(root, { recursive: true, force: true });
});

describe('outputSchema: every tool declares what its structured content holds (the contract’s schemas)', () => {
  const OUTPUTS = {
    evaluate_pressure: EvaluatePressureOutputSchema,
    create_session: CreateSessionOutputSchema,
    context_status: ContextStatusOutputSchema,
    report_usage: ReportUsageOutputSchema,
    compact_history: CompactHistoryOutputSchema,
    evict_task: EvictTaskOutputSchema,
    end_subtask: EndSubtaskOutputSchema,
    read_archive: ReadArchiveOutputSchema,
  } as const;

  it('lists an object outputSchema per tool, generated from the schema of the matching HTTP answer', async () => {
    const { tools } = await client.listTools();
    expect(Object.keys(OUTPUTS).sort()).toEqual([...TOOL_NAMES].sort());
    for (const tool of tools) {
      expect(tool.outputSchema, tool.name).toEqual(
        toolOutputJsonSchema(OUTPUTS[tool.name as keyof typeof OUTPUTS]),
      );
      expect(tool.outputSchema?.type, tool.name).toBe('object');
    }
  });

  it('is what the SDK’s client checks structured content with: a real answer passes, a drifted one does not', async () => {
    const { tools } = await client.listTools();
    const validator = new AjvJsonSchemaValidator();
    const check = (name: string, value: unknown) =>
      validator.getValidator(tools.find((tool) => tool.name === name)!.outputSchema!)(value).valid;
    const report = await callTool<PressureReport>(client, 'evaluate_pressure', SEED_SAMPLE);
    expect(check('evaluate_pressure', report.structured)).toBe(true);
    expect(check('evaluate_pressure', { ...report.structured, pressure: { level: 'HIGH' } })).toBe(false);
    await callTool(client, 'create_session', { id: 'out', model: 'custom', contextWindow: 200_000 });
    const answer = await callTool<UsageAnswer>(client, 'report_usage', {
      sessionId: 'out',
      usage: { promptTokens: 150_000 },
    });
    expect(answer.isError).toBe(false);
    expect(answer.structured.events.length).toBeGreaterThan(0);
    expect(check('report_usage', answer.structured)).toBe(true);
    // A time in epoch milliseconds is not the contract's encoding: the client refuses it.
    const drifted = {
      ...answer.structured,
      events: answer.structured.events.map((event) => ({ ...event, at: Date.parse(event.at) })),
    };
    expect(check('report_usage', drifted)).toBe(false);
    // A tool's refusal is in the schema too: the SDK's client checks an error's structured content as well.
    const refused = await callTool(client, 'report_usage', {
      sessionId: 'nobody',
      usage: { promptTokens: 1 },
    });
    expect(refused.isError).toBe(true);
    expect(check('report_usage', refused.structured)).toBe(true);
  });
});

describe('tools/list', () => {
  it('lists the seven tools, each property described for a model, items typed, an outputSchema on each (regression)', async () => {
    const { tools } = await client.listTools();
    expect(tools.map((tool) => tool.name)).toEqual(TOOL_NAMES);
    const schemaOf = (name: string) => tools.find((tool) => tool.name === name)!.inputSchema;
    // The same fields as the HTTP routes validate, each described.
    expect(Object.keys(schemaOf('evaluate_pressure').properties!).sort()).toEqual(
      Object.keys(toolInputJsonSchema(PressureInputSchema).properties!).sort(),
    );
    expect(schemaOf('evaluate_pressure').required?.sort()).toEqual(
      ['contextDriftPercent', 'memoryUsedPercent', 'tokenBurnRatePerMin'].sort(),
    );
    // All but the agent's process id, which a model does not know (its agent's hooks record it).
    expect(Object.keys(schemaOf('create_session').properties!).sort()).toEqual(
      Object.keys(
        toolInputJsonSchema(SessionOptionsSchema.omit({ agentProcessId: true })).properties!,
      ).sort(),
    );
    expect(Object.keys(schemaOf('compact_history').properties!).sort()).toEqual(
      Object.keys(toolInputJsonSchema(CompactRequestSchema.omit({ tasks: true })).properties!).sort(),
    );
    for (const tool of tools) {
      for (const [name, property] of Object.entries(tool.inputSchema.properties ?? {}))
        expect(
          (property as { description?: string }).description?.length ?? 0,
          `${tool.name}.${name}`,
        ).toBeGreaterThan(15);
      expect(tool.outputSchema?.type, tool.name).toBe('object');
      // What a tool does for the agent, not where it lives: no HTTP routes, no internal references.
      expect(tool.description, tool.name).not.toMatch(/\/api\/|POST |GET |seed \d/);
    }
    const items = (
      schemaOf('compact_history').properties!.messages as {
        items: { properties: object; required: string[] };
      }
    ).items;
    expect(Object.keys(items.properties)).toEqual(
      expect.arrayContaining(['role', 'content', 'tool_call_id', 'task_id']),
    );
    expect(items.required).toEqual(['role', 'content']);
    expect(Object.keys(schemaOf('read_archive').properties!).sort()).toEqual([
      'item',
      'location',
      'sessionId',
      'taskId',
    ]);
    // report_usage nests the usage body of POST /sessions/:id/usage beside the path's id.
    const usage = toolInputJsonSchema(UsageInputSchema) as Record<string, unknown>;
    const reportUsage = schemaOf('report_usage') as unknown as {
      properties: { usage: Record<string, unknown> };
    };
    expect(reportUsage.properties.usage.anyOf).toEqual(usage.anyOf);
    for (const tool of tools) {
      expect(tool.inputSchema.type, tool.name).toBe('object');
      expect(tool.description!.length, tool.name).toBeGreaterThan(40);
    }
    expect(tools.find((tool) => tool.name === 'read_archive')!.annotations).toMatchObject({
      readOnlyHint: true,
    });
  });

  it('names itself barometer at the package version and tells the client how to use it', async () => {
    const packageJson = JSON.parse(await readFile(new URL('../../package.json', import.meta.url), 'utf8'));
    expect(client.getServerVersion()).toMatchObject({ name: 'barometer', version: packageJson.version });
    expect(BAROMETER_VERSION).toBe(packageJson.version);
    expect(client.getInstructions()).toContain('report_usage');
  });

  it('refuses an unknown tool as a protocol error naming the tools', async () => {
    await expect(client.callTool({ name: 'compact', arguments: {} })).rejects.toThrow(
      /Unknown tool "compact"; tools: evaluate_pressure/,
    );
  });
});

describe('a model finds its own session', () => {
  it('context_status and report_usage without an id answer for the session of the client’s working directory, saying how', async () => {
    const server = createBarometerMcpServer({
      monitor,
      archive,
      now: () => NOW,
      clientWorkingDirectory: '/home/user/my-project',
    });
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    const agent = new Client({ name: 'claude-code', version: '2.1.30' });
    await Promise.all([server.connect(serverSide), agent.connect(clientSide)]);
    await agent.listTools();
    try {
      await monitor.create({ id: 'elsewhere', model: 'gpt-5', workingDirectory: '/home/user/other' });
      await monitor.create({ id: 'mine', model: 'gpt-5', workingDirectory: '/home/user/my-project' });
      const reported = await callTool<UsageAnswer>(agent, 'report_usage', { usage: { promptTokens: 1200 } });
      expect(reported.structured.sessionId).toBe('mine');
      const status = await callTool<{ session: SessionSummary; chosen: string }>(agent, 'context_status', {});
      expect(status.structured.session.id).toBe('mine');
      expect(status.structured.chosen).toBe(
        'session mine: the most recently updated of 1 session whose agent works in /home/user/my-project, the folder this server was started in',
      );
      // A server that cannot tell lists the sessions instead, as before.
      const listed = await callTool<{ sessions: unknown[] }>(client, 'context_status', {});
      expect(listed.structured.sessions).toHaveLength(2);
      const unknown = await callTool(client, 'report_usage', { usage: { promptTokens: 1 } });
      expect(unknown.structured.issues?.[0]?.field).toBe('sessionId');
    } finally {
      await agent.close();
    }
  });
});

describe('evaluate_pressure', () => {
  it('answers the seed sample as the library does: HIGH, viability 36, compress', async () => {
    const answer = await callTool<PressureReport>(client, 'evaluate_pressure', SEED_SAMPLE);
    expect(answer.isError).toBe(false);
    expect(answer.structured).toEqual(evaluatePressure(SEED_SAMPLE, { now: NOW }));
    expect(answer.structured.pressure).toMatchObject({
      level: 'HIGH',
      sessionViability: 36,
      suggestedAction: 'compress',
      thresholdsExceeded: ['memory_warning', 'elevated_drift'],
    });
    expect(answer.text).toContain('HIGH pressure, viability 36/100: compress (priority high)');
    expect(answer.text).toContain('thresholds exceeded: memory_warning, elevated_drift');
  });

  it('requires the three figures it judges: an empty call is an error, not a verdict from defaults (regression)', async () => {
    const answer = await callTool(client, 'evaluate_pressure', {});
    expect(answer.isError).toBe(true);
    expect(answer.structured.issues?.map((issue) => issue.field)).toEqual([
      'memoryUsedPercent',
      'tokenBurnRatePerMin',
      'contextDriftPercent',
    ]);
    const given = { memoryUsedPercent: 40, tokenBurnRatePerMin: 30, contextDriftPercent: 10 };
    const report = await callTool<PressureReport>(client, 'evaluate_pressure', given);
    expect(report.structured).toEqual(evaluatePressure(given, { now: NOW }));
  });

  it('returns bad arguments as a tool error naming each field, its value and the allowed range', async () => {
    const answer = await callTool(client, 'evaluate_pressure', {
      memoryUsedPercent: 720,
      systemMode: 'prod',
      verbose: true,
    });
    expect(answer.isError).toBe(true);
    expect(answer.structured.code).toBe('BR_ERR_INVALID_PARAM');
    expect(answer.structured.issues).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ field: 'memoryUsedPercent', value: 720, allowed: { min: 0, max: 100 } }),
        expect.objectContaining({
          field: 'systemMode',
          value: 'prod',
          allowed: { values: ['demo', 'production', 'diagnostic'] },
        }),
        expect.objectContaining({ field: 'verbose', message: 'unknown parameter' }),
      ]),
    );
    expect(answer.text).toContain('- memoryUsedPercent: must be from 0 to 100; given 720; allowed: 0 to 100');
  });

  it('applies the cross-field rule: tokenBudgetUsed at most tokenBudgetTotal', async () => {
    const answer = await callTool(client, 'evaluate_pressure', {
      memoryUsedPercent: 40,
      tokenBurnRatePerMin: 30,
      contextDriftPercent: 10,
      tokenBudgetTotal: 5000,
      tokenBudgetUsed: 6000,
    });
    expect(answer.isError).toBe(true);
    expect(answer.structured.issues?.map((issue) => issue.field)).toEqual(['tokenBudgetUsed']);
  });
});

describe('create_session and context_status', () => {
  it('creates a session the monitor holds, and reads its verdict with every model’s reason', async () => {
    const created = await callTool<{ session: SessionSummary }>(client, 'create_session', {
      id: 'agent-7',
      model: 'claude-opus-4-6',
      agent: 'claude-code',
    });
    expect(created.isError).toBe(false);
    expect(created.structured.session).toMatchObject({
      id: 'agent-7',
      model: 'claude-opus-4-6',
      verdict: null,
    });
    expect(await monitor.has('agent-7')).toBe(true);

    await monitor.postUsage('agent-7', {
      usage: {
        available: true,
        source: 'manual',
        promptTokens: 121_304,
        completionTokens: 800,
        totalTokens: 122_104,
        cachedReadTokens: 0,
        cachedWriteTokens: 0,
        reasoningTokens: 0,
      },
    });
    const status = await callTool<{ session: SessionSummary; markers: TimelineMarker[] }>(
      client,
      'context_status',
      { sessionId: 'agent-7' },
    );
    const view = await monitor.view('agent-7');
    expect(status.structured.session.verdict).toEqual(view.verdict);
    expect(status.structured.session.verdict!.reasons.map((reason) => reason.model)).toEqual(
      view.verdict!.reasons.map((reason) => reason.model),
    );
    expect(status.structured.markers).toEqual(view.markers.slice(-10));
    expect(status.text).toContain(`verdict: ${view.verdict!.action}`);
    for (const reason of view.verdict!.reasons)
      expect(status.text).toContain(`${reason.model}: ${reason.action} — `);
    expect(status.text).toContain('health: caution');
    expect(status.text).toContain('reminder (context_health)');
  });

  it('lists the sessions without an id', async () => {
    expect((await callTool(client, 'context_status', {})).text).toContain('no sessions yet');
    await monitor.create({ id: 'one', model: 'gpt-5' });
    const listed = await callTool<{ sessions: Array<{ id: string }>; total: number }>(
      client,
      'context_status',
      {},
    );
    expect(listed.structured).toMatchObject({
      total: 1,
      sessions: [{ id: 'one', model: 'gpt-5', action: null }],
    });
  });

  it('creates a session for an unknown model; refuses a duplicate id, a bad id and a missing session, each with its code', async () => {
    const unknown = await callTool(client, 'create_session', { model: 'my-local-model' });
    expect(unknown.isError).toBeFalsy();
    await callTool(client, 'create_session', { id: 'dup', model: 'gpt-5' });
    const duplicate = await callTool(client, 'create_session', { id: 'dup', model: 'gpt-5' });
    expect(duplicate).toMatchObject({ isError: true, structured: { code: 'BR_ERR_SESSION_EXISTS' } });
    const badOption = await callTool(client, 'create_session', { model: 'gpt-5', contextWindow: -1 });
    expect(badOption.structured.issues?.[0]?.field).toBe('contextWindow');

    const badId = await callTool(client, 'context_status', { sessionId: '../etc' });
    expect(badId).toMatchObject({ isError: true, structured: { code: 'BR_ERR_INVALID_PARAM' } });
    expect(badId.structured.issues?.[0]?.field).toBe('sessionId');
    const missing = await callTool(client, 'context_status', { sessionId: 'nobody' });
    expect(missing).toMatchObject({ isError: true, structured: { code: 'BR_ERR_SESSION_NOT_FOUND' } });
  });
});

describe('report_usage', () => {
  beforeEach(async () => {
    await monitor.create({ id: 's1', model: 'claude-opus-4-6', agent: 'claude-code' });
  });

  it('records a measured generation and answers the verdict, as POST /sessions/:id/usage does', async () => {
    const answer = await callTool<UsageAnswer>(client, 'report_usage', {
      sessionId: 's1',
      usage: { promptTokens: 150_000, completionTokens: 900 },
    });
    expect(answer.isError).toBe(false);
    expect(answer.structured).toMatchObject({ sessionId: 's1', generation: 1, health: { level: 'caution' } });
    expect(answer.structured.verdict.reasons.length).toBeGreaterThanOrEqual(3);
    expect((await monitor.view('s1')).generations).toBe(1);
    expect(answer.text).toContain('session s1, generation 1');
    expect(answer.text).toContain(`verdict: ${answer.structured.verdict.action}`);
  });

  it('normalizes a raw provider response', async () => {
    const answer = await callTool<UsageAnswer>(client, 'report_usage', {
      sessionId: 's1',
      usage: {
        format: 'anthropic',
        response: {
          type: 'message',
          model: 'claude-opus-4-6',
          usage: { input_tokens: 1204, cache_read_input_tokens: 118_000, output_tokens: 850 },
        },
      },
    });
    expect(answer.isError).toBe(false);
    expect(answer.structured.health.promptTokens).toBe(119_204);
  });

  it('names the nested field of bad usage, and changes nothing', async () => {
    const answer = await callTool(client, 'report_usage', {
      sessionId: 's1',
      usage: { promptTokens: -5, color: 'blue' },
    });
    expect(answer.isError).toBe(true);
    expect(answer.structured.issues?.map((issue) => issue.field).sort()).toEqual([
      'usage.color',
      'usage.promptTokens',
    ]);
    const missing = await callTool(client, 'report_usage', { sessionId: 's1' });
    expect(missing.structured.issues?.map((issue) => issue.field)).toEqual(['usage']);
    const badFormat = await callTool(client, 'report_usage', {
      sessionId: 's1',
      usage: { format: 'cohere', response: {} },
    });
    expect(badFormat.structured.issues?.[0]?.field).toBe('usage.format');
    expect((await monitor.view('s1')).generations).toBe(0);
  });

  it('creates nothing implicitly: an unknown session is BR_ERR_SESSION_NOT_FOUND', async () => {
    const answer = await callTool(client, 'report_usage', {
      sessionId: 'ghost',
      usage: { promptTokens: 10 },
    });
    expect(answer).toMatchObject({ isError: true, structured: { code: 'BR_ERR_SESSION_NOT_FOUND' } });
    expect(await monitor.has('ghost')).toBe(false);
  });
});

describe('compact_history', () => {
  it('recaps, archives every replaced message first, and the live session records the compaction', async () => {
    await monitor.create({ id: 'run-1', model: 'gpt-5' });
    const history = agentHistory();
    const answer = await callTool<CompactionContent>(client, 'compact_history', {
      messages: history,
      sessionId: 'run-1',
      keepTurns: 1,
    });
    expect(answer.isError).toBe(false);
    expect(answer.structured.mode).toBe('recap');
    expect(answer.structured.after.tokens).toBeLessThan(answer.structured.before.tokens);
    expect(answer.structured.sessionRecorded).toBe(true);
    expect(answer.structured.archives).toEqual([join(root, 'archives', 'run-1', 'compaction-1.log')]);
    expect((await monitor.view('run-1')).markers.map((marker) => marker.type)).toContain('compaction');
    // The text carries the new history whole, for clients that hand the model text only.
    expect(JSON.parse(answer.text.slice(answer.text.lastIndexOf('\n') + 1))).toEqual(
      answer.structured.messages,
    );

    // A replaced tool message reads back exactly as it was sent.
    const back = await callTool(client, 'read_archive', {
      sessionId: 'run-1',
      taskId: 'compaction-1',
      item: 'call_0:result',
    });
    expect(JSON.parse(back.text)).toEqual(history[3]);
  });

  it('names the message and field of a malformed history', async () => {
    const answer = await callTool(client, 'compact_history', {
      messages: [
        { role: 'system', content: 'x' },
        { role: 'robot', content: 'hi' },
      ],
    });
    expect(answer.isError).toBe(true);
    expect(answer.structured.issues?.[0]?.field).toMatch(/^messages\[1\]/);
    const wrongType = await callTool(client, 'compact_history', { messages: 'all of them', keepTurns: -1 });
    expect(wrongType.structured.issues?.map((issue) => issue.field).sort()).toEqual([
      'keepTurns',
      'messages',
    ]);
  });

  it('refuses a compaction that would not shrink the history, with the figures', async () => {
    const answer = await callTool(client, 'compact_history', {
      messages: [
        { role: 'system', content: 'Be brief.' },
        { role: 'user', content: 'hi' },
      ],
    });
    expect(answer).toMatchObject({ isError: true, structured: { code: 'BR_ERR_COMPACTION_REFUSED' } });
    expect(answer.structured.before).toBeDefined();
    expect(answer.text).toContain('Compaction refused');
  });
});

describe('end_subtask', () => {
  it('says whether the proxy acts on the session, the one that evicts: acting, observing, or no session', async () => {
    await monitor.create({ id: 'acted', model: 'claude-sonnet-4-5' });
    await monitor.setProxyStatus('acted', { mode: 'act', pause: null });
    const acted = await callTool<{ sessionId: string; acting: boolean }>(client, 'end_subtask', {
      summary: 'fixed the rounding',
      sessionId: 'acted',
    });
    expect(acted.structured).toMatchObject({ sessionId: 'acted', acting: true });
    expect(acted.text).toContain('tombstones from your next requests on');
    await monitor.create({ id: 'watched', model: 'claude-sonnet-4-5' });
    await monitor.setProxyStatus('watched', { mode: 'observe', pause: null });
    const watched = await callTool<{ acting: boolean }>(client, 'end_subtask', { sessionId: 'watched' });
    expect(watched.structured.acting).toBe(false);
    expect(watched.text).toContain('nothing is evicted');
    const unknown = await callTool<{ sessionId: null; acting: boolean }>(client, 'end_subtask', {});
    expect(unknown.structured).toMatchObject({ sessionId: null, acting: false });
    const tooLong = await callTool(client, 'end_subtask', { summary: 'x'.repeat(501) });
    expect(tooLong).toMatchObject({ isError: true });
    expect(tooLong.text).toContain('summary');
  });
});

describe('evict_task and read_archive', () => {
  it('replaces a completed task’s outputs by tombstones that read_archive follows back to the exact bytes', async () => {
    const answer = await callTool<CompactionContent>(client, 'evict_task', {
      messages: agentHistory(),
      tasks: [{ id: 'tests', summary: 'Fixed rounding: totals round once per invoice.' }],
      sessionId: 'run-2',
    });
    expect(answer.isError).toBe(false);
    expect(answer.structured).toMatchObject({
      mode: 'eviction',
      evicted: [{ task: 'tests', items: 2, archive: join(root, 'archives', 'run-2', 'tests.log') }],
    });
    const tombstones = answer.structured.messages.filter(
      (message) => message.role === 'tool' && String(message.content).startsWith('[Task tests completed'),
    );
    expect(tombstones.map((message) => message.tool_call_id)).toEqual(['call_0', 'call_1']);
    // Untagged outputs stay; tool call / result pairs stay together.
    expect(answer.structured.messages.filter((message) => message.role === 'tool')).toHaveLength(4);
    expect(String(tombstones[1]!.content)).toContain('Task tests result: Fixed rounding');

    // Follow the whole tombstone, as an agent would paste it.
    for (const [index, tombstone] of tombstones.entries()) {
      const back = await callTool<{ itemId: string; bytes: number }>(client, 'read_archive', {
        location: String(tombstone.content),
      });
      expect(back.isError).toBe(false);
      expect(back.text).toBe(toolOutput(index));
      expect(back.structured).toMatchObject({
        itemId: `call_${index}:result`,
        bytes: toolOutput(index).length,
      });
    }
    // The same record by an API address, and the whole archive.
    const byApi = await callTool(client, 'read_archive', {
      location: '/api/v1/archives/run-2/tests?item=call_1%3Aresult',
    });
    expect(byApi.text).toBe(toolOutput(1));
    const whole = await callTool<{ records: Array<{ itemId: string }> }>(client, 'read_archive', {
      sessionId: 'run-2',
      taskId: 'tests',
    });
    expect(whole.structured.records.map((record) => record.itemId)).toEqual([
      'call_0:result',
      'call_1:result',
    ]);
  });

  it('names archives by API address when served over HTTP, and follows those', async () => {
    const overHttp = await connect('api');
    try {
      const answer = await callTool<CompactionContent>(overHttp, 'evict_task', {
        messages: agentHistory(),
        tasks: [{ id: 'tests', summary: 'Fixed rounding: totals round once per invoice.' }],
        sessionId: 'run-3',
      });
      expect(JSON.stringify(answer.structured)).not.toContain(root);
      expect(answer.structured.evicted[0]!.archive).toBe('/api/v1/archives/run-3/tests');
      const tombstone = answer.structured.messages.find((message) => message.tool_call_id === 'call_0')!;
      expect(String(tombstone.content)).toContain('/api/v1/archives/run-3/tests?item=call_0%3Aresult');
      const back = await callTool(overHttp, 'read_archive', { location: String(tombstone.content) });
      expect(back.text).toBe(toolOutput(0));
      // An item named as a fragment is that item, not the whole archive (regression), or a clear error.
      const fragment = await callTool(overHttp, 'read_archive', {
        location: '/api/v1/archives/run-3/tests#call_0:result',
      });
      expect(fragment.text).toBe(toolOutput(0));
      const noItem = await callTool(overHttp, 'read_archive', {
        location: '/api/v1/archives/run-3/tests#call_99:result',
      });
      expect(noItem.structured).toMatchObject({
        code: 'BR_ERR_ARCHIVE_NOT_FOUND',
        error: 'No item "call_99:result" in run-3/tests',
      });
      const missing = await callTool(overHttp, 'read_archive', { sessionId: 'run-3', taskId: 'nothing' });
      expect(missing.structured.code).toBe('BR_ERR_ARCHIVE_NOT_FOUND');
      expect(missing.text).not.toContain(root);
    } finally {
      await overHttp.close();
    }
  });

  it('refuses empty or unsummarized tasks, naming the field', async () => {
    const none = await callTool(client, 'evict_task', { messages: agentHistory(), tasks: [] });
    expect(none.structured.issues?.map((issue) => issue.field)).toEqual(['tasks']);
    const short = await callTool(client, 'evict_task', {
      messages: agentHistory(),
      tasks: [{ id: 'tests', summary: 'done' }],
    });
    expect(short.structured.issues?.map((issue) => issue.field)).toEqual(['tasks[0].summary']);
    const untagged = await callTool(client, 'evict_task', {
      messages: agentHistory(),
      tasks: [{ id: 'deploy', summary: 'Deployed the fix to staging.' }],
    });
    expect(untagged.structured.code).toBe('BR_ERR_COMPACTION_REFUSED');
  });

  it('refuses a location that names no archive, mixed addressing, and unknown archives or items', async () => {
    const nowhere = await callTool(client, 'read_archive', { location: 'the tests output' });
    expect(nowhere.structured.issues?.[0]).toMatchObject({ field: 'location' });
    expect(nowhere.text).toContain('names no archive');
    const outside = await callTool(client, 'read_archive', { location: '/etc/passwd.log#x' });
    expect(outside.structured.issues?.[0]?.field).toBe('location');
    const dotted = await callTool(client, 'read_archive', {
      location: '/api/v1/archives/..%2F..%2Fetc/x?item=y',
    });
    expect(dotted.structured.issues?.[0]?.field).toBe('location');
    const both = await callTool(client, 'read_archive', { location: '/api/v1/archives/a/b', sessionId: 'a' });
    expect(both.structured.issues?.[0]?.field).toBe('location');
    const neither = await callTool(client, 'read_archive', { item: 'x' });
    expect(neither.structured.issues?.map((issue) => issue.field)).toEqual(['sessionId', 'taskId']);
    const noArchive = await callTool(client, 'read_archive', { sessionId: 'run-9', taskId: 'tests' });
    expect(noArchive.structured.code).toBe('BR_ERR_ARCHIVE_NOT_FOUND');

    await callTool(client, 'evict_task', {
      messages: agentHistory(),
      tasks: [{ id: 'tests', summary: 'Fixed rounding: totals round once per invoice.' }],
      sessionId: 'run-4',
    });
    const noItem = await callTool(client, 'read_archive', {
      sessionId: 'run-4',
      taskId: 'tests',
      item: 'call_9:result',
    });
    expect(noItem.structured).toMatchObject({
      code: 'BR_ERR_ARCHIVE_NOT_FOUND',
      items: ['call_0:result', 'call_1:result'],
    });
  });
});
