#pragma once

#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/client_preset.h"
#include "core/http_headers.h"
#include "core/wire_protocol.h"

namespace llmux::config {

using Millis = std::chrono::milliseconds;

/// A key clients present to llmux. Never forwarded upstream.
struct GatewayKey {
  std::string name;    ///< shown in logs instead of the secret
  std::string secret;  ///< from `key:` or the variable named by `key_env:`
};

/// How a channel presents its upstream key.
enum class AuthStyle {
  Default,   ///< the protocol's usual one (bearer for OpenAI, x-api-key for Anthropic, x-goog-api-key for Gemini)
  Bearer,    ///< Authorization: Bearer <key>
  XApiKey,   ///< x-api-key: <key>
  Header,    ///< <name>: <key>
  Query,     ///< ?<name>=<key>
};

struct AuthSpec {
  AuthStyle style = AuthStyle::Default;
  std::string name;  ///< header or query parameter name for Header / Query

  bool operator==(AuthSpec const&) const = default;
};

/// `auth` with `Default` replaced by the protocol's usual style: Bearer for both OpenAI protocols,
/// XApiKey for Anthropic, Header "x-goog-api-key" for Gemini. Other styles are returned unchanged.
AuthSpec resolveAuth(Protocol protocol, AuthSpec const& auth);

/// Per-attempt upstream deadlines; each retry restarts them.
struct Timeouts {
  Millis connect{5'000};       ///< DNS + TCP + TLS handshake
  Millis first_byte{120'000};  ///< request sent -> response head received
  Millis idle{120'000};        ///< between two reads of the response body
  Millis total{600'000};       ///< whole attempt, head to last byte
};

/// `base_url` split into its parts. `path_prefix` has no trailing slash ("" or "/relay" or "/v1").
/// `host` is lower-case; an IPv6 literal is stored without brackets ("::1"). `port` is explicit or
/// the scheme's default (80 / 443). See config/address.h for parsing and for the Host header form.
struct UpstreamUrl {
  bool tls = false;
  std::string host;
  std::uint16_t port = 0;
  std::string path_prefix;

  bool operator==(UpstreamUrl const&) const = default;
};

/// One upstream key of a channel. `id` is stable across reloads as long as the channel name and
/// the secret stay the same, so runtime state (cooldowns) keyed by it survives a reload.
struct ChannelKey {
  std::string secret;
  std::string label;  ///< "<channel>#<index>": what logs and metrics show, never the secret
  std::string id;     ///< "<channel>/<short hash of the secret>"
};

/// One protocol a channel speaks: where and how (a relay may serve OpenAI Chat and Anthropic at
/// different paths).
struct ProtocolRow {
  Protocol protocol = Protocol::OpenAiChat;
  std::string base_url;  ///< as written
  UpstreamUrl url;       ///< parsed from base_url
  AuthSpec auth;
  /// Made at load time for a client preset whose protocol no written row speaks: the first
  /// row's address and auth spoken in the preset's protocol. Used only by that preset.
  bool preset_only = false;
};

/// An upstream: one provider, relay or account pool.
struct Channel {
  std::string name;
  /// The first protocol row's protocol, base URL and auth (the whole story for the usual
  /// single-protocol channel).
  Protocol protocol = Protocol::OpenAiChat;
  std::string base_url;  ///< as written
  UpstreamUrl url;       ///< parsed from base_url
  std::vector<ChannelKey> keys;
  std::vector<std::string> models;                ///< model names as clients request them
  std::map<std::string, std::string> model_map;   ///< client name -> upstream name
  AuthSpec auth;
  HeaderList headers;  ///< extra headers sent upstream
  std::string tls_ca_file;  ///< PEM CA bundle that verifies this https upstream ("" = system store)
  Timeouts timeouts;
  int priority = 0;  ///< higher is tried first
  int weight = 1;    ///< share among channels of equal priority
  bool enabled = true;

  /// Every protocol the channel speaks, the first being `protocol`/`url`/`auth` above; never empty
  /// in a loaded configuration (`protocols:` in YAML, or one row made from `protocol`).
  std::vector<ProtocolRow> rows;

  /// `client_preset:` — requests are built as that client would send them (its protocol,
  /// headers and default fields; docs/presets.md).
  std::optional<ClientPreset> client_preset;
  /// `model_presets:` — a preset for some client model names, instead of `client_preset`.
  std::map<std::string, ClientPreset> model_presets;

  /// The preset that applies to a request for `client_model`, if any.
  std::optional<ClientPreset> presetFor(std::string const& client_model) const;
  /// The row a request of `client_protocol` for `client_model` is spoken in: the preset's
  /// protocol row when a preset applies; else the row speaking the client's protocol (byte
  /// passthrough); else the first row (translation).
  std::size_t rowIndexFor(Protocol client_protocol, std::string const& client_model) const;

  /// The written row speaking `protocol`, or nullptr.
  ProtocolRow const* rowFor(Protocol protocol) const;
  /// Makes `rows` the single row of `protocol`, `base_url`, `url` and `auth`.
  void useSingleRow();

  /// Whether clients may ask this channel for `model` (a listed model or a model_map alias).
  bool serves(std::string_view model) const;
  /// The name to send upstream for a client model name (model_map applied).
  std::string const& upstreamModel(std::string const& client_model) const;
};

/// The client-facing HTTP server.
struct ServerSettings {
  std::string listen = "127.0.0.1:8080";
  unsigned threads = 0;                        ///< 0: one per core
  std::size_t max_body_bytes = 32u << 20;      ///< larger bodies get 413
  std::size_t max_header_bytes = 64u << 10;    ///< larger heads get 431
  Millis header_timeout{30'000};               ///< to receive a complete request head
  Millis body_timeout{60'000};                 ///< between two reads of a request body
  Millis keepalive_timeout{75'000};            ///< idle keep-alive connection
  Millis drain_timeout{30'000};                ///< SIGTERM: how long in-flight requests may finish
};

/// Where the access log and the request log go.
struct LogSettings {
  std::string access_log = "stdout";  ///< "stdout", "stderr", "off" or a file path
  bool request_log = true;             ///< one row per request (and attempt) in the SQLite state
  std::string level = "info";         ///< application log level: debug | info | warn | error
};

/// A whole, validated configuration. Immutable once built; shared as `SettingsPtr`
/// (config/loader.h).
struct Settings {
  ServerSettings server;
  std::vector<GatewayKey> gateway_keys;
  std::vector<Channel> channels;
  LogSettings log;
  std::string state_dir;  ///< SQLite state; "" means $LLMUX_HOME or ./.llmux
};

}  // namespace llmux::config
