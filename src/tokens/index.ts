export { charsEstimateCounter } from './chars-estimate-counter.js';
export {
  type ChatMessage,
  ChatMessageSchema,
  type ContentPart,
  countMessage,
  countMessages,
  DEFAULT_PER_MESSAGE_TOKENS,
  DEFAULT_REPLY_PRIMING_TOKENS,
  type MessageCount,
  type MessageFraming,
  MessageFramingSchema,
  type MessagesCount,
  type ToolCall as ChatToolCall,
} from './count-messages.js';
export {
  createTokenCounter,
  DEFAULT_ENCODING,
  encodingForModel,
  type ModelEncoding,
  TOKEN_ENCODINGS,
  type TokenCounterOptions,
  TokenCounterOptionsSchema,
  type TokenEncoding,
} from './create-token-counter.js';
export {
  DEFAULT_INCREMENTAL_MAX_ENTRIES,
  type IncrementalCount,
  IncrementalCounter,
  type IncrementalCounterOptions,
  IncrementalCounterOptionsSchema,
} from './incremental-counter.js';
export { type TokenCounter, TokenCounterSchema } from './token-counter.js';
