/**
 * Lists at scale without sockets, several builds in one process, request by request in turn: each
 * build's service (its out/ dir) opens its own copy of bench/build-scale.ts's data dirs (big/ and
 * small/), and every list of bench/scale.ts's issue, project, group and user lines is answered by
 * the request handler directly, big side and small side, each after a write (a project's
 * description) as bench/scale.ts samples. Prints the median CPU of the big and small side per
 * build and their ratio, and whether the builds answered the same bodies (bodies that show the
 * touched description or a record a bench run added differ between copies). Node's HTTP and the
 * kernel are left out, so the ratios run higher than bench/scale.ts's: compare builds with it.
 *
 * Run: node bench/lists-inprocess.cjs RUNS [NAME-REGEX] label=OUT_DIR:DATA_DIR [label=OUT_DIR:DATA_DIR ...]
 * (e.g. `node bench/lists-inprocess.cjs 30 '' before=/old/out:/tmp/copy1 after=out:/tmp/copy2`)
 */
const { readdirSync, readFileSync } = require('node:fs');
const { join } = require('node:path');
const { EventEmitter } = require('node:events');
const http = require('node:http');
const handlers = [];
const createServer = http.createServer;
http.createServer = (listener) => (handlers.push(listener), createServer(listener));
const [countS, only, ...builds] = process.argv.slice(2);
const TOKEN = 'glpat-bench-root-token-00000001';
class Res extends EventEmitter {
  writableEnded = false; headersSent = false; destroyed = false; status = 0; body = undefined; h = {};
  writeHead(status, headers) { this.status = status; this.headersSent = true; this.h = headers; return this; }
  setHeader() {}
  end(body) { this.writableEnded = true; this.body = body; }
}
(async () => {
  const B = [];
  for (const spec of builds) {
    const [label, out, dir] = spec.split(/[=:]/);
    const chunks = join(out, 'main/chunks');
    const { createService } = require(join(chunks, readdirSync(chunks).find((f) => f.startsWith('service-'))));
    const big = JSON.parse(readFileSync(join(dir, 'big/bench-manifest.json'), 'utf8'));
    const small = JSON.parse(readFileSync(join(dir, 'small/bench-manifest.json'), 'utf8'));
    const b = await createService({ dataDir: join(dir, 'big'), rootToken: TOKEN }); await b.listen(); const bh = handlers[handlers.length - 1];
    const s = await createService({ dataDir: join(dir, 'small'), rootToken: TOKEN }); await s.listen(); const sh = handlers[handlers.length - 1];
    B.push({ label, b, s, bh, sh, big, small });
  }
  const { big, small } = B[0];
  const P = big.bigProjectId, S = big.smallProjectId, G = big.groupId;
  const targets = [
    ['issues page 1', `/projects/${P}/issues`, `/projects/${S}/issues`],
    ['issues state=closed', `/projects/${P}/issues?state=closed`, `/projects/${S}/issues?state=closed`],
    ['issues state=opened&labels=bug', `/projects/${P}/issues?state=opened&labels=bug`, `/projects/${S}/issues?state=opened&labels=bug`],
    ['issues per_page=100', `/projects/${P}/issues?per_page=100&order_by=updated_at`, `/projects/${S}/issues?per_page=100&order_by=updated_at`],
    ['issues page 2500', `/projects/${P}/issues?page=2500`, `/projects/${S}/issues?page=2500`],
    ['group issues', `/groups/${G}/issues`, 'small:' + `/groups/${small.groupId}/issues`],
    ['projects', `/projects`, 'small:/projects'],
    ['projects deep 400', `/projects?order_by=id&page=400`, 'small:/projects?order_by=id&page=400'],
    ['projects keyset', `/projects?pagination=keyset&order_by=id&sort=asc`, 'small:/projects?pagination=keyset&order_by=id&sort=asc'],
    ['groups', `/groups`, 'small:/groups'],
    ['groups page 90', `/groups?page=90`, 'small:/groups?page=90'],
    ['users', `/users`, 'small:/users'],
    ['users keyset', `/users?pagination=keyset&order_by=name&sort=asc`, 'small:/users?pagination=keyset&order_by=name&sort=asc'],
    ['projects search', `/projects?search=project-12`, 'small:/projects?search=project-1'],
    ['users search', `/users?search=user12`, 'small:/users?search=user1'],
    ['groups search', `/groups?search=group-12`, 'small:/groups?search=group-1'],
    ['group projects', `/groups/${G}/projects`, `small:/groups/${small.groupId}/projects`],
    ['project events', `/projects/${P}/events`, `/projects/${S}/events`],
    ['events (instance)', `/events?scope=all`, 'small:/events?scope=all'],
    // 100 rows against the small side's few: the cost of each row's entity.
    ['merge requests per_page=100', `/projects/${P}/merge_requests?per_page=100`, `/projects/${S}/merge_requests?per_page=100`],
    ['project labels per_page=100', `/projects/${P}/labels?per_page=100`, `/projects/${S}/labels?per_page=100`],
    ['project snippets per_page=100', `/projects/${P}/snippets?per_page=100`, `/projects/${S}/snippets?per_page=100`],
    ['notes of issue #1 per_page=100', `/projects/${P}/issues/1/notes?per_page=100`, `/projects/${S}/issues/1/notes?per_page=100`],
    ['group members per_page=100', `/groups/${G}/members?per_page=100`, `small:/groups/${small.groupId}/members?per_page=100`],
    ['group epics per_page=100', `/groups/${G}/epics?per_page=100`, `small:/groups/${small.groupId}/epics?per_page=100`],
    ['group epics created_after', `/groups/${G}/epics?created_after=2024-01-01T00:00:00Z`, `small:/groups/${small.groupId}/epics?created_after=2024-01-01T00:00:00Z`],
  ].filter(([n]) => !only || new RegExp(only).test(n));
  const socket = { remoteAddress: '127.0.0.1', encrypted: false };
  const headers = { host: '127.0.0.1', 'private-token': TOKEN };
  let touches = 0;
  const touch = async (svc, pid) => { const r = await svc.inject({ method: 'PUT', url: `/api/v4/projects/${pid}`, headers: { 'private-token': TOKEN, 'content-type': 'application/json' }, payload: JSON.stringify({ description: `t${++touches}` }) }); if (r.statusCode !== 200) throw new Error('touch ' + r.statusCode); };
  const one = (h, path) => { const res = new Res(); h({ url: '/api/v4' + path, method: 'GET', headers, socket }, res); if (!res.writableEnded) throw new Error('async ' + path); return res; };
  const n = Number(countS);
  const rowsOf = (res) => { try { const j = JSON.parse(res.body); return Array.isArray(j) ? j.length : 1; } catch { return -1; } };
  for (const [name, bp, sp] of targets) {
    const samples = B.map(() => ({ big: [], small: [], res: {} }));
    for (let i = 0; i < n + 3; i++) {
      for (let k = 0; k < B.length; k++) {
        const x = B[k];
        const [sh2, spath, ssvc, spid] = sp.startsWith('small:') ? [x.sh, sp.slice(6), x.s, x.small.smallProjectId] : [x.bh, sp, x.b, S];
        for (const [side, h, path, svc, pid] of [['big', x.bh, bp, x.b, S], ['small', sh2, spath, ssvc, spid]]) {
          await touch(svc, pid);
          const t0 = process.cpuUsage(); const res = one(h, path); const d = process.cpuUsage(t0);
          if (i >= 3) samples[k][side].push(d.user + d.system);
          samples[k].res[side] = res;
        }
      }
    }
    const med = (xs) => { xs.sort((a, c) => a - c); return xs[xs.length >> 1] / 1000; };
    const line = B.map((x, k) => { const bm = med(samples[k].big), sm = med(samples[k].small); return `${x.label}: ${bm.toFixed(2)}/${sm.toFixed(2)} ${(bm / sm).toFixed(2)}x`; }).join('   ');
    const r = samples[0].res;
    // A long answer's body is a Buffer (http/server.ts): compare texts.
    const text = (body) => String(body);
    const same = B.every((x, k) => text(samples[k].res.big.body) === text(r.big.body) && text(samples[k].res.small.body) === text(r.small.body));
    console.log(`${name.padEnd(32)} ${line}   rows ${rowsOf(r.big)}/${rowsOf(r.small)} ${r.big.status}/${r.small.status}${B.length > 1 ? (same ? ' same' : ' DIFFERENT') : ''}`);
  }
  for (const x of B) { await x.b.close(); await x.s.close(); }
})().catch((e) => { console.error(e); process.exit(1); });
