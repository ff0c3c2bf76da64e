import type { ServiceContext } from '../../context';
import { cachedEntity } from '../../db/connection';
import { type BadgeRow, type RenderContext, renderUrl } from './badges';

/** Entities::BasicBadgeDetails: what `render` answers. */
export function basicBadgeDetails(svc: ServiceContext, b: Pick<BadgeRow, 'name' | 'link_url' | 'image_url'>, ctx: RenderContext): Record<string, unknown> {
  return {
    name: b.name,
    link_url: b.link_url,
    image_url: b.image_url,
    rendered_link_url: renderUrl(svc, b.link_url, ctx),
    rendered_image_url: renderUrl(svc, b.image_url, ctx),
  };
}

/** Entities::Badge, rendered for the project it is shown on. */
export function badge(svc: ServiceContext, b: BadgeRow, ctx: RenderContext): Record<string, unknown> {
  const details = basicBadgeDetails(svc, b, ctx);
  return {
    name: details.name,
    id: b.id,
    link_url: details.link_url,
    image_url: details.image_url,
    rendered_link_url: details.rendered_link_url,
    rendered_image_url: details.rendered_image_url,
    kind: b.kind,
  };
}

/**
 * Entities::Badge remembered until the next write, with its answer bytes (cachedEntity): the key
 * names all it depends on besides the database. Only for a row read in the same synchronous run
 * (a row read before an await may be older than the generation the entity would be kept in).
 */
export function rememberedBadge(svc: ServiceContext, b: BadgeRow, ctx: RenderContext): Record<string, unknown> {
  return cachedEntity(svc.db, 'badge', [b.id, ctx.project?.id ?? 0, ctx.serverHost, ctx.commitSha, ctx.latestTag], () => badge(svc, b, ctx));
}
