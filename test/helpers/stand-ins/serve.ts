import { startStandIns } from './scenarios';

// `node --import tsx test/helpers/stand-ins/serve.ts <scenario>`: starts the seeded stand-ins and
// prints their URLs as one JSON line; runs until SIGTERM.
void startStandIns(process.argv[2] ?? 'compat').then((standIns) => {
  const urls = { providera: standIns.providera.url, providerb_server: standIns.providerb_server.url, providerb_cloud: standIns.providerb_cloud.url };
  process.stdout.write(`${JSON.stringify(urls)}\n`);
  const stop = async () => {
    await Promise.all(Object.values(standIns).map((x) => x.stop()));
    process.exit(0);
  };
  process.on('SIGTERM', () => void stop());
  process.on('SIGINT', () => void stop());
});
