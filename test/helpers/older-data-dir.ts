import { expect } from 'vitest';
import { areas } from '../../src/main/service/areas';
import { openDatabase } from '../../src/main/service/db/connection';
import { jobMigrations } from '../../src/main/service/jobs/schema';

/** Every migration a data dir gets today, in the order they run. */
export const allMigrations = [...jobMigrations, ...areas.flatMap((a) => a.migrations)];

/**
 * A database as the mains before `migration` left it: every migration before that one applied,
 * and foreign keys off, so a test can write the rows it needs without their parents.
 */
export function openBefore(file: string, migration: string): ReturnType<typeof openDatabase> {
  const cut = allMigrations.findIndex((m) => m.name === migration);
  expect(cut).toBeGreaterThan(0);
  const db = openDatabase(file, allMigrations.slice(0, cut));
  db.pragma('foreign_keys = OFF');
  return db;
}

/** The same database opened as today's main opens it: the migrations it lacks run. */
export const openToday = (file: string): ReturnType<typeof openDatabase> => openDatabase(file, allMigrations);
