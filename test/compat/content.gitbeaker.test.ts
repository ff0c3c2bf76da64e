import { Gitlab } from '@gitbeaker/rest';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, startServe } from './harness';

let served: Served;
let api: InstanceType<typeof Gitlab>;
beforeAll(async () => {
  served = await startServe();
  api = new Gitlab({ host: served.url, token: served.token });
});
afterAll(async () => served?.stop());

describe('@gitbeaker/rest 43: snippets, uploads and badges', () => {
  it('creates a multi-file project snippet, edits it and reads each revision', async () => {
    const project = await api.Projects.create({ name: 'gb-snippets' });
    const created = await api.ProjectSnippets.create(project.id, 'Multi', {
      visibility: 'private',
      files: [
        { filePath: 'a.txt', content: 'one' },
        { filePath: 'dir/b.txt', content: 'two' },
      ],
    } as any);
    expect((created as any).files.map((f: any) => f.path)).toEqual(['a.txt', 'dir/b.txt']);
    await api.ProjectSnippets.edit(project.id, created.id, { files: [{ action: 'update', filePath: 'a.txt', content: 'uno' }] } as any);
    expect(await api.ProjectSnippets.showContent(project.id, created.id)).toBe('uno');
    expect(await api.ProjectSnippets.showRepositoryFileContent(project.id, created.id, 'main', 'dir/b.txt')).toBe('two');
    const details = await api.ProjectSnippets.showUserAgentDetails(project.id, created.id);
    expect((details as any).ip_address).toBe('127.0.0.1');
    expect((await api.ProjectSnippets.all(project.id)).map((s) => s.id)).toEqual([created.id]);
    await api.ProjectSnippets.remove(project.id, created.id);
    expect(await api.ProjectSnippets.all(project.id)).toEqual([]);
  });

  it('uploads, lists, downloads and removes Markdown uploads', async () => {
    const project = await api.Projects.create({ name: 'gb-uploads' });
    const up = await api.ProjectMarkdownUploads.create(project.id, { content: new Blob(['hello upload']), filename: 'note.txt' });
    expect(up.markdown).toBe(`[note.txt](${up.url})`);
    const listed = await api.ProjectMarkdownUploads.all(project.id);
    expect(listed.map((u: any) => u.filename)).toEqual(['note.txt']);
    const [, , secret, filename] = up.url.split('/');
    const bySecret = await api.ProjectMarkdownUploads.download(project.id, secret, filename);
    expect(typeof bySecret === 'string' ? bySecret : await (bySecret as Blob).text()).toBe('hello upload');
    await api.ProjectMarkdownUploads.remove(project.id, (listed[0] as any).id);
    expect(await api.ProjectMarkdownUploads.all(project.id)).toEqual([]);
  });

  it('adds, previews, edits and removes badges', async () => {
    const group = await api.Groups.create('gb-badges', 'gb-badges');
    const project = await api.Projects.create({ name: 'gb-badge-project', namespaceId: group.id });
    const badge = await api.ProjectBadges.add(project.id, 'http://e.example/%{project_path}', 'http://e.example/i.svg', { name: 'b' });
    expect(badge.renderedLinkUrl ?? (badge as any).rendered_link_url).toBe('http://e.example/gb-badges/gb-badge-project');
    const groupBadge = await api.GroupBadges.add(group.id, 'http://g.example/%{project_id}', 'http://g.example/i.svg');
    const all = await api.ProjectBadges.all(project.id);
    expect(all.map((b: any) => b.kind).sort()).toEqual(['group', 'project']);
    const preview = await api.ProjectBadges.preview(project.id, 'http://p.example/%{default_branch}', 'http://p.example/x.svg');
    expect((preview as any).renderedLinkUrl ?? (preview as any).rendered_link_url).toBe('http://p.example/main');
    const edited = await api.ProjectBadges.edit(project.id, badge.id, { name: 'renamed' });
    expect(edited.name).toBe('renamed');
    await api.ProjectBadges.remove(project.id, badge.id);
    await api.GroupBadges.remove(group.id, groupBadge.id);
    expect(await api.ProjectBadges.all(project.id)).toEqual([]);
  });
  it('shows snippets and badges, edits group badges, downloads an upload by id, and surfaces GitLab error statuses', async () => {
    const status = async (p: Promise<unknown>): Promise<[number, string]> => {
      try {
        await p;
        return [0, ''];
      } catch (err) {
        const cause = (err as { cause?: { response?: Response; description?: string } }).cause;
        return [cause?.response?.status ?? -1, cause?.description ?? ''];
      }
    };
    const group = await api.Groups.create('gb-more', 'gb-more');
    const project = await api.Projects.create({ name: 'gb-more-project', namespaceId: group.id });

    const snippet = await api.ProjectSnippets.create(project.id, 'Single', { visibility: 'private', fileName: 'x.py', content: 'print(1)' } as any);
    const shown = (await api.ProjectSnippets.show(project.id, snippet.id)) as any;
    expect([shown.title, shown.file_name ?? shown.fileName, shown.project_id ?? shown.projectId]).toEqual(['Single', 'x.py', project.id]);
    expect(await status(api.ProjectSnippets.show(project.id, 999999))).toEqual([404, '404 Not found']);
    expect(await status(api.ProjectSnippets.create(project.id, '', { visibility: 'private', fileName: 'a', content: 'b' } as any))).toEqual([400, 'title is empty']);
    expect(await status(api.ProjectSnippets.remove(project.id, 999999))).toEqual([404, '404 Snippet Not Found']);

    const groupBadge = await api.GroupBadges.add(group.id, 'http://g.example/%{project_path}', 'http://g.example/i.svg', { name: 'g' });
    expect(((await api.GroupBadges.show(group.id, groupBadge.id)) as any).kind).toBe('group');
    expect(((await api.GroupBadges.edit(group.id, groupBadge.id, { imageUrl: 'http://g.example/j.svg' })) as any).image_url ?? '').toMatch(/j\.svg$/);
    expect((await api.GroupBadges.all(group.id)).map((b: any) => b.id)).toEqual([groupBadge.id]);
    expect(((await api.ProjectBadges.show(project.id, groupBadge.id)) as any).rendered_link_url).toBe('http://g.example/gb-more/gb-more-project');
    const [badStatus, badText] = await status(api.ProjectBadges.add(project.id, 'ftp://x.example', 'http://ok.example'));
    expect(badStatus).toBe(400);
    expect(JSON.parse(badText)).toEqual({ link_url: ['is blocked: Only allowed schemes are http, https'] });
    expect(await status(api.ProjectBadges.remove(project.id, groupBadge.id))).toEqual([403, 'To delete a Group badge please use the Group endpoint']);
    await api.GroupBadges.remove(group.id, groupBadge.id);

    const up = (await api.ProjectMarkdownUploads.create(project.id, { content: new Blob(['by id']), filename: 'id.txt' })) as any;
    const byId = await api.ProjectMarkdownUploads.download(project.id, up.id);
    expect(typeof byId === 'string' ? byId : await (byId as Blob).text()).toBe('by id');
    expect((await status(api.ProjectMarkdownUploads.download(project.id, 999999)))[0]).toBe(404);
    const [, , secret] = up.url.split('/');
    await api.ProjectMarkdownUploads.remove(project.id, secret, 'id.txt');
    expect((await status(api.ProjectMarkdownUploads.remove(project.id, secret, 'id.txt')))[0]).toBe(400);
  });
});
