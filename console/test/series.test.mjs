import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  buildUsageSeries, pointsWithData, rangeFor, sloTarget, successRate, summarize, usageQuery,
} from '../web/lib/series.js';

const T0 = Date.parse('2024-05-01T12:00:00Z');

test('rangeFor floors the start to the bucket and ends now', () => {
  const now = Date.parse('2024-05-01T12:34:56.789Z');
  const hour = rangeFor('hour', now);
  assert.equal(hour.bucket, 'minute');
  assert.equal(new Date(hour.from).toISOString(), '2024-05-01T11:34:00.000Z');
  assert.equal(hour.to, now);
  const day = rangeFor('day', now);
  assert.equal(day.bucket, 'hour');
  assert.equal(new Date(day.from).toISOString(), '2024-04-30T12:00:00.000Z');
  const month = rangeFor('month', now);
  assert.equal(month.bucket, 'day');
  assert.equal(new Date(month.from).toISOString(), '2024-04-01T00:00:00.000Z');
  assert.throws(() => rangeFor('year', now), /unknown range/);
});

test('usageQuery writes RFC 3339 times, the bucket and extra parameters', () => {
  const query = new URLSearchParams(usageQuery({ from: T0, to: T0 + 3600000, bucket: 'minute' }, { group_by: 'gateway_key', skip: null }));
  assert.equal(query.get('from'), '2024-05-01T12:00:00.000Z');
  assert.equal(query.get('to'), '2024-05-01T13:00:00.000Z');
  assert.equal(query.get('bucket'), 'minute');
  assert.equal(query.get('group_by'), 'gateway_key');
  assert.equal(query.has('skip'), false);
  assert.equal(new URLSearchParams(usageQuery({ from: T0, to: T0 + 1 })).has('bucket'), false);
});

test('successRate counts succeeded against failed only', () => {
  assert.equal(successRate({ succeeded: 99, failed: 1, cancelled: 50, rejected: 50 }), 0.99);
  assert.equal(successRate({ succeeded: 0, failed: 0, cancelled: 3 }), null);
  assert.equal(successRate(null), null);
});

test('buildUsageSeries fills every bucket and leaves gaps for missing latency', () => {
  const rows = [
    { bucket: '2024-05-01T12:00:00.000Z', requests: 120, succeeded: 99, failed: 1, cost_usd: 0.5,
      first_token_p50_ms: 200, first_token_p95_ms: 900 },
    { bucket: '2024-05-01T12:02:00.000Z', requests: 60, succeeded: 60, failed: 0, cost_usd: 0.25,
      first_token_p50_ms: null, first_token_p95_ms: null },
    { bucket: '2024-05-01T11:00:00.000Z', requests: 999 }, // before the range: left out
  ];
  const s = buildUsageSeries(rows, { from: T0, to: T0 + 3 * 60000, bucket: 'minute' });
  assert.deepEqual(s.x, [T0 / 1000, T0 / 1000 + 60, T0 / 1000 + 120]);
  assert.deepEqual(s.requests, [120, 0, 60]);
  assert.deepEqual(s.rps, [2, 0, 1]);
  assert.deepEqual(s.successRate, [99, null, 100]);
  assert.deepEqual(s.firstTokenP50, [200, null, null]);
  assert.deepEqual(s.firstTokenP95, [900, null, null]);
  assert.deepEqual(s.cost, [0.5, 0, 0.25]);
});

test('buildUsageSeries adds up the rows of one bucket (a grouped answer)', () => {
  const rows = [
    { group: 'a', bucket: '2024-05-01T12:00:00.000Z', requests: 10, succeeded: 9, failed: 1, cost_usd: 1, first_token_p95_ms: 300 },
    { group: 'b', bucket: '2024-05-01T12:00:00.000Z', requests: 30, succeeded: 30, failed: 0, cost_usd: 2, first_token_p95_ms: 500 },
  ];
  const s = buildUsageSeries(rows, { from: T0, to: T0 + 3600000, bucket: 'hour' });
  assert.equal(s.x.length, 1);
  assert.deepEqual(s.requests, [40]);
  assert.deepEqual(s.cost, [3]);
  assert.equal(s.successRate[0], 97.5);
  assert.deepEqual(s.firstTokenP95, [500]);
});

test('buildUsageSeries by day over 30 days has 31 buckets when the start is floored', () => {
  const now = Date.parse('2024-05-31T10:00:00Z');
  const range = rangeFor('month', now);
  const s = buildUsageSeries([], range);
  assert.equal(s.x.length, 31);
  assert.equal(pointsWithData(s.requests), 0);
  assert.throws(() => buildUsageSeries([], { from: 0, to: 1, bucket: 'week' }), /unknown bucket/);
});

test('pointsWithData counts values that are there', () => {
  assert.equal(pointsWithData([0, null, 3, undefined, 0.5]), 2);
});

test('summarize gives the cards of a range', () => {
  const s = summarize({ requests: 360, succeeded: 350, failed: 10, cost_usd: 1.5, input_tokens: 1000,
    output_tokens: 200, first_token_p50_ms: 120, first_token_p95_ms: 800 }, { from: 0, to: 3600000 });
  assert.equal(s.rps, 0.1);
  assert.equal(s.successRate, 350 / 360);
  assert.equal(s.tokens, 1200);
  assert.equal(s.firstTokenP95, 800);
  const none = summarize(undefined, { from: 0, to: 3600000 });
  assert.equal(none.requests, 0);
  assert.equal(none.successRate, null);
  assert.equal(none.firstTokenP50, null);
});

test('sloTarget reads the export, flow or block style, else 0.99', () => {
  assert.equal(sloTarget('listen: x\nslo: {success_rate: 0.995, first_token_p95_ms: 3000}\n'), 0.995);
  assert.equal(sloTarget('slo:\n  first_token_p95_ms: 3000\n  success_rate: 0.999\nalerts:\n  success_rate: 0.5\n'), 0.999);
  assert.equal(sloTarget('alerts:\n  success_rate: 0.5\n'), 0.99);
  assert.equal(sloTarget(''), 0.99);
  assert.equal(sloTarget(null), 0.99);
});
