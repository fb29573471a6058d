import { evictionTombstone } from '/work/main/src/compaction/eviction-tombstone.ts';
import { encode } from 'gpt-tokenizer';
const t = evictionTombstone({ kind: 'tool-result', call: { kind: 'tool-call', callId: 'toolu_01AbCdEfGhIjKlMnOpQrStUv', name: 'Read', input: { file_path: '/home/alice/src/project/packages/core/src/session/session-monitor.ts' } } as any, tokens: 5321, taskId: 'subtask-3', boundary: 'command', itemId: 'toolu_01AbCdEfGhIjKlMnOpQrStUv:result', archive: '/home/alice/.local/state/barometer/archives/3f2a9c1e-8b7d-4e6f-a1b2-c3d4e5f60718/subtask-3.log' });
console.log(t, t.length, encode(t).length);
