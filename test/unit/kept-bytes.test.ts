import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { HttpApp, MeasuredText } from '../../src/main/service/http/server';

/**
 * A kept text of a few KiB goes out as the bytes it keeps (Reply.send), and node writes the head
 * beside a Buffer as Latin-1: the answer must stay byte for byte what node wrote when it joined the
 * text to its head, also under a head with characters past ASCII (node lets 0x80-0xff through,
 * and joined them as UTF-8).
 */
let app: HttpApp;
let port: number;
const ascii = MeasuredText.kept(JSON.stringify({ pad: 'x'.repeat(5_000) }));
const beyond = MeasuredText.kept(JSON.stringify({ pad: 'ü'.repeat(3_000) }));

beforeAll(async () => {
  app = new HttpApp({
    bodyLimit: 1024,
    parsers: { text: new Map(), stream: new Set(), unread: new Map(), fallback: () => undefined },
    onError: (_err, _req, reply) => void reply.code(500).send({ message: 'failed' }),
    onNotFound: (_req, reply) => void reply.code(404).send({ error: '404 Not Found' }),
  });
  app.route('GET', '/ascii', (_req, reply) => reply.lowerCaseHeader('content-type', 'application/json').send(ascii));
  app.route('GET', '/beyond', (_req, reply) => reply.lowerCaseHeader('content-type', 'application/json').send(beyond));
  app.route('GET', '/ascii-under-latin1-head', (_req, reply) => reply.lowerCaseHeader('content-type', 'application/json').header('x-host', 'h\u00e9').send(ascii));
  await app.listen('127.0.0.1', 0);
  port = (app.server.address() as { port: number }).port;
});

afterAll(async () => {
  app.server.closeAllConnections();
  await app.close();
});

/** One request on a fresh socket; the raw answer's bytes, the Date header masked. */
function raw(path: string, method = 'GET'): Promise<Buffer> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1', () => socket.write(`${method} ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`));
    const chunks: Buffer[] = [];
    socket.on('data', (d: Buffer) => chunks.push(d));
    socket.on('end', () => resolve(Buffer.from(Buffer.concat(chunks).toString('latin1').replace(/\r\nDate: [^\r]+/, '\r\nDate: <now>'), 'latin1')));
    socket.on('error', reject);
  });
}

/** The answer as node wrote a text joined to its head: the whole in UTF-8. */
const joined = (head: string[], text: MeasuredText): Buffer =>
  Buffer.from([`HTTP/1.1 200 OK`, ...head, `content-length: ${text.bytes}`, 'Date: <now>', 'Connection: close', '', text.text].join('\r\n'), 'utf8');

describe('kept texts sent as their bytes', () => {
  it('ASCII and beyond: the same bytes on every answer, the length in bytes', async () => {
    for (const [path, text] of [['/ascii', ascii], ['/beyond', beyond]] as const) {
      const expected = joined(['content-type: application/json'], text);
      for (let i = 0; i < 3; i++) expect((await raw(path)).equals(expected)).toBe(true);
    }
  });

  it('under a head past ASCII: the head in UTF-8, as node joined it to the text', async () => {
    const expected = joined(['content-type: application/json', 'x-host: h\u00e9'], ascii);
    for (let i = 0; i < 2; i++) expect((await raw('/ascii-under-latin1-head')).toString('hex')).toBe(expected.toString('hex'));
  });

  it('HEAD: the head alone', async () => {
    const full = joined(['content-type: application/json'], beyond);
    const head = full.subarray(0, full.indexOf('\r\n\r\n') + 4);
    expect((await raw('/beyond', 'HEAD')).equals(head)).toBe(true);
  });
});
