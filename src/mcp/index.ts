export {
  createHeadroomMcpServer,
  HEADROOM_MCP_INSTRUCTIONS,
  type HeadroomMcpServerOptions,
  toolInputJsonSchema,
} from './create-mcp-server.js';
export {
  type HeadroomTool,
  headroomTools,
  MAX_LISTED_SESSIONS,
  MAX_STATUS_MARKERS,
  type ToolContext,
  type ToolError,
  type ToolOutcome,
} from './headroom-tools.js';
export {
  CompactHistoryInputSchema,
  ContextStatusInputSchema,
  CreateSessionInputSchema,
  EvaluatePressureInputSchema,
  EvictTaskInputSchema,
  ReadArchiveInputSchema,
  ReportUsageInputSchema,
} from './tool-inputs.js';
