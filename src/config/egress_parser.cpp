#include "config/egress_parser.h"

#include <boost/url/parse.hpp>

#include <algorithm>
#include <array>
#include <cstdint>
#include <fstream>
#include <span>

#include "config/address.h"
#include "config/channel_parser.h"
#include "core/digest.h"
#include "core/http_syntax.h"
#include "core/strings.h"

namespace llmux::config::detail {
namespace {

/// A proxy URL taken apart: where the proxy is, and the credentials it carried (user info).
struct ProxyUrl {
  std::string scheme;  ///< http, https, socks5, socks5h
  UpstreamUrl address;
  std::optional<std::string> username, password;
};

std::uint16_t defaultProxyPort(std::string_view scheme) {
  // curl's defaults: 1080 for HTTP and SOCKS proxies, 443 for an https one.
  return scheme == "https" ? 443 : 1080;
}

/// What kind of URL parseProxyUrl reads.
struct UrlRules {
  std::span<std::string_view const> schemes;
  bool path_allowed = false;  ///< a url_prefix forwarder's path
  bool proxy_ports = false;   ///< a proxy's: without a port, curl's defaults (not 80 / 443)
};
constexpr std::array<std::string_view, 4> kNetworkSchemes{"http", "https", "socks5", "socks5h"};
constexpr std::array<std::string_view, 2> kWebSchemes{"http", "https"};

/// Parses a proxy, node or forwarder URL. The message of an error never repeats the URL (it may
/// carry a password).
Result<ProxyUrl> parseProxyUrl(std::string_view text, UrlRules const& rules) {
  auto const& schemes = rules.schemes;
  bool const path_allowed = rules.path_allowed;
  auto invalid = [](std::string message) {
    return makeError(ErrorKind::InvalidRequest, std::move(message));
  };
  auto parsed = boost::urls::parse_uri(boost::core::string_view(text.data(), text.size()));
  if (!parsed || !parsed->has_authority()) return invalid("not an absolute URL");
  boost::urls::url_view const& url = *parsed;
  ProxyUrl out;
  out.scheme = toLower(std::string_view(url.scheme().data(), url.scheme().size()));
  if (std::find(schemes.begin(), schemes.end(), out.scheme) == schemes.end()) {
    std::string expected;
    for (std::string_view scheme : schemes) {
      if (!expected.empty()) expected += ", ";
      expected += std::string(scheme) + "://";
    }
    return invalid("scheme " + out.scheme + ":// is not supported here (expected " + expected + ")");
  }
  if (url.has_query()) return invalid("must not contain a query (?...)");
  if (url.has_fragment()) return invalid("must not contain a fragment (#...)");
  std::string_view path(url.encoded_path().data(), url.encoded_path().size());
  while (!path.empty() && path.back() == '/') path.remove_suffix(1);
  if (!path.empty() && !path_allowed) return invalid("must not contain a path");
  if (url.has_userinfo()) {
    out.username = std::string(url.user());
    if (url.has_password()) out.password = std::string(url.password());
  }
  // The address as a base URL: the same host and port rules as a channel's.
  std::string base = std::string(out.scheme == "https" ? "https://" : "http://") +
                     std::string(url.encoded_host_and_port().data(), url.encoded_host_and_port().size()) +
                     std::string(path);
  auto address = parseBaseUrl(base);
  if (!address) return address.error();
  out.address = std::move(*address);
  if (!url.has_port() && rules.proxy_ports) out.address.port = defaultProxyPort(out.scheme);
  return out;
}

/// The URL as shown in check-config and logs: scheme, host and port, never the credentials.
std::string displayUrl(ProxyUrl const& url) {
  std::string const& host = url.address.host;
  return url.scheme + "://" + (host.find(':') != std::string::npos ? "[" + host + "]" : host) + ":" +
         std::to_string(url.address.port) + url.address.path_prefix;
}

/// The connection side of a network or node proxy, its identity in the pool included.
std::shared_ptr<Egress const> makeEgress(Egress::Kind kind, std::string const& name,
                                         ProxyUrl const& url, std::string const& ca_file,
                                         std::string username, std::string password,
                                         std::string const& token) {
  auto egress = std::make_shared<Egress>();
  egress->kind = kind;
  egress->name = name;
  egress->tls = url.scheme == "https";
  egress->host = url.address.host;
  egress->port = url.address.port;
  egress->ca_file = ca_file;
  egress->remote_dns = url.scheme == "socks5h";
  if (kind == Egress::Kind::Node) {
    egress->authorization = "Bearer " + token;
  } else if (kind == Egress::Kind::HttpProxy && (!username.empty() || !password.empty())) {
    egress->authorization = "Basic " + base64(username + ":" + password);
  }
  if (kind == Egress::Kind::Socks5) {
    egress->username = std::move(username);
    egress->password = std::move(password);
  }
  egress->identity = name + "@" + displayUrl(url);
  std::string const secrets = egress->username + '\n' + egress->password + '\n' + egress->authorization;
  if (secrets.size() > 2) egress->identity += "#" + sha256Hex(secrets, 6);
  return egress;
}

std::optional<ProxyMode> parseMode(std::string_view text) {
  for (ProxyMode mode : {ProxyMode::Network, ProxyMode::UrlPrefix, ProxyMode::Direct, ProxyMode::Node}) {
    if (proxyModeName(mode) == text) return mode;
  }
  return std::nullopt;
}

/// A secret field given by the name of the environment variable that holds it.
std::optional<std::string> readSecretFromEnv(YamlReader& reader, Fields const& fields,
                                             std::string_view key, EnvLookup const& env) {
  YAML::Node const* node = fields.find(key);
  if (node == nullptr) return std::nullopt;
  std::string secret_path;
  return readSecret(reader, nullptr, "", node, fields.path(key), env, secret_path);
}

void readProxy(YamlReader& reader, Fields const& fields, EnvLookup const& env, Proxy& proxy) {
  if (YAML::Node const* node = reader.require(fields, "name")) {
    if (auto name = reader.string(*node, fields.path("name"))) {
      if (isValidName(*name)) {
        proxy.name = std::move(*name);
      } else {
        reader.fail(fields.path("name"), "must be 1 to 64 letters, digits, '.', '_' or '-'");
      }
    }
  }
  YAML::Node const* mode_node = reader.require(fields, "mode");
  if (mode_node == nullptr) return;
  auto mode_text = reader.string(*mode_node, fields.path("mode"));
  if (!mode_text) return;
  auto mode = parseMode(*mode_text);
  if (!mode) {
    reader.fail(fields.path("mode"),
                "unknown mode \"" + *mode_text + "\" (expected network, url_prefix, direct or node)");
    return;
  }
  proxy.mode = *mode;

  // Which fields the mode takes.
  bool const wants_url = *mode != ProxyMode::Direct;
  bool const takes_credentials = *mode == ProxyMode::Network;
  bool const takes_token = *mode == ProxyMode::Node;
  auto refuse = [&](std::string_view key, std::string_view why) {
    if (fields.find(key) != nullptr) reader.fail(fields.path(key), std::string(why));
  };
  if (!wants_url) refuse("url", "a direct proxy has no url");
  if (!takes_credentials) {
    refuse("username_env", "only a network proxy takes credentials");
    refuse("password_env", "only a network proxy takes credentials");
  }
  if (!takes_token) refuse("token_env", "only a node takes a token");
  if (!wants_url) {
    refuse("tls_ca_file", "a direct proxy has no TLS of its own");
    return;
  }

  YAML::Node const* url_node = reader.require(fields, "url");
  if (url_node == nullptr) return;
  auto url_text = expandedString(reader, *url_node, fields.path("url"), env);
  if (!url_text) return;
  bool const network = *mode == ProxyMode::Network;
  auto url = parseProxyUrl(*url_text, {network ? std::span<std::string_view const>(kNetworkSchemes)
                                               : std::span<std::string_view const>(kWebSchemes),
                                       *mode == ProxyMode::UrlPrefix, network});
  if (!url) {
    reader.fail(fields.path("url"), url.error().message);
    return;
  }
  if (*mode != ProxyMode::Network && (url->username || url->password)) {
    reader.fail(fields.path("url"), "must not contain credentials");
    return;
  }
  proxy.url = displayUrl(*url);
  if (YAML::Node const* node = fields.find("tls_ca_file")) {
    std::string const path = fields.path("tls_ca_file");
    if (auto file = expandedString(reader, *node, path, env)) {
      if (!url->address.tls) {
        reader.fail(path, "only applies to an https url");
      } else if (!std::ifstream(*file).good()) {
        reader.fail(path, "cannot read the CA file");
      } else {
        proxy.tls_ca_file = std::move(*file);
      }
    }
  }

  switch (*mode) {
    case ProxyMode::UrlPrefix: proxy.prefix = url->address; break;
    case ProxyMode::Node: {
      if (fields.find("token_env") == nullptr) {
        reader.fail(fields.path("token_env"), "required field is missing (the node's token)");
        return;
      }
      auto token = readSecretFromEnv(reader, fields, "token_env", env);
      if (!token) return;
      proxy.egress = makeEgress(Egress::Kind::Node, proxy.name, *url, proxy.tls_ca_file, "", "", *token);
      break;
    }
    case ProxyMode::Network: {
      std::string username = url->username.value_or("");
      std::string password = url->password.value_or("");
      if (auto value = readSecretFromEnv(reader, fields, "username_env", env)) username = *value;
      if (auto value = readSecretFromEnv(reader, fields, "password_env", env)) password = *value;
      bool const socks = url->scheme.starts_with("socks");
      if (socks && (username.size() > 255 || password.size() > 255)) {
        reader.fail(fields.path(), "SOCKS5 credentials are at most 255 bytes each");
        return;
      }
      proxy.egress = makeEgress(socks ? Egress::Kind::Socks5 : Egress::Kind::HttpProxy, proxy.name,
                                *url, proxy.tls_ca_file, std::move(username), std::move(password), "");
      break;
    }
    case ProxyMode::Direct: break;
  }
}

/// The value of the first of `names` set (and not empty) in the environment, with its name.
std::optional<std::pair<std::string, std::string>> firstSet(
    EnvLookup const& env, std::initializer_list<std::string_view> names) {
  for (std::string_view name : names) {
    if (auto value = env(name); value && !trimSpaces(*value).empty()) {
      return std::pair{std::string(name), std::string(trimSpaces(*value))};
    }
  }
  return std::nullopt;
}

/// The index in `settings.proxies` of the environment's proxy `value` (from variable `name`),
/// added on first use. nullopt when the value cannot be read (reported).
std::optional<std::size_t> environmentProxy(YamlReader& reader, std::string const& name,
                                            std::string const& value, Settings& settings) {
  std::string const proxy_name = "$" + name;
  for (std::size_t i = 0; i < settings.proxies.size(); ++i) {
    if (settings.proxies[i].name == proxy_name) return i;
  }
  // As curl does, a value without a scheme is an HTTP proxy.
  std::string const text = value.find("://") == std::string::npos ? "http://" + value : value;
  auto url = parseProxyUrl(text, {kNetworkSchemes, false, true});
  if (!url) {
    reader.fail("(environment) " + name, url.error().message);
    return std::nullopt;
  }
  for (auto const* secret : {&url->username, &url->password}) {
    if (*secret && !secretProblem(**secret).empty()) {
      reader.fail("(environment) " + name, "the credentials contain a control character");
      return std::nullopt;
    }
  }
  Proxy proxy;
  proxy.name = proxy_name;
  proxy.mode = ProxyMode::Network;
  proxy.url = displayUrl(*url);
  bool const socks = url->scheme.starts_with("socks");
  proxy.egress = makeEgress(socks ? Egress::Kind::Socks5 : Egress::Kind::HttpProxy, proxy_name, *url,
                            "", url->username.value_or(""), url->password.value_or(""), "");
  settings.proxies.push_back(std::move(proxy));
  return settings.proxies.size() - 1;
}

/// Parses "a.b.c.d" into a 32-bit address.
std::optional<std::uint32_t> parseIpv4(std::string_view text) {
  std::uint32_t address = 0;
  int parts = 0;
  while (parts < 4) {
    std::size_t digits = 0;
    unsigned value = 0;
    while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9' && digits < 3) {
      value = value * 10 + static_cast<unsigned>(text[digits] - '0');
      ++digits;
    }
    if (digits == 0 || value > 255) return std::nullopt;
    address = (address << 8) | value;
    text.remove_prefix(digits);
    ++parts;
    if (parts < 4) {
      if (text.empty() || text.front() != '.') return std::nullopt;
      text.remove_prefix(1);
    }
  }
  if (!text.empty()) return std::nullopt;
  return address;
}

bool entryExempts(std::string_view entry, std::string_view host) {
  if (entry == "*") return true;
  // An IPv4 CIDR.
  if (auto slash = entry.find('/'); slash != std::string_view::npos) {
    auto network = parseIpv4(entry.substr(0, slash));
    auto address = parseIpv4(host);
    std::string_view bits_text = entry.substr(slash + 1);
    if (!network || !address || bits_text.empty() || bits_text.size() > 2) return false;
    int bits = 0;
    for (char c : bits_text) {
      if (c < '0' || c > '9') return false;
      bits = bits * 10 + (c - '0');
    }
    if (bits > 32) return false;
    std::uint32_t const mask = bits == 0 ? 0 : ~std::uint32_t{0} << (32 - bits);
    return (*network & mask) == (*address & mask);
  }
  // "[::1]" or "host:port": the port is not compared.
  if (entry.starts_with('[')) {
    auto close = entry.find(']');
    if (close == std::string_view::npos) return false;
    return equalsIgnoreCase(entry.substr(1, close - 1), host);
  }
  if (std::count(entry.begin(), entry.end(), ':') == 1) entry = entry.substr(0, entry.find(':'));
  if (entry.starts_with('.')) entry.remove_prefix(1);
  if (entry.empty()) return false;
  if (equalsIgnoreCase(entry, host)) return true;
  return host.size() > entry.size() && host[host.size() - entry.size() - 1] == '.' &&
         equalsIgnoreCase(host.substr(host.size() - entry.size()), entry);
}

bool authenticatesByQuery(ProtocolRow const& row) {
  return resolveAuth(row.protocol, row.auth).style == AuthStyle::Query;
}

}  // namespace

bool noProxyExempts(std::string_view no_proxy, std::string_view host) {
  while (!no_proxy.empty()) {
    std::size_t const end = no_proxy.find_first_of(", ");
    std::string_view entry = trimSpaces(no_proxy.substr(0, end));
    if (!entry.empty() && entryExempts(entry, host)) return true;
    if (end == std::string_view::npos) break;
    no_proxy.remove_prefix(end + 1);
  }
  return false;
}

void readProxies(YamlReader& reader, Fields const& root, EnvLookup const& env, Settings& settings) {
  YAML::Node const* node = root.find("proxies");
  if (node == nullptr) return;
  std::string const path = root.path("proxies");
  auto items = reader.list(*node, path);
  if (!items) return;
  for (std::size_t i = 0; i < items->size(); ++i) {
    std::string const item_path = indexPath(path, i);
    auto fields = reader.strictMap((*items)[i], item_path,
                                   {"name", "mode", "url", "username_env", "password_env",
                                    "token_env", "tls_ca_file"});
    if (!fields) continue;
    Proxy proxy;
    readProxy(reader, *fields, env, proxy);
    auto same = std::find_if(settings.proxies.begin(), settings.proxies.end(),
                             [&](Proxy const& other) { return other.name == proxy.name; });
    if (!proxy.name.empty() && same != settings.proxies.end()) {
      reader.fail(fields->path("name"), "duplicate proxy name \"" + proxy.name + "\"");
      continue;
    }
    settings.proxies.push_back(std::move(proxy));
  }
}

std::optional<std::size_t> readProxyBinding(YamlReader& reader, YAML::Node const& node,
                                            std::string const& path,
                                            std::vector<Proxy> const& proxies) {
  auto name = reader.string(node, path);
  if (!name) return std::nullopt;
  for (std::size_t i = 0; i < proxies.size(); ++i) {
    if (proxies[i].name == *name) return i;
  }
  reader.fail(path, "no proxy named \"" + *name + "\" in proxies:");
  return std::nullopt;
}

void applyEnvironmentProxies(YamlReader& reader, EnvLookup const& env, Settings& settings) {
  std::string const no_proxy = firstSet(env, {"no_proxy", "NO_PROXY"}).value_or(std::pair{"", ""}).second;
  auto const for_https = firstSet(env, {"https_proxy", "HTTPS_PROXY", "all_proxy", "ALL_PROXY"});
  auto const for_http = firstSet(env, {"http_proxy", "HTTP_PROXY", "all_proxy", "ALL_PROXY"});
  for (std::size_t c = 0; c < settings.channels.size(); ++c) {
    Channel& channel = settings.channels[c];
    for (ProtocolRow& row : channel.rows) {
      auto const& named = row.url.tls ? for_https : for_http;
      if (named && !noProxyExempts(no_proxy, row.url.host)) {
        row.environment_proxy = environmentProxy(reader, named->first, named->second, settings);
      }
    }
  }
  // A url_prefix exit sends the whole upstream URL to the forwarder: a key in its query would go
  // with it.
  for (std::size_t c = 0; c < settings.channels.size(); ++c) {
    Channel const& channel = settings.channels[c];
    for (ChannelKey const& key : channel.keys) {
      for (ProtocolRow const& row : channel.rows) {
        Proxy const* proxy = proxyFor(settings, channel, key, row);
        if (proxy && proxy->mode == ProxyMode::UrlPrefix && authenticatesByQuery(row)) {
          reader.fail("channels[" + std::to_string(c) + "]",
                      "proxy \"" + proxy->name + "\" (url_prefix) would carry the key of " +
                          key.label + " in the forwarder's URL; authenticate with a header "
                          "(auth: header:NAME) instead of a query parameter");
          return;
        }
      }
    }
  }
}

}  // namespace llmux::config::detail
