#!/usr/bin/env node
import { run } from './program.js';

const code = await run(process.argv.slice(2));
// `serve` keeps the process alive through its listening socket; every other command ends here.
if (code !== 0 || !process.argv.slice(2).includes('serve')) process.exitCode = code;

// `headroom replay big.jsonl | head` closes the pipe early: that is the reader's choice, not an error.
process.stdout.on('error', (error: NodeJS.ErrnoException) => {
  if (error.code === 'EPIPE') process.exit(0);
  throw error;
});
