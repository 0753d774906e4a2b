// A url_prefix forwarder for llmux (docs/egress.md): a request for
//   https://<this worker>/https://api.openai.com/v1/chat/completions
// is sent on to https://api.openai.com/v1/chat/completions with the same method, headers and
// body, and the upstream's answer (streams included) comes back as it arrives.
//
// ALLOWED_HOSTS (a comma-separated list, set as a Worker variable) limits where it forwards to:
// without it the worker would be an open relay for anyone who finds its address.

export default {
  async fetch(request, env) {
    const url = new URL(request.url);
    // Everything after the first '/' is the upstream URL, with the query of the incoming request.
    const target = url.pathname.slice(1) + url.search;
    let upstream;
    try {
      upstream = new URL(target);
    } catch {
      return new Response('expected /https://host/path after the worker\'s address\n', { status: 400 });
    }
    if (upstream.protocol !== 'https:' && upstream.protocol !== 'http:') {
      return new Response('only http and https upstreams\n', { status: 400 });
    }
    const allowed = (env.ALLOWED_HOSTS || '').split(',').map((h) => h.trim()).filter(Boolean);
    if (!allowed.includes(upstream.hostname)) {
      return new Response(`forwarding to ${upstream.hostname} is not allowed (ALLOWED_HOSTS)\n`,
                          { status: 403 });
    }
    const headers = new Headers(request.headers);
    headers.delete('host');
    // Cloudflare's own headers describe the hop to the worker, not the client.
    for (const name of [...headers.keys()]) {
      if (name.startsWith('cf-') || name === 'x-forwarded-for' || name === 'x-real-ip') headers.delete(name);
    }
    return fetch(upstream.toString(), {
      method: request.method,
      headers,
      body: request.method === 'GET' || request.method === 'HEAD' ? undefined : request.body,
      redirect: 'manual',
    });
  },
};
