export {
  type BarometerTool,
  barometerTools,
  MAX_LISTED_SESSIONS,
  MAX_STATUS_MARKERS,
  type ToolContext,
  type ToolError,
  type ToolOutcome,
} from './barometer-tools.js';
export {
  BAROMETER_MCP_INSTRUCTIONS,
  type BarometerMcpServerOptions,
  createBarometerMcpServer,
  toolInputJsonSchema,
} from './create-mcp-server.js';
export {
  CompactHistoryInputSchema,
  ContextStatusInputSchema,
  CreateSessionInputSchema,
  EvaluatePressureInputSchema,
  EvictTaskInputSchema,
  ReadArchiveInputSchema,
  ReportUsageInputSchema,
} from './tool-inputs.js';
