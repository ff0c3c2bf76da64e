import type { RequestContext } from '../../http/route';
import { apiError, grapeError } from '../../http/errors';
import type { Page as RequestedPage } from '../../http/pagination';
import { ProviderError, ProviderUnreachable, RateLimitError, isHttpUrl } from './providers/http';
import { type ARepository, ProviderAClient, providerAApiUrl } from './providers/providera';
import { type BSRepo, ProviderBServerClient } from './providers/providerb_server';
import { type BCRepo, ProviderBCloudClient, providerBCloudApiUrl } from './providers/providerb_cloud';

/**
 * Sandlab-only: the repositories a provider's credentials reach, one page at a time, each with
 * the parameters that import it. `X-Page`, `X-Per-Page` and `X-Next-Page` say where the list goes on.
 */

export interface UpstreamRepository {
  name: string;
  full_name: string;
  description: string | null;
  private: boolean;
  web_url: string | null;
  /** What POST /import/<provider> needs besides the credentials and the namespace. */
  import_params: Record<string, string | number>;
}

const options = (rc: RequestContext) => ({ fetch: rc.svc.fetch, now: rc.svc.now, maxRateLimitWaitMs: 0, timeoutMs: 30_000 });

function checkUrl(url: string): void {
  if (!isHttpUrl(url)) throw grapeError(400, `Invalid URL: ${url}`);
}

/** The provider's refusal as this endpoint answers it. */
async function upstream<T>(work: () => Promise<T>): Promise<T> {
  try {
    return await work();
  } catch (err) {
    if (err instanceof ProviderError && (err.status === 401 || err.status === 403)) throw apiError(401, `${err.provider} refused the credentials${err.detail ? `: ${err.detail}` : ''}`);
    if (err instanceof RateLimitError) throw apiError(429, err.message);
    if (err instanceof ProviderError || err instanceof ProviderUnreachable) throw apiError(422, err.message);
    throw err;
  }
}

function answer(rc: RequestContext, page: RequestedPage, hasNext: boolean, items: UpstreamRepository[]): UpstreamRepository[] {
  rc.reply.headers({ 'x-page': String(page.page), 'x-per-page': String(page.perPage), 'x-next-page': hasNext ? String(page.page + 1) : '' });
  return items;
}

export async function listProviderARepositories(rc: RequestContext, token: string, hostname: string | undefined | null, page: RequestedPage): Promise<UpstreamRepository[]> {
  if (hostname) checkUrl(hostname);
  const client = new ProviderAClient(providerAApiUrl(hostname), token, page.perPage, options(rc));
  const result = await upstream(() => client.page<ARepository>(client.lists.userRepos(page.page, page.perPage)));
  return answer(
    rc,
    page,
    !!result.next,
    result.items.map((r) => ({
      name: r.name,
      full_name: r.full_name,
      description: r.description,
      private: r.private,
      web_url: r.html_url,
      import_params: { repo_id: r.id },
    })),
  );
}

export async function listProviderBServerRepositories(rc: RequestContext, url: string, username: string, token: string, page: RequestedPage): Promise<UpstreamRepository[]> {
  checkUrl(url);
  const client = new ProviderBServerClient(url, username, token, page.perPage, options(rc));
  const result = await upstream(() => client.page<BSRepo>(client.lists.repos(page.offset, page.perPage)));
  return answer(
    rc,
    page,
    !result.isLastPage,
    result.items.map((r) => ({
      name: r.name,
      full_name: `${r.project.key}/${r.slug}`,
      description: r.project.description ?? null,
      private: !r.project.public,
      web_url: r.links.self?.[0]?.href ?? null,
      import_params: { bitbucket_server_project: r.project.key, bitbucket_server_repo: r.slug },
    })),
  );
}

export async function listProviderBCloudRepositories(rc: RequestContext, username: string, appPassword: string, page: RequestedPage): Promise<UpstreamRepository[]> {
  const client = new ProviderBCloudClient(providerBCloudApiUrl(), username, appPassword, page.perPage, options(rc));
  const result = await upstream(() => client.page<BCRepo>(client.lists.repos(page.page, page.perPage)));
  return answer(
    rc,
    page,
    !!result.next,
    result.items.map((r) => ({
      name: r.name,
      full_name: r.full_name,
      description: r.description || null,
      private: r.is_private,
      web_url: r.links.html?.href ?? null,
      import_params: { repo_path: r.full_name },
    })),
  );
}
