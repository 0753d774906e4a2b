import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  NONE, formatAgainstLimit, formatCost, formatMs, formatPercent, formatRate, formatSeconds,
  formatTime, formatTokens, limitShare,
} from '../web/lib/format.js';

test('formatMs scales from sub-millisecond to minutes', () => {
  assert.equal(formatMs(0.08), '0.1 ms');
  assert.equal(formatMs(4.25), '4.3 ms');
  assert.equal(formatMs(35.5), '36 ms');
  assert.equal(formatMs(2600.1), '2.60 s');
  assert.equal(formatMs(185000), '3 min 5 s');
  assert.equal(formatMs(120000), '2 min');
  assert.equal(formatMs(null), NONE);
  assert.equal(formatMs(undefined), NONE);
  assert.equal(formatMs(Number.NaN), NONE);
});

test('formatTokens abbreviates thousands, millions and billions', () => {
  assert.equal(formatTokens(950), '950');
  assert.equal(formatTokens(1200), '1.2k');
  assert.equal(formatTokens(1000), '1k');
  assert.equal(formatTokens(310000), '310k');
  assert.equal(formatTokens(2400000), '2.4M');
  assert.equal(formatTokens(1.2e9), '1.2B');
  assert.equal(formatTokens(null), NONE);
});

test('formatCost keeps small amounts readable', () => {
  assert.equal(formatCost(12.84), '$12.84');
  assert.equal(formatCost(0.0042), '$0.0042');
  assert.equal(formatCost(0.000123456), '$0.00012');
  assert.equal(formatCost(0), '$0.00');
  assert.equal(formatCost(1234.4), '$1,234');
  assert.equal(formatCost(-2.5), '-$2.50');
  assert.equal(formatCost(null), NONE);
});

test('formatPercent drops trailing zeros', () => {
  assert.equal(formatPercent(0.99), '99 %');
  assert.equal(formatPercent(0.99512), '99.51 %');
  assert.equal(formatPercent(1), '100 %');
  assert.equal(formatPercent(0), '0 %');
  assert.equal(formatPercent(null), NONE);
});

test('formatRate', () => {
  assert.equal(formatRate(0), '0/s');
  assert.equal(formatRate(0.016666), '0.017/s');
  assert.equal(formatRate(12.5), '12.5/s');
  assert.equal(formatRate(3), '3/s');
  assert.equal(formatRate(1200), '1,200/s');
});

test('formatTime shows UTC without the zone suffix', () => {
  assert.equal(formatTime('2024-05-01T12:00:30.125Z'), '2024-05-01 12:00:30');
  assert.equal(formatTime('2024-05-01T14:00:00+02:00'), '2024-05-01 12:00:00');
  assert.equal(formatTime('not a time'), 'not a time');
  assert.equal(formatTime(null), NONE);
});

test('formatSeconds', () => {
  assert.equal(formatSeconds(45.4), '45 s');
  assert.equal(formatSeconds(180), '3 min');
  assert.equal(formatSeconds(7500), '2 h 5 min');
  assert.equal(formatSeconds(7200), '2 h');
  assert.equal(formatSeconds(3 * 86400 + 5), '3 d');
  assert.equal(formatSeconds(-3), '0 s');
});

test('limits: 0 means no limit', () => {
  assert.equal(formatAgainstLimit(5, 20), '5 / 20');
  assert.equal(formatAgainstLimit(5, 0), '5 (no limit)');
  assert.equal(formatAgainstLimit(1.5, 10, formatCost), '$1.50 / $10.00');
  assert.equal(limitShare(5, 20), 0.25);
  assert.equal(limitShare(50, 20), 1);
  assert.equal(limitShare(5, 0), null);
  assert.equal(limitShare(null, 10), null);
});
