// The system under test: llmux's mock provider and a gateway in front of it, with two admin tokens
// (admin and read-only) and one channel on the mock, on loopback ports chosen by the OS.
import { rmSync } from 'node:fs';
import { access, constants, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';

import { Child } from '../../sdk/lib/processes.mjs';

export const ADMIN_TOKEN = 'adm-console-browser-test';
export const READ_ONLY_TOKEN = 'ro-console-browser-test';
/** The model of the channel the configuration file gives. */
export const FILE_MODEL = 'gpt-4o-mini';
/** The model of a channel whose upstream always answers 429 (retry after 60 s): its key pauses. */
export const LIMITED_MODEL = 'limited-model';

const kStartTimeoutMs = 15000;

function configYaml(mockUrl, stateDir) {
  return [
    'listen: 127.0.0.1:0',
    '# Stopped with SIGTERM when the tests end: no load balancer to wait for.',
    'server: {lame_duck_ms: 0}',
    'admin_tokens:',
    `  - {name: ops, token: ${ADMIN_TOKEN}, role: admin}`,
    `  - {name: viewer, token: ${READ_ONLY_TOKEN}, role: read_only}`,
    'gateway_keys:',
    '  - {name: seed, key: sk-console-seed}',
    'log: {access_log: off}',
    `state_dir: ${JSON.stringify(stateDir)}`,
    'slo: {success_rate: 0.995}',
    '# Dear on purpose: the handful of tokens the tests send costs cents, so the cost chart has data.',
    'prices:',
    '  ui-model: {input: 1000, output: 4000}',
    `  ${FILE_MODEL}: {input: 1000, output: 4000}`,
    'channels:',
    `  - {name: mock, protocol: openai-chat, base_url: "${mockUrl}", keys: [{key: mock-key, rpm: 500}], models: [${FILE_MODEL}]}`,
    `  - {name: limited, protocol: openai-chat, base_url: "${mockUrl}", keys: [limited-key], models: [${LIMITED_MODEL}],`,
    '     headers: {x-mock-fault: "429=60"}}',
    '',
  ].join('\n');
}

/** Starts and stops the mock provider and the gateway. The gateway serves the console's built-in
 *  files, or those of LLMUX_CONSOLE_DIR when the caller's environment sets it (development). */
export class Stack {
  constructor(binary) {
    this.binary = binary;
    this.children = [];
    this.dir = null;
    this.gatewayUrl = null;
    this.mockUrl = null;
    this.onExit = () => {
      this.children.forEach((c) => c.killNow());
      if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    };
    process.on('exit', this.onExit);
  }

  async start() {
    try {
      await access(this.binary, constants.X_OK);
    } catch {
      throw new Error(`llmux binary not found or not executable: ${this.binary}`);
    }
    this.dir = await mkdtemp(path.join(tmpdir(), 'llmux-console-'));
    const options = { cwd: this.dir, env: { ...process.env, LLMUX_HOME: this.dir } };
    const mock = this.track(new Child('mock provider', this.binary, ['mock-provider', '--listen', '127.0.0.1:0'], options));
    this.mockUrl = `http://127.0.0.1:${await mock.waitForListening(kStartTimeoutMs)}`;
    const configPath = path.join(this.dir, 'llmux.yaml');
    await writeFile(configPath, configYaml(this.mockUrl, path.join(this.dir, 'state')));
    const gateway = this.track(new Child('llmux serve', this.binary, ['serve', '--config', configPath], options));
    this.gateway = gateway;
    this.gatewayUrl = `http://127.0.0.1:${await gateway.waitForListening(kStartTimeoutMs)}`;
  }

  assertAlive() {
    for (const child of this.children) {
      if (child.exited) throw new Error(`${child.label} died:\n${child.output}`);
    }
  }

  async stop() {
    for (const child of [...this.children].reverse()) await child.stop();
    process.off('exit', this.onExit);
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
    this.dir = null;
  }

  track(child) {
    this.children.push(child);
    return child;
  }
}
