import * as z from 'zod';
import { ERROR_CODES } from '../errors/error-catalogue.js';

/** One bad field of a request: its name, the value given and why it is refused (with the allowed range). */
export const ValidationIssueSchema = z.object({
  field: z.string(),
  /** The value given; absent when the field was missing (JSON has no undefined). */
  value: z.unknown().optional(),
  message: z.string(),
  allowed: z
    .object({
      min: z.number().optional(),
      max: z.number().optional(),
      values: z.array(z.string()).optional(),
    })
    .optional(),
});

/**
 * The body of every error answer (4xx, 5xx): a sentence, a stable code, an example of a request that works, the
 * issues naming each bad field. An error may carry more fields of its own (a pool refusal's figures, a rate
 * limit's name): the object is open.
 */
export const ProblemSchema = z
  .looseObject({
    error: z.string(),
    code: z.enum(ERROR_CODES),
    example: z.string().optional(),
    issues: z.array(ValidationIssueSchema).optional(),
  })
  .meta({ description: 'An error: a sentence, a stable code and the issues' });
export type Problem = z.infer<typeof ProblemSchema>;
