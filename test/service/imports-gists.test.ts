import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';
import { eventually } from '../helpers/imports';
import { ProviderAStandIn } from '../helpers/stand-ins/providera';

// POST /import/github/gists: a user's gists into personal snippets, through a stand-in of provider A.
let s: TestService;
let gh: ProviderAStandIn;
let dana: { user: any; token: string };

const manyFiles = Object.fromEntries(Array.from({ length: 11 }, (_, i) => [`part${i + 1}.txt`, `part ${i + 1}`]));
const tenFiles = Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`f${String(i).padStart(2, '0')}.md`, `# ${i}`]));

beforeAll(async () => {
  gh = await new ProviderAStandIn().start();
  process.env.SANDLAB_PROVIDERA_URL = gh.url;
  s = await TestService.start();
  dana = await s.createUser({ username: 'dana' });
  gh.addUser({ login: 'dana-gh', email: null }, 'gh-dana');
  gh.addUser({ login: 'erin-gh', email: null }, 'gh-erin');
  gh.addGist({ id: 'aaa111', owner: 'dana-gh', description: 'Shell helpers', public: true, files: { 'helpers.sh': 'echo hi\n', 'README.md': '# Helpers' }, created_at: '2023-05-01T00:00:00Z' });
  gh.addGist({ id: 'bbb222', owner: 'dana-gh', description: '', public: false, files: { 'notes.txt': 'secret notes' } });
  gh.addGist({ id: 'ccc333', owner: 'dana-gh', description: 'Too many files', public: true, files: manyFiles });
  gh.addGist({ id: 'ddd444', owner: 'dana-gh', description: 'Exactly ten', public: false, files: tenFiles });
  gh.addGist({ id: 'eee555', owner: 'erin-gh', description: 'Not dana', public: true, files: { 'x.txt': 'x' } });
});
afterAll(async () => {
  await s.stop();
  await gh.stop();
});

const finished = () =>
  eventually(async () => {
    const res = await s.get('/sandlab/import/github/gists', { token: dana.token });
    return res.body.status !== 'started' && res.body;
  });

describe('POST /import/github/gists', () => {
  it('answers 202 with no body and imports each gist of at most ten files as a personal snippet', async () => {
    const res = await s.post('/import/github/gists', { personal_access_token: 'gh-dana' }, { token: dana.token });
    expect(res.status).toBe(202);
    expect(res.text).toBe('');
    const report = await finished();
    expect(report).toMatchObject({ status: 'finished', imported_count: 3, error: null });
    expect(report.skipped).toEqual([{ id: 'ccc333', description: 'Too many files', reason: 'Snippet maximum file count exceeded' }]);

    const snippets = (await s.get('/snippets', { token: dana.token })).body;
    expect(snippets.map((sn: any) => sn.title).sort()).toEqual(['Exactly ten', 'Shell helpers', 'notes.txt']);
    const helpers = snippets.find((sn: any) => sn.title === 'Shell helpers');
    expect(helpers).toMatchObject({ visibility: 'public', imported: true, imported_from: 'github', created_at: '2023-05-01T00:00:00Z', project_id: null });
    expect(helpers.files.map((f: any) => f.path).sort()).toEqual(['README.md', 'helpers.sh']);
    const raw = await s.get(`/snippets/${helpers.id}/files/main/helpers.sh/raw`, { token: dana.token });
    expect(raw.text).toBe('echo hi\n');
    const secret = snippets.find((sn: any) => sn.title === 'notes.txt');
    expect(secret.visibility).toBe('private');
    const ten = snippets.find((sn: any) => sn.title === 'Exactly ten');
    expect(ten.files).toHaveLength(10);
  });

  it('answers 422 while an import is in progress', async () => {
    gh.gistsDelayMs = 800;
    try {
      const first = await s.post('/import/github/gists', { personal_access_token: 'gh-dana' }, { token: dana.token });
      expect(first.status).toBe(202);
      const second = await s.post('/import/providera/gists', { personal_access_token: 'gh-dana' }, { token: dana.token });
      expect(second.status).toBe(422);
      expect(second.body).toEqual({ errors: 'Import already in progress' });
    } finally {
      gh.gistsDelayMs = 0;
    }
    expect((await finished()).status).toBe('finished');
  });

  it('imports each gist once however often it runs', async () => {
    const res = await s.post('/import/github/gists', { personal_access_token: 'gh-dana' }, { token: dana.token });
    expect(res.status).toBe(202);
    await finished();
    expect((await s.get('/snippets', { token: dana.token })).body).toHaveLength(3);
  });

  it('answers 401 for a token the provider refuses', async () => {
    const res = await s.post('/import/github/gists', { personal_access_token: 'nope' }, { token: dana.token });
    expect(res.status).toBe(401);
    expect(res.body).toEqual({ errors: 'Access denied to the GitHub account.' });
  });

  it('answers 429 when the provider rate limit is spent', async () => {
    const saved = { ...gh.rateLimit };
    gh.rateLimit.remaining = 0;
    try {
      const res = await s.post('/import/github/gists', { personal_access_token: 'gh-dana' }, { token: dana.token });
      expect(res.status).toBe(429);
      expect(res.body).toEqual({ error: 'Too Many Requests' });
    } finally {
      gh.rateLimit = saved;
    }
  });

  it('answers 400 without a token and 401 without a user', async () => {
    expect((await s.post('/import/github/gists', {}, { token: dana.token })).body).toEqual({ error: 'personal_access_token is missing' });
    expect((await s.post('/import/github/gists', { personal_access_token: 'gh-dana' }, { token: null })).status).toBe(401);
  });

  it('reads gists from an enterprise host given as providera_hostname', async () => {
    const erin = await s.createUser({ username: 'erin' });
    const res = await s.post('/import/providera/gists', { personal_access_token: 'gh-erin', providera_hostname: gh.url }, { token: erin.token });
    expect(res.status).toBe(202);
    await eventually(async () => (await s.get('/sandlab/import/providera/gists', { token: erin.token })).body.status === 'finished');
    expect(gh.requestsTo(/^\/api\/v3\/gists$/).length).toBeGreaterThan(0);
    expect((await s.get('/snippets', { token: erin.token })).body.map((sn: any) => sn.title)).toEqual(['Not dana']);
  });

  it('answers 404 for the report of a user who never imported gists', async () => {
    const frank = await s.createUser();
    expect((await s.get('/sandlab/import/github/gists', { token: frank.token })).status).toBe(404);
  });
});
