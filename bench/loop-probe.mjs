/*
 * Preloaded into a server a bench script spawns (`node --import bench/loop-probe.mjs ...`): at each
 * SIGUSR2 it appends one JSON line to $SANDLAB_PROBE_FILE with the event-loop delay since the
 * previous signal (p50/p99/max ms; the histogram of how late the loop came back to a 1 ms timer,
 * i.e. how long something held it) and starts afresh. The line's label is what the bench wrote
 * to `$SANDLAB_PROBE_FILE.cmd` before signalling; the labels `profile-start` and
 * `profile-stop <file>` also start a V8 CPU profile of the main thread and write it, so a profile
 * covers exactly one phase of the bench.
 */
import { appendFileSync, readFileSync, writeFileSync } from 'node:fs';
import inspector from 'node:inspector';
import { monitorEventLoopDelay } from 'node:perf_hooks';

const file = process.env.SANDLAB_PROBE_FILE;
if (file) {
  const delay = monitorEventLoopDelay({ resolution: 1 });
  delay.enable();
  let session = null;
  process.on('SIGUSR2', () => {
    const label = readFileSync(`${file}.cmd`, 'utf8').trim();
    const ms = (ns) => Math.round(ns / 1e4) / 100;
    const line = { label, p50: ms(delay.percentile(50)), p99: ms(delay.percentile(99)), max: ms(delay.max), samples: delay.count };
    appendFileSync(file, `${JSON.stringify(line)}\n`);
    delay.reset();
    if (label === 'profile-start') {
      session = new inspector.Session();
      session.connect();
      session.post('Profiler.enable', () => session.post('Profiler.setSamplingInterval', { interval: 500 }, () => session.post('Profiler.start')));
    } else if (label.startsWith('profile-stop ') && session) {
      const out = label.slice('profile-stop '.length);
      const s = session;
      session = null;
      s.post('Profiler.stop', (err, result) => {
        if (!err) writeFileSync(out, JSON.stringify(result.profile));
        s.disconnect();
      });
    }
  });
}
