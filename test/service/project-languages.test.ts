import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

/**
 * GET /projects/:id/languages: each language's share of the counted bytes on the default branch,
 * largest first, the five largest, rounded to two places; vendored code, documentation, dotfiles,
 * data and prose (JSON, YAML, Markdown) not counted; {} for an empty repository.
 */
let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s.stop());

const file = (path: string, bytes: number) => ({ action: 'create', file_path: path, content: 'x'.repeat(bytes) });

describe('GET /projects/:id/languages', () => {
  it('shares of bytes by language, largest first, the top five', async () => {
    const p = await s.createProject({ name: 'langs', initialize_with_readme: true });
    const actions = [
      file('app/main.py', 3000),
      file('app/util.py', 1000),
      file('web/index.ts', 2000),
      file('web/view.tsx', 500),
      file('web/style.css', 1000),
      file('Makefile', 300),
      file('scripts/run.sh', 200),
      file('lib/x.go', 100),
      // Not counted: vendored, documentation, dotfiles, data and prose, unknown.
      file('node_modules/dep/index.js', 90_000),
      file('docs/guide.py', 90_000),
      file('.eslintrc.js', 90_000),
      file('config.yml', 90_000),
      file('data.json', 90_000),
      file('NOTES.md', 90_000),
      file('blob.bin', 90_000),
    ];
    const res = await s.post(`/projects/${p.id}/repository/commits`, { branch: 'main', commit_message: 'code', actions });
    expect(res.status).toBe(201);
    const langs = await s.get(`/projects/${p.id}/languages`);
    expect(langs.status).toBe(200);
    // Of 8,100 counted bytes: Python 4,000, TypeScript 2,000, CSS 1,000, TSX 500, Makefile 300 (Shell 200 and Go 100 are sixth and seventh).
    expect(Object.entries(langs.body)).toEqual([
      ['Python', 49.38],
      ['TypeScript', 24.69],
      ['CSS', 12.35],
      ['TSX', 6.17],
      ['Makefile', 3.7],
    ]);
  });

  it('{} for an empty repository and one of prose only; 404 for a project the caller cannot see', async () => {
    const empty = await s.createProject({ name: 'empty-langs' });
    expect((await s.get(`/projects/${empty.id}/languages`)).body).toEqual({});
    const readme = await s.createProject({ name: 'readme-langs', initialize_with_readme: true });
    expect((await s.get(`/projects/${readme.id}/languages`)).body).toEqual({});
    const outsider = await s.createUser();
    const hidden = await s.createProject({ name: 'hidden-langs', visibility: 'private' });
    const res = await s.get(`/projects/${hidden.id}/languages`, { token: outsider.token });
    expect(res.status).toBe(404);
    expect(res.body).toEqual({ message: '404 Project Not Found' });
  });
});
