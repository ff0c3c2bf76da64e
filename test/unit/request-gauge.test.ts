import { request } from 'node:http';
import { PassThrough } from 'node:stream';
import { afterEach, describe, expect, it } from 'vitest';
import { HttpApp, type RequestGauge } from '../../src/main/service/http/server';

/**
 * The HTTP layer tells the jobs runner when each request over the server arrives and when it was
 * answered or its client went away: answers written before the handler returns end at once, the
 * others when their response closes.
 */
class Gauge implements RequestGauge {
  inFlight = 0;
  started = 0;
  ended = 0;
  requestStarted(): void {
    this.inFlight++;
    this.started++;
  }
  requestEnded(): void {
    this.inFlight--;
    this.ended++;
  }
}

let app: HttpApp;
let gauge: Gauge;
let base: string;
let release: () => void = () => undefined;
let stream: PassThrough;

async function start(): Promise<void> {
  gauge = new Gauge();
  app = new HttpApp({
    bodyLimit: 1024,
    gauge,
    parsers: { text: new Map(), stream: new Set(), unread: new Map(), fallback: () => undefined },
    onError: (_err, _req, reply) => void reply.code(500).send({ message: 'failed' }),
    onNotFound: (_req, reply) => void reply.code(404).send({ error: '404 Not Found' }),
  });
  app.route('GET', '/now', (_req, reply) => reply.send({ answered: 'at once' }));
  app.route('GET', '/later', async (_req, reply) => {
    await new Promise<void>((resolve) => (release = resolve));
    return reply.send({ answered: 'later' });
  });
  app.route('GET', '/stream', (_req, reply) => {
    stream = new PassThrough();
    return reply.send(stream);
  });
  await app.listen('127.0.0.1', 0);
  const addr = app.server.address() as { port: number };
  base = `http://127.0.0.1:${addr.port}`;
}

const until = async (check: () => boolean, what: string): Promise<void> => {
  for (let i = 0; i < 200 && !check(); i++) await new Promise((r) => setTimeout(r, 10));
  if (!check()) throw new Error(`timed out waiting for ${what}`);
};

afterEach(async () => {
  app.server.closeAllConnections();
  await app.close();
});

describe('the request gauge', () => {
  it('counts an answer written before the handler returned as ended at once', async () => {
    await start();
    // Seen by a listener after the gauge's, in the tick the request arrived in: already ended.
    const seen: number[][] = [];
    app.server.on('request', () => seen.push([gauge.started, gauge.ended]));
    const res = await fetch(`${base}/now`);
    expect(await res.json()).toEqual({ answered: 'at once' });
    expect([gauge.started, gauge.ended, gauge.inFlight]).toEqual([1, 1, 0]);
    await fetch(`${base}/no/such/path`);
    expect([gauge.started, gauge.ended, gauge.inFlight]).toEqual([2, 2, 0]);
    expect(seen).toEqual([
      [1, 1],
      [2, 2],
    ]);
  });

  it('keeps a request answered later in flight until its answer is written', async () => {
    await start();
    const answer = fetch(`${base}/later`);
    await until(() => gauge.started === 1, 'the request');
    await new Promise((r) => setTimeout(r, 50));
    expect(gauge.inFlight).toBe(1);
    release();
    const res = await answer;
    expect(await res.json()).toEqual({ answered: 'later' });
    await until(() => gauge.inFlight === 0, 'the end of the request');
    expect(gauge.ended).toBe(1);
  });

  it('keeps a streamed answer in flight until it ends, and ends it once when the client goes away', async () => {
    await start();
    const answer = fetch(`${base}/stream`);
    await until(() => gauge.started === 1, 'the request');
    stream.write('part');
    const res = await answer;
    await new Promise((r) => setTimeout(r, 50));
    expect(gauge.inFlight).toBe(1);
    stream.end('done');
    expect(await res.text()).toBe('partdone');
    await until(() => gauge.inFlight === 0, 'the end of the stream');

    const req = request(`${base}/stream`);
    req.on('error', () => undefined);
    req.on('response', (r) => r.once('data', () => req.destroy()));
    req.end();
    await until(() => gauge.started === 2, 'the second request');
    stream.write('part');
    await until(() => gauge.ended === 2, 'the client going away');
    await new Promise((r) => setTimeout(r, 50));
    expect([gauge.started, gauge.ended, gauge.inFlight]).toEqual([2, 2, 0]);
  });
});
