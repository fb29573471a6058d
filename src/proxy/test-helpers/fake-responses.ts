type Json = Record<string, unknown>;

/** A streamed Responses answer carrying `item`, with usage in `response.completed`. */
export function responsesStream(id: string, model: string, item: Json, usage: Json): string {
  const base = { id, object: 'response', created_at: 1_795_000_000, model, output: [] as Json[] };
  const events: Json[] = [
    { type: 'response.created', sequence_number: 0, response: { ...base, status: 'in_progress' } },
    { type: 'response.output_item.added', sequence_number: 1, output_index: 0, item },
  ];
  if (item.type === 'message') {
    const text = ((item.content as Json[])[0] as Json).text;
    events.push({
      type: 'response.output_text.delta',
      sequence_number: 2,
      item_id: item.id,
      output_index: 0,
      content_index: 0,
      delta: text,
    });
  }
  events.push(
    { type: 'response.output_item.done', sequence_number: 3, output_index: 0, item },
    {
      type: 'response.completed',
      sequence_number: 4,
      response: { ...base, status: 'completed', output: [item], usage },
    },
  );
  return events.map((event) => `event: ${event.type}\ndata: ${JSON.stringify(event)}\n\n`).join('');
}
