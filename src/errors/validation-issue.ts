/** The allowed values or range of a field, as data, so every surface can say it the same way. */
export interface AllowedRange {
  min?: number;
  max?: number;
  values?: readonly string[];
}

/** One thing wrong with an input: which field, what was given, why it is wrong. */
export interface ValidationIssue {
  field: string;
  value: unknown;
  message: string;
  allowed?: AllowedRange;
}
