import { gzipSync } from 'node:zlib';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../../helpers/service';

// Git over HTTP under hostile bodies: a gzip bomb, a body that is not gzip, pkt-lines with broken
// lengths, a ref name of 60 kB, a thousand ref updates in one push. The service neither crashes nor hangs nor answers 5xx; its
// memory stays bounded (the body streams into git, never whole into memory); the repository is
// unchanged and keeps serving.

let s: TestService;
let project: any;
const auth = `Basic ${Buffer.from(`oauth2:${ROOT_TOKEN}`).toString('base64')}`;
const ZERO = '0'.repeat(40);

beforeAll(async () => {
  s = await TestService.start();
  project = await s.createProject({ name: 'Hostile Git', initialize_with_readme: true });
});
afterAll(async () => s.stop());

/** A pkt-line: four hex digits of length (itself included), then the payload. */
const pkt = (payload: string | Buffer): Buffer => {
  const body = Buffer.isBuffer(payload) ? payload : Buffer.from(payload);
  return Buffer.concat([Buffer.from((body.length + 4).toString(16).padStart(4, '0')), body]);
};
const FLUSH = Buffer.from('0000');

async function rpc(service: 'git-upload-pack' | 'git-receive-pack', body: Buffer, headers: Record<string, string> = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(`${s.url}/root/hostile-git.git/${service}`, {
    method: 'POST',
    headers: { authorization: auth, 'content-type': `application/x-${service}-request`, ...headers },
    body,
    signal: AbortSignal.timeout(60_000),
  });
  return { status: res.status, text: await res.text() };
}

async function refs(): Promise<string> {
  const res = await fetch(`${s.url}/root/hostile-git.git/info/refs?service=git-upload-pack`, { headers: { authorization: auth } });
  expect(res.status).toBe(200);
  return res.text();
}

describe('git over HTTP under hostile bodies', () => {
  it('answers each without a crash, a hang or a 5xx, in bounded memory, and keeps the repository as it was', async () => {
    const before = await refs();
    const rssBefore = process.memoryUsage().rss;
    const head = (await s.get(`/projects/${project.id}/repository/branches/main`)).body.commit.id as string;
    // 1 GiB of zeros in ~1 MB of gzip.
    const bomb = gzipSync(Buffer.alloc(1 << 30), { level: 9 });
    const cases: [string, 'git-upload-pack' | 'git-receive-pack', Buffer, Record<string, string>?][] = [
      ['gzip bomb to upload-pack', 'git-upload-pack', bomb, { 'content-encoding': 'gzip' }],
      ['gzip bomb to receive-pack', 'git-receive-pack', bomb, { 'content-encoding': 'gzip' }],
      ['not gzip at all', 'git-upload-pack', Buffer.from('this is not gzip'), { 'content-encoding': 'gzip' }],
      ['truncated gzip', 'git-receive-pack', gzipSync(Buffer.from('0000')).subarray(0, 8), { 'content-encoding': 'gzip' }],
      ['length not hex', 'git-upload-pack', Buffer.from('zzzzwant x\n0000')],
      ['length shorter than the header', 'git-receive-pack', Buffer.from('0002abcd0000')],
      ['length past the end of the body', 'git-upload-pack', Buffer.from('ffffwant ')],
      ['a want of no object', 'git-upload-pack', Buffer.concat([pkt(`want ${'f'.repeat(40)}\n`), FLUSH, pkt('done\n')])],
      ['a 60 kB ref name', 'git-receive-pack', Buffer.concat([pkt(`${head} ${ZERO} refs/heads/${'a'.repeat(60_000)}\0report-status\n`), FLUSH])],
      ['a thousand commands without a pack', 'git-receive-pack', Buffer.concat([...Array.from({ length: 1000 }, (_, i) => pkt(`${ZERO} ${head} refs/heads/b${i}\n`)), FLUSH])],
      ['a delete of the default branch with garbage after', 'git-receive-pack', Buffer.concat([pkt(`${head} ${ZERO} refs/heads/main\0report-status\n`), FLUSH, Buffer.from('PACK\0\0\0\x02garbage')])],
    ];
    const outcomes: string[] = [];
    for (const [name, service, body, headers] of cases) {
      const t0 = Date.now();
      const r = await rpc(service, body, headers);
      outcomes.push(`${name}: ${r.status} in ${Date.now() - t0} ms`);
      expect(r.status, name).toBeLessThan(500);
    }
    process.stdout.write(`git http hostile: ${outcomes.join('; ')}\n`);
    // The bomb never sat in memory whole (1 GiB); the service still answers and nothing changed.
    expect(process.memoryUsage().rss - rssBefore).toBeLessThan(512 * 1024 * 1024);
    expect(await refs()).toBe(before);
    expect((await s.get(`/projects/${project.id}/repository/branches`)).body.map((b: any) => b.name)).toEqual(['main']);
  }, 180_000);
});
