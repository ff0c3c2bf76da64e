import type { RequestContext, Router } from '../../../http/route';
import { declared, t } from '../../../http/params';
import { notFound } from '../../../http/errors';
import { paginateArray } from '../../../http/pagination';
import { checkUnmodifiedSince } from '../../../http/conditional';
import type { RefInfo, Repository } from '../../../git';
import type { Project } from '../../core/projects';
import { canPushCode, loadRepository, loadWritableRepository } from '../access';
import { branchEntity } from '../entities';
import { commitOr404, findRef, matchesSearch } from '../lookup';
import { createBranch, deleteBranch } from '../writes';

/** Branches as Entities::Branch, with `merged` (into the default branch) worked out in one git call. */
async function presentBranches(rc: RequestContext, project: Project, repo: Repository, branches: RefInfo[]): Promise<Record<string, unknown>[]> {
  const defaultSha = await repo.refCommit(`refs/heads/${project.default_branch}`);
  const merged = new Set<string>();
  if (defaultSha && branches.length) {
    const r = await repo.run(['for-each-ref', '--format=%(refname:lstrip=2)', `--merged=${defaultSha}`, 'refs/heads/']);
    for (const name of r.stdout.toString('utf8').split('\n')) if (name && name !== project.default_branch) merged.add(name);
  }
  const canPush = canPushCode(rc.svc, rc.user, project);
  const out: Record<string, unknown>[] = [];
  for (const b of branches) {
    const commit = await repo.commit(b.commitId);
    if (commit) out.push(branchEntity(rc, project, b, commit, { merged: merged.has(b.name), canPush }));
  }
  return out;
}

async function findBranchOr404(repo: Repository, name: string): Promise<RefInfo> {
  const branch = await findRef(repo, 'heads', name);
  if (!branch) throw notFound('Branch');
  return branch;
}

export function registerBranchRoutes(r: Router): void {
  r.get(
    '/projects/:id/repository/branches',
    async (rc) => {
      const q = declared(rc.params, { search: t.string(), regex: t.string(), sort: t.string().values(['name_asc', 'updated_asc', 'updated_desc']) });
      const { project, repo } = await loadRepository(rc);
      let branches = (await repo.listRefs('heads')).filter((b) => matchesSearch(b.name, q.search));
      if (q.regex) {
        let re: RegExp;
        try {
          re = new RegExp(q.regex);
        } catch {
          re = /$^/;
        }
        branches = branches.filter((b) => re.test(b.name));
      }
      if (q.sort === 'updated_asc' || q.sort === 'updated_desc') {
        const dates = new Map<string, number>();
        for (const b of branches) dates.set(b.name, (await repo.commit(b.commitId))?.committer.time ?? 0);
        const dir = q.sort === 'updated_asc' ? 1 : -1;
        branches.sort((a, b) => dir * (dates.get(a.name)! - dates.get(b.name)!) || a.name.localeCompare(b.name));
      }
      return presentBranches(rc, project, repo, paginateArray(rc, branches));
    },
    { auth: 'optional', jobToken: true },
  );

  r.get(
    '/projects/:id/repository/branches/:branch',
    async (rc) => {
      const { project, repo } = await loadRepository(rc);
      return (await presentBranches(rc, project, repo, [await findBranchOr404(repo, rc.path.branch)]))[0];
    },
    { auth: 'optional' },
  );

  r.post('/projects/:id/repository/branches', async (rc) => {
    const p = declared(rc.params, { branch: t.string().required().notBlank(), ref: t.string().required().notBlank() });
    const { project, repo, user } = await loadWritableRepository(rc);
    await createBranch(rc.svc, project, repo, user, p.branch, p.ref);
    return (await presentBranches(rc, project, repo, [await findBranchOr404(repo, p.branch)]))[0];
  });

  r.delete('/projects/:id/repository/branches/:branch', async (rc) => {
    const { project, repo, user } = await loadWritableRepository(rc);
    const branch = await findBranchOr404(repo, rc.path.branch);
    const commit = await commitOr404(repo, branch.commitId);
    // destroy_conditionally!(commit, last_updated: commit.authored_date)
    checkUnmodifiedSince(rc, commit.author.date);
    await deleteBranch(rc.svc, project, repo, user, branch.name, branch.commitId);
    return undefined;
  });

  // Branches::DeleteMergedService: every branch merged into the default branch, the default itself kept.
  r.delete('/projects/:id/repository/merged_branches', async (rc) => {
    const { project, repo, user } = await loadWritableRepository(rc);
    const defaultSha = await repo.refCommit(`refs/heads/${project.default_branch}`);
    if (defaultSha) {
      const r2 = await repo.run(['for-each-ref', '--format=%(refname:lstrip=2) %(objectname)', `--merged=${defaultSha}`, 'refs/heads/']);
      for (const line of r2.stdout.toString('utf8').split('\n').filter(Boolean)) {
        const sp = line.lastIndexOf(' ');
        const name = line.slice(0, sp);
        if (name !== project.default_branch) await deleteBranch(rc.svc, project, repo, user, name, line.slice(sp + 1));
      }
    }
    rc.status = 202;
    return { message: '202 Accepted' };
  });
}
