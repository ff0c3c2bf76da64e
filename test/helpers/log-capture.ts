import { registerLog } from './secrets-registry';

// vitest setupFiles (node tests): what the services in this worker print (console, stderr) is
// recorded for the secrets sweep after the run (test/secrets-sweep.ts).

const text = (x: unknown): string => {
  if (typeof x === 'string') return x;
  if (x instanceof Error) return `${x.message}\n${x.stack ?? ''}`;
  try {
    return JSON.stringify(x) ?? String(x);
  } catch {
    return String(x);
  }
};

for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
  const original = console[method].bind(console);
  console[method] = (...args: unknown[]) => {
    registerLog(args.map(text).join(' '));
    original(...args);
  };
}

const writeStderr = process.stderr.write.bind(process.stderr) as (...args: unknown[]) => boolean;
process.stderr.write = ((chunk: unknown, ...rest: unknown[]) => {
  registerLog(typeof chunk === 'string' ? chunk : Buffer.isBuffer(chunk) ? chunk.toString('utf8') : String(chunk));
  return writeStderr(chunk, ...rest);
}) as typeof process.stderr.write;
