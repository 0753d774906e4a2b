import assert from 'node:assert/strict';
import { test } from 'node:test';

import { periodStarts, spent } from '../web/lib/limits.js';

const entry = {
  limits: { daily_tokens: 0, monthly_tokens: 0, daily_cost_usd: 25, monthly_cost_usd: 0 },
  spending: { tokens_today: 0, tokens_this_month: 0, cost_today: 0.25, cost_this_month: 0 },
};
const usage = {
  day: { input_tokens: 100, output_tokens: 55, cost_usd: 0.24 },
  month: { input_tokens: 1000, output_tokens: 550, cost_usd: 3.5 },
};

test('under a limit the limiter counts; without one the request log does', () => {
  assert.deepEqual(spent(entry, usage, 'cost_today'), { used: 0.25, limit: 25 });
  assert.deepEqual(spent(entry, usage, 'tokens_today'), { used: 155, limit: 0 });
  assert.deepEqual(spent(entry, usage, 'tokens_this_month'), { used: 1550, limit: 0 });
  assert.deepEqual(spent(entry, usage, 'cost_this_month'), { used: 3.5, limit: 0 });
});

test('a key without requests has used 0; unknown usage is null', () => {
  assert.deepEqual(spent(entry, { day: null, month: null }, 'tokens_today'), { used: 0, limit: 0 });
  assert.deepEqual(spent(undefined, {}, 'cost_this_month'), { used: null, limit: 0 });
  assert.deepEqual(spent({ limits: { daily_tokens: 10 } }, { day: { input_tokens: 4 } }, 'tokens_today'), { used: 4, limit: 10 });
});

test('periodStarts: UTC midnight and the first of the month', () => {
  const starts = periodStarts(Date.parse('2024-05-17T23:30:00-02:00'));
  assert.equal(new Date(starts.day).toISOString(), '2024-05-18T00:00:00.000Z');
  assert.equal(new Date(starts.month).toISOString(), '2024-05-01T00:00:00.000Z');
});
