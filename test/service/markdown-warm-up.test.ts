import { describe, expect, it } from 'vitest';
import { markdownWarm } from '../../src/main/service/markdown/markdown';
import { TestService } from '../helpers/service';

/**
 * The Markdown renderer (markdown-it, its emoji list, sanitize-html: ~70 ms of loading) is built
 * shortly after the service listens, not on the way to its first answer and not by the first read
 * with a description.
 */
describe('warming the Markdown renderer', () => {
  it('builds it after the start, with no request needing it, and renders the same', async () => {
    const svc = await TestService.start();
    try {
      expect(markdownWarm()).toBe(false);
      expect((await svc.get('/version')).status).toBe(200);
      expect(markdownWarm()).toBe(false);
      await expect.poll(markdownWarm, { timeout: 10_000 }).toBe(true);
      const project = await svc.post('/projects', { name: 'Warm', description: 'A **bold** start :smile:' });
      expect(project.status).toBe(201);
      expect(project.body.description_html).toContain('<strong>bold</strong>');
      expect(project.body.description_html).toContain('gl-emoji');
    } finally {
      await svc.stop();
    }
  });
});
