import { existsSync } from 'node:fs';
import { join } from 'node:path';
import type { FastifyInstance } from 'fastify';
import fastifyStatic from '@fastify/static';
import { CONTENT_SECURITY_POLICY } from '../shared/csp';
import { withSecurityHeaders } from './service/http/route';

/** The built renderer next to the built CLI (out/main/cli.js -> out/renderer). */
export const defaultUiRoot = (): string => join(__dirname, '..', 'renderer');

/**
 * `serve --ui`: the built renderer at `/` of the API's port. Only the files that exist become
 * routes (no wildcard), so every other path still gets the API's JSON 404.
 */
export async function registerUi(app: FastifyInstance, root: string): Promise<void> {
  if (!existsSync(join(root, 'index.html'))) throw new Error(`no built renderer at ${root} (run npm run build)`);
  await app.register(fastifyStatic, {
    root,
    wildcard: false,
    index: ['index.html'],
    setHeaders: (reply) => {
      withSecurityHeaders(reply);
      reply.header('content-security-policy', CONTENT_SECURITY_POLICY);
      reply.header('referrer-policy', 'no-referrer');
    },
  });
}
