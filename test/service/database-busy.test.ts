import { join } from 'node:path';
import Database from 'better-sqlite3';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

// Another connection (a second Sandlab on the same data dir, a backup, the sqlite3 shell) holding
// the write lock past the busy timeout: Sandlab answers 503 with Retry-After, never a 500.

let s: TestService;
let other: Database.Database;
beforeAll(async () => {
  s = await TestService.start({ limits: { databaseBusyTimeoutMs: 50 } });
  other = new Database(join(s.dataDir, 'sandlab.db'));
  other.pragma('busy_timeout = 0');
});
afterEach(() => {
  if (other.inTransaction) other.exec('ROLLBACK');
});
afterAll(async () => {
  other?.close();
  await s?.stop();
});

const projectNamed = async (name: string) => ((await s.get('/projects', { query: { search: name } })).body as any[]).filter((p) => p.name === name);

describe('a database locked by another connection', () => {
  it('answers a write with 503, Retry-After and a JSON message, and writes nothing', async () => {
    other.exec('BEGIN IMMEDIATE');
    const res = await s.post('/projects', { name: 'while-locked' });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    expect(res.headers.get('content-type')).toBe('application/json');
    expect(res.body).toEqual({ message: '503 Service Unavailable' });
    other.exec('ROLLBACK');
    expect(await projectNamed('while-locked')).toEqual([]);
  });

  it('keeps serving once the lock is released: the same request then succeeds', async () => {
    other.exec('BEGIN IMMEDIATE');
    expect((await s.post('/projects', { name: 'after-lock' })).status).toBe(503);
    other.exec('ROLLBACK');
    const res = await s.post('/projects', { name: 'after-lock' });
    expect(res.status).toBe(201);
    expect(await projectNamed('after-lock')).toHaveLength(1);
  });

  it('answers 503 for a form-encoded update inside a transaction too', async () => {
    const p = (await s.post('/projects', { name: 'to-rename' })).body;
    other.exec('BEGIN IMMEDIATE');
    const res = await s.api('PUT', `/projects/${p.id}`, { form: { description: 'changed' } });
    expect(res.status).toBe(503);
    expect(res.headers.get('retry-after')).toBe('1');
    other.exec('ROLLBACK');
    expect((await s.get(`/projects/${p.id}`)).body.description).not.toBe('changed');
  });
});
