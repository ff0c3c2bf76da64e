/*
 * Preloaded into a server a bench script spawns (`node --import bench/memory-probe.mjs ...`): at
 * each SIGUSR2 it writes $SANDLAB_MEMORY_FILE afresh with the process's own view of its memory
 * (process.memoryUsage: V8's heap, external and array buffers), which /proc cannot tell apart
 * from the rest of its anonymous memory. bench/lib.ts memorySplit reads it beside /proc's.
 */
import { writeFileSync } from 'node:fs';

const file = process.env.SANDLAB_MEMORY_FILE;
if (file) process.on('SIGUSR2', () => writeFileSync(file, JSON.stringify(process.memoryUsage())));
