/** The regulator form's inputs, read from the service's OpenAPI document (the GET /api/v1/pressure parameters). */
export interface RegulatorField {
  name: string;
  description: string;
  kind: 'number' | 'choice';
  /** The value used when the field is left out, as the API documents it. */
  defaultValue: string;
  min?: number;
  max?: number;
  choices?: string[];
}

interface OpenApiParameter {
  name?: unknown;
  description?: unknown;
  schema?: { type?: unknown; minimum?: unknown; maximum?: unknown; default?: unknown; enum?: unknown };
}

/**
 * The inputs of `/api/v1/pressure`, in the order the API lists them.
 * @throws Error when the document does not describe the endpoint (an older or foreign server).
 */
export function regulatorFieldsFromOpenApi(document: Record<string, unknown>): RegulatorField[] {
  const paths = document.paths as Record<string, { get?: { parameters?: OpenApiParameter[] } }> | undefined;
  const parameters = paths?.['/api/v1/pressure']?.get?.parameters;
  if (!Array.isArray(parameters) || parameters.length === 0) {
    throw new Error('The OpenAPI document does not describe GET /api/v1/pressure');
  }
  return parameters.map((parameter) => {
    const schema = parameter.schema ?? {};
    const base = {
      name: String(parameter.name),
      description: typeof parameter.description === 'string' ? parameter.description : '',
      defaultValue: schema.default === undefined ? '' : String(schema.default),
    };
    if (Array.isArray(schema.enum)) {
      return { ...base, kind: 'choice' as const, choices: schema.enum.map(String) };
    }
    return {
      ...base,
      kind: 'number' as const,
      ...(typeof schema.minimum === 'number' ? { min: schema.minimum } : {}),
      ...(typeof schema.maximum === 'number' ? { max: schema.maximum } : {}),
    };
  });
}

/**
 * The JSON body for POST /api/v1/pressure: numeric text becomes a number, a blank field is left out (the
 * API then applies its default or derives it), and anything else is sent as typed so that the API's
 * answer names what is wrong — the form does not validate on its own.
 */
export function pressureBodyFromForm(
  fields: readonly RegulatorField[],
  values: Readonly<Record<string, string>>,
): Record<string, number | string> {
  const body: Record<string, number | string> = {};
  for (const field of fields) {
    const raw = (values[field.name] ?? '').trim();
    if (raw === '') continue;
    if (field.kind === 'number') {
      const number = Number(raw);
      body[field.name] = Number.isFinite(number) ? number : raw;
    } else {
      body[field.name] = raw;
    }
  }
  return body;
}

/** The range of a numeric field as the form shows it: "0–100", "≥ 0". */
export function describeRange(field: RegulatorField): string {
  if (field.kind === 'choice') return (field.choices ?? []).join(' | ');
  if (field.min !== undefined && field.max !== undefined) return `${field.min}–${field.max}`;
  if (field.min !== undefined) return `≥ ${field.min}`;
  return '';
}
