import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { TestService } from '../helpers/service';

let s: TestService;
beforeAll(async () => {
  s = await TestService.start();
});
afterAll(async () => s?.stop());

const TEXT = ':tada: Hello world! :100: #1';

describe('POST /markdown', () => {
  it('needs authentication (authenticate_markdown_api) and answers 201 with the html', async () => {
    expect((await s.post('/markdown', { text: 'hi' }, { token: null })).status).toBe(401);
    const res = await s.post('/markdown', { text: 'Hello *world*' });
    expect(res.status).toBe(201);
    expect(res.headers.get('content-type')).toMatch(/^application\/json/);
    expect(res.body).toEqual({ html: '<p data-sourcepos="1:1-1:13" dir="auto">Hello <em>world</em></p>' });
  });

  it("answers Grape's 400 without text and 404 for a project the caller cannot read", async () => {
    expect(await s.post('/markdown', {}).then((r) => [r.status, r.body])).toEqual([400, { error: 'text is missing' }]);
    expect(await s.post('/markdown', { text: 'x', gfm: true, project: 'Dummy project' }).then((r) => [r.status, r.body])).toEqual([404, { message: '404 Project Not Found' }]);
    const p = await s.createProject({ visibility: 'private' });
    const { token } = await s.createUser();
    expect((await s.post('/markdown', { text: 'x', project: p.path_with_namespace }, { token })).status).toBe(404);
    expect((await s.post('/markdown', { text: 'x', project: p.path_with_namespace })).status).toBe(201);
  });

  it('is a read: a read_api token may call it, a read_user one may not', async () => {
    const reader = await s.createUser({}, ['read_api']);
    expect((await s.post('/markdown', { text: 'x' }, { token: reader.token })).status).toBe(201);
    const profile = await s.createUser({}, ['read_user']);
    expect((await s.post('/markdown', { text: 'x' }, { token: profile.token })).status).toBe(403);
  });

  it('renders plain Markdown without gfm: no emoji, no references', async () => {
    const p = await s.createProject();
    await s.post(`/projects/${p.id}/issues`, { title: 'First' });
    for (const body of [{ text: TEXT }, { text: TEXT, project: p.path_with_namespace }]) {
      expect((await s.post('/markdown', body)).body.html).toBe(`<p data-sourcepos="1:1-1:28" dir="auto">${TEXT}</p>`);
    }
  });

  it('renders GitLab Flavored Markdown: emoji everywhere, issue links only with a project', async () => {
    const p = await s.createProject();
    const issue = (await s.post(`/projects/${p.id}/issues`, { title: 'First' })).body;
    const without = (await s.post('/markdown', { text: TEXT, gfm: true })).body.html as string;
    expect(without).toContain('data-name="tada"');
    expect(without).toContain('data-name="100"');
    expect(without).toContain('🎉');
    expect(without).toContain('#1');
    expect(without).not.toContain('#1</a>');
    const withProject = (await s.post('/markdown', { text: TEXT, gfm: true, project: p.path_with_namespace })).body.html as string;
    expect(withProject).toContain(`<a href="${issue.web_url}"`);
    expect(withProject).toContain('#1</a>');
    expect(withProject).toContain('title="First"');
  });

  it('accepts form-encoded parameters as python-gitlab and curl send them', async () => {
    const res = await s.api('POST', '/markdown', { form: { text: '**bold** :smile:', gfm: 'true' } });
    expect(res.status).toBe(201);
    expect(res.body.html).toContain('<strong>bold</strong>');
    expect(res.body.html).toContain('data-name="smile"');
  });

  it('links merge requests and users, never inside code or existing links', async () => {
    const p = await s.createProject();
    const mr = (await s.post(`/projects/${p.id}/merge_requests`, { title: 'Feature', source_branch: 'f', target_branch: 'main' })).body;
    const html = (await s.post('/markdown', { text: 'See !1 by @root, not `!1` nor [@root](https://example.com) nor @nobody-here', gfm: true, project: p.path_with_namespace })).body.html as string;
    expect(html).toContain(`<a href="${mr.web_url}"`);
    expect(html).toContain('!1</a>');
    expect(html).toContain(`<a href="${s.url}/root"`);
    expect(html).toContain('data-reference-type="user"');
    expect(html).toContain('<code>!1</code>');
    expect(html).toContain('<a href="https://example.com">@root</a>');
    expect(html).toContain('nor @nobody-here');
  });

  it('hides a confidential issue from those who cannot read it', async () => {
    const p = await s.createProject({ visibility: 'public' });
    await s.post(`/projects/${p.id}/issues`, { title: 'Confidential title', confidential: true });
    const { token } = await s.createUser();
    const outsider = (await s.post('/markdown', { text: '#1', gfm: true, project: p.path_with_namespace }, { token })).body.html as string;
    expect(outsider).not.toContain('Confidential title');
    expect(outsider).not.toContain('<a href=');
    const author = (await s.post('/markdown', { text: '#1', gfm: true, project: p.path_with_namespace })).body.html as string;
    expect(author).toContain('Confidential title');
    expect(author).toContain('#1</a>');
  });

  it('renders task lists, tables, strikethrough, autolinks, fenced code and heading anchors', async () => {
    const text = '# Plan\n\n- [ ] write\n- [x] test\n\n| a | b |\n|---|---|\n| 1 | ~~2~~ |\n\nhttps://example.com\n\n```ts\nconst a = 1 < 2;\n```';
    const html = (await s.post('/markdown', { text, gfm: true })).body.html as string;
    expect(html).toContain('<a href="#plan" aria-hidden="true" class="anchor" id="user-content-plan"></a>Plan</h1>');
    expect(html).toMatch(/<ul [^>]*class="task-list"/);
    expect(html).toContain('<input type="checkbox" class="task-list-item-checkbox" disabled /> write');
    expect(html).toContain('<input type="checkbox" class="task-list-item-checkbox" disabled checked /> test');
    expect(html).toContain('<td><s>2</s></td>');
    expect(html).toContain('<a href="https://example.com">https://example.com</a>');
    expect(html).toContain('lang="ts"');
    expect(html).toContain('const a = 1 &lt; 2;');
  });
});

describe('sanitizing: nothing that runs survives', () => {
  const HOSTILE = [
    '<script>alert(1)</script>',
    '<SCRIPT SRC=//evil.example/x.js></SCRIPT>',
    '<img src=x onerror=alert(1)>',
    '<img src="javascript:alert(1)">',
    '<img src="data:image/svg+xml;base64,PHN2ZyBvbmxvYWQ9YWxlcnQoMSk+">',
    '<a href="javascript:alert(1)">x</a>',
    '<a href="JaVaScRiPt:alert(1)">x</a>',
    '<a href="jav&#x61;script:alert(1)">x</a>',
    '<a href="&#106;&#97;&#118;&#97;&#115;&#99;&#114;&#105;&#112;&#116;&#58;alert(1)">x</a>',
    '<a href=" javascript:alert(1)">x</a>',
    '<a href="java\tscript:alert(1)">x</a>',
    '<a href="vbscript:msgbox(1)">x</a>',
    '<a href="data:text/html,<script>alert(1)</script>">x</a>',
    '[x](javascript:alert(1))',
    '[x](JAVASCRIPT:alert(1))',
    '[x](<javascript:alert(1)>)',
    '![x](javascript:alert(1))',
    '[x]: javascript:alert(1)\n\n[x]',
    '<javascript:alert(1)>',
    '<div onclick="alert(1)" onmouseover="alert(1)">d</div>',
    '<p style="background:url(javascript:alert(1))">s</p>',
    '<svg onload=alert(1)><circle/></svg>',
    '<math><mtext><table><mglyph><style><img src=x onerror=alert(1)>',
    '<iframe src="https://evil.example"></iframe>',
    '<object data="x.swf"></object><embed src="x.swf">',
    '<form action="https://evil.example"><button>go</button></form>',
    '<input type="text" autofocus onfocus=alert(1)>',
    '<details open ontoggle=alert(1)><summary>s</summary></details>',
    '<meta http-equiv="refresh" content="0;url=javascript:alert(1)">',
    '<base href="https://evil.example/">',
    '<style>body{background:red}</style>',
    '<link rel=stylesheet href=https://evil.example/x.css>',
    '<noscript><p title="</noscript><img src=x onerror=alert(1)>">',
    '<a href="https://ok.example" onclick="alert(1)">ok</a>',
    '`<script>alert(1)</script>`',
    '```html\n<script>alert(1)</script>\n```',
    '<!-- <script>alert(1)</script> -->',
    '<gl-emoji onmouseover="alert(1)" data-name="x">x</gl-emoji>',
  ];

  it.each(HOSTILE)('%j', async (text) => {
    for (const gfm of [true, false]) {
      const res = await s.post('/markdown', { text, gfm });
      expect(res.status).toBe(201);
      const html = res.body.html as string;
      // Tags: only escaped text may mention them.
      expect(html).not.toMatch(/<(script|iframe|object|embed|form|style|link|meta|base|svg|math|noscript)\b/i);
      // No event handler attribute, no style attribute, on any tag (attribute values are text, emptied first).
      expect(html.replace(/="[^"]*"/g, '=""')).not.toMatch(/<[^>]*\s(on\w+|style)\s*=/i);
      // No dangerous scheme in any attribute value, however it was written.
      const attrValues = [...html.matchAll(/\s[\w-]+="([^"]*)"/g)].map((m) => decodeEntities(m[1]).replace(/[\s\u0000-\u001f]/g, '').toLowerCase());
      expect(attrValues.filter((v) => /^(javascript|vbscript|data):/.test(v))).toEqual([]);
      // Inputs are only task list checkboxes.
      expect(html).not.toMatch(/<input(?![^>]*type="checkbox")/);
    }
  });

  it('keeps safe HTML and links', async () => {
    const html = (await s.post('/markdown', { text: '<details><summary>More</summary><b>bold</b> <a href="https://ok.example" title="t">ok</a></details>', gfm: true })).body.html;
    expect(html).toContain('<details><summary>More</summary><b>bold</b> <a href="https://ok.example" title="t">ok</a></details>');
  });
});

function decodeEntities(s: string): string {
  return s
    .replace(/&#x([0-9a-f]+);?/gi, (_, h) => String.fromCodePoint(parseInt(h, 16)))
    .replace(/&#(\d+);?/g, (_, d) => String.fromCodePoint(Number(d)))
    .replace(/&colon;/gi, ':')
    .replace(/&tab;/gi, '\t')
    .replace(/&newline;/gi, '\n')
    .replace(/&amp;/g, '&');
}

describe('*_html fields are rendered Markdown', () => {
  it("a label's description_html", async () => {
    const p = await s.createProject();
    const res = await s.post(`/projects/${p.id}/labels`, { name: 'docs', color: '#00AA00', description: 'Needs **docs** <img src=x onerror=alert(1)> :memo:' });
    expect(res.status).toBe(201);
    expect(res.body.description_html).toBe(
      '<p data-sourcepos="1:1-1:50" dir="auto">Needs <strong>docs</strong> <img src="x" /> <gl-emoji data-name="memo">📝</gl-emoji></p>',
    );
  });

  it("a project's description_html", async () => {
    const p = await s.createProject({ description: 'A *sandbox* with <script>alert(1)</script>' });
    const got = (await s.get(`/projects/${p.id}`)).body;
    expect(got.description_html).toBe('<p data-sourcepos="1:1-1:42" dir="auto">A <em>sandbox</em> with </p>');
    expect((await s.get(`/projects/${(await s.createProject()).id}`)).body.description_html).toBe('');
  });
});
