#include "proxy/upstream_request.h"

#include <algorithm>
#include <array>
#include <optional>

#include "config/address.h"
#include "core/http_syntax.h"
#include "core/strings.h"
#include "protocol/client_auth.h"
#include "protocol/percent_encoding.h"
#include "config/media_routes.h"

namespace llmux::proxy {
namespace {

// Never forwarded upstream: connection-level headers (RFC 9110 §7.6.1), the client's own
// credentials and account selectors (the channel's key replaces them), and headers llmux writes.
constexpr std::array<std::string_view, 20> kDroppedRequestHeaders = {
    "connection",       "keep-alive",     "proxy-connection", "proxy-authorization",
    "proxy-authenticate", "te",           "trailer",          "transfer-encoding",
    "upgrade",          "host",           "content-length",   "expect",
    "authorization",    "x-api-key",      "x-goog-api-key",   "openai-organization",
    "openai-project",   "cookie",         "x-request-id",     "accept-encoding",
};

// Never relayed to the client: connection-level and framing headers; what belongs to the
// upstream's own site (cookies, HSTS, alternative services); the account the channel key
// belongs to.
constexpr std::array<std::string_view, 16> kDroppedResponseHeaders = {
    "connection",     "keep-alive",          "proxy-connection",          "te",
    "trailer",        "transfer-encoding",   "upgrade",                   "content-length",
    "x-request-id",   "set-cookie",          "set-cookie2",               "alt-svc",
    "strict-transport-security", "openai-organization", "openai-project",
    "anthropic-organization-id",
};

// Name prefixes of headers never relayed: llmux's own (an upstream must not speak for it) and,
// unless the channel opts in, the rate-limit state of a key tenants share.
constexpr std::string_view kOwnHeaderPrefix = "x-llmux-";
constexpr std::array<std::string_view, 3> kRateLimitPrefixes = {"x-ratelimit-", "anthropic-ratelimit-",
                                                                "ratelimit-"};

/// The start of a header name in lower case, in a stack buffer: the lists and prefixes above are
/// lower case, so screening a field takes plain comparisons (lengths first) instead of a
/// case-insensitive one per entry. A longer name is never listed; its start still has prefixes.
class LowerName {
 public:
  static constexpr std::size_t kKept = 32;

  explicit LowerName(std::string_view name) : whole_(name.size() <= kKept) {
    std::size_t const n = std::min(name.size(), kKept);
    for (std::size_t i = 0; i < n; ++i) buffer_[i] = lowerAscii(name[i]);
    start_ = std::string_view(buffer_, n);
  }
  /// The name is `lower`, a lower-case name.
  bool is(std::string_view lower) const { return whole_ && start_ == lower; }
  bool startsWith(std::string_view lower) const { return start_.starts_with(lower); }

 private:
  char buffer_[kKept];
  std::string_view start_;
  bool whole_;
};

template <std::size_t N>
constexpr bool fitsLowerName(std::array<std::string_view, N> const& names) {
  for (std::string_view name : names) {
    if (name.size() > LowerName::kKept) return false;
  }
  return true;
}
static_assert(fitsLowerName(kDroppedRequestHeaders) && fitsLowerName(kDroppedResponseHeaders) &&
              fitsLowerName(kRateLimitPrefixes) && kOwnHeaderPrefix.size() <= LowerName::kKept);

bool isRateLimitHeader(LowerName const& name) {
  return std::any_of(kRateLimitPrefixes.begin(), kRateLimitPrefixes.end(),
                     [&](std::string_view prefix) { return name.startsWith(prefix); });
}

template <std::size_t N>
bool isListed(std::array<std::string_view, N> const& list, LowerName const& name) {
  return std::any_of(list.begin(), list.end(),
                     [&](std::string_view entry) { return name.is(entry); });
}

/// A header named in the message's Connection header (`connection`, its value, looked up once
/// per message) is hop-by-hop too.
bool namedInConnection(std::string_view connection, std::string_view name) {
  while (!connection.empty()) {
    auto comma = connection.find(',');
    if (equalsIgnoreCase(trimSpaces(connection.substr(0, comma)), name)) return true;
    if (comma == std::string_view::npos) break;
    connection.remove_prefix(comma + 1);
  }
  return false;
}

/// Writes a request head, checking every name, value and the target on the way (the one choke
/// point between what clients and the configuration say and the upstream's wire). The first
/// unsafe item is remembered with who supplied it; the head is then not sent at all.
class HeadWriter {
 public:
  explicit HeadWriter(std::string& head) : head_(head) {}

  void requestLine(std::string_view method, std::string_view target) {
    if (!isSafeRequestTarget(target)) {
      // The client's query is escaped before it gets here: what is left came from the file.
      fail(WireSource::Configuration, "the request target");
    }
    head_ += method;
    head_ += ' ';
    head_ += target;
    head_ += " HTTP/1.1\r\n";
  }

  void header(std::string_view name, std::string_view value, WireSource source) {
    if (!isHeaderName(name)) {
      fail(source, "a header name");
      return;
    }
    if (!isSafeHeaderValue(value)) {
      fail(source, "header '" + std::string(name) + "'");
      return;
    }
    head_ += name;
    head_ += ": ";
    head_ += value;
    head_ += "\r\n";
  }

  Result<void> result() const {
    if (!problem_) return {};
    return *problem_;
  }

 private:
  void fail(WireSource source, std::string what) {
    if (problem_) return;
    // Never the value itself: it may be a secret, and it is the attacker's text.
    problem_ = source == WireSource::Client
                   ? makeError(ErrorKind::InvalidRequest,
                               what + " would carry a control character (CR, LF or NUL) from the "
                                      "request to the upstream")
                   : makeError(ErrorKind::Internal,
                               what + " of the channel's configuration contains a control "
                                      "character (CR, LF or NUL)");
  }

  std::string& head_;
  std::optional<Error> problem_;
};

/// A byte a request target may not carry raw (space, control, non-ASCII, a fragment mark).
bool needsEscape(char c) {
  auto u = static_cast<unsigned char>(c);
  return u <= 0x20 || u >= 0x7f || c == '#';
}

/// `query` with every such byte percent-encoded (the server's parser refuses most of them
/// already; this keeps the guarantee local).
std::string escapedQuery(std::string query) {
  if (std::none_of(query.begin(), query.end(), needsEscape)) return query;
  static constexpr char kHex[] = "0123456789ABCDEF";
  std::string out;
  for (char c : query) {
    if (!needsEscape(c)) {
      out += c;
      continue;
    }
    auto u = static_cast<unsigned char>(c);
    out += '%';
    out += kHex[u >> 4];
    out += kHex[u & 0x0f];
  }
  return out;
}

}  // namespace

UpstreamTarget upstreamTarget(config::Channel const& channel, config::ProtocolRow const& row,
                              config::ChannelKey const& key, protocol::Route const& route,
                              std::string_view upstream_model, std::string_view query_in) {
  protocol::RowPaths paths = rowPaths(row);
  paths.media = config::configuredMediaPath(channel.media, route.kind);
  return upstreamTargetAt(channel, row, key, protocol::upstreamPath(paths, route, upstream_model),
                          protocol::queryWithoutClientKey(query_in));
}

UpstreamTarget upstreamTargetAt(config::Channel const& channel, config::ProtocolRow const& row,
                                config::ChannelKey const& key, std::string path,
                                std::string_view query_in) {
  UpstreamTarget target;
  target.peer = http::PeerAddress{row.url.tls, row.url.host, row.url.port, channel.tls_ca_file};
  target.host_header = config::hostHeaderValue(row.url);
  target.path_and_query = std::move(path);
  std::string query = escapedQuery(std::string(query_in));
  auto auth = config::resolveAuth(row.protocol, row.auth);
  if (auth.style == config::AuthStyle::Query) {
    if (!query.empty()) query += '&';
    query += auth.name + "=" + protocol::percentEncodeSegment(key.secret);
  }
  if (!query.empty()) target.path_and_query += "?" + query;
  return target;
}

void routeThroughExit(UpstreamTarget& target, config::Proxy const* proxy,
                      config::Channel const& channel, config::ProtocolRow const& row,
                      config::ChannelKey const& key) {
  if (channel.exclusive_connections) target.peer.exclusive_to = key.id;
  if (proxy == nullptr) return;
  if (proxy->mode == config::ProxyMode::UrlPrefix) {
    std::string const upstream_url = std::string(row.url.tls ? "https://" : "http://") +
                                     target.host_header + target.path_and_query;
    target.path_and_query = proxy->prefix.path_prefix + "/" + upstream_url;
    target.host_header = config::hostHeaderValue(proxy->prefix);
    std::string exclusive = std::move(target.peer.exclusive_to);
    target.peer = http::PeerAddress{proxy->prefix.tls, proxy->prefix.host, proxy->prefix.port,
                                    proxy->tls_ca_file};
    target.peer.exclusive_to = std::move(exclusive);
    return;
  }
  target.peer.egress = proxy->egress;
  if (proxy->egress && proxy->egress->forwardsPlainHttp() && !row.url.tls) {
    target.path_and_query = "http://" + target.host_header + target.path_and_query;
    target.proxy_authorization = proxy->egress->authorization;
  }
}

protocol::RowPaths rowPaths(config::ProtocolRow const& row) {
  return protocol::RowPaths{
      .prefix = row.url.path_prefix, .chat = row.paths.chat, .models = row.paths.models};
}

std::string chatUrl(config::ProtocolRow const& row) {
  return config::originOf(row.url) + protocol::chatPathTemplate(row.protocol, rowPaths(row));
}

std::string modelsUrl(config::ProtocolRow const& row) {
  return config::originOf(row.url) + protocol::modelsPath(row.protocol, rowPaths(row));
}

Result<std::string> buildUpstreamHead(std::string_view method, UpstreamTarget const& target,
                                      HeaderList const& client_headers, ForwardedHeaders forwarded,
                                      HeaderList const& preset_headers,
                                      config::Channel const& channel,
                                      config::ProtocolRow const& row,
                                      config::ChannelKey const& key, std::string_view request_id,
                                      std::size_t content_length) {
  std::string head;
  head.reserve(1024);
  HeadWriter out(head);
  out.requestLine(method, target.path_and_query);
  out.header("Host", target.host_header, WireSource::Configuration);
  if (!target.proxy_authorization.empty()) {
    out.header("Proxy-Authorization", target.proxy_authorization, WireSource::Configuration);
  }
  std::string_view const connection = client_headers.get("connection");
  for (auto const& field : client_headers) {
    LowerName const lower(field.name);
    if (forwarded == ForwardedHeaders::Generic && !lower.is("user-agent")) continue;
    if (isListed(kDroppedRequestHeaders, lower)) continue;
    if (channel.headers.has(field.name)) continue;  // the channel's value wins
    if (preset_headers.has(field.name)) continue;   // so does the preset's
    if (namedInConnection(connection, field.name)) continue;
    out.header(field.name, field.value, WireSource::Client);
  }
  if (forwarded == ForwardedHeaders::Generic) {
    if (!channel.headers.has("content-type")) {
      out.header("Content-Type", "application/json", WireSource::Configuration);
    }
  }
  // Preset headers carry values taken from the request (session ids): the client's.
  for (auto const& field : preset_headers) {
    if (!channel.headers.has(field.name)) out.header(field.name, field.value, WireSource::Client);
  }
  for (auto const& field : channel.headers) {
    out.header(field.name, field.value, WireSource::Configuration);
  }
  bool client_version = forwarded == ForwardedHeaders::EndToEnd && client_headers.has("anthropic-version");
  if (row.protocol == Protocol::Anthropic && !client_version &&
      !channel.headers.has("anthropic-version") && !preset_headers.has("anthropic-version")) {
    out.header("anthropic-version", "2023-06-01", WireSource::Configuration);  // required by the API
  }
  auto auth = config::resolveAuth(row.protocol, row.auth);
  switch (auth.style) {
    case config::AuthStyle::Bearer:
      out.header("Authorization", "Bearer " + key.secret, WireSource::Configuration);
      break;
    case config::AuthStyle::XApiKey: out.header("x-api-key", key.secret, WireSource::Configuration); break;
    case config::AuthStyle::Header: out.header(auth.name, key.secret, WireSource::Configuration); break;
    case config::AuthStyle::Query:
    case config::AuthStyle::Default: break;
  }
  out.header("X-Request-Id", request_id, WireSource::Client);
  if (method != "GET" || content_length > 0) {
    out.header("Content-Length", std::to_string(content_length), WireSource::Configuration);
  }
  head += "\r\n";
  if (auto checked = out.result(); !checked) return checked.error();
  return head;
}

HeaderList clientResponseHeaders(HeaderList const& upstream_headers, std::string_view request_id,
                                 bool expose_rate_limits) {
  HeaderList out;
  out.reserve(upstream_headers.size() + 1, 1024);
  std::string_view const connection = upstream_headers.get("connection");
  for (auto const& field : upstream_headers) {
    LowerName const lower(field.name);
    if (lower.is("x-request-id")) {
      out.add("x-upstream-request-id", field.value);
      continue;
    }
    if (isListed(kDroppedResponseHeaders, lower)) continue;
    if (lower.startsWith(kOwnHeaderPrefix)) continue;
    if (!expose_rate_limits && isRateLimitHeader(lower)) continue;
    if (namedInConnection(connection, field.name)) continue;
    out.add(field.name, field.value);
  }
  out.add("X-Request-Id", request_id);
  return out;
}

}  // namespace llmux::proxy
