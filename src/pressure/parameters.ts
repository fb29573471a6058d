/**
 * The ten inputs of the regulator, with the ranges and defaults of seed 000's parameter table.
 * Declared once: the zod schemas, the fast validator, the CLI flags and the docs are built from this table.
 */
export const SYSTEM_MODES = ['demo', 'production', 'diagnostic'] as const;
export const AGENT_PROFILES = ['minimal', 'balanced', 'aggressive'] as const;

export type SystemMode = (typeof SYSTEM_MODES)[number];
export type AgentProfile = (typeof AGENT_PROFILES)[number];

export interface NumericParameter {
  readonly min: number;
  /** `undefined` means no upper bound. */
  readonly max: number | undefined;
  readonly default: number;
  readonly description: string;
}

export const NUMERIC_PARAMETERS = {
  memoryUsedPercent: {
    min: 0,
    max: 100,
    default: 45,
    description:
      'Context window used, in percent (derived from the byte figures when absent and they are given)',
  },
  tokenBurnRatePerMin: {
    min: 0,
    max: 200,
    default: 35,
    description: "Token burn rate on the regulator's scale (0-200; 100 = the maximum sustainable rate)",
  },
  contextDriftPercent: { min: 0, max: 100, default: 20, description: 'Session coherence loss, in percent' },
  sessionAgeSeconds: { min: 0, max: undefined, default: 600, description: 'Age of the session, in seconds' },
  tokenBudgetTotal: { min: 1000, max: 1_000_000, default: 100_000, description: 'Total token budget' },
  tokenBudgetUsed: {
    min: 0,
    max: 1_000_000,
    default: 35_000,
    description: 'Tokens of the budget already used (at most tokenBudgetTotal)',
  },
  contextWindowMaxBytes: {
    min: 1000,
    max: 1_000_000,
    default: 200_000,
    description: 'Context window size, in bytes',
  },
  contextWindowUsedBytes: {
    min: 0,
    max: 1_000_000,
    default: 90_000,
    description: 'Context window used, in bytes (at most contextWindowMaxBytes)',
  },
} as const satisfies Record<string, NumericParameter>;

export type NumericParameterName = keyof typeof NUMERIC_PARAMETERS;
export const NUMERIC_PARAMETER_NAMES = Object.keys(NUMERIC_PARAMETERS) as NumericParameterName[];

export const ENUM_PARAMETERS = {
  systemMode: { values: SYSTEM_MODES, default: 'production', description: 'Sets the baseline burn rate' },
  agentProfile: {
    values: AGENT_PROFILES,
    default: 'balanced',
    description: 'How early to compress: minimal at 60% memory, balanced at 70%, aggressive at 80%',
  },
} as const;

export type EnumParameterName = keyof typeof ENUM_PARAMETERS;
export const PARAMETER_NAMES = [
  ...NUMERIC_PARAMETER_NAMES,
  ...(Object.keys(ENUM_PARAMETERS) as EnumParameterName[]),
];

/** Baseline burn in tokens/min by system mode. */
export const BASELINE_BURN: Readonly<Record<SystemMode, number>> = {
  demo: 15,
  production: 35,
  diagnostic: 80,
};

/**
 * Memory percent above which `shouldCompress` is set regardless of level, by agent profile.
 * Seed 000 names the profiles but does not define them; `balanced` is exactly the seed's rule (70).
 */
export const COMPRESS_MEMORY_TRIGGER: Readonly<Record<AgentProfile, number>> = {
  minimal: 60,
  balanced: 70,
  aggressive: 80,
};
