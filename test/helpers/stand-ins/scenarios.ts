import { makeUpstreamRepository } from './git';
import { ProviderAStandIn } from './providera';
import { ProviderBCloudStandIn } from './providerb_cloud';
import { ProviderBServerStandIn } from './providerb_server';

/**
 * Seeded stand-ins for tests that need them in their own process (python-gitlab runs
 * synchronously and would block stand-ins living in the test's process; Playwright drives a
 * browser against a separate `serve`). `serve.ts <scenario>` starts one.
 */

export interface StandIns {
  providera: ProviderAStandIn;
  providerb_server: ProviderBServerStandIn;
  providerb_cloud: ProviderBCloudStandIn;
}

const SHA = 'd'.repeat(40);
/** What the e2e scenario's failing repository answers: an error message made of markup and script. */
export const HOSTILE_PROVIDER_MESSAGE = 'Boom <img src=x onerror="window.__pwned=1;alert(1)"><script>window.__pwned=1</script>';
const day = (d: number) => Date.UTC(2024, 0, d);

export const SCENARIOS: Record<string, (s: StandIns) => void | Promise<void>> = {
  /** What the python-gitlab compat test imports (a real git repository behind hello-world and tool). */
  async compat(s) {
    const upstream = await makeUpstreamRepository();
    s.providera.addUser({ login: 'octo', email: 'admin@example.com' }, 'gh-token');
    s.providera.addRepo({
      id: 77,
      owner: 'octo',
      name: 'hello-world',
      git: upstream.dir,
      issues: [{ number: 1, title: 'First issue', body: 'Hello', user: 'octo' }],
      pulls: [{ number: 2, title: 'First PR', user: 'octo', head: { ref: 'topic', sha: SHA }, base: { ref: 'main', sha: SHA } }],
    });
    s.providerb_server.addUser({ name: 'admin', emailAddress: 'admin@example.com', displayName: 'Admin' }, 'bbs-token');
    s.providerb_server.addProject({ key: 'PY', name: 'Python' });
    s.providerb_server.addRepo({
      projectKey: 'PY',
      slug: 'tool',
      name: 'tool',
      git: upstream.dir,
      pulls: [{ id: 1, title: 'Tooling', state: 'OPEN', author: 'admin', from: { branch: 'f', commit: SHA }, to: { branch: 'main', commit: SHA }, createdDate: day(1) }],
    });
  },

  /** What the Imports workspace's end-to-end test picks from: a few repositories (rocket's with git content) and gists. */
  async e2e(s) {
    const upstream = await makeUpstreamRepository();
    const gh = s.providera;
    gh.addUser({ login: 'octo', email: 'admin@example.com', name: 'The Octo' }, 'gh-e2e-token');
    gh.addUser({ login: 'hubot', email: null });
    gh.addRepo({
      id: 501,
      owner: 'octo',
      name: 'rocket',
      description: 'A small rocket',
      git: upstream.dir,
      labels: [
        { name: 'bug', color: 'd73a4a' },
        { name: 'enhancement', color: 'a2eeef' },
      ],
      issues: [
        { number: 1, title: 'Engine stalls', body: 'At 10 km.', user: 'hubot', labels: ['bug'] },
        { number: 3, title: 'Add a second stage', user: 'octo', labels: ['enhancement'] },
      ],
      pulls: [{ number: 2, title: 'Fix the engine', user: 'octo', head: { ref: 'engine', sha: SHA }, base: { ref: 'main', sha: SHA }, state: 'closed', merged_at: '2024-01-03T00:00:00Z', merged_by: 'octo' }],
      comments: [{ id: 1, number: 1, user: 'octo', body: 'Confirmed.' }],
    });
    gh.addRepo({ id: 502, owner: 'octo', name: 'launchpad', private: true, description: 'Where rockets start', issues: [{ number: 1, title: 'Paint it', user: 'octo' }] });
    gh.addRepo({
      id: 503,
      owner: 'octo',
      name: 'slow-satellite',
      description: 'Takes its time',
      delayMs: 400,
      issues: Array.from({ length: 40 }, (_, i) => ({ number: i + 1, title: `Orbit ${i + 1}`, user: 'octo' })),
    });
    // A hostile provider: its error message is markup the GUI must show as text.
    gh.addRepo({ id: 504, owner: 'octo', name: 'hostile-probe', failing: { path: '/issues', status: 500, message: HOSTILE_PROVIDER_MESSAGE } });
    gh.addGist({ id: 'e2e1', owner: 'octo', description: 'Launch checklist', public: true, files: { 'checklist.md': '- fuel\n- go' } });
    gh.addGist({ id: 'e2e2', owner: 'octo', description: 'Too big', public: true, files: Object.fromEntries(Array.from({ length: 12 }, (_, i) => [`f${i}.txt`, String(i)])) });
    s.providerb_server.addUser({ name: 'admin', emailAddress: 'admin@example.com', displayName: 'Admin' }, 'bbs-e2e-token');
    s.providerb_server.addProject({ key: 'SPACE', name: 'Space' });
    s.providerb_server.addRepo({ projectKey: 'SPACE', slug: 'station', name: 'station' });
    s.providerb_cloud.addUser({ username: 'astro', display_name: 'Astro' }, 'bbc-e2e-pass');
    s.providerb_cloud.addRepo({ workspace: 'astro', slug: 'telescope', name: 'telescope', issues: [{ id: 1, title: 'Focus', state: 'new', kind: 'task', reporter: 'astro', created_on: '2024-01-01T00:00:00+00:00' }] });
  },
};

/** Starts the three stand-ins seeded with a scenario; on given ports (a fixed setup such as e2e's) or free ones. */
export async function startStandIns(scenario: string, ports: { providera?: number; providerb_server?: number; providerb_cloud?: number } = {}): Promise<StandIns> {
  const seed = SCENARIOS[scenario];
  if (!seed) throw new Error(`unknown stand-in scenario ${scenario}`);
  const s: StandIns = {
    providera: await new ProviderAStandIn().start(ports.providera),
    providerb_server: await new ProviderBServerStandIn().start(ports.providerb_server),
    providerb_cloud: await new ProviderBCloudStandIn().start(ports.providerb_cloud),
  };
  await seed(s);
  return s;
}
