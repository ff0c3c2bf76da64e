import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ROOT_TOKEN, TestService } from '../helpers/service';

/**
 * The hot path's answers byte for byte (status line, every header in order, body): whatever is
 * done to make a request cheaper must not change what the client reads. Only Date varies.
 */
let s: TestService;
let projectId: number;
let badgeId: number;
beforeAll(async () => {
  s = await TestService.start();
  projectId = (await s.createProject({ name: 'raw' })).id;
  badgeId = (await s.post(`/projects/${projectId}/badges`, { link_url: 'https://example.com/%{project_path}', image_url: 'https://shields.io/x.svg' })).body.id;
});
afterAll(async () => s.stop());

/** Sends one HTTP/1.1 request on a fresh socket and returns the raw answer, the Date header masked. */
function raw(request: string, encoding: BufferEncoding = 'utf8'): Promise<string> {
  const { port } = new URL(s.url);
  return new Promise((resolve, reject) => {
    // Written, not ended: the server closes the connection after its answer (Connection: close).
    const socket = connect(Number(port), '127.0.0.1', () => socket.write(request, encoding));
    let out = '';
    socket.setEncoding('latin1');
    socket.on('data', (d) => (out += d));
    socket.on('end', () => resolve(out.replace(/\r\nDate: [^\r]+/, '\r\nDate: <now>')));
    socket.on('error', reject);
  });
}

const get = (path: string, token: string | null = ROOT_TOKEN): Promise<string> =>
  raw(`GET ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\n${token ? `PRIVATE-TOKEN: ${token}\r\n` : ''}Connection: close\r\n\r\n`);

const answer = (status: string, headers: string[], body: string): string =>
  [`HTTP/1.1 ${status}`, ...headers, 'Date: <now>', 'Connection: close', '', body].join('\r\n');

const SECURITY = ['x-frame-options: SAMEORIGIN', 'x-content-type-options: nosniff'];
/** A snippet's raw file: set by its handler around the security headers, Content-Length last. */
const RAW_FILE_HEAD = [
  'HTTP/1.1 200 OK',
  ...SECURITY,
  'content-type: text/plain; charset=utf-8',
  `content-disposition: inline; filename="b.txt"; filename*=UTF-8''b.txt`,
  'content-length: 11',
  'Date: <now>',
  'Connection: close',
];

/** A JSON answer from outside a route (unknown paths, failed authentication): headers in sendJson's order. */
const json = (body: unknown, extra: string[] = []): [string[], string] => {
  const text = JSON.stringify(body);
  return [[...extra, 'content-type: application/json', ...SECURITY, `content-length: ${Buffer.byteLength(text)}`], text];
};

/** A route's JSON answer: the security headers are set before its handler runs. */
const routeJson = (body: unknown, extra: string[] = []): [string[], string] => {
  const text = JSON.stringify(body);
  return [[...SECURITY, ...extra, 'content-type: application/json', `content-length: ${Buffer.byteLength(text)}`], text];
};

describe('answers byte for byte', () => {
  it('GET /version', async () => {
    const [headers, body] = routeJson({ version: '17.9.0', revision: 'sandlab' });
    expect(await get('/api/v4/version')).toBe(answer('200 OK', headers, body));
    expect(await get('/api/v4/version')).toBe(answer('200 OK', headers, body));
  });

  it('HEAD /version: the GET answer without its body', async () => {
    const [headers] = routeJson({ version: '17.9.0', revision: 'sandlab' });
    for (let i = 0; i < 2; i++) {
      const res = await raw(`HEAD /api/v4/version HTTP/1.1\r\nHost: 127.0.0.1\r\nPRIVATE-TOKEN: ${ROOT_TOKEN}\r\nConnection: close\r\n\r\n`);
      expect(res).toBe(answer('200 OK', headers, ''));
    }
  });

  it('GET /metadata', async () => {
    const metadata = {
      version: '17.9.0',
      revision: 'sandlab',
      kas: { enabled: false, externalUrl: null, externalK8sProxyUrl: null, version: null },
      enterprise: true,
    };
    const expected = answer('200 OK', ...routeJson(metadata));
    expect(await get('/api/v4/metadata')).toBe(expected);
    expect(await get('/api/v4/metadata')).toBe(expected);
  });

  it('an unknown path, every time, with or without a query', async () => {
    for (const path of ['/api/v4/no/such/path', '/api/v4/no/such/path', '/api/v4/no/such/path?x=1']) {
      expect(await get(path, null)).toBe(answer('404 Not Found', ...json({ error: '404 Not Found' })));
    }
  });

  it('the old API version', async () => {
    for (let i = 0; i < 2; i++) {
      expect(await get('/api/v3/projects', null)).toBe(answer('410 Gone', ...json({ error: 'API V3 is no longer supported. Use API V4 instead.' })));
    }
  });

  it('a known path with another method', async () => {
    for (const path of ['/api/v4/version', '/api/v4/version?x=1']) {
      const res = await raw(`DELETE ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect(res).toBe(answer('405 Method Not Allowed', ...json({ error: '405 Not Allowed' }, ['allow: GET, HEAD'])));
    }
  });

  it('a path only another method has, and a path no method has, with any method', async () => {
    // POST-only: a GET or PUT is told what it allows.
    for (const method of ['GET', 'PUT', 'GET']) {
      const res = await raw(`${method} /api/v4/todos/1/mark_as_done HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n`);
      expect(res).toBe(answer('405 Method Not Allowed', ...json({ error: '405 Not Allowed' }, ['allow: POST'])));
    }
    for (const method of ['GET', 'DELETE', 'POST', 'GET']) {
      const res = await raw(`${method} /api/v4/todos/1/no_such_action HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: 0\r\nConnection: close\r\n\r\n`);
      expect(res).toBe(answer('404 Not Found', ...json({ error: '404 Not Found' })));
    }
  });

  it('a badge of a project', async () => {
    const badge = {
      name: null,
      id: badgeId,
      link_url: 'https://example.com/%{project_path}',
      image_url: 'https://shields.io/x.svg',
      rendered_link_url: 'https://example.com/root/raw',
      rendered_image_url: 'https://shields.io/x.svg',
      kind: 'project',
    };
    const expected = answer('200 OK', ...routeJson(badge));
    expect(await get(`/api/v4/projects/${projectId}/badges/${badgeId}`)).toBe(expected);
    expect(await get(`/api/v4/projects/${projectId}/badges/${badgeId}`)).toBe(expected);
  });

  it('a project', async () => {
    const res = await get(`/api/v4/projects/${projectId}`);
    const body = res.slice(res.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(body).id).toBe(projectId);
    expect(res).toBe(answer('200 OK', ...routeJson(JSON.parse(body))));
  });

  it('a project with a description and topics, the same bytes on every read', async () => {
    const p = await s.createProject({ name: 'described', description: 'A **bold** _start_ :smile:', topics: 'alpha,beta' });
    const first = await get(`/api/v4/projects/${p.id}`);
    const body = JSON.parse(Buffer.from(first.slice(first.indexOf('\r\n\r\n') + 4), 'latin1').toString('utf8'));
    expect(body).toMatchObject({
      description_html: '<p data-sourcepos="1:1-1:26" dir="auto">A <strong>bold</strong> <em>start</em> <gl-emoji data-name="smile">😄</gl-emoji></p>',
      tag_list: ['alpha', 'beta'],
      topics: ['alpha', 'beta'],
      ssh_url_to_repo: 'git@127.0.0.1:root/described.git',
      container_registry_image_prefix: '127.0.0.1/root/described',
      empty_repo: true,
    });
    expect(Buffer.from(first, 'latin1').toString('utf8')).toBe(answer('200 OK', ...routeJson(body)));
    expect(await get(`/api/v4/projects/${p.id}`)).toBe(first);
  });

  it('creating an issue', async () => {
    const request = JSON.stringify({ title: 'Raw issue', description: 'Made *here*', labels: 'bench,perf' });
    const res = await raw(
      `POST /api/v4/projects/${projectId}/issues HTTP/1.1\r\nHost: 127.0.0.1\r\nPRIVATE-TOKEN: ${ROOT_TOKEN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(request)}\r\nConnection: close\r\n\r\n${request}`,
    );
    const created = JSON.parse(res.slice(res.indexOf('\r\n\r\n') + 4));
    expect(created).toMatchObject({ title: 'Raw issue', description: 'Made *here*', labels: ['bench', 'perf'], state: 'opened', project_id: projectId });
    expect(res).toBe(answer('201 Created', ...routeJson(created)));
    const read = await get(`/api/v4/projects/${projectId}/issues/${created.iid}`);
    expect(read).toBe(answer('200 OK', ...routeJson(created)));
    expect(await get(`/api/v4/projects/${projectId}/issues/${created.iid}`)).toBe(read);
  });

  it('a JSON answer with text beyond ASCII, built for one request and remembered: its length in bytes, its body in UTF-8', async () => {
    const name = 'Größe 😄 \u2028 ü';
    const label = await raw(
      `POST /api/v4/projects/${projectId}/labels HTTP/1.1\r\nHost: 127.0.0.1\r\nPRIVATE-TOKEN: ${ROOT_TOKEN}\r\n` +
        `Content-Type: application/json\r\nContent-Length: ${Buffer.byteLength(JSON.stringify({ name, color: '#ff0000' }))}\r\nConnection: close\r\n\r\n${JSON.stringify({ name, color: '#ff0000' })}`,
    );
    const created = JSON.parse(Buffer.from(label.slice(label.indexOf('\r\n\r\n') + 4), 'latin1').toString('utf8'));
    expect(created.name).toBe(name);
    expect(Buffer.from(label, 'latin1').toString('utf8')).toBe(answer('201 Created', ...routeJson(created)));
    const issue = (await s.post(`/projects/${projectId}/issues`, { title: `Über ${name}` })).body;
    const first = Buffer.from(await get(`/api/v4/projects/${projectId}/issues/${issue.iid}`), 'latin1').toString('utf8');
    const read = JSON.parse(first.slice(first.indexOf('\r\n\r\n') + 4));
    expect(read).toMatchObject({ id: issue.id, title: `Über ${name}` });
    expect(first).toBe(answer('200 OK', ...routeJson(read)));
    expect(Buffer.from(await get(`/api/v4/projects/${projectId}/issues/${issue.iid}`), 'latin1').toString('utf8')).toBe(first);
  });

  it('a list of remembered entities, with text beyond ASCII: the same bytes and length on every read (the length summed from theirs)', async () => {
    const { id } = await s.createProject({ name: 'listed-raw' });
    for (const title of ['Ünïcode 😄 one', 'plain two', 'Größe three']) await s.post(`/projects/${id}/issues`, { title });
    const utf8 = (text: string): string => Buffer.from(text, 'latin1').toString('utf8');
    const reads: string[] = [];
    // The first read sends the page as one text; later ones join the entities' own texts (db/connection.ts entityList).
    for (let i = 0; i < 3; i++) reads.push(utf8(await get(`/api/v4/projects/${id}/issues?per_page=3`)));
    const body = JSON.parse(reads[0].slice(reads[0].indexOf('\r\n\r\n') + 4));
    expect(body.map((x: { title: string }) => x.title)).toEqual(['Größe three', 'plain two', 'Ünïcode 😄 one']);
    const text = JSON.stringify(body);
    expect(reads[0]).toContain(`\r\ncontent-length: ${Buffer.byteLength(text)}\r\n`);
    expect(reads[0].endsWith(`\r\n\r\n${text}`)).toBe(true);
    expect(reads[1]).toBe(reads[0]);
    expect(reads[2]).toBe(reads[0]);
  });

  it('a remembered entity longer than node writes with its head (16 KiB), of ASCII and beyond: the same bytes on every read', async () => {
    const { id } = await s.createProject({ name: 'long-raw' });
    for (const description of ['a'.repeat(17_000), `${'ü'.repeat(17_000)} 😄`]) {
      const { iid } = (await s.post(`/projects/${id}/issues`, { title: 'long', description })).body;
      const first = await get(`/api/v4/projects/${id}/issues/${iid}`);
      const text = Buffer.from(first, 'latin1').toString('utf8');
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
      expect(body.description).toBe(description);
      expect(text).toBe(answer('200 OK', ...routeJson(body)));
      expect(await get(`/api/v4/projects/${id}/issues/${iid}`)).toBe(first);
      expect(await get(`/api/v4/projects/${id}/issues/${iid}`)).toBe(first);
    }
  });

  it('a remembered entity of a few KiB (sent as the bytes it keeps), of ASCII and beyond: the same bytes on every read, and HEAD its head', async () => {
    const { id } = await s.createProject({ name: 'kept-bytes-raw' });
    // 6 KB of ASCII; ~6 KB of UTF-8 in ~3,000 characters: both past KEPT_BYTES (4 KiB), under LONG_TEXT (16 Ki characters).
    for (const description of ['a'.repeat(6_000), `${'ü'.repeat(3_000)} 😄`]) {
      const { iid } = (await s.post(`/projects/${id}/issues`, { title: 'kept', description })).body;
      const path = `/api/v4/projects/${id}/issues/${iid}`;
      const first = await get(path);
      const text = Buffer.from(first, 'latin1').toString('utf8');
      const body = JSON.parse(text.slice(text.indexOf('\r\n\r\n') + 4));
      expect(body.description).toBe(description);
      expect(text).toBe(answer('200 OK', ...routeJson(body)));
      expect(await get(path)).toBe(first);
      expect(await get(path)).toBe(first);
      const head = await raw(`HEAD ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nPRIVATE-TOKEN: ${ROOT_TOKEN}\r\nConnection: close\r\n\r\n`);
      expect(head).toBe(first.slice(0, first.indexOf('\r\n\r\n') + 4));
      expect(await get(path)).toBe(first);
    }
  });

  it('no credentials where they are required', async () => {
    expect(await get('/api/v4/user', null)).toBe(answer('401 Unauthorized', ...json({ message: '401 Unauthorized' })));
  });

  it('an unknown token', async () => {
    expect(await get('/api/v4/version', 'glpat-nobody')).toBe(answer('401 Unauthorized', ...json({ message: '401 Unauthorized' })));
  });

  it('a paginated list', async () => {
    const res = await get(`/api/v4/projects/${projectId}/badges?per_page=1`);
    const link = `<http://127.0.0.1/api/v4/projects/${projectId}/badges?page=1&per_page=1>`;
    const body = res.slice(res.indexOf('\r\n\r\n') + 4);
    expect(res).toBe(
      answer(
        '200 OK',
        ...routeJson(JSON.parse(body), [
          'x-total: 1',
          'x-total-pages: 1',
          'x-per-page: 1',
          'x-page: 1',
          'x-next-page: ',
          'x-prev-page: ',
          `link: ${link}; rel="first", ${link}; rel="last"`,
        ]),
      ),
    );
  });

  it('a head with characters past ASCII (a Host byte of 0xe9 in the Link) and a body of ASCII: the head in UTF-8, as node joins it to a text body', async () => {
    // Sent as Latin-1: node reads each byte of a header value as one character.
    const res = await raw(`GET /api/v4/projects/${projectId}/badges?per_page=1 HTTP/1.1\r\nHost: h\u00e9\r\nPRIVATE-TOKEN: ${ROOT_TOKEN}\r\nConnection: close\r\n\r\n`, 'latin1');
    const text = Buffer.from(res, 'latin1').toString('utf8');
    const body = text.slice(text.indexOf('\r\n\r\n') + 4);
    expect(Buffer.byteLength(body)).toBe(body.length);
    const link = `<http://h\u00e9/api/v4/projects/${projectId}/badges?page=1&per_page=1>`;
    const head = ['x-total: 1', 'x-total-pages: 1', 'x-per-page: 1', 'x-page: 1', 'x-next-page: ', 'x-prev-page: ', `link: ${link}; rel="first", ${link}; rel="last"`];
    expect(text).toBe(answer('200 OK', ...routeJson(JSON.parse(body), head)));
  });

  it("a route's own error after its security headers were set: they keep their place, the error's body headers follow", async () => {
    expect(await get(`/api/v4/projects/${projectId}/badges/999999`)).toBe(answer('404 Not Found', ...routeJson({ message: '404 Not found' })));
    expect(await get(`/api/v4/projects/${projectId}/badges/x`)).toBe(answer('400 Bad Request', ...routeJson({ error: 'badge_id is invalid' })));
  });

  it('a file a handler sends itself: every header in order', async () => {
    const id = (await s.post('/snippets', { title: 'raw-head', file_name: 'b.txt', content: 'hello again', visibility: 'private' })).body.id;
    const res = await get(`/api/v4/snippets/${id}/raw`);
    const head = res.slice(0, res.indexOf('\r\n\r\n'));
    expect(head.split('\r\n')).toEqual(RAW_FILE_HEAD);
    expect(res.endsWith('\r\n\r\nhello again')).toBe(true);
  });

  it("a handler's header names with capitals go out lower-cased, each once, in the order set", async () => {
    const readme = await s.createProject({ name: 'raw-files', initialize_with_readme: true });
    const path = `/api/v4/projects/${readme.id}/repository/files/README.md?ref=main`;
    const res = await raw(`HEAD ${path} HTTP/1.1\r\nHost: 127.0.0.1\r\nPRIVATE-TOKEN: ${ROOT_TOKEN}\r\nConnection: close\r\n\r\n`);
    const names = res
      .slice(0, res.indexOf('\r\n\r\n'))
      .split('\r\n')
      .slice(1)
      .map((line) => line.slice(0, line.indexOf(':')));
    expect(names).toEqual([
      'x-frame-options',
      'x-content-type-options',
      'x-gitlab-file-name',
      'x-gitlab-file-path',
      'x-gitlab-size',
      'x-gitlab-encoding',
      'x-gitlab-content-sha256',
      'x-gitlab-ref',
      'x-gitlab-blob-id',
      'x-gitlab-commit-id',
      'x-gitlab-last-commit-id',
      'x-gitlab-execute-filemode',
      'content-type',
      'content-length',
      'Date',
      'Connection',
    ]);
    expect(res).toContain('\r\nx-gitlab-file-path: README.md\r\n');
  });

  it('a delete without a body', async () => {
    const id = (await s.post(`/projects/${projectId}/badges`, { link_url: 'https://example.com/a', image_url: 'https://example.com/b' })).body.id;
    const res = await raw(`DELETE /api/v4/projects/${projectId}/badges/${id} HTTP/1.1\r\nHost: 127.0.0.1\r\nPRIVATE-TOKEN: ${ROOT_TOKEN}\r\nConnection: close\r\n\r\n`);
    expect(res).toBe(answer('204 No Content', SECURITY, ''));
  });

  it('a file a handler sends itself carries the security headers too', async () => {
    const id = (await s.post('/snippets', { title: 'raw', file_name: 'a.txt', content: 'hello', visibility: 'private' })).body.id;
    const res = await get(`/api/v4/snippets/${id}/raw`);
    expect(res.startsWith(`HTTP/1.1 200 OK\r\n${SECURITY.join('\r\n')}\r\n`)).toBe(true);
    expect(res.endsWith('\r\n\r\nhello')).toBe(true);
  });

  it('a multipart upload', async () => {
    const boundary = 'XyZ';
    const body = [`--${boundary}`, 'Content-Disposition: form-data; name="file"; filename="a.txt"', 'Content-Type: text/plain', '', 'hello', `--${boundary}--`, ''].join('\r\n');
    const res = await raw(
      `POST /api/v4/projects/${projectId}/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nPRIVATE-TOKEN: ${ROOT_TOKEN}\r\n` +
        `Content-Type: multipart/form-data; boundary=${boundary}\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    const text = res.slice(res.indexOf('\r\n\r\n') + 4);
    expect(JSON.parse(text)).toMatchObject({ alt: 'a.txt', markdown: expect.stringContaining('/a.txt)') });
    expect(res).toBe(answer('201 Created', ...routeJson(JSON.parse(text))));
  });

  it('a multipart body that is not one answers 400', async () => {
    const body = '--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nunterminated';
    const res = await raw(
      `POST /api/v4/projects/${projectId}/uploads HTTP/1.1\r\nHost: 127.0.0.1\r\nPRIVATE-TOKEN: ${ROOT_TOKEN}\r\n` +
        `Content-Type: multipart/form-data; boundary=XyZ\r\nContent-Length: ${Buffer.byteLength(body)}\r\nConnection: close\r\n\r\n${body}`,
    );
    expect(res.startsWith('HTTP/1.1 400 Bad Request\r\n')).toBe(true);
  });
});
