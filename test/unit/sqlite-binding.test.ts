import { copyFileSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join, resolve } from 'node:path';
import Database from 'better-sqlite3';
import { afterEach, describe, expect, it } from 'vitest';
import { nodeBinding } from '../../src/main/service/db/connection';

// better-sqlite3's JavaScript is bundled (electron.vite.config.ts), so its native binding is named
// by path from better-sqlite3's own folder, not found by `bindings` from the bundle's.
const root = resolve(__dirname, '../..');
const realPackage = dirname(require.resolve('better-sqlite3/package.json', { paths: [root] }));
const realBinding = join(realPackage, 'build', 'Release', 'better_sqlite3.node');

let scratch: string | undefined;
afterEach(() => {
  if (scratch) rmSync(scratch, { recursive: true, force: true });
  scratch = undefined;
});

/** A better-sqlite3 folder in node_modules beside `bindings`, its binding at `bindingAt` (or none). */
function fakePackage(bindingAt?: string[]): string {
  scratch = mkdtempSync(join(tmpdir(), 'sandlab-binding-'));
  const dir = join(scratch, 'node_modules', 'better-sqlite3');
  mkdirSync(dir, { recursive: true });
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'better-sqlite3', version: '0.0.0' }));
  symlinkSync(dirname(require.resolve('bindings/package.json', { paths: [realPackage] })), join(scratch, 'node_modules', 'bindings'));
  if (bindingAt) {
    mkdirSync(join(dir, ...bindingAt.slice(0, -1)), { recursive: true });
    copyFileSync(realBinding, join(dir, ...bindingAt));
  }
  return dir;
}

describe("better-sqlite3's native binding", () => {
  it('is the one npm install built, in build/Release of the installed package', () => {
    expect(nodeBinding()).toBe(realBinding);
    const db = new Database(':memory:', { nativeBinding: nodeBinding() });
    expect(db.prepare('SELECT 1 + 1 AS two').get()).toEqual({ two: 2 });
    db.close();
  });

  it("is found where better-sqlite3's own lookup would find it when built elsewhere (a debug build)", () => {
    const dir = fakePackage(['build', 'Debug', 'better_sqlite3.node']);
    expect(nodeBinding(dir)).toBe(join(dir, 'build', 'Debug', 'better_sqlite3.node'));
  });

  it('prefers build/Release, and is missing (undefined) when there is no binding at all', () => {
    const dir = fakePackage(['build', 'Release', 'better_sqlite3.node']);
    expect(nodeBinding(dir)).toBe(join(dir, 'build', 'Release', 'better_sqlite3.node'));
    expect(nodeBinding(fakePackage())).toBeUndefined();
  });
});
