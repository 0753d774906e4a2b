// Child processes of the SDK tests: spawn, wait for the "listening on HOST:PORT" line, stop.
import { spawn } from 'node:child_process';

const kListening = /listening on (\S+):(\d{1,5})\s*$/m;
const kKeptOutput = 64 * 1024;

/** A started child with its output kept for error messages. */
export class Child {
  constructor(label, binary, args, options) {
    this.label = label;
    this.output = '';
    this.exited = null; // {code, signal} once it has exited
    this.process = spawn(binary, args, { ...options, stdio: ['ignore', 'pipe', 'pipe'] });
    this.exitPromise = new Promise((resolve) => {
      this.process.on('exit', (code, signal) => {
        this.exited = { code, signal };
        resolve(this.exited);
      });
      // A spawn failure (missing binary) emits 'error' and never 'exit'.
      this.process.on('error', (error) => {
        this.output += `\n[spawn error] ${error.message}\n`;
        this.exited = { code: null, signal: null, error };
        resolve(this.exited);
      });
    });
    const keep = (chunk) => {
      this.output += chunk.toString('utf8');
      if (this.output.length > kKeptOutput) this.output = this.output.slice(-kKeptOutput);
    };
    this.process.stdout.on('data', keep);
    this.process.stderr.on('data', keep);
  }

  /** Resolves to the port of the first "listening on HOST:PORT" line on stdout or stderr. */
  async waitForListening(timeoutMs) {
    const deadline = Date.now() + timeoutMs;
    for (;;) {
      const match = kListening.exec(this.output);
      if (match) return Number(match[2]);
      if (this.exited) {
        throw new Error(`${this.label} exited (${describeExit(this.exited)}) before listening:\n` +
                        indent(this.output));
      }
      if (Date.now() > deadline) {
        throw new Error(`${this.label} printed no "listening on" line within ${timeoutMs} ms:\n` +
                        indent(this.output));
      }
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
  }

  /** `signal` (SIGTERM), then SIGKILL when it has not exited after `graceMs`. Returns how it
   *  exited. */
  async stop(graceMs = 5000, signal = 'SIGTERM') {
    if (this.exited) return this.exited;
    this.process.kill(signal);
    let timer;
    const killed = new Promise((resolve) => {
      timer = setTimeout(() => {
        if (!this.exited) this.process.kill('SIGKILL');
        resolve();
      }, graceMs);
    });
    await Promise.race([this.exitPromise, killed]);
    clearTimeout(timer);
    return this.exitPromise;
  }

  /** Last resort from a synchronous 'exit' handler: no waiting possible there. */
  killNow() {
    if (!this.exited) this.process.kill('SIGKILL');
  }
}

export function describeExit(exit) {
  if (exit.error) return exit.error.message;
  return exit.signal ? `signal ${exit.signal}` : `code ${exit.code}`;
}

function indent(text) {
  const trimmed = text.trimEnd();
  return trimmed ? trimmed.replace(/^/gm, '  | ') : '  | (no output)';
}
