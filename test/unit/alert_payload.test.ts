import { createHash } from 'node:crypto';
import { describe, expect, it } from 'vitest';
import {
  fingerprintOf,
  genericSeverity,
  isProcessableMetricsPayload,
  jsonDepth,
  metricsQuery,
  metricsSeverity,
  parseGenericPayload,
  parseMetricsAlert,
} from '../../src/main/service/areas/alerts/payload';
import { parseReceiverPaths, presentedKey } from '../../src/main/service/areas/alerts/routes';

const sha1 = (s: string): string => createHash('sha1').update(s).digest('hex');

describe('alert severities', () => {
  it('maps the generic endpoint severities case-insensitively, critical otherwise', () => {
    expect(['Critical', 'HIGH', 'medium', 'Low', 'info', 'unknown'].map(genericSeverity)).toEqual([
      'critical',
      'high',
      'medium',
      'low',
      'info',
      'unknown',
    ]);
    expect(genericSeverity(undefined)).toBe('critical');
    expect(genericSeverity('s2')).toBe('critical');
    expect(genericSeverity('whatever')).toBe('critical');
  });

  it('maps every metrics severity of the table, critical for anything else', () => {
    const table: Record<string, string[]> = {
      critical: ['critical', 's1', 'p1', 'emergency', 'fatal'],
      high: ['high', 's2', 'p2', 'major', 'page'],
      medium: ['medium', 's3', 'p3', 'error', 'alert'],
      low: ['low', 's4', 'p4', 'warn', 'warning', 'minor'],
      info: ['info', 's5', 'p5', 'debug', 'information', 'notice'],
    };
    for (const [severity, words] of Object.entries(table)) {
      for (const w of words) {
        expect(metricsSeverity(w)).toBe(severity);
        expect(metricsSeverity(w.toUpperCase())).toBe(severity);
      }
    }
    expect(metricsSeverity(undefined)).toBe('critical');
    expect(metricsSeverity('unknown')).toBe('critical');
  });
});

describe('generic payloads', () => {
  it('defaults the title to "New: Alert" and the severity to critical', () => {
    const a = parseGenericPayload({});
    expect(a.title).toBe('New: Alert');
    expect(a.severity).toBe('critical');
    expect(a.startedAt).toBeNull();
    expect(a.endedAt).toBeNull();
    expect(a.hosts).toEqual([]);
  });

  it('reads every field of the reference table', () => {
    const a = parseGenericPayload({
      title: 'Incident title',
      description: 'Summary',
      start_time: '2019-09-12T06:00:55Z',
      end_time: '2019-09-12T07:00:55Z',
      service: 'service',
      monitoring_tool: 'tool',
      hosts: 'host1',
      severity: 'HIGH',
      fingerprint: 'd19381d4e8ebca87b55cda6e8eee7385',
      platform_environment_name: 'production',
      runbook: 'https://runbook',
    });
    expect(a).toMatchObject({
      title: 'Incident title',
      description: 'Summary',
      startedAt: '2019-09-12T06:00:55.000Z',
      endedAt: '2019-09-12T07:00:55.000Z',
      service: 'service',
      monitoringTool: 'tool',
      hosts: ['host1'],
      severity: 'high',
      fingerprint: sha1('d19381d4e8ebca87b55cda6e8eee7385'),
      environment: 'production',
      runbook: 'https://runbook',
    });
    expect(parseGenericPayload({ gitlab_environment_name: 'staging' }).environment).toBe('staging');
    expect(parseGenericPayload({ hosts: ['a', 'b'] }).hosts).toEqual(['a', 'b']);
  });

  it('hashes a fingerprint array as its elements joined', () => {
    expect(parseGenericPayload({ fingerprint: ['a', 'b', 1] }).fingerprint).toBe(sha1('ab1'));
  });

  it('derives a fingerprint from the payload without start_time, end_time and hosts', () => {
    const base = { title: 'x', nested: { k: 1 } };
    const one = parseGenericPayload({ ...base, start_time: '2020-01-01T00:00:00Z', hosts: ['a'] });
    const two = parseGenericPayload({ ...base, start_time: '2021-01-01T00:00:00Z', end_time: '2021-01-02T00:00:00Z', hosts: 'b' });
    expect(one.fingerprint).toBe(two.fingerprint);
    expect(parseGenericPayload({ ...base, title: 'y' }).fingerprint).not.toBe(one.fingerprint);
    expect(one.fingerprint).toBe(sha1('[["nested.k", 1], ["title", "x"]]'));
  });
});

describe('metrics payloads', () => {
  const item = {
    status: 'firing',
    labels: { alertname: 'HighLatency', severity: 'P2', gitlab_environment_name: 'production' },
    annotations: { summary: 'Latency high', description: 'p99 > 1s', runbook: 'https://runbook', extra: 'kept' },
    startsAt: '2020-04-27T10:10:22.265949279Z',
    endsAt: '0001-01-01T00:00:00Z',
    generatorURL: 'http://prom:9090/graph?g0.expr=vector%281%29&g0.tab=1',
  };

  it('requires every top-level attribute and version 4', () => {
    const full = {
      version: '4',
      groupKey: 'k',
      status: 'firing',
      receiver: 'r',
      groupLabels: {},
      commonLabels: {},
      commonAnnotations: {},
      externalURL: '',
      alerts: [],
    };
    expect(isProcessableMetricsPayload(full)).toBe(true);
    for (const key of Object.keys(full)) {
      const partial: Record<string, unknown> = { ...full };
      delete partial[key];
      expect(isProcessableMetricsPayload(partial)).toBe(false);
    }
    expect(isProcessableMetricsPayload({ ...full, version: '3' })).toBe(false);
  });

  it('takes the title from annotations.title, then summary, then labels.alertname', () => {
    expect(parseMetricsAlert({ ...item, annotations: { title: 'T', summary: 'S' } }, new Date()).title).toBe('T');
    expect(parseMetricsAlert(item, new Date()).title).toBe('Latency high');
    expect(parseMetricsAlert({ ...item, annotations: {} }, new Date()).title).toBe('HighLatency');
  });

  it('reads severity, environment, runbook and the g0.expr query into the fingerprint', () => {
    const a = parseMetricsAlert(item, new Date());
    expect(a).toMatchObject({ severity: 'high', environment: 'production', runbook: 'https://runbook', description: 'p99 > 1s', endedAt: null });
    expect(metricsQuery(item.generatorURL)).toBe('vector(1)');
    expect(a.fingerprint).toBe(sha1(`${item.startsAt}/Latency high/vector(1)`));
    expect(a.payload).toBe(item);
  });

  it('resolves on status resolved or an endsAt already past', () => {
    const now = new Date('2020-05-01T00:00:00Z');
    expect(parseMetricsAlert({ ...item, status: 'resolved' }, now).endedAt).toBe(now.toISOString());
    expect(parseMetricsAlert({ ...item, status: 'resolved', endsAt: '2020-04-28T00:00:00Z' }, now).endedAt).toBe('2020-04-28T00:00:00.000Z');
    expect(parseMetricsAlert({ ...item, status: undefined, endsAt: '2020-04-28T00:00:00Z' }, now).endedAt).toBe('2020-04-28T00:00:00.000Z');
    expect(parseMetricsAlert({ ...item, status: 'firing', endsAt: '2020-04-28T00:00:00Z' }, now).endedAt).toBeNull();
  });
});

describe('receiver plumbing', () => {
  it('parses receiver paths at any namespace depth', () => {
    expect(parseReceiverPaths('/g/sub/proj/alerts/notify/my-int/abc123.json')).toEqual([
      { projectPath: 'g/sub/proj', type: 'http', identifier: 'abc123' },
    ]);
    expect(parseReceiverPaths('/g/proj/alerts/notify.json')).toEqual([{ projectPath: 'g/proj', type: 'http', identifier: null }]);
    expect(parseReceiverPaths('/g/proj/prometheus/alerts/notify.json')).toEqual([
      { projectPath: 'g/proj', type: 'prometheus', identifier: null },
      { projectPath: 'g/proj/prometheus', type: 'http', identifier: null },
    ]);
    expect(parseReceiverPaths('/g/prometheus/alerts/notify.json')).toEqual([{ projectPath: 'g/prometheus', type: 'http', identifier: null }]);
    expect(parseReceiverPaths('/g/proj/-/alerts/notify/x/y.json')).toEqual([{ projectPath: 'g/proj', type: 'http', identifier: 'y' }]);
    expect(parseReceiverPaths('/alerts/notify/alerts/notify/alerts/notify.json')).toEqual([
      { projectPath: 'alerts/notify', type: 'http', identifier: 'notify' },
      { projectPath: 'alerts/notify/alerts/notify', type: 'http', identifier: null },
    ]);
    expect(parseReceiverPaths('/g/p/alerts/notify/alerts/abc.json')).toEqual([{ projectPath: 'g/p', type: 'http', identifier: 'abc' }]);
    expect(parseReceiverPaths('/g/p/prometheus/alerts/notify/prom/abc.json')[0]).toEqual({ projectPath: 'g/p', type: 'prometheus', identifier: 'abc' });
    expect(parseReceiverPaths('/api/v4/projects/1/issues')).toEqual([]);
    expect(parseReceiverPaths('/proj/alerts/notify.json')).toEqual([]);
  });

  it('reads the key from Bearer or Basic with a blank user', () => {
    expect(presentedKey('Bearer abc')).toBe('abc');
    expect(presentedKey(`Basic ${Buffer.from(':abc').toString('base64')}`)).toBe('abc');
    expect(presentedKey(`Basic ${Buffer.from('ignored-user:abc').toString('base64')}`)).toBe('abc');
    expect(presentedKey(`Basic ${Buffer.from('abc').toString('base64')}`)).toBeNull();
    expect(presentedKey(undefined)).toBeNull();
    expect(presentedKey('Token abc')).toBeNull();
  });

  it('measures nesting depth and hashes nothing for blank fingerprints', () => {
    expect(jsonDepth({ a: { b: [1] } })).toBe(3);
    expect(fingerprintOf('')).toBeNull();
    expect(fingerprintOf([])).toBeNull();
  });
});
