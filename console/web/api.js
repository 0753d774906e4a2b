// The admin API and console session over fetch: JSON in and out, the session's CSRF token on
// every change, errors as ApiError (status, message, issues). A 401 means the session is gone:
// the handler set by the app sends the user back to sign-in.

export class ApiError extends Error {
  constructor(status, message, { type = null, issues = [], currentVersion = null } = {}) {
    super(message);
    this.name = 'ApiError';
    this.status = status;
    this.type = type;
    this.issues = issues;
    this.currentVersion = currentVersion;
  }
}

const state = { csrf: null, onUnauthorized: null };

/** The CSRF token of the current session (null when signed out). */
export function setCsrf(token) {
  state.csrf = token ?? null;
}

export function setUnauthorizedHandler(handler) {
  state.onUnauthorized = handler;
}

/** The ApiError of an answer that is not 2xx, from its status and body text. */
export function errorFromAnswer(status, text, statusText = '') {
  let body;
  try {
    body = text ? JSON.parse(text) : null;
  } catch {
    body = null;
  }
  const error = body?.error;
  if (error && typeof error === 'object') {
    return new ApiError(status, error.message || `HTTP ${status}`, {
      type: error.type ?? null,
      issues: Array.isArray(error.issues) ? error.issues : [],
      currentVersion: error.current_version ?? null,
    });
  }
  const hint = status === 404 ? 'not found (not available on this gateway?)'
    : status === 501 ? 'not implemented on this gateway' : (statusText || 'request failed');
  return new ApiError(status, `HTTP ${status}: ${hint}`);
}

/** One call. `body`: an object (sent as JSON) or a string (sent as `contentType`). `version`:
 *  the object version for If-Match. Answers the parsed JSON, the text for non-JSON answers, null
 *  for 204; with `withEtag`, `{body, etag}`. */
export async function call(method, path, { body, contentType, version, withEtag = false,
  accept = 'application/json', signal } = {}) {
  const headers = { Accept: accept };
  if (method !== 'GET' && method !== 'HEAD' && state.csrf) headers['X-CSRF-Token'] = state.csrf;
  if (version !== undefined && version !== null) headers['If-Match'] = `"${version}"`;
  let payload;
  if (body !== undefined) {
    if (typeof body === 'string') {
      payload = body;
      headers['Content-Type'] = contentType ?? 'text/plain';
    } else {
      payload = JSON.stringify(body);
      headers['Content-Type'] = 'application/json';
    }
  }
  let answer;
  try {
    answer = await fetch(path, { method, headers, body: payload, credentials: 'same-origin', signal });
  } catch (error) {
    if (error?.name === 'AbortError') throw error;
    throw new ApiError(0, `network error: ${error?.message ?? error}`);
  }
  const text = answer.status === 204 ? '' : await answer.text();
  if (!answer.ok) {
    const error = errorFromAnswer(answer.status, text, answer.statusText);
    if (answer.status === 401 && !path.startsWith('/console/session') && state.onUnauthorized) {
      state.onUnauthorized(error);
    }
    throw error;
  }
  let parsed = null;
  if (text) {
    const type = answer.headers.get('content-type') ?? '';
    parsed = type.includes('json') ? JSON.parse(text) : text;
  }
  if (!withEtag) return parsed;
  const etag = answer.headers.get('etag');
  return { body: parsed, etag: etag ? etag.replace(/^W\//, '').replace(/"/g, '') : null };
}

export const get = (path, options) => call('GET', path, options);
export const post = (path, body, options) => call('POST', path, { ...options, body });
export const put = (path, body, options) => call('PUT', path, { ...options, body });
export const del = (path, options) => call('DELETE', path, options);

/** Path segment of an object name (model names of `prices` may hold `/`). */
export const seg = (name) => encodeURIComponent(name);

/** The console session: `{name, role, csrf, expires}`, or null when there is none (401). */
export async function readSession() {
  try {
    return await get('/console/session');
  } catch (error) {
    if (error.status === 401) return null;
    throw error;
  }
}

export const signIn = (token) => post('/console/session', { token });
export const signOut = () => del('/console/session');
