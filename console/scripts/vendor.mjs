// Copies the chart library's browser build into web/vendor/, where the gateway serves (and the
// build embeds) it. Run by `npm ci` (postinstall) and `npm run vendor`.
import { copyFileSync, mkdirSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const from = path.join(root, 'node_modules', 'uplot', 'dist');
const to = path.join(root, 'web', 'vendor');
mkdirSync(to, { recursive: true });
for (const file of ['uPlot.iife.min.js', 'uPlot.min.css']) {
  copyFileSync(path.join(from, file), path.join(to, file));
}
console.log(`vendor: uPlot copied to ${path.relative(process.cwd(), to) || '.'}`);
