import { describe, expect, it } from 'vitest';
import { actionName, type EventRow } from '../../src/main/service/areas/events/entities';
import { readPosition } from '../../src/main/service/areas/discussions/position';

const ev = (action: string, target_type: string | null, data: Record<string, unknown> | null = null): EventRow => ({
  id: 1, project_id: 1, group_id: null, author_id: 1, action, target_type, target_id: null, target_iid: null, target_title: null,
  data: data ? JSON.stringify(data) : null, created_at: '2026-01-01T00:00:00.000Z',
});

describe('Event#action_name', () => {
  it.each([
    ['created', null, 'created'],
    ['created', 'Issue', 'opened'],
    ['created', 'MergeRequest', 'opened'],
    ['updated', 'Issue', 'opened'],
    ['reopened', 'Issue', 'opened'],
    ['closed', 'Issue', 'closed'],
    ['merged', 'MergeRequest', 'accepted'],
    ['commented', 'DiffNote', 'commented on'],
    ['joined', null, 'joined'],
    ['left', null, 'left'],
    ['destroyed', 'Issue', 'destroyed'],
    ['expired', null, 'removed due to membership expiration from'],
    ['approved', 'MergeRequest', 'approved'],
    ['created', 'WikiPage::Meta', 'created'],
    ['updated', 'WikiPage::Meta', 'updated'],
  ])('reads %s on %s as "%s"', (action, target, name) => {
    expect(actionName(ev(action, target), false)).toBe(name);
  });

  it('names pushes by what happened to the ref and imported projects as imported', () => {
    expect(actionName(ev('pushed', null, { action: 'created' }), false)).toBe('pushed new');
    expect(actionName(ev('pushed', null, { action: 'removed' }), false)).toBe('deleted');
    expect(actionName(ev('pushed', null, { action: 'pushed' }), false)).toBe('pushed to');
    expect(actionName(ev('created', null), true)).toBe('imported');
  });
});

describe('diff positions', () => {
  const shas = { base_sha: 'a', start_sha: 'b', head_sha: 'c' };

  it('keeps only the members of the position type', () => {
    expect(readPosition({ ...shas, position_type: 'file', new_path: 'x', old_path: 'x', new_line: 3 })).toEqual({
      ...shas, position_type: 'file', new_path: 'x', old_path: 'x',
    });
    expect(readPosition({ ...shas, position_type: 'image', new_path: 'i.png', width: '10', height: 5, x: '0.5', y: 1 })).toEqual({
      ...shas, position_type: 'image', new_path: 'i.png', old_path: null, width: 10, height: 5, x: 0.5, y: 1,
    });
  });

  it('nests line ranges and coerces line numbers', () => {
    const p = readPosition({
      ...shas, position_type: 'text', new_path: 'f', old_path: 'f', new_line: '7',
      line_range: { start: { line_code: 'abc_1_1', type: 'new', new_line: '5' }, end: { line_code: 'abc_7_7', type: 'new', new_line: 7 } },
    });
    expect(p).toMatchObject({ new_line: 7, old_line: null, line_range: { start: { line_code: 'abc_1_1', type: 'new', old_line: null, new_line: 5 }, end: { new_line: 7 } } });
  });

  it('answers Grape errors for missing and invalid members', () => {
    expect(() => readPosition('flat')).toThrow('position is invalid');
    expect(() => readPosition({ ...shas, position_type: 'text', new_path: 'f', old_path: 'f', new_line: 'x' })).toThrow('position[new_line] is invalid');
    expect(readPosition(undefined)).toBeNull();
  });
});
