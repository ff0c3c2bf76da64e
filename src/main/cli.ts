import { resolve } from 'node:path';
import { parseArgs } from 'node:util';
import { createService } from './service';
import { boundHeap } from './service/memory';
import { defaultUiRoot, registerUi } from './ui-static';

// scripts/code-cache.cjs makes V8's code cache of this bundle under the flags the process started with.
export { withStartFlags } from './service/memory';

/**
 * Headless entry: `serve --port <n|0> --data-dir <dir> [--host 127.0.0.1] [--ui]`. Prints exactly
 * one line when the API accepts requests. SIGTERM/SIGINT close the database cleanly. `--ui` also
 * serves the built renderer at `/` (it then talks to the API over HTTP with a pasted token).
 */
async function main(): Promise<void> {
  const argv = process.argv.slice(2);
  if (argv[0] === 'serve') argv.shift();
  const { values } = parseArgs({
    args: argv,
    options: {
      port: { type: 'string', default: '0' },
      host: { type: 'string', default: '127.0.0.1' },
      'data-dir': { type: 'string', default: '.sandlab' },
      ui: { type: 'boolean', default: false },
      help: { type: 'boolean', short: 'h' },
    },
  });
  if (values.help) {
    process.stdout.write('usage: sandlab serve [--port <n|0>] [--host 127.0.0.1] [--data-dir <dir>] [--ui]\n');
    return;
  }
  // Before the data dir opens: its migrations and first reads would grow V8's heap too. Here and
  // not in createService: the Electron app's main process is left to Electron's own V8 flags.
  boundHeap();
  const port = Number(values.port);
  if (!Number.isInteger(port) || port < 0 || port > 65535) throw new Error(`--port must be 0..65535, got ${values.port}`);
  const service = await createService({
    dataDir: resolve(values['data-dir']!),
    host: values.host,
    port,
    rootToken: process.env.SANDLAB_ROOT_TOKEN || undefined,
    extendApp: values.ui ? (app) => registerUi(app, defaultUiRoot()) : undefined,
  });
  const url = await service.listen();
  if (service.createdRootToken && !process.env.SANDLAB_ROOT_TOKEN) {
    // Shown once, on stderr, so stdout stays the single "listening" line scripts wait for.
    process.stderr.write(`Root personal access token (shown once): ${service.createdRootToken}\n`);
  }
  if (values.ui) process.stderr.write(`Sandlab UI at ${url}/\n`);
  process.stdout.write(`Sandlab listening on ${url}\n`);
  let stopping = false;
  const stop = (): void => {
    if (stopping) return;
    stopping = true;
    service.close().then(
      () => process.exit(0),
      (err) => {
        process.stderr.write(`error while closing: ${String(err)}\n`);
        process.exit(1);
      },
    );
  };
  process.on('SIGTERM', stop);
  process.on('SIGINT', stop);
}

main().catch((err) => {
  process.stderr.write(`sandlab: ${err instanceof Error ? err.message : String(err)}\n`);
  process.exit(1);
});
