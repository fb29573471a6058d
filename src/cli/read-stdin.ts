import type { CliIo } from './io.js';

/** The whole of stdin as text; empty when stdin is a terminal (nothing is piped in). */
export async function readStdin(io: CliIo): Promise<string> {
  if (io.stdin.isTTY) return '';
  const chunks: Buffer[] = [];
  for await (const chunk of io.stdin) chunks.push(typeof chunk === 'string' ? Buffer.from(chunk) : chunk);
  return Buffer.concat(chunks).toString('utf8');
}
