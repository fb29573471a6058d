export { AGENT_WINDOWS, type AgentWindowRule, agentEffectiveWindow } from './agent-windows.js';
export {
  type BarometerConfig,
  BarometerConfigSchema,
  type ConfigFormat,
  emptyConfig,
  type ModelConfig,
  ModelConfigFileSchema,
  PriceFileSchema,
  PriceTierFileSchema,
  parseConfig,
  parseConfigText,
} from './barometer-config.js';
export {
  findModel,
  firstPartyProvider,
  MODEL_DATA_INFO,
  type ModelLimits,
  type ModelMatch,
} from './find-model.js';
export { CONFIG_FILE_NAMES, loadConfig } from './load-config.js';
export { canonicalModelId, normalizeModelId, splitModelId } from './model-id.js';
export {
  type ModelPrice,
  ModelPriceSchema,
  type ModelPriceTier,
  ModelPriceTierSchema,
  type PriceRates,
  priceRatesFor,
  type SelectedRates,
} from './model-price.js';
export {
  type AgentName,
  AgentNameSchema,
  type ModelProfile,
  type ModelProfileOverrides,
  ModelProfileOverridesSchema,
  ModelProfileSchema,
  type ProfileSource,
  ProfileSourceSchema,
  promptWindow,
} from './model-profile.js';
export { configEntryFor, type ResolveProfileOptions, resolveProfile } from './resolve-profile.js';
