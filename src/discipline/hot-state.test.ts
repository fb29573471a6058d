import { describe, expect, it } from 'vitest';
import { BarometerValidationError } from '../errors/validation.js';
import { buildHotState, formatHotStateJson, minimalHotState, parseHotState } from './hot-state.js';

describe('buildHotState', () => {
  it('builds a validated state and defaults risk_level to medium', () => {
    expect(buildHotState({ session_id: 's1', objective: 'Fix the failing test' })).toEqual({
      session_id: 's1',
      objective: 'Fix the failing test',
      risk_level: 'medium',
    });
  });

  it('keeps every field of the schema, including a null plan id', () => {
    const full = {
      session_id: 's1',
      session_key: 'agent:main',
      run_id: 'r7',
      objective: 'Ship the release',
      current_plan_id: null,
      accepted_decisions: ['use Redis for shared state'],
      open_questions: ['which TPM limit applies?'],
      constraints: ['no new dependencies'],
      last_successful_step: 'tests green',
      risk_level: 'high' as const,
      artifact_index: [
        { artifact_id: 'a'.repeat(64), type: 'log' as const, label: 'build.log', version: '2' },
      ],
    };
    expect(buildHotState(full)).toEqual(full);
  });

  it('rejects an unknown key, naming it', () => {
    try {
      buildHotState({ session_id: 's1', mood: 'optimistic' } as never);
      expect.unreachable();
    } catch (error) {
      expect(error).toBeInstanceOf(BarometerValidationError);
      expect((error as BarometerValidationError).issues).toEqual([
        { field: 'mood', value: 'optimistic', message: 'unknown parameter' },
      ]);
    }
  });

  it('rejects unknown keys inside artifact references too', () => {
    const input = { session_id: 's1', artifact_index: [{ artifact_id: 'x', type: 'code', body: '…' }] };
    expect(() => buildHotState(input as never)).toThrow(/artifact_index\[0\]\.body: unknown parameter/);
  });

  it('requires session_id and names the allowed risk levels and artifact types', () => {
    const missing = parseHotState({ risk_level: 'low' });
    expect(missing.ok).toBe(false);
    if (!missing.ok) expect(missing.issues[0]?.field).toBe('session_id');

    const bad = parseHotState({
      session_id: 's1',
      risk_level: 'extreme',
      artifact_index: [{ artifact_id: 'x', type: 'video' }],
    });
    expect(bad.ok).toBe(false);
    if (!bad.ok) {
      expect(bad.issues).toContainEqual(
        expect.objectContaining({ field: 'risk_level', allowed: { values: ['low', 'medium', 'high'] } }),
      );
      expect(bad.issues).toContainEqual(expect.objectContaining({ field: 'artifact_index[0].type' }));
    }
  });

  it('does not mutate its input', () => {
    const input = { session_id: 's1' };
    buildHotState(input);
    expect(input).toEqual({ session_id: 's1' });
  });
});

describe('formatHotStateJson', () => {
  it('writes compact JSON with keys in schema order', () => {
    const state = buildHotState({ risk_level: 'low', objective: 'o', session_id: 's1' });
    expect(formatHotStateJson(state)).toBe('{"session_id":"s1","objective":"o","risk_level":"low"}');
  });
});

describe('minimalHotState', () => {
  it('keeps only the session ids and the risk level', () => {
    const state = buildHotState({
      session_id: 's1',
      session_key: 'k',
      run_id: 'r',
      objective: 'o',
      constraints: ['c'],
    });
    expect(minimalHotState(state)).toEqual({
      session_id: 's1',
      session_key: 'k',
      run_id: 'r',
      risk_level: 'medium',
    });
  });
});
