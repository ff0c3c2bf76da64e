import { PassThrough, Transform, type Readable, type TransformCallback } from 'node:stream';
import type { ChildProcess } from 'node:child_process';
import { childExit } from './runtime';
import { SHA_RE } from './names';
import type { Repository } from './repository';

/** The two services of git's smart HTTP protocol. */
export type GitHttpService = 'git-upload-pack' | 'git-receive-pack';

/** One ref a push asked to move (`old` or `new` is the zero id for a create or a delete). */
export interface RefUpdate {
  ref: string;
  oldSha: string;
  newSha: string;
}

export function pktLine(text: string): string {
  return `${(Buffer.byteLength(text) + 4).toString(16).padStart(4, '0')}${text}`;
}

/** `Git-Protocol: version=2` is passed on as git itself expects it; anything else is dropped. */
function protocolEnv(gitProtocol: string | undefined): Record<string, string> {
  return gitProtocol && /^[\w=:.,-]+$/.test(gitProtocol) ? { GIT_PROTOCOL: gitProtocol } : {};
}

/**
 * GET info/refs?service=...: the ref advertisement, preceded (protocol v0/v1) by the
 * `# service=` line, as `git http-backend` writes it.
 */
export function advertiseRefs(repo: Repository, service: GitHttpService, gitProtocol?: string): { output: Readable; child: ChildProcess } {
  const child = repo.spawn([service.slice(4), '--stateless-rpc', '--advertise-refs', repo.path], { env: protocolEnv(gitProtocol) });
  child.stdin!.end();
  const output = new PassThrough();
  if (!gitProtocol?.includes('version=2')) output.write(`${pktLine(`# service=${service}\n`)}0000`);
  child.stdout!.pipe(output);
  child.stderr!.resume();
  return { output, child };
}

/**
 * POST .../git-upload-pack or git-receive-pack: the request body streams into git, git's answer
 * streams out; nothing is held in memory beyond the pipes' buffers. For receive-pack, `updates`
 * resolves to the ref commands the client sent (read from the stream as it passes).
 */
export function serviceRpc(
  repo: Repository,
  service: GitHttpService,
  input: Readable,
  gitProtocol?: string,
): { output: Readable; exit: Promise<{ code: number | null; stderr: string }>; updates: RefUpdate[] } {
  const child = repo.spawn([service.slice(4), '--stateless-rpc', repo.path], { env: protocolEnv(gitProtocol) });
  const exit = childExit(child);
  const updates: RefUpdate[] = [];
  child.stdin!.on('error', () => undefined);
  // A body that breaks (a client gone, gzip that is not gzip) ends git, and closes its stdin too:
  // nothing writes to it any more, and the child's 'close' (the answer's end) waits for it.
  input.on('error', () => {
    child.stdin!.destroy();
    child.kill('SIGKILL');
  });
  if (service === 'git-receive-pack') input.pipe(new ReceiveCommandReader(updates)).pipe(child.stdin!);
  else input.pipe(child.stdin!);
  return { output: child.stdout!, exit, updates };
}

/**
 * Passes a receive-pack request through untouched while reading its leading pkt-lines
 * (`<old> <new> <ref>[\0caps]` up to the first flush): the ref updates the push asks for.
 */
class ReceiveCommandReader extends Transform {
  private head = Buffer.alloc(0);
  private done = false;

  constructor(private readonly updates: RefUpdate[]) {
    super();
  }

  _transform(chunk: Buffer, _enc: BufferEncoding, cb: TransformCallback): void {
    if (!this.done) this.scan(chunk);
    cb(null, chunk);
  }

  private scan(chunk: Buffer): void {
    this.head = Buffer.concat([this.head, chunk]);
    while (this.head.length >= 4) {
      const len = Number.parseInt(this.head.subarray(0, 4).toString(), 16);
      if (Number.isNaN(len) || len === 0) {
        this.done = true;
        break;
      }
      if (len < 4 || this.head.length < len) {
        if (len < 4) this.done = true;
        break;
      }
      const line = this.head.subarray(4, len).toString('utf8').split('\0')[0].replace(/\n$/, '');
      const [oldSha, newSha, ref] = line.split(' ');
      if (SHA_RE.test(oldSha ?? '') && SHA_RE.test(newSha ?? '') && ref) this.updates.push({ oldSha, newSha, ref });
      this.head = this.head.subarray(len);
    }
    // A command list is small; a head that keeps growing is not one.
    if (this.done || this.head.length > 1 << 20) {
      this.done = true;
      this.head = Buffer.alloc(0);
    }
  }
}
