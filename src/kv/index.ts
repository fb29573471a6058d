export { CellLedger, type CellLedgerOptions } from './cell-ledger.js';
export {
  type ContextPressure,
  type ContextPressureInput,
  ContextPressureInputSchema,
  type ContextPressureJson,
  ContextPressureJsonSchema,
  contextPressure,
  DEFAULT_HARD_LIMIT,
  DEFAULT_SOFT_LIMIT,
} from './context-pressure.js';
export {
  type ProduceResult,
  produce,
  type ToolCall,
  type ToolCallCode,
  type ToolCallDecision,
  ToolCallSchema,
} from './produce.js';
export {
  type SettleCode,
  type SettleDecision,
  type SettleResult,
  settle,
  type ToolResultSize,
  ToolResultSizeSchema,
} from './settle.js';
