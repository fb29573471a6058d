import * as z from 'zod';
import { ProblemSchema } from '../contract/problem.js';
import { BarometerValidationError } from '../errors/validation.js';
import type { SessionMonitor } from '../session/session-monitor.js';
import { ArchiveError, type ArchiveStore } from '../store/archive.js';
import {
  CallToolRequestSchema,
  type CallToolResult,
  ErrorCode,
  ListToolsRequestSchema,
  McpError,
  Server,
  type Tool,
} from '../vendor/mcp-sdk.js';
import { BAROMETER_VERSION } from '../version.js';
import {
  type BarometerTool,
  barometerTools,
  invalidArguments,
  type ToolContext,
  type ToolError,
  type ToolOutcome,
} from './barometer-tools.js';
import { renderToolError } from './render-text.js';

export interface BarometerMcpServerOptions {
  /** The sessions the tools read and update: share the HTTP service's to see the same sessions. */
  monitor: SessionMonitor;
  /** The archive compactions write to (the monitor's) and `read_archive` reads. */
  archive: ArchiveStore;
  /** @default Date.now */
  now?: () => number;
  /**
   * How answers name archives: file paths for a local client (stdio), or API addresses when served over HTTP,
   * which never shows a path on the server. @default 'path'
   */
  archiveAddresses?: 'path' | 'api';
  /**
   * The working directory of the agent this server serves, when known (a stdio server is started by the agent, in
   * its folder: `process.cwd()`); tools that name no session then answer for that folder's latest session.
   */
  clientWorkingDirectory?: string;
  /**
   * The process id of the agent this server serves, when known (a stdio server is the agent's child:
   * `process.ppid`); tools that name no session then answer first for the session that agent's hooks created.
   */
  clientProcessId?: number;
  /** Told of a fault a tool could not turn into an answer (the client gets BR_ERR_INTERNAL). */
  onError?: (error: unknown, tool: string) => void;
}

/** What the server tells a client about using it (the MCP `instructions`). */
export const BAROMETER_MCP_INSTRUCTIONS = [
  'barometer monitors this agent session: context window, token budget, rate quotas, cost.',
  'Create a session once (create_session), report each model call (report_usage), and act on the verdict:',
  'continue; optimize (cheaper, shorter); wait (a rate limit refills: wait waitSeconds, then go on); compress (compact_history, or evict_task for finished tasks; a new round when newRoundDue); terminate (stop: budget spent).',
  'context_status reads the verdict with every reason (without sessionId: the session of the agent you run in, when the server can tell); read_archive follows a tombstone back to what was evicted.',
].join(' ');

/** The advertised form of the tools, converted once: the JSON Schema of each tool's zod input schema. */
let listedTools: Tool[] | undefined;
const TOOLS = barometerTools();
const TOOLS_BY_NAME = new Map(TOOLS.map((tool) => [tool.name, tool]));

/** A tool's input as JSON Schema (draft 2020-12, the dialect MCP assumes), its shape as the caller sends it. */
export function toolInputJsonSchema(schema: z.ZodType): Tool['inputSchema'] {
  return z.toJSONSchema(schema, {
    target: 'draft-2020-12',
    io: 'input',
    unrepresentable: 'any',
  }) as Tool['inputSchema'];
}

/**
 * A tool's outputSchema: its answer, or the error every tool may answer (`isError: true`, the HTTP problem body).
 * The error is in the schema because the SDK's client (1.32) checks the structured content of error results too
 * (modelcontextprotocol/typescript-sdk#1943): without it, a client could not read a tool's refusal. MCP wants an
 * object schema at the top: `type: object` over the two branches.
 */
export function toolOutputJsonSchema(schema: z.ZodType): NonNullable<Tool['outputSchema']> {
  const json = z.toJSONSchema(z.union([schema, ProblemSchema]), {
    target: 'draft-2020-12',
    io: 'output',
    unrepresentable: 'any',
  }) as Record<string, unknown>;
  return { type: 'object', ...json } as NonNullable<Tool['outputSchema']>;
}

function listTools(): Tool[] {
  listedTools ??= TOOLS.map((tool: BarometerTool) => ({
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: toolInputJsonSchema(tool.input),
    outputSchema: toolOutputJsonSchema(tool.output),
    annotations: { title: tool.title, ...tool.annotations },
  }));
  return listedTools;
}

function errorResult(error: ToolError): CallToolResult {
  return {
    isError: true,
    content: [{ type: 'text', text: renderToolError(error) }],
    structuredContent: { ...error },
  };
}

/** A library error thrown by a tool, as the tool error the same error is on the HTTP surface. */
function outcomeOfError(error: unknown, context: ToolContext): ToolOutcome | undefined {
  if (error instanceof BarometerValidationError) {
    if (error.code === 'BR_ERR_INVALID_PARAM') return { ok: false, error: invalidArguments(error.issues) };
    return { ok: false, error: { error: error.message, code: error.code, issues: error.issues } };
  }
  if (error instanceof ArchiveError) {
    // Over HTTP, a path on the server is never shown (as GET /api/v1/archives does).
    const message =
      context.archiveAddresses === 'api'
        ? error.message.replaceAll(context.archive.root, '<archive root>')
        : error.message;
    return { ok: false, error: { error: message, code: error.code } };
  }
  return undefined;
}

/**
 * barometer's MCP server: the tools of {@link barometerTools} over the SDK's low-level `Server`, so that arguments
 * are validated by barometer's own parsers and a bad one comes back as a tool error (`isError: true`) whose
 * structured content is the HTTP service's 400 body (`error`, `code`, `issues` naming each field), rather than
 * the SDK's own message. Connect it to any transport (stdio, Streamable HTTP, in-memory).
 *
 * @example
 * const server = createBarometerMcpServer({ monitor, archive });
 * await server.connect(new StdioServerTransport());
 */
export function createBarometerMcpServer(options: BarometerMcpServerOptions): Server {
  const context: ToolContext = {
    monitor: options.monitor,
    archive: options.archive,
    now: options.now ?? Date.now,
    archiveAddresses: options.archiveAddresses ?? 'path',
    ...(options.clientWorkingDirectory === undefined
      ? {}
      : { clientWorkingDirectory: options.clientWorkingDirectory }),
    ...(options.clientProcessId === undefined ? {} : { clientProcessId: options.clientProcessId }),
  };
  const server = new Server(
    { name: 'barometer', title: 'barometer', version: BAROMETER_VERSION },
    { capabilities: { tools: {} }, instructions: BAROMETER_MCP_INSTRUCTIONS },
  );
  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: listTools() }));
  server.setRequestHandler(CallToolRequestSchema, async (request): Promise<CallToolResult> => {
    const tool = TOOLS_BY_NAME.get(request.params.name);
    // An unknown tool is a protocol error, not a tool result (MCP specification, Tools: error handling).
    if (!tool) {
      throw new McpError(
        ErrorCode.InvalidParams,
        `Unknown tool ${JSON.stringify(request.params.name)}; tools: ${TOOLS.map((entry) => entry.name).join(', ')}`,
      );
    }
    const parsed = tool.parse(request.params.arguments ?? {});
    if (!parsed.ok) return errorResult(invalidArguments(parsed.issues));
    let outcome: ToolOutcome;
    try {
      outcome = await tool.run(parsed.value, context);
    } catch (error) {
      const known = outcomeOfError(error, context);
      if (!known) {
        options.onError?.(error, tool.name);
        return errorResult({
          error: `${tool.name} failed: ${error instanceof Error ? error.message : String(error)}`,
          code: 'BR_ERR_INTERNAL',
        });
      }
      outcome = known;
    }
    if (!outcome.ok) return errorResult(outcome.error);
    return { content: [{ type: 'text', text: outcome.text }], structuredContent: outcome.value };
  });
  return server;
}
