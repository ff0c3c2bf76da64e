import type { ServiceContext } from './context';
import { inTransaction } from './db/connection';
import { createUser } from './areas/core/accounts';
import { insertToken } from './areas/core/users';

export interface RootBootstrap {
  /** The plain root token, when one was created now (a new data dir); null otherwise. */
  createdToken: string | null;
}

/**
 * On a new data dir: user `root` (id 1, admin) and its first personal access token — the given
 * value (SANDLAB_ROOT_TOKEN) or a generated one, which the caller prints once.
 */
export function bootstrapRoot(svc: ServiceContext, rootToken: string | undefined): RootBootstrap {
  const exists = svc.db.prepare('SELECT 1 FROM users WHERE id = 1').get();
  if (exists) return { createdToken: null };
  return inTransaction(svc.db, () => {
    const root = createUser(svc, {
      username: 'root',
      name: 'Administrator',
      email: 'admin@example.com',
      admin: true,
    });
    const { value } = insertToken(svc, {
      userId: root.id,
      name: 'sandlab-root',
      scopes: ['api', 'read_user', 'sudo'],
      expiresAt: null,
      value: rootToken,
    });
    return { createdToken: value };
  });
}
