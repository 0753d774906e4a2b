// The system under test: llmux's mock provider and the llmux gateway in front of it, on loopback
// ports chosen by the OS. The protocol matrix's stack has one channel per protocol (below); the
// media suite builds its own configuration (lib/media_stack.mjs).
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

/** The four wire protocols, by the names the tests use (client and upstream alike). */
export const PROTOCOLS = ['chat', 'responses', 'anthropic', 'gemini'];

/** The channel protocol (llmux config) of each. */
const kChannelProtocol = {
  chat: 'openai-chat',
  responses: 'openai-responses',
  anthropic: 'anthropic',
  gemini: 'gemini',
};

/** The model each protocol's channel serves. */
export const MODELS = {
  chat: 'gpt-4o-mini',
  responses: 'gpt-5-mini',
  // Not claude-sonnet-4-5: the Anthropic SDK prints a deprecation warning on every call for it.
  anthropic: 'claude-haiku-4-5',
  gemini: 'gemini-2.5-flash',
};

/** The retry delay the rate-limited channels' upstream gives (seconds). */
export const RATE_LIMIT_RETRY_AFTER = 7;

/** Every request that may get a 429 from the upstream has its own channel and model: a 429 pauses
 *  the channel's key for the retry delay, and the next request for that model would be answered
 *  by the gateway itself (every key paused) without reaching the upstream. */
export const RATE_LIMITED_CALLS = ['create', 'stream'];

/** The model of a channel of `upstream`'s protocol whose upstream always answers 429, reserved for
 *  one `call` (RATE_LIMITED_CALLS) of one `client`. */
export function rateLimitedModel(client, upstream, call) {
  return `ratelimited-${client}-${upstream}-${call}`;
}

/** The model of a channel of `upstream`'s protocol whose upstream drops the connection after
 *  the first content event of a stream (half of a plain answer). */
export function cutModel(upstream) {
  return `cut-${upstream}`;
}

/** The model of a channel of `upstream`'s protocol whose upstream always refuses the prompt as
 *  too long for its context window. */
export function overflowModel(upstream) {
  return `overflow-${upstream}`;
}

const kStartTimeoutMs = 15000;

/** LLMUX_BIN, else the dev build next to the sources. */
export function llmuxBinary() {
  const chosen = process.env.LLMUX_BIN;
  if (chosen) return path.resolve(chosen);
  return path.resolve(here, '..', '..', '..', 'build', 'dev', 'src', 'app', 'llmux');
}

function configYaml(mockUrl, stateDir) {
  // Faults come from the channel's own headers: a translated request carries only generic client
  // headers upstream, so a client could not ask the mock for them.
  const channel = (name, upstream, model, fault) =>
    `  - {name: ${name}, protocol: ${kChannelProtocol[upstream]}, base_url: "${mockUrl}", ` +
    `keys: [mock-key], models: [${model}]` +
    (fault ? `, headers: {x-mock-fault: "${fault}"}` : '') + '}';
  const channels = [];
  for (const upstream of PROTOCOLS) {
    channels.push(channel(`mock-${upstream}`, upstream, MODELS[upstream]));
    channels.push(channel(`mock-${upstream}-overflow`, upstream, overflowModel(upstream),
                          'context-overflow'));
    channels.push(channel(`mock-${upstream}-cut`, upstream, cutModel(upstream), 'cut'));
    for (const client of PROTOCOLS) {
      for (const call of RATE_LIMITED_CALLS) {
        channels.push(channel(`mock-${upstream}-429-${client}-${call}`, upstream,
                              rateLimitedModel(client, upstream, call),
                              `429=${RATE_LIMIT_RETRY_AFTER}`));
      }
    }
  }
  return [
    'listen: 127.0.0.1:0',
    '# Stopped with SIGTERM when the tests end: no load balancer to wait for.',
    'server: {lame_duck_ms: 0}',
    'gateway_keys:',
    `  - {name: sdk, key: ${GATEWAY_KEY}}`,
    'log: {access_log: off}',
    `state_dir: ${JSON.stringify(stateDir)}`,
    'channels:',
    ...channels,
    '',
  ].join('\n');
}

/** Starts and stops the mock provider and the gateway; `gatewayUrl` is set once started.
 *  `config(mockUrl, stateDir)` writes the gateway's YAML (the protocol matrix's by default). */
export class Stack {
  constructor({ config = configYaml } = {}) {
    this.config = config;
    this.children = [];
    this.gateway = null;
    this.gatewayOptions = null;
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
    await writeFile(configPath, this.config(this.mockUrl, path.join(this.dir, 'state')));
    this.gatewayOptions = { binary, args: ['serve', '--config', configPath], options };
    await this.startGateway();
  }

  async startGateway() {
    const { binary, args, options } = this.gatewayOptions;
    this.gateway = this.track(new Child('llmux serve', binary, args, options));
    const gatewayPort = await this.gateway.waitForListening(kStartTimeoutMs);
    this.gatewayUrl = `http://127.0.0.1:${gatewayPort}`;
  }

  /** Stops the gateway with `signal` and starts it again with the same configuration, LLMUX_HOME
   *  and state directory (so its state database is kept); the mock keeps running. The gateway
   *  listens on a new port: `gatewayUrl` changes. Throws when the gateway did not exit cleanly. */
  async restartGateway(signal = 'SIGTERM') {
    const old = this.gateway;
    const exit = await old.stop(5000, signal);
    this.children = this.children.filter((child) => child !== old);
    if (exit.code !== 0 && exit.signal !== signal) {
      throw new Error(`llmux serve ended by ${describeExit(exit)} on ${signal}:\n${old.output}`);
    }
    this.gatewayUrl = null;
    await this.startGateway();
  }

  /** The mock provider's journal: every request it got and the exact body it answered, oldest
   *  first (docs/mock-provider.md). */
  async journal() {
    const response = await fetch(`${this.mockUrl}/_mock/journal`);
    if (!response.ok) throw new Error(`GET /_mock/journal: HTTP ${response.status}`);
    return (await response.json()).entries;
  }

  /** This point in the journal — the newest entry's sequence number and the wall-clock time —
   *  to pass to `upstreamCalls` to get what the mock served after it. The time matters on a busy
   *  machine: an exchange of the previous test (a dropped connection, say) can be recorded only
   *  after the mark was taken, but it started before. */
  async journalMark() {
    const entries = await this.journal();
    return { seq: entries.length > 0 ? entries.at(-1).seq : 0, at: Date.now() };
  }

  /** The journal entries after `mark`, waiting until there are at least `count`: the mock
   *  records an exchange once its last byte is written, which can be just after the gateway has
   *  relayed that byte to the SDK. */
  async upstreamCalls(mark, count = 1) {
    const deadline = Date.now() + 2000;
    for (;;) {
      const entries = (await this.journal())
        .filter((entry) => entry.seq > mark.seq && entry.started_at_ms >= mark.at);
      if (entries.length >= count || Date.now() > deadline) return entries;
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
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
