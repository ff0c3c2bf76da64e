import { createHash } from 'node:crypto';
import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { notFound, validationError } from '../../../http/errors';
import { paginateSql } from '../../../http/pagination';
import { inTransaction } from '../../../db/connection';
import { userPublic, withFields } from '../entities';
import { findUserById, type User } from '../users';
import { isoTime } from '../time';
import { loadUser } from './users';

interface SshKeyRow {
  id: number;
  user_id: number;
  title: string;
  key: string;
  fingerprint: string;
  fingerprint_sha256: string;
  usage_type: string;
  expires_at: string | null;
  last_used_at: string | null;
  created_at: string;
}

/** Gitlab::SSHPublicKey's technologies, by the algorithm name a key line starts with. */
const ALGORITHMS = [
  'ssh-rsa',
  'ssh-dss',
  'ecdsa-sha2-nistp256',
  'ecdsa-sha2-nistp384',
  'ecdsa-sha2-nistp521',
  'ssh-ed25519',
  'sk-ecdsa-sha2-nistp256@openssh.com',
  'sk-ssh-ed25519@openssh.com',
];

/** Entities::SSHKey */
const sshKey = (row: SshKeyRow) => ({
  id: row.id,
  title: row.title,
  created_at: row.created_at,
  expires_at: row.expires_at,
  last_used_at: row.last_used_at,
  key: row.key,
  usage_type: row.usage_type,
});

/** Entities::SSHKeyWithUser (GET /keys/:id, administrators). */
const sshKeyWithUser = (rc: RequestContext, row: SshKeyRow) => withFields(sshKey(row), { user: userPublic(rc, findUserById(rc.svc, row.user_id)!) });

/**
 * An OpenSSH public key line's MD5 (`aa:bb:...`) and SHA256 (`SHA256:...`) fingerprints, or null
 * when the line is not a key: the base64 blob must name the same algorithm the line starts with.
 */
export function sshFingerprints(line: string): { md5: string; sha256: string } | null {
  const [algorithm, encoded] = line.trim().split(/\s+/);
  if (!algorithm || !encoded || !ALGORITHMS.includes(algorithm) || !/^[A-Za-z0-9+/]+={0,2}$/.test(encoded)) return null;
  const blob = Buffer.from(encoded, 'base64');
  if (blob.length < 4) return null;
  const nameLength = blob.readUInt32BE(0);
  if (blob.length < 4 + nameLength || blob.subarray(4, 4 + nameLength).toString('latin1') !== algorithm) return null;
  const md5 = createHash('md5').update(blob).digest('hex').match(/../g)!.join(':');
  const sha256 = `SHA256:${createHash('sha256').update(blob).digest('base64').replace(/=+$/, '')}`;
  return { md5, sha256 };
}

function createKey(rc: RequestContext, user: User): SshKeyRow {
  const p = declared(rc.params, {
    title: t.string().required(),
    key: t.string().required(),
    expires_at: t.dateTime(),
    usage_type: t.string().values(['auth', 'signing', 'auth_and_signing']).default('auth_and_signing'),
  });
  // Key#key= strips the line and drops newlines inside it.
  const key = p.key.replace(/[\r\n]/g, '').trim();
  const errors: Record<string, string[]> = {};
  if (!p.title.trim()) errors.title = ["can't be blank"];
  else if (p.title.length > 255) errors.title = ['is too long (maximum is 255 characters)'];
  const fingerprints = sshFingerprints(key);
  if (!key) errors.key = ["can't be blank"];
  else if (!fingerprints) errors.key = ['type is forbidden. Must be DSA, ECDSA, ED25519, ECDSA_SK, ED25519_SK, or RSA'];
  if (!fingerprints) errors.fingerprint_sha256 = ['cannot be generated'];
  else if (rc.svc.db.prepare('SELECT 1 FROM ssh_keys WHERE fingerprint_sha256 = ?').get(fingerprints.sha256)) {
    errors.fingerprint_sha256 = ['has already been taken'];
  }
  if (p.expires_at && Date.parse(p.expires_at) <= rc.svc.now().getTime()) errors.expires_at = ['must be in the future'];
  if (Object.keys(errors).length) throw validationError(errors);
  return inTransaction(rc.svc.db, () => {
    const info = rc.svc.db
      .prepare(
        `INSERT INTO ssh_keys (user_id, title, key, fingerprint, fingerprint_sha256, usage_type, expires_at, created_at)
         VALUES (?, ?, ?, ?, ?, ?, ?, ?)`,
      )
      .run(user.id, p.title, key, fingerprints!.md5, fingerprints!.sha256, p.usage_type, p.expires_at ?? null, isoTime(rc.svc.now()));
    return rc.svc.db.prepare('SELECT * FROM ssh_keys WHERE id = ?').get(info.lastInsertRowid) as SshKeyRow;
  });
}

function listKeys(rc: RequestContext, user: User) {
  return paginateSql<SshKeyRow>(rc, rc.svc.db, { select: '*', from: 'FROM ssh_keys WHERE user_id = ?', args: [user.id], order: 'id' }).map(sshKey);
}

function findKey(rc: RequestContext, user: User): SshKeyRow {
  const row = rc.svc.db.prepare('SELECT * FROM ssh_keys WHERE id = ? AND user_id = ?').get(Number(rc.path.key_id), user.id) as SshKeyRow | undefined;
  if (!row) throw notFound('Key');
  return row;
}

function deleteKey(rc: RequestContext, row: SshKeyRow): undefined {
  inTransaction(rc.svc.db, () => rc.svc.db.prepare('DELETE FROM ssh_keys WHERE id = ?').run(row.id));
  return undefined;
}

/** lib/api/users.rb and lib/api/keys.rb: the caller's keys, any user's (read: everyone; write: admins), and lookup by id or fingerprint. */
export function registerSshKeyRoutes(r: Router): void {
  r.get('/user/keys', (rc) => listKeys(rc, rc.requireUser()));
  r.post('/user/keys', (rc) => sshKey(createKey(rc, rc.requireUser())));
  r.get('/user/keys/:key_id', (rc) => sshKey(findKey(rc, rc.requireUser())));
  r.delete('/user/keys/:key_id', (rc) => deleteKey(rc, findKey(rc, rc.requireUser())));

  r.get('/users/:id/keys', (rc) => listKeys(rc, loadUser(rc)), { auth: 'optional' });
  r.get('/users/:id/keys/:key_id', (rc) => sshKey(findKey(rc, loadUser(rc))), { auth: 'optional' });
  r.post('/users/:id/keys', (rc) => {
    rc.requireAdmin();
    return sshKey(createKey(rc, loadUser(rc)));
  });
  r.delete('/users/:id/keys/:key_id', (rc) => {
    rc.requireAdmin();
    return deleteKey(rc, findKey(rc, loadUser(rc)));
  });

  r.get('/keys', (rc) => {
    rc.requireAdmin();
    const q = declared(rc.params, { fingerprint: t.string().required() });
    const column = q.fingerprint.startsWith('SHA256:') ? 'fingerprint_sha256' : 'fingerprint';
    const row = rc.svc.db.prepare(`SELECT * FROM ssh_keys WHERE ${column} = ?`).get(q.fingerprint) as SshKeyRow | undefined;
    if (!row) throw notFound('Key');
    return sshKeyWithUser(rc, row);
  });
  r.get('/keys/:key_id', (rc) => {
    rc.requireAdmin();
    const row = rc.svc.db.prepare('SELECT * FROM ssh_keys WHERE id = ?').get(Number(rc.path.key_id)) as SshKeyRow | undefined;
    if (!row) throw notFound('Key');
    return sshKeyWithUser(rc, row);
  });
}
