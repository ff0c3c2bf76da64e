import { randomBytes } from 'node:crypto';
import type { ServiceContext } from '../../../context';
import { inTransaction } from '../../../db/connection';
import { createUser } from '../../core/accounts';
import { findNamespaceById, rootOf } from '../../core/namespaces';
import type { Project } from '../../core/projects';
import { findUserByEmail } from '../../core/users';

/** Someone upstream: their key there (login, name, account id), what to call them, their e-mail when known. */
export interface SourceUser {
  key: string;
  name: string;
  /** Known from the record itself (provider B server); otherwise looked up when the provider can. */
  email?: string | null;
}

/**
 * Maps upstream contributors to users here: the user with the same e-mail when there is one,
 * otherwise the top-level namespace's placeholder "Import User" (the reference's rule for
 * unmatched contributions), with the original author named at the top of the text.
 */
export class UserMap {
  private readonly matched = new Map<string, number | null>();
  private placeholderId: number | null = null;

  constructor(
    private readonly svc: ServiceContext,
    private readonly project: Project,
    /** The provider's e-mail of a user key (GitHub's public e-mail), or null. */
    private readonly lookupEmail: ((key: string) => Promise<string | null>) | null,
  ) {}

  /** Resolves the users a page mentions (the upstream lookups happen here, outside any transaction). */
  async prepare(users: (SourceUser | null | undefined)[]): Promise<void> {
    for (const u of users) {
      if (!u || this.matched.has(u.key)) continue;
      let email = u.email ?? null;
      if (!email && this.lookupEmail) email = await this.lookupEmail(u.key).catch(() => null);
      this.matched.set(u.key, email ? (findUserByEmail(this.svc, email)?.id ?? null) : null);
    }
  }

  /** The user a contribution is attributed to, and whether it is the contributor themself. */
  author(u: SourceUser | null | undefined): { id: number; matched: boolean } {
    const id = u ? this.matched.get(u.key) : null;
    if (id) return { id, matched: true };
    return { id: this.placeholder(), matched: false };
  }

  /** Ids of the matched users only (assignees, reviewers: a placeholder is assigned nothing). */
  matchedIds(users: (SourceUser | null | undefined)[]): number[] {
    return [...new Set(users.map((u) => (u ? this.matched.get(u.key) : null)).filter((id): id is number => !!id))];
  }

  /** The text as written, with its author named first when the author had no user here. */
  body(u: SourceUser | null | undefined, text: string | null | undefined): string {
    const body = text ?? '';
    if (!u || this.matched.get(u.key)) return body;
    return `*Created by: ${u.name}*\n\n${body}`;
  }

  private placeholder(): number {
    this.placeholderId ??= placeholderUser(this.svc, this.project);
    return this.placeholderId;
  }
}

/**
 * The non-functional "Import User" of the project's top-level namespace (GitLab's
 * ImportUserCreator), created on first use.
 */
export function placeholderUser(svc: ServiceContext, project: Project): number {
  const root = rootOf(svc, findNamespaceById(svc, project.namespace_id)!);
  return inTransaction(svc.db, () => {
    const existing = svc.db.prepare('SELECT user_id FROM import_placeholder_users WHERE namespace_id = ?').get(root.id) as { user_id: number } | undefined;
    if (existing) return existing.user_id;
    const username = `import_user_${root.path}_${randomBytes(3).toString('hex').slice(0, 4)}`;
    const user = createUser(svc, {
      username,
      name: 'Import User',
      email: `${username}@noreply.sandlab.local`,
      userType: 'import_user',
      canCreateGroup: false,
      projectsLimit: 0,
    });
    svc.db.prepare('INSERT INTO import_placeholder_users (namespace_id, user_id) VALUES (?, ?)').run(root.id, user.id);
    return user.id;
  });
}
