#!/usr/bin/env node
// Every import here is dynamic: `barometer statusline` and `barometer hook` run on each refresh and tool call of an
// agent, so they start from lean entries that load only what they use; so does `barometer report`, whose cached
// answer takes less time than the whole program takes to load. Every other command loads the program.
const argv = process.argv.slice(2);
const entry =
  argv[0] === 'statusline'
    ? await import('./statusline-main.js')
    : argv[0] === 'hook'
      ? await import('./hook-main.js')
      : argv[0] === 'report'
        ? await import('./report-main.js')
        : { main: (await import('./program.js')).run };
const code = await entry.main(argv);
// `serve`, `proxy` and `watch` keep the process alive through their sockets and watchers; `wrap` exits with its
// agent's code, which it set; every other command ends here.
if (code !== 0 || !['serve', 'proxy', 'watch', 'wrap'].includes(argv[0] ?? '')) process.exitCode = code;

// `barometer replay big.jsonl | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
