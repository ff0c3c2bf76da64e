import { spawn } from 'node:child_process';
import { join, resolve } from 'node:path';

export interface StandInUrls {
  providera: string;
  providerb_server: string;
  providerb_cloud: string;
}

const ROOT = resolve(__dirname, '../../..');

/** Starts `serve.ts <scenario>` in its own process; resolves with the stand-ins' URLs and a stop. */
export async function startStandInProcess(scenario: string): Promise<StandInUrls & { stop(): Promise<void> }> {
  const child = spawn(process.execPath, ['--import', 'tsx', join(ROOT, 'test/helpers/stand-ins/serve.ts'), scenario], { cwd: ROOT, stdio: ['ignore', 'pipe', 'inherit'] });
  const urls = await new Promise<StandInUrls>((res, rej) => {
    let out = '';
    child.stdout!.on('data', (d) => {
      out += String(d);
      if (out.includes('\n')) res(JSON.parse(out.slice(0, out.indexOf('\n'))) as StandInUrls);
    });
    child.on('exit', (code) => rej(new Error(`stand-ins exited ${code}`)));
  });
  return {
    ...urls,
    stop: () =>
      new Promise<void>((res) => {
        if (child.exitCode !== null) return res();
        child.on('exit', () => res());
        child.kill('SIGTERM');
      }),
  };
}
