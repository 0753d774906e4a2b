import assert from 'node:assert/strict';
import { test } from 'node:test';

import {
  channelFromForm, describeImport, freezeFromForm, gatewayKeyFromForm, generateGatewayKey, keyEnabled, keyLabel, parseJsonObject,
  proxyFromForm, relativeIssuePath, splitList, keyEnabledChange,
} from '../web/lib/validate.js';

const paths = (issues) => issues.map((i) => i.path);

test('channelFromForm builds the body and lists every problem', () => {
  const ok = channelFromForm({ name: ' relay ', protocol: 'openai-chat', base_url: 'https://relay.example',
    keys: 'sk-a\nsk-b\n', models: 'gpt-4o, gpt-5' });
  assert.deepEqual(ok.issues, []);
  assert.deepEqual(ok.value, { name: 'relay', protocol: 'openai-chat', base_url: 'https://relay.example',
    keys: ['sk-a', 'sk-b'], models: ['gpt-4o', 'gpt-5'] });
  const bad = channelFromForm({ name: 'a/b', protocol: 'soap', base_url: 'ftp://x', keys: '', models: '' });
  assert.deepEqual(paths(bad.issues), ['name', 'protocol', 'base_url', 'keys', 'models']);
  assert.deepEqual(paths(channelFromForm({ name: 'x', protocol: 'gemini', base_url: 'not a url', keys: '***', models: 'm' }).issues),
    ['base_url', 'keys']);
});

test('gatewayKeyFromForm keeps the limits given, checks their types', () => {
  const ok = gatewayKeyFromForm({ name: 'team-a', rpm: '600', daily_cost_usd: '12.5', tpm: '' });
  assert.deepEqual(ok, { value: { name: 'team-a', limits: { rpm: 600, daily_cost_usd: 12.5 } }, issues: [] });
  assert.deepEqual(gatewayKeyFromForm({ name: 'b' }).value, { name: 'b' });
  const bad = gatewayKeyFromForm({ name: '', rpm: '1.5', concurrency: '-1', monthly_cost_usd: 'x' });
  assert.deepEqual(paths(bad.issues), ['name', 'limits.rpm', 'limits.concurrency', 'limits.monthly_cost_usd']);
});

test('proxyFromForm: url required but for direct, schemes per mode', () => {
  assert.deepEqual(proxyFromForm({ name: 'corp', mode: 'network', url: 'socks5://p:1080' }).issues, []);
  assert.deepEqual(proxyFromForm({ name: 'd', mode: 'direct', url: '' }), { value: { name: 'd', mode: 'direct' }, issues: [] });
  assert.deepEqual(paths(proxyFromForm({ name: 'n', mode: 'node', url: 'socks5://x:1' }).issues), ['url']);
  assert.deepEqual(paths(proxyFromForm({ name: 'n', mode: 'tunnel', url: '' }).issues), ['mode', 'url']);
});

test('parseJsonObject', () => {
  assert.deepEqual(parseJsonObject('{"a":1}'), { value: { a: 1 } });
  assert.equal(parseJsonObject('{"a":').issues[0].path, '(json)');
  assert.match(parseJsonObject('[1]').issues[0].message, /object/);
  assert.match(parseJsonObject('null').issues[0].message, /object/);
});

test('relativeIssuePath strips the section and index', () => {
  assert.equal(relativeIssuePath('channels[2].protocol', 'channels'), 'protocol');
  assert.equal(relativeIssuePath('channels[2].keys[0]', 'channels'), 'keys[0]');
  assert.equal(relativeIssuePath('channels[2]', 'channels'), '(object)');
  assert.equal(relativeIssuePath('prices.gpt-4o.input', 'prices'), 'input');
  assert.equal(relativeIssuePath('proxies[0].url', 'channels'), 'proxies[0].url');
});

test('key labels, and one key enabled or disabled on its own', () => {
  assert.equal(keyLabel('relay', '***', 0), 'relay#0');
  assert.equal(keyLabel('relay', { name: 'team', key: '***' }, 1), 'relay/team');
  assert.equal(keyEnabled('***'), true);
  assert.equal(keyEnabled({ key: '***', enabled: false }), false);
  assert.deepEqual(keyEnabledChange(false), { enabled: false });
  assert.deepEqual(keyEnabledChange(true), { enabled: true });
});

test('generateGatewayKey: sk-llmux- and 48 hex digits', () => {
  const fixed = generateGatewayKey((bytes) => bytes.fill(0xab));
  assert.equal(fixed, `sk-llmux-${'ab'.repeat(24)}`);
  const random = generateGatewayKey();
  assert.match(random, /^sk-llmux-[0-9a-f]{48}$/);
  assert.notEqual(random, generateGatewayKey());
});

test('splitList', () => {
  assert.deepEqual(splitList(' a, b\n\nc ,'), ['a', 'b', 'c']);
  assert.deepEqual(splitList(undefined), []);
});

test('freezeFromForm: key or channel, minutes or a period', () => {
  assert.deepEqual(freezeFromForm({ channel: 'relay', key: 'relay#0', model: '', minutes: '60', period: '', reason: ' maintenance ' }),
    { value: { channel: 'relay', key: 'relay#0', minutes: 60, reason: 'maintenance' }, issues: [] });
  assert.deepEqual(freezeFromForm({ channel: 'relay', model: 'gpt-4o', period: 'today' }),
    { value: { channel: 'relay', model: 'gpt-4o', period: 'today' }, issues: [] });
  assert.deepEqual(freezeFromForm({ channel: 'relay' }), { value: { channel: 'relay' }, issues: [] });
  assert.deepEqual(paths(freezeFromForm({ channel: 'r', minutes: '1.5' }).issues), ['minutes']);
  assert.deepEqual(paths(freezeFromForm({ channel: 'r', minutes: '600000' }).issues), ['minutes']);
  assert.deepEqual(paths(freezeFromForm({ channel: 'r', minutes: '5', period: 'week' }).issues), ['period']);
  assert.deepEqual(paths(freezeFromForm({ channel: 'r', period: 'year' }).issues), ['period']);
});

test('describeImport names each change and what was left to the file', () => {
  assert.equal(describeImport({ dry_run: true, changes: [{ section: 'channels', name: 'old', action: 'delete' },
    { section: 'gateway_keys', name: 'team-c', action: 'create' }], ignored: ['listen'] }),
  'delete channels/old, create gateway_keys/team-c; left to the file: listen');
  assert.equal(describeImport({ dry_run: true, changes: [], ignored: [] }), 'no change');
  assert.equal(describeImport({ applied: ['channels/a'] }), 'channels/a');
  assert.equal(describeImport(null), 'no change');
});
