/**
 * Event-stream subscribers for the fan-out benchmark, in a child process of their own:
 * `sse-subscribers.ts URL COUNT LIFETIME_MS` opens COUNT plain node:http GETs of URL (one socket each), reads
 * and discards what arrives while counting the bytes, tells the parent `ready` once every stream has answered,
 * and on the parent's `close` destroys every socket and reports what it received. It never outlives
 * LIFETIME_MS nor its parent.
 */
import { type ClientRequest, get } from 'node:http';

const [url = '', countText = '0', lifetimeText = '60000'] = process.argv.slice(2);
const count = Number(countText);
if (!url.startsWith('http://127.0.0.1:')) throw new Error(`subscribers talk to 127.0.0.1 only, not ${url}`);

const requests: ClientRequest[] = [];
let bytes = 0;
let bytesAtReady = 0;
let connected = 0;
let refused = 0;
let failed = 0;
/** Streams that ended or broke before the parent asked to close them. */
let endedEarly = 0;
let closing = false;

function answered(): void {
  if (connected + refused + failed === count) {
    bytesAtReady = bytes;
    process.send?.({ type: 'ready', connected, refused, failed, bytes });
  }
}

function closeAll(): void {
  closing = true;
  for (const request of requests) request.destroy();
}

for (let index = 0; index < count; index++) {
  let counted = false;
  let open = false;
  let gone = false;
  // A stream that was open and ends or breaks before the parent asks counts once.
  const goneEarly = () => {
    if (closing || gone || !open) return;
    gone = true;
    endedEarly++;
  };
  const request = get(url, { agent: false, headers: { accept: 'text/event-stream' } }, (response) => {
    if (response.statusCode !== 200) {
      refused++;
      counted = true;
      response.resume();
      answered();
      return;
    }
    response.on('data', (chunk: Buffer) => {
      bytes += chunk.length;
      if (!counted) {
        counted = true;
        open = true;
        connected++;
        answered();
      }
    });
    response.on('close', () => {
      if (counted || closing) goneEarly();
      else {
        counted = true;
        failed++;
        answered();
      }
    });
  });
  request.on('error', () => {
    if (closing) return;
    if (counted) goneEarly();
    else {
      counted = true;
      failed++;
      answered();
    }
  });
  requests.push(request);
}

const lifetime = setTimeout(() => {
  closeAll();
  process.exit(2);
}, Number(lifetimeText));

process.on('message', (message) => {
  if (message !== 'close') return;
  const stillOpen = connected - endedEarly;
  closeAll();
  clearTimeout(lifetime);
  process.send?.(
    { type: 'closed', connected, refused, failed, stillOpen, bytes, bytesSinceReady: bytes - bytesAtReady },
    () => process.exit(0),
  );
});
// The parent went away without asking: close anyway.
process.on('disconnect', () => {
  closeAll();
  process.exit(0);
});
