import { describe, expect, it } from 'vitest';
import { buildOpenApiDocument, pressureQueryParameters } from '../../src/server/openapi.js';
import { pressureRoutes } from '../../src/server/routes/pressure.js';

const pressureDocument = () =>
  buildOpenApiDocument(pressureRoutes({ now: Date.now }, pressureQueryParameters()));

import {
  describeRange,
  pressureBodyFromForm,
  type RegulatorField,
  regulatorFieldsFromOpenApi,
} from './regulator-fields.js';

describe('regulatorFieldsFromOpenApi', () => {
  it("reads the ten inputs with seed 000's defaults from the service's own OpenAPI document", () => {
    const fields = regulatorFieldsFromOpenApi(pressureDocument());
    // Seed 000's parameter table, in its order.
    expect(fields.map((field) => [field.name, field.defaultValue])).toEqual([
      ['memoryUsedPercent', '45'],
      ['tokenBurnRatePerMin', '35'],
      ['contextDriftPercent', '20'],
      ['sessionAgeSeconds', '600'],
      ['tokenBudgetTotal', '100000'],
      ['tokenBudgetUsed', '35000'],
      ['contextWindowMaxBytes', '200000'],
      ['contextWindowUsedBytes', '90000'],
      ['systemMode', 'production'],
      ['agentProfile', 'balanced'],
    ]);
  });

  it('reads the ranges and the choices', () => {
    const fields = regulatorFieldsFromOpenApi(pressureDocument());
    const byName = new Map(fields.map((field) => [field.name, field]));
    expect(byName.get('tokenBurnRatePerMin')).toMatchObject({ kind: 'number', min: 0, max: 200 });
    expect(byName.get('sessionAgeSeconds')).toMatchObject({ kind: 'number', min: 0 });
    expect(byName.get('sessionAgeSeconds')?.max).toBeUndefined();
    expect(byName.get('systemMode')).toMatchObject({
      kind: 'choice',
      choices: ['demo', 'production', 'diagnostic'],
    });
    expect(byName.get('agentProfile')?.choices).toEqual(['minimal', 'balanced', 'aggressive']);
  });

  it('refuses a document that does not describe the endpoint', () => {
    expect(() => regulatorFieldsFromOpenApi({ paths: {} })).toThrow(/GET \/api\/v1\/pressure/);
  });
});

const FIELDS: RegulatorField[] = [
  { name: 'memoryUsedPercent', description: '', kind: 'number', defaultValue: '45', min: 0, max: 100 },
  { name: 'sessionAgeSeconds', description: '', kind: 'number', defaultValue: '600', min: 0 },
  { name: 'systemMode', description: '', kind: 'choice', defaultValue: 'production', choices: ['demo'] },
];

describe('pressureBodyFromForm', () => {
  it('sends numbers as numbers and choices as text', () => {
    expect(
      pressureBodyFromForm(FIELDS, {
        memoryUsedPercent: '72',
        sessionAgeSeconds: ' 2700 ',
        systemMode: 'demo',
      }),
    ).toEqual({ memoryUsedPercent: 72, sessionAgeSeconds: 2700, systemMode: 'demo' });
  });

  it('leaves blank fields out so that the API applies its default', () => {
    expect(pressureBodyFromForm(FIELDS, { memoryUsedPercent: '', systemMode: 'demo' })).toEqual({
      systemMode: 'demo',
    });
  });

  it('sends text that is not a number as typed, for the API to name the field', () => {
    expect(pressureBodyFromForm(FIELDS, { memoryUsedPercent: '12abc' })).toEqual({
      memoryUsedPercent: '12abc',
    });
  });

  it('ignores values of fields the API does not list', () => {
    expect(pressureBodyFromForm(FIELDS, { unknownField: '3' })).toEqual({});
  });
});

describe('describeRange', () => {
  it('shows a bounded range, an open one, and the choices', () => {
    expect(describeRange(FIELDS[0]!)).toBe('0–100');
    expect(describeRange(FIELDS[1]!)).toBe('≥ 0');
    expect(describeRange(FIELDS[2]!)).toBe('demo');
  });
});
