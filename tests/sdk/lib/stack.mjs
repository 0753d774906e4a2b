// The system under test: llmux's mock provider and the llmux gateway in front of it, one channel
// per protocol, on loopback ports chosen by the OS.
import { rmSync } from 'node:fs';
import { access, constants, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

import { Child, describeExit } from './processes.mjs';

const here = path.dirname(fileURLToPath(import.meta.url));

/** The key clients present to llmux, and one it does not know. */
export const GATEWAY_KEY = 'sk-sdk-test';
export const WRONG_KEY = 'sk-sdk-wrong';
/** A model no channel serves. */
export const UNKNOWN_MODEL = 'no-such-model-9000';

/** The model each protocol's channel serves. */
export const MODELS = {
  chat: 'gpt-4o-mini',
  responses: 'gpt-5-mini',
  // Not claude-sonnet-4-5: the Anthropic SDK prints a deprecation warning on every call for it.
  anthropic: 'claude-haiku-4-5',
  gemini: 'gemini-2.5-flash',
};

const kStartTimeoutMs = 15000;

/** LLMUX_BIN, else the dev build next to the sources. */
export function llmuxBinary() {
  const chosen = process.env.LLMUX_BIN;
  if (chosen) return path.resolve(chosen);
  return path.resolve(here, '..', '..', '..', 'build', 'dev', 'src', 'app', 'llmux');
}

function configYaml(mockUrl, stateDir) {
  const channel = (name, protocol, model) =>
    `  - {name: ${name}, protocol: ${protocol}, base_url: "${mockUrl}", keys: [mock-key], ` +
    `models: [${model}]}`;
  return [
    'listen: 127.0.0.1:0',
    'gateway_keys:',
    `  - {name: sdk, key: ${GATEWAY_KEY}}`,
    'log: {access_log: off}',
    `state_dir: ${JSON.stringify(stateDir)}`,
    'channels:',
    channel('mock-chat', 'openai-chat', MODELS.chat),
    channel('mock-responses', 'openai-responses', MODELS.responses),
    channel('mock-anthropic', 'anthropic', MODELS.anthropic),
    channel('mock-gemini', 'gemini', MODELS.gemini),
    '',
  ].join('\n');
}

/** Starts and stops the mock provider and the gateway; `gatewayUrl` is set once started. */
export class Stack {
  constructor() {
    this.children = [];
    this.dir = null;
    this.gatewayUrl = null;
    this.mockUrl = null;
    // Whatever ends this process (a crash in a test, Ctrl-C), the servers must not outlive it.
    this.onExit = () => {
      this.children.forEach((c) => c.killNow());
      if (this.dir) rmSync(this.dir, { recursive: true, force: true });
    };
    this.onSignal = (signal) => {
      this.onExit();
      process.exit(signal === 'SIGINT' ? 130 : 143);
    };
    process.on('exit', this.onExit);
    process.on('SIGINT', this.onSignal);
    process.on('SIGTERM', this.onSignal);
  }

  async start() {
    const binary = llmuxBinary();
    try {
      await access(binary, constants.X_OK);
    } catch {
      throw new Error(`llmux binary not found or not executable: ${binary}\n` +
                      'Build it (ninja llmux) and pass its path as LLMUX_BIN.');
    }
    this.dir = await mkdtemp(path.join(tmpdir(), 'llmux-sdk-'));
    const env = { ...process.env, LLMUX_HOME: this.dir };
    const options = { cwd: this.dir, env };

    const mock = this.track(new Child('mock provider', binary,
                                      ['mock-provider', '--listen', '127.0.0.1:0'], options));
    const mockPort = await mock.waitForListening(kStartTimeoutMs);
    this.mockUrl = `http://127.0.0.1:${mockPort}`;

    const configPath = path.join(this.dir, 'llmux.yaml');
    await writeFile(configPath, configYaml(this.mockUrl, path.join(this.dir, 'state')));
    const gateway = this.track(new Child('llmux serve', binary, ['serve', '--config', configPath],
                                         options));
    const gatewayPort = await gateway.waitForListening(kStartTimeoutMs);
    this.gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  }

  /** Throws when a server died while the tests ran, with its output. */
  assertAlive() {
    for (const child of this.children) {
      if (child.exited) {
        throw new Error(`${child.label} died (${describeExit(child.exited)}):\n${child.output}`);
      }
    }
  }

  /** Stops both processes; reports a server that had died, or that crashed on stop. */
  async stop() {
    const problems = [];
    for (const child of this.children) {
      if (child.exited) problems.push(`${child.label} had died (${describeExit(child.exited)})`);
    }
    // Gateway first: it holds connections to the mock.
    for (const child of [...this.children].reverse()) {
      const exit = await child.stop();
      if (!problems.some((p) => p.startsWith(child.label)) && exit.signal && exit.signal !== 'SIGTERM') {
        problems.push(`${child.label} ended by ${exit.signal} on shutdown`);
      }
    }
    process.off('exit', this.onExit);
    process.off('SIGINT', this.onSignal);
    process.off('SIGTERM', this.onSignal);
    if (this.dir) await rm(this.dir, { recursive: true, force: true });
    this.dir = null;
    if (problems.length > 0) {
      const outputs = this.children.map((c) => `--- ${c.label} output:\n${c.output}`).join('\n');
      throw new Error(`${problems.join('; ')}\n${outputs}`);
    }
  }

  track(child) {
    this.children.push(child);
    return child;
  }
}
