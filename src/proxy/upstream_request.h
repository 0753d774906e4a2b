#pragma once

#include <string>
#include <string_view>

#include "config/settings.h"
#include "core/http_headers.h"
#include "core/result.h"
#include "http/peer_address.h"
#include "protocol/routes.h"
#include "protocol/upstream_path.h"

namespace llmux::proxy {

/// Where an attempt sends its request.
struct UpstreamTarget {
  http::PeerAddress peer;
  std::string path_and_query;  ///< the request target (origin form; absolute through an HTTP proxy)
  std::string host_header;     ///< host[:port] (port omitted when it is the scheme's default)
  /// Secret: the HTTP proxy's credentials, sent with a plain-http request it forwards ("" = none).
  std::string proxy_authorization;
};

/// The URL of the request on `channel` spoken to in `row`: the row's path for `route` (its
/// `chat_path` when set, else the row's base path plus the protocol's standard path; see
/// protocol::upstreamPath), and `query` (the client's, without its gateway key, for
/// passthrough; bytes a target may not carry raw are percent-encoded) plus the upstream key,
/// percent-encoded, when the row authenticates by query parameter.
UpstreamTarget upstreamTarget(config::Channel const& channel, config::ProtocolRow const& row,
                              config::ChannelKey const& key, protocol::Route const& route,
                              std::string_view upstream_model, std::string_view query);

/// The same for a request the gateway makes itself (the inspection's model lists and balances):
/// `path` on the row's host and `query` as given, plus the key when the row authenticates by
/// query parameter.
UpstreamTarget upstreamTargetAt(config::Channel const& channel, config::ProtocolRow const& row,
                                config::ChannelKey const& key, std::string path,
                                std::string_view query);

/// Sends `target` (made for `row` of `channel`) out through `proxy` (nullptr: direct,
/// docs/egress.md): a network or node exit goes with the peer (the pool opens the tunnel); an
/// HTTP proxy takes a plain-http request in absolute form, with its Proxy-Authorization; a
/// url_prefix exit makes the forwarder the peer and the whole upstream URL the path after its
/// own. With `exclusive_connections`, the connection belongs to `key` alone.
void routeThroughExit(UpstreamTarget& target, config::Proxy const* proxy,
                      config::Channel const& channel, config::ProtocolRow const& row,
                      config::ChannelKey const& key);

/// Whether `target` goes to an HTTP proxy that forwards it (absolute form), rather than
/// through a tunnel or straight to the upstream: the proxy's own answers then come back as the
/// response.
inline bool forwardedByProxy(UpstreamTarget const& target) {
  return target.peer.egress && target.peer.egress->forwardsPlainHttp() && !target.peer.tls;
}

/// The paths of `row` as protocol::upstreamPath takes them (views into `row`).
protocol::RowPaths rowPaths(config::ProtocolRow const& row);

/// The URL of `row`'s completion endpoint, as an operator reads it (check-config): Gemini's with
/// `{model}` unexpanded and ":generateContent". No query: a query-auth row's key is not in it.
std::string chatUrl(config::ProtocolRow const& row);

/// The URL of `row`'s model list: its `models_path`, else the protocol's standard list behind
/// the base URL's path. No query: the key of a query-auth row is added by whoever sends it.
std::string modelsUrl(config::ProtocolRow const& row);

/// Which client headers go upstream.
enum class ForwardedHeaders {
  EndToEnd,  ///< passthrough: every end-to-end header minus the client's credentials
  Generic,   ///< translation: only protocol-neutral ones (User-Agent): the client's
             ///< protocol-specific headers (anthropic-beta, openai-*, x-goog-*) mean nothing
             ///< to an upstream of another protocol
};

/// Where a value written into an upstream head came from: who has to fix it when it is unsafe.
enum class WireSource {
  Client,         ///< the request (its headers, or values taken from its body): a 400
  Configuration,  ///< the channel's settings: the channel cannot be used
};

/// The request head sent upstream: the client's headers as `forwarded` says (never hop-by-hop
/// headers, the client's credentials, or headers llmux sets itself), the client preset's headers
/// (replacing the client's of the same name), the channel's extra headers (winning over both),
/// the channel key in the row's auth style, X-Request-Id, Host and Content-Length.
///
/// This is the one place heads for upstreams are written, and every name, value and the target
/// are checked here (core/http_syntax.h): an error of kind InvalidRequest when a value from the
/// request would carry a CR, LF, NUL or other control character, Internal when one from the
/// configuration would. The error never quotes the value.
Result<std::string> buildUpstreamHead(std::string_view method, UpstreamTarget const& target,
                                      HeaderList const& client_headers, ForwardedHeaders forwarded,
                                      HeaderList const& preset_headers,
                                      config::Channel const& channel,
                                      config::ProtocolRow const& row,
                                      config::ChannelKey const& key, std::string_view request_id,
                                      std::size_t content_length);

/// The upstream's response headers as the client gets them: hop-by-hop and framing headers
/// removed (the client connection has its own framing), and what a tenant must not see: cookies,
/// HSTS and Alt-Svc of the upstream's site, the provider account's organization and project ids,
/// `x-llmux-*` from upstream, and (unless `expose_rate_limits`) the shared key's rate-limit
/// headers; the upstream's x-request-id renamed to x-upstream-request-id, and llmux's
/// X-Request-Id added. `retry-after` is kept: a client needs it to back off.
HeaderList clientResponseHeaders(HeaderList const& upstream_headers, std::string_view request_id,
                                 bool expose_rate_limits);

}  // namespace llmux::proxy
