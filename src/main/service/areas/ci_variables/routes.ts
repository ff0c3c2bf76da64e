import type { RequestContext, Router } from '../../http/route';
import { declared, t } from '../../http/params';
import { paginate, limitSql } from '../../http/pagination';
import { inTransaction } from '../../db/connection';
import { checkUnmodifiedSince } from '../../http/conditional';
import { Access, loadGroup, loadProject } from '../core/access';
import { type VariableOwner, type VariableRow, createVariable, findVariable, listVariablesSql, scoped, updateVariable } from './variables';
import { variable } from './entities';

const VARIABLE_TYPES = ['env_var', 'file'] as const;

const writable = () => ({
  protected: t.boolean(),
  masked: t.boolean(),
  raw: t.boolean(),
  variable_type: t.string().values(VARIABLE_TYPES),
  environment_scope: t.string(),
  description: t.string(),
});

/** `filter[environment_scope]` of the single-variable routes. */
function scopeFilter(rc: RequestContext): string | undefined {
  const q = declared(rc.params, { filter: t.hash() });
  if (!q.filter) return undefined;
  const f = declared(q.filter, { environment_scope: t.string() });
  return f.environment_scope ?? undefined;
}

/**
 * CI/CD variables of projects (lib/api/ci/variables.rb, Maintainer), groups (group_variables.rb:
 * :admin_cicd_variables, the group's Owner) and the instance (admin/instance_variables.rb,
 * administrators).
 */
export function registerVariableRoutes(r: Router): void {
  const owners: [string, (rc: RequestContext) => VariableOwner][] = [
    ['/projects/:id/variables', (rc) => ({ type: 'Project', id: loadProject(rc, Access.MAINTAINER).id })],
    ['/groups/:id/variables', (rc) => ({ type: 'Namespace', id: loadGroup(rc, Access.OWNER).id })],
    [
      '/admin/ci/variables',
      (rc) => {
        rc.requireAdmin();
        return { type: 'Instance' };
      },
    ],
  ];
  for (const [base, load] of owners) {
    r.get(base, (rc) => {
      const owner = load(rc);
      const { sql, args } = listVariablesSql(owner);
      return paginate(rc, {
        count: () => (rc.svc.db.prepare(`SELECT count(*) AS n ${sql}`).get(...args) as { n: number }).n,
        rows: (limit, offset) => rc.svc.db.prepare(`SELECT * ${sql} ORDER BY id ${limitSql(limit)} OFFSET ?`).all(...args, offset) as VariableRow[],
      }).map(variable);
    });

    r.get(`${base}/:key`, (rc) => {
      const owner = load(rc);
      return variable(findVariable(rc.svc, owner, rc.path.key, scoped(owner) ? scopeFilter(rc) : undefined));
    });

    r.post(base, (rc) => {
      const p = declared(rc.params, { key: t.string().required(), value: t.string().required(), masked_and_hidden: t.boolean(), ...writable() });
      const owner = load(rc);
      // masked_and_hidden (project and group variables): masked, and the value is never shown again.
      const hidden = scoped(owner) && p.masked_and_hidden === true;
      const input = {
        key: p.key,
        value: p.value,
        variable_type: p.variable_type ?? undefined,
        protected: p.protected ?? undefined,
        masked: hidden ? true : (p.masked ?? undefined),
        hidden,
        raw: p.raw ?? undefined,
        environment_scope: p.environment_scope ?? undefined,
        description: p.description,
      };
      return variable(inTransaction(rc.svc.db, () => createVariable(rc.svc, owner, input)));
    });

    r.put(`${base}/:key`, (rc) => {
      const p = declared(rc.params, { key: t.string(), value: t.string(), ...writable() });
      const owner = load(rc);
      const current = findVariable(rc.svc, owner, rc.path.key, scoped(owner) ? scopeFilter(rc) : undefined);
      const input = {
        value: p.value ?? undefined,
        variable_type: p.variable_type ?? undefined,
        protected: p.protected ?? undefined,
        masked: p.masked ?? undefined,
        raw: p.raw ?? undefined,
        environment_scope: p.environment_scope ?? undefined,
        description: p.description,
      };
      return variable(inTransaction(rc.svc.db, () => updateVariable(rc.svc, owner, current, input)));
    });

    r.delete(`${base}/:key`, (rc) => {
      const owner = load(rc);
      const current = findVariable(rc.svc, owner, rc.path.key, scoped(owner) ? scopeFilter(rc) : undefined);
      // Project and group variables are deleted with destroy_conditionally! (412); instance ones are not.
      if (owner.type !== 'Instance') checkUnmodifiedSince(rc, current.updated_at);
      rc.svc.db.prepare('DELETE FROM ci_variables WHERE id = ?').run(current.id);
      return undefined;
    });
  }
}
