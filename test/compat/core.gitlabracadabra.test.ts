import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type Served, runPython, runRacadabra, startServe } from './harness';

let served: Served;
beforeAll(async () => {
  served = await startServe();
});
afterAll(async () => served?.stop());

// Debian's gitlabracadabra 1.12: a declarative GitOps tool on python-gitlab. Applying the same
// configuration twice must find nothing to change the second time.
describe('gitlabracadabra against a live Sandlab', () => {
  const config = `
ops/:
  create_object: true
  name: Ops
  description: Managed by gitlabracadabra
  visibility: private
  request_access_enabled: false
ops/platform/:
  create_object: true
  name: Platform
  description: Platform team
ops/platform/deployer:
  create_object: true
  description: Deploys things
  visibility: private
  default_branch: main
  request_access_enabled: false
  labels:
    - name: bug
      color: '#ff0000'
      description: Something is broken
`;

  it('creates a group, a subgroup and a project inside it', () => {
    runRacadabra(served, config);
    const out = runPython(
      served,
      `
p = gl.projects.get("ops/platform/deployer")
g = gl.groups.get("ops")
print(json.dumps({"project": p.description, "request_access": p.request_access_enabled, "group": g.description,
  "labels": [(l.name, l.color, l.description) for l in p.labels.list()]}))`,
    );
    expect(out).toEqual({ project: 'Deploys things', request_access: false, group: 'Managed by gitlabracadabra', labels: [['bug', '#ff0000', 'Something is broken']] });
  });

  it('finds nothing to change when applied again', () => {
    const output = runRacadabra(served, config);
    expect(output).not.toMatch(/Changing|Creating|Adding|Deleting/i);
  });
});
