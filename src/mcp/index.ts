export {
  CompactHistoryInputSchema,
  CompactHistoryOutputSchema,
  ContextStatusInputSchema,
  ContextStatusOutputSchema,
  CreateSessionInputSchema,
  CreateSessionOutputSchema,
  EvaluatePressureInputSchema,
  EvaluatePressureOutputSchema,
  EvictTaskInputSchema,
  EvictTaskOutputSchema,
  ReadArchiveInputSchema,
  ReadArchiveOutputSchema,
  ReportUsageInputSchema,
  ReportUsageOutputSchema,
} from '../contract/mcp-tools.js';
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
  toolOutputJsonSchema,
} from './create-mcp-server.js';
