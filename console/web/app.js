// The console's shell: the session (sign-in page without one), the navigation, and the router on
// location.hash. Each page module exports render(root, context) and may answer a cleanup
// function, called when the page is left (closing its event stream, its timers).
import { readSession, setCsrf, setUnauthorizedHandler, signOut } from './api.js';
import { errorBox, h, replace } from './lib/dom.js';
import * as channels from './pages/channels.js';
import * as keys from './pages/keys.js';
import * as live from './pages/live.js';
import * as overview from './pages/overview.js';
import * as proxies from './pages/proxies.js';
import * as racing from './pages/racing.js';
import * as settings from './pages/settings.js';
import * as signin from './pages/signin.js';

const kPages = [
  { path: 'overview', title: 'Overview', page: overview },
  { path: 'live', title: 'Live requests', page: live },
  { path: 'channels', title: 'Channels', page: channels },
  { path: 'keys', title: 'Gateway keys', page: keys },
  { path: 'proxies', title: 'Proxies', page: proxies },
  { path: 'racing', title: 'Racing', page: racing },
  { path: 'settings', title: 'Settings', page: settings },
];

const main = document.getElementById('main');
const nav = document.getElementById('nav');
const who = document.getElementById('who');
let session = null;
let cleanup = null;

function leavePage() {
  if (typeof cleanup === 'function') cleanup();
  cleanup = null;
}

function currentPath() {
  return location.hash.replace(/^#\/?/, '').split('?')[0] || 'overview';
}

function showSignIn(note) {
  leavePage();
  session = null;
  setCsrf(null);
  nav.hidden = true;
  who.replaceChildren();
  document.title = 'Sign in · llmux console';
  cleanup = signin.render(main, { note, onSignedIn: start });
}

function renderNav(active) {
  nav.hidden = false;
  // The current page's link reads it again (the hash does not change, so no hashchange).
  const again = (event) => {
    if (event.currentTarget.getAttribute('href') === location.hash) route();
  };
  replace(nav, h('ul', {}, kPages.map((p) => h('li', {},
    h('a', { href: `#/${p.path}`, testid: `nav-${p.path}`, onclick: again,
      'aria-current': p.path === active ? 'page' : null }, p.title)))));
  replace(who,
    h('span', { class: 'who-name', testid: 'session-name' }, session.name),
    h('span', { class: `badge ${session.role === 'admin' ? 'ok' : 'muted'}`, testid: 'session-role' },
      session.role === 'admin' ? 'admin' : 'read-only'),
    h('button', { type: 'button', class: 'btn', testid: 'sign-out', onclick: onSignOut }, 'Sign out'));
}

async function onSignOut() {
  try {
    await signOut();
  } catch {
    // The session may already be gone; signing in again is the way on either way.
  }
  showSignIn('Signed out.');
}

function route() {
  if (!session) return;
  leavePage();
  const path = currentPath();
  const entry = kPages.find((p) => p.path === path);
  renderNav(entry?.path);
  if (!entry) {
    replace(main, h('h1', {}, 'Not found'), h('p', {}, 'No such page. ', h('a', { href: '#/overview' }, 'Overview')));
    return;
  }
  document.title = `${entry.title} · llmux console`;
  main.replaceChildren();
  const context = { session, canChange: session.role === 'admin', title: entry.title };
  try {
    cleanup = entry.page.render(main, context);
  } catch (error) {
    replace(main, errorBox(error));
  }
}

async function start() {
  try {
    session = await readSession();
  } catch (error) {
    session = null;
    const note = error.status === 404
      ? 'This gateway does not serve console sessions (POST /console/session answered 404).'
      : `Could not read the session: ${error.message}`;
    showSignIn(note);
    return;
  }
  if (!session) {
    showSignIn();
    return;
  }
  setCsrf(session.csrf);
  if (!location.hash || location.hash === '#' || location.hash === '#/') {
    history.replaceState(null, '', '#/overview');
  }
  route();
}

// Several calls of a page can fail at once when the session ends: show the sign-in page once.
setUnauthorizedHandler(() => {
  if (session) showSignIn('Your session has ended; sign in again.');
});
window.addEventListener('hashchange', route);
start();
