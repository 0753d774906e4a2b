#include "proxy/upstream_request.h"

#include <array>

#include "config/address.h"
#include "core/strings.h"
#include "protocol/client_auth.h"
#include "protocol/upstream_path.h"

namespace llmux::proxy {
namespace {

// Never forwarded upstream: connection-level headers (RFC 9110 §7.6.1), the client's own
// credentials and account selectors (the channel's key replaces them), and headers llmux writes.
constexpr std::array kDroppedRequestHeaders = {
    "connection",       "keep-alive",     "proxy-connection", "proxy-authorization",
    "proxy-authenticate", "te",           "trailer",          "transfer-encoding",
    "upgrade",          "host",           "content-length",   "expect",
    "authorization",    "x-api-key",      "x-goog-api-key",   "openai-organization",
    "openai-project",   "cookie",         "x-request-id",     "accept-encoding",
};

// Never relayed to the client: connection-level and framing headers.
constexpr std::array kDroppedResponseHeaders = {
    "connection", "keep-alive", "proxy-connection", "te", "trailer", "transfer-encoding",
    "upgrade",    "content-length", "x-request-id",
};

template <std::size_t N>
bool isListed(std::array<char const*, N> const& list, std::string_view name) {
  for (char const* entry : list) {
    if (equalsIgnoreCase(name, entry)) return true;
  }
  return false;
}

/// A header named in the client's Connection header is hop-by-hop too.
bool namedInConnection(HeaderList const& headers, std::string_view name) {
  std::string_view connection = headers.get("connection");
  while (!connection.empty()) {
    auto comma = connection.find(',');
    if (equalsIgnoreCase(trimSpaces(connection.substr(0, comma)), name)) return true;
    if (comma == std::string_view::npos) break;
    connection.remove_prefix(comma + 1);
  }
  return false;
}

void appendHeader(std::string& head, std::string_view name, std::string_view value) {
  head += name;
  head += ": ";
  head += value;
  head += "\r\n";
}

}  // namespace

UpstreamTarget upstreamTarget(config::Channel const& channel, config::ProtocolRow const& row,
                              config::ChannelKey const& key, protocol::Route const& route,
                              std::string_view upstream_model, std::string_view query_in) {
  UpstreamTarget target;
  target.peer = http::PeerAddress{row.url.tls, row.url.host, row.url.port, channel.tls_ca_file};
  target.host_header = config::hostHeaderValue(row.url);

  target.path_and_query = protocol::upstreamPath(row.url.path_prefix, route, upstream_model);
  std::string query = protocol::queryWithoutClientKey(query_in);
  auto auth = config::resolveAuth(row.protocol, row.auth);
  if (auth.style == config::AuthStyle::Query) {
    if (!query.empty()) query += '&';
    query += auth.name + "=" + key.secret;
  }
  if (!query.empty()) target.path_and_query += "?" + query;
  return target;
}

std::string buildUpstreamHead(std::string_view method, UpstreamTarget const& target,
                              HeaderList const& client_headers, ForwardedHeaders forwarded,
                              HeaderList const& preset_headers, config::Channel const& channel,
                              config::ProtocolRow const& row,
                              config::ChannelKey const& key, std::string_view request_id,
                              std::size_t content_length) {
  std::string head;
  head.reserve(1024);
  head += method;
  head += ' ';
  head += target.path_and_query;
  head += " HTTP/1.1\r\n";
  appendHeader(head, "Host", target.host_header);
  for (auto const& field : client_headers) {
    if (forwarded == ForwardedHeaders::Generic && !equalsIgnoreCase(field.name, "user-agent")) {
      continue;
    }
    if (isListed(kDroppedRequestHeaders, field.name)) continue;
    if (channel.headers.has(field.name)) continue;  // the channel's value wins
    if (preset_headers.has(field.name)) continue;   // so does the preset's
    if (namedInConnection(client_headers, field.name)) continue;
    appendHeader(head, field.name, field.value);
  }
  if (forwarded == ForwardedHeaders::Generic) {
    if (!channel.headers.has("content-type")) appendHeader(head, "Content-Type", "application/json");
  }
  for (auto const& field : preset_headers) {
    if (!channel.headers.has(field.name)) appendHeader(head, field.name, field.value);
  }
  for (auto const& field : channel.headers) appendHeader(head, field.name, field.value);
  bool client_version = forwarded == ForwardedHeaders::EndToEnd && client_headers.has("anthropic-version");
  if (row.protocol == Protocol::Anthropic && !client_version &&
      !channel.headers.has("anthropic-version") && !preset_headers.has("anthropic-version")) {
    appendHeader(head, "anthropic-version", "2023-06-01");  // required by the API
  }
  auto auth = config::resolveAuth(row.protocol, row.auth);
  switch (auth.style) {
    case config::AuthStyle::Bearer: appendHeader(head, "Authorization", "Bearer " + key.secret); break;
    case config::AuthStyle::XApiKey: appendHeader(head, "x-api-key", key.secret); break;
    case config::AuthStyle::Header: appendHeader(head, auth.name, key.secret); break;
    case config::AuthStyle::Query:
    case config::AuthStyle::Default: break;
  }
  appendHeader(head, "X-Request-Id", request_id);
  if (method != "GET" || content_length > 0) {
    appendHeader(head, "Content-Length", std::to_string(content_length));
  }
  head += "\r\n";
  return head;
}

HeaderList clientResponseHeaders(HeaderList const& upstream_headers, std::string_view request_id) {
  HeaderList out;
  for (auto const& field : upstream_headers) {
    if (equalsIgnoreCase(field.name, "x-request-id")) {
      out.add("x-upstream-request-id", field.value);
      continue;
    }
    if (isListed(kDroppedResponseHeaders, field.name)) continue;
    if (namedInConnection(upstream_headers, field.name)) continue;
    out.add(field.name, field.value);
  }
  out.add("X-Request-Id", request_id);
  return out;
}

}  // namespace llmux::proxy
