#include "config/address.h"

#include <boost/url/ipv4_address.hpp>
#include <boost/url/ipv6_address.hpp>
#include <boost/url/parse.hpp>
#include <boost/url/url_view.hpp>

#include "core/strings.h"

namespace llmux::config {
namespace {

Error invalid(std::string message) { return makeError(ErrorKind::InvalidRequest, std::move(message)); }

std::uint16_t defaultPort(bool tls) { return tls ? 443 : 80; }

bool isLabelChar(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '-' ||
         c == '_';
}

/// Port text to a number in [min_port, 65535].
Result<std::uint16_t> parsePort(std::string_view text, long long min_port) {
  auto value = parseNonNegative(text);
  if (!value || text.size() > 5 || *value < min_port || *value > 65535) {
    return invalid(min_port == 0 ? "port must be a number from 0 to 65535"
                                 : "port must be a number from 1 to 65535");
  }
  return static_cast<std::uint16_t>(*value);
}

}  // namespace

bool isHostName(std::string_view host) {
  if (host.empty() || host.size() > 253) return false;
  if (host.find_first_not_of("0123456789.") == std::string_view::npos) return false;
  std::size_t start = 0;
  while (start <= host.size()) {
    std::size_t dot = host.find('.', start);
    if (dot == std::string_view::npos) dot = host.size();
    std::string_view label = host.substr(start, dot - start);
    if (label.empty() || label.size() > 63) {
      // A single trailing dot (fully qualified form) is fine.
      if (label.empty() && dot == host.size() && start > 0) return true;
      return false;
    }
    if (label.front() == '-' || label.back() == '-') return false;
    for (char c : label) {
      if (!isLabelChar(c)) return false;
    }
    start = dot + 1;
  }
  return true;
}

Result<UpstreamUrl> parseBaseUrl(std::string_view text) {
  auto parsed = boost::urls::parse_uri(boost::core::string_view(text.data(), text.size()));
  if (!parsed) return invalid("not an http(s) URL");
  boost::urls::url_view const& url = *parsed;

  UpstreamUrl out;
  if (url.scheme_id() == boost::urls::scheme::https) {
    out.tls = true;
  } else if (url.scheme_id() != boost::urls::scheme::http) {
    return invalid("not an http(s) URL");
  }
  if (!url.has_authority()) return invalid("not an http(s) URL");
  if (url.has_userinfo()) {
    return invalid("must not contain user info (put credentials in keys or headers)");
  }
  if (url.has_query()) return invalid("must not contain a query (?...)");
  if (url.has_fragment()) return invalid("must not contain a fragment (#...)");

  switch (url.host_type()) {
    case boost::urls::host_type::ipv4: out.host = url.host_ipv4_address().to_string(); break;
    case boost::urls::host_type::ipv6: out.host = url.host_ipv6_address().to_string(); break;
    case boost::urls::host_type::name: {
      std::string_view host(url.encoded_host().data(), url.encoded_host().size());
      if (host.empty()) return invalid("has no host");
      if (!isHostName(host)) return invalid("has an invalid host name");
      out.host = toLower(host);
      break;
    }
    default: return invalid("has no usable host");
  }
  if (out.host.empty()) return invalid("has no host");

  if (url.has_port()) {
    std::string_view port_text(url.port().data(), url.port().size());
    auto port = parsePort(port_text, 1);
    if (!port) return port.takeError();
    out.port = *port;
  } else {
    out.port = defaultPort(out.tls);
  }

  std::string_view path(url.encoded_path().data(), url.encoded_path().size());
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  out.path_prefix = std::string(path);
  return out;
}

std::string hostHeaderValue(UpstreamUrl const& url) {
  std::string out = url.host.find(':') != std::string::npos ? "[" + url.host + "]" : url.host;
  if (url.port != defaultPort(url.tls)) out += ":" + std::to_string(url.port);
  return out;
}

std::string originOf(UpstreamUrl const& url) {
  return std::string(url.tls ? "https://" : "http://") + hostHeaderValue(url);
}

std::string toString(UpstreamUrl const& url) { return originOf(url) + url.path_prefix; }

Result<ListenAddress> parseListenAddress(std::string_view text) {
  ListenAddress out;
  std::string_view host;
  std::string_view port_text;
  if (!text.empty() && text.front() == '[') {
    auto close = text.find(']');
    if (close == std::string_view::npos) return invalid("expected host:port ('[' without ']')");
    host = text.substr(1, close - 1);
    std::string_view rest = text.substr(close + 1);
    if (rest.empty() || rest.front() != ':') return invalid("expected [IPv6]:port");
    port_text = rest.substr(1);
    auto v6 = boost::urls::parse_ipv6_address(boost::core::string_view(host.data(), host.size()));
    if (!v6) return invalid("invalid IPv6 address");
    out.host = v6->to_string();
    out.is_ipv6 = true;
  } else {
    auto colon = text.rfind(':');
    if (colon == std::string_view::npos) return invalid("expected host:port");
    host = text.substr(0, colon);
    port_text = text.substr(colon + 1);
    if (host.find(':') != std::string_view::npos) {
      return invalid("an IPv6 address must be written in brackets: [addr]:port");
    }
    if (host.empty()) return invalid("expected host:port (host is empty)");
    if (host.find_first_not_of("0123456789.") == std::string_view::npos) {
      auto v4 = boost::urls::parse_ipv4_address(boost::core::string_view(host.data(), host.size()));
      if (!v4) return invalid("invalid IPv4 address");
      out.host = v4->to_string();
    } else {
      if (!isHostName(host)) return invalid("invalid host name");
      out.host = toLower(host);
    }
  }
  auto port = parsePort(port_text, 0);
  if (!port) return port.takeError();
  out.port = *port;
  return out;
}

}  // namespace llmux::config
