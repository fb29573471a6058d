import { createServer, type Socket } from 'node:net';

/** A port on 127.0.0.1 that another listener holds, as a user's busy port would be; close it when done. */
export async function occupiedPort(): Promise<{ port: number; close: () => Promise<void> }> {
  const server = createServer();
  // A probe that connects (barometer watch asks whether a barometer service holds the port) must not keep close waiting.
  const connections = new Set<Socket>();
  server.on('connection', (socket) => connections.add(socket));
  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(0, '127.0.0.1', resolve);
  });
  const address = server.address();
  if (address === null || typeof address === 'string') throw new Error('no port');
  return {
    port: address.port,
    close: () =>
      new Promise<void>((resolve) => {
        for (const socket of connections) socket.destroy();
        server.close(() => resolve());
      }),
  };
}
