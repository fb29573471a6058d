import { describe, expect, it } from 'vitest';
import type { HistoryItem } from '../compaction/history-item.js';
import { createCommandSummarizer } from './command-summarizer.js';

const items: HistoryItem[] = [
  { kind: 'user', id: 'u1', text: 'Fix the parser.' },
  { kind: 'assistant', id: 'a1', text: 'Fixed: empty input returns an empty AST.' },
];
// A summarizer written as a node one-liner: reads the JSON on stdin, answers on stdout.
const node = (script: string) => `"${process.execPath}" -e ${JSON.stringify(script)}`;

describe('createCommandSummarizer', () => {
  it('gives the command the items as JSON on stdin and takes its stdout as the summary', async () => {
    const summarizer = createCommandSummarizer({
      command: node(
        "let s='';process.stdin.on('data',d=>s+=d).on('end',()=>{const {items}=JSON.parse(s);process.stdout.write('SUMMARY of '+items.map(i=>i.id).join(',')+'\\n')})",
      ),
    });
    await expect(summarizer.summarize(items)).resolves.toBe('SUMMARY of u1,a1');
  });

  it('fails on a non-zero exit, naming the exit code and the end of stderr', async () => {
    const summarizer = createCommandSummarizer({
      command: node("process.stderr.write('model quota exceeded');process.exit(3)"),
    });
    await expect(summarizer.summarize(items)).rejects.toThrow(
      'summarizer command exited with 3: model quota exceeded',
    );
  });

  it('fails when the command writes nothing', async () => {
    const summarizer = createCommandSummarizer({ command: node('') });
    await expect(summarizer.summarize(items)).rejects.toThrow('summarizer command wrote no summary');
  });

  it('stops a command that runs past its timeout, with the children of its shell', async () => {
    const summarizer = createCommandSummarizer({ command: node('setTimeout(()=>{},60000)'), timeoutMs: 300 });
    await expect(summarizer.summarize(items)).rejects.toThrow('summarizer command timed out after 300 ms');
  });
});
