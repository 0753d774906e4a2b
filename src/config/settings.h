#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/client_preset.h"
#include "core/egress.h"
#include "core/http_headers.h"
#include "core/wire_protocol.h"

namespace llmux::config {

using Millis = std::chrono::milliseconds;

/// How the router orders a request's candidates (docs/routing.md). Chosen per gateway key.
enum class Strategy {
  Sequential,    ///< priority order, first healthy wins
  Random,        ///< uniform over the healthy channels of the best priority tier
  ModelRandom,   ///< uniform over every channel serving the model, priorities ignored
  GlobalRandom,  ///< uniform over every healthy (channel, key) candidate, keys included
  Intelligent,   ///< the eight-factor score (default)
  Fast,          ///< the score dominated by speed, with a small exploration share
};

/// "sequential", "random", "model-random", "global-random", "intelligent", "fast".
std::string_view strategyName(Strategy strategy);
std::optional<Strategy> parseStrategy(std::string_view name);

/// `cost_preference:` — what a race may spend on shadows (docs/racing.md).
enum class CostPreference { QualityFirst, Balanced, CostFirst };
/// "quality_first", "balanced", "cost_first".
std::string_view costPreferenceName(CostPreference preference);
std::optional<CostPreference> parseCostPreference(std::string_view name);

/// `limits:` of a gateway key — the first layer, checked before any upstream is touched
/// (0 = no limit). Windows: rpm sliding 60 s, rpd per UTC day, budgets per UTC day / month.
struct ClientLimits {
  std::int64_t rpm = 0;
  std::int64_t rpd = 0;
  std::int64_t tpm = 0;
  std::int64_t concurrency = 0;
  std::int64_t daily_tokens = 0;
  std::int64_t monthly_tokens = 0;
  double daily_cost_usd = 0;
  double monthly_cost_usd = 0;
  bool any() const {
    return rpm > 0 || rpd > 0 || tpm > 0 || concurrency > 0 || daily_tokens > 0 ||
           monthly_tokens > 0 || daily_cost_usd > 0 || monthly_cost_usd > 0;
  }

  bool operator==(ClientLimits const&) const = default;
};

/// A key clients present to llmux. Never forwarded upstream.
struct GatewayKey {
  std::string name;    ///< shown in logs instead of the secret
  std::string secret;  ///< from `key:` or the variable named by `key_env:`
  Strategy strategy = Strategy::Intelligent;  ///< `strategy:`
  ClientLimits limits;                        ///< `limits:`
  /// `cost_preference:` — the key's races; unset: the global `racing.cost_preference`.
  std::optional<CostPreference> cost_preference;
};

/// A token of the admin API (`admin_tokens:` entry, or `admin_token` as "admin").
struct AdminToken {
  std::string name;         ///< `name:` — the audit log's actor
  std::string secret;       ///< `token:` or the variable named by `token_env:`
  bool read_only = false;   ///< `role: read_only` — reads only; `role: admin` — everything
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

/// First-token deadlines of streams that ask the model to think (`first_token_reasoning_ms:`):
/// a reasoning model may think silently for a long time before its first content. By the
/// effort asked: minimal and low, medium (or thinking on without an effort), high and above.
struct ReasoningFirstToken {
  Millis low{16'000};
  Millis medium{24'000};
  Millis high{30'000};

  bool operator==(ReasoningFirstToken const&) const = default;
};

/// Per-attempt upstream deadlines; each retry restarts them.
struct Timeouts {
  Millis connect{5'000};       ///< DNS + TCP + TLS handshake
  Millis first_byte{120'000};  ///< request sent -> response head received
  Millis idle{120'000};        ///< between two reads of the response body
  Millis total{600'000};       ///< whole attempt, head to last byte
  /// Streams: request sent -> first real content event (not a keep-alive or an empty frame).
  /// Cut at this point, the attempt counts against the channel's failure breaker and fails over.
  /// Default 15 s: past it a user has given up. (A non-stream answer comes whole: first_byte.)
  Millis first_token{15'000};
  /// The first-token deadline of a stream that asks for reasoning, by its effort: never shorter
  /// than `first_token`, never longer than `total`.
  ReasoningFirstToken first_token_reasoning;
};

/// `breaker:` of a channel — its failure breaker and 429-storm breaker, one pair per (channel,
/// upstream model) (docs/resilience.md). `breaker: off` turns both off: errors instead of 503s.
struct BreakerSettings {
  bool enabled = true;            ///< the failure breaker
  int failure_threshold = 5;      ///< consecutive counted failures (5xx, connect, first token) that open it
  Millis open_for{30'000};        ///< open -> half-open (one probe)
  Millis probe_timeout{60'000};   ///< a probe that never reports frees its slot after this
  bool storm_enabled = true;      ///< the 429-storm breaker
  Millis storm_window{10'000};    ///< sliding window of responses
  double storm_ratio = 0.15;      ///< opens when more than this share of the window is 429 ...
  int storm_min_samples = 20;     ///< ... out of more than this many responses
  Millis storm_open_for{3'000};   ///< open -> half-open (one probe)

  bool operator==(BreakerSettings const&) const = default;
};

/// An RPM and a TPM token bucket taken together (0 = that dimension unlimited).
struct BucketLimits {
  std::int64_t rpm = 0;
  std::int64_t tpm = 0;
  bool any() const { return rpm > 0 || tpm > 0; }

  bool operator==(BucketLimits const&) const = default;
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
/// How an upstream account is billed; the router prefers per-request accounts for long prompts.
enum class Billing { PerToken, PerRequest };

/// An upstream account's own limits (absent: unlimited). The router gives an exhausted key a
/// zero score instead of wasting an attempt on it.
struct KeyLimits {
  std::optional<std::int64_t> rpm;          ///< requests per minute
  std::optional<std::int64_t> tpm;          ///< tokens per minute (prompt + completion)
  std::optional<std::int64_t> concurrency;  ///< requests in flight at once

  bool operator==(KeyLimits const&) const = default;
};

/// One upstream key (account) of a channel. `id` is stable across reloads as long as the channel
/// name and the secret stay the same, so runtime state (cooldowns, statistics, freezes) keyed by
/// it survives a reload. The short form (`keys: [sk-a, sk-b]`) gives every attribute its default.
struct ChannelKey {
  std::string secret;
  std::string label;  ///< "<channel>#<index>" or "<channel>/<name>": logs and metrics, never the secret
  std::string id;     ///< "<channel>/<short hash of the secret>"
  std::string name;   ///< `name:` ("" when not given)
  Billing billing = Billing::PerToken;
  /// `daily_quota:` in the account's billing unit (tokens for per_token, requests for
  /// per_request), reset at 00:00 UTC; absent: no daily quota.
  std::optional<std::int64_t> daily_quota;
  KeyLimits limits;
  int weight = 1;       ///< share among the channel's keys
  bool enabled = true;  ///< a disabled key is never tried (nor listed as a candidate)
  /// `proxy:` — the key's own exit (an index into Settings::proxies), over its channel's.
  std::optional<std::size_t> proxy;
};

/// What a model can do, as far as the router knows (absent: unknown). Built-in values come from
/// the capability table (data/model_capabilities.json); a channel may override them per model.
struct ModelCapabilities {
  std::optional<bool> tools;      ///< function calling
  std::optional<bool> vision;     ///< image input
  std::optional<bool> reasoning;  ///< thinking / reasoning effort
  std::optional<std::int64_t> context_window;  ///< tokens

  bool operator==(ModelCapabilities const&) const = default;
};

/// The paths a protocol row sets instead of its protocol's standard ones ("" = the standard
/// path behind the base URL's prefix; docs/configuration.md#chat_path-and-models_path). A path
/// that is set is absolute on the row's host: the base URL's own path is not put in front of it.
/// Validated at load: starts with '/', URL path characters only, no query or fragment; a Gemini
/// row's `chat` ends with "{model}". To add a named path: a member here, a row in the parser's
/// table (row_paths_parser.cpp), and a function of protocol/upstream_path.h that builds it.
struct UpstreamPaths {
  std::string chat;    ///< `chat_path:` the completion endpoint
  std::string models;  ///< `models_path:` the model list

  bool operator==(UpstreamPaths const&) const = default;
};

/// One protocol a channel speaks: where and how (a relay may serve OpenAI Chat and Anthropic at
/// different paths).
struct ProtocolRow {
  Protocol protocol = Protocol::OpenAiChat;
  std::string base_url;  ///< as written
  UpstreamUrl url;       ///< parsed from base_url
  AuthSpec auth;
  UpstreamPaths paths;   ///< `chat_path:`, `models_path:` ("" = the protocol's standard path)
  /// Made at load time for a client preset whose protocol no written row speaks: the first
  /// row's address and auth spoken in the preset's protocol. Used only by that preset.
  bool preset_only = false;
  /// The proxy the environment names for this row's URL (HTTPS_PROXY, HTTP_PROXY, ALL_PROXY,
  /// less NO_PROXY; an index into Settings::proxies), used when neither the key nor the channel
  /// names one.
  std::optional<std::size_t> environment_proxy;
};

/// `inspection.models:` — the scheduled refresh of a channel's model list from its upstream
/// (docs/operations.md, "Model lists and balances").
struct ModelListInspection {
  /// `path:` — absolute on the first row's host ("" = the row's models path: its `models_path`,
  /// else the protocol's list behind the base URL's prefix).
  std::string path;
  std::optional<Millis> interval = Millis(3'600'000);  ///< `interval:` (1h); nullopt: `off`
  /// `auto_update:` — serve what the upstream lists (added models become routable, dropped ones
  /// stop being routed), applied like a reload.
  bool auto_update = false;
};

/// How a relay tells a key's balance.
enum class BalanceStyle : std::uint8_t {
  Pointer,        ///< GET `path`, the number at the JSON pointer `pointer`, times `scale`
  OpenAiBilling,  ///< new-api / one-api: subscription's hard_limit_usd - usage's total_usage/100
};

/// `inspection.balance:` — a balance probe of each key of the channel.
struct BalanceInspection {
  BalanceStyle style = BalanceStyle::Pointer;
  std::string path;     ///< Pointer: absolute on the first row's host
  std::string pointer;  ///< Pointer: RFC 6901
  double scale = 1;     ///< Pointer: the number times this
  std::optional<Millis> interval = Millis(3'600'000);  ///< `interval:` (1h); nullopt: `off`
  std::optional<double> min;  ///< `min:` — a balance below it logs a warning

  bool operator==(BalanceInspection const&) const = default;
};

/// `inspection:` — what the gateway checks on its own about a channel's upstream.
struct InspectionSettings {
  ModelListInspection models;
  std::optional<BalanceInspection> balance;
};

/// The media endpoints a channel may serve, by what they produce or take (docs/media.md).
enum class Modality : std::uint8_t {
  Images,          ///< POST /v1/images/generations and /v1/images/edits (multipart)
  Videos,          ///< POST /v1/videos, GET /v1/videos/{id}, GET /v1/videos/{id}/content
  Speech,          ///< POST /v1/audio/speech (binary audio)
  Transcriptions,  ///< POST /v1/audio/transcriptions (multipart)
  Embeddings,      ///< POST /v1/embeddings
};
inline constexpr std::size_t kModalityCount = 5;
/// "images", "videos", "speech", "transcriptions", "embeddings": the keys of `media:`.
std::string_view modalityName(Modality modality);

/// One modality of `media:` — `true`, or a map with its paths.
struct MediaEndpoint {
  bool enabled = false;
  /// `path:` — the upstream path, absolute on the row's host ("" = the standard one behind the
  /// base URL's path): images' generations, videos' job collection (a job is `{path}/{id}`, its
  /// bytes `{path}/{id}/content`), the endpoint itself for the others.
  std::string path;
  /// `edits_path:` (images only) — image edits ("" = the standard one behind the base URL's path).
  std::string edits_path;

  bool operator==(MediaEndpoint const&) const = default;
};

/// `media:` of a channel: which media endpoints it serves, and where (docs/media.md).
struct MediaSettings {
  std::array<MediaEndpoint, kModalityCount> endpoints{};
  /// The protocol row media requests go to: the channel's openai-chat row, else its
  /// openai-responses row (a channel enabling any modality needs one: checked at load).
  std::size_t row = 0;

  MediaEndpoint const& operator[](Modality modality) const {
    return endpoints[static_cast<std::size_t>(modality)];
  }
  MediaEndpoint& operator[](Modality modality) { return endpoints[static_cast<std::size_t>(modality)]; }
  bool enables(Modality modality) const { return (*this)[modality].enabled; }
  bool any() const {
    for (auto const& endpoint : endpoints) {
      if (endpoint.enabled) return true;
    }
    return false;
  }
  bool operator==(MediaSettings const&) const = default;
};

/// The built-in health probe scenarios (docs/operations.md#health-probes).
enum class BuiltinProbe : std::uint8_t { Chat, Stream, Tools, Thinking, MultiTurn, Image, Video, Speech };
inline constexpr std::array<BuiltinProbe, 8> kAllBuiltinProbes = {
    BuiltinProbe::Chat,  BuiltinProbe::Stream, BuiltinProbe::Tools, BuiltinProbe::Thinking,
    BuiltinProbe::MultiTurn, BuiltinProbe::Image, BuiltinProbe::Video, BuiltinProbe::Speech};
/// "chat", "stream", "tools", "thinking", "multi_turn", "image", "video", "speech".
std::string_view builtinProbeName(BuiltinProbe probe);
std::optional<BuiltinProbe> parseBuiltinProbe(std::string_view name);
/// The media endpoint a built-in scenario needs enabled (image, video, speech), if any.
std::optional<Modality> probeModality(BuiltinProbe probe);

/// A custom probe scenario (`probes.scenarios_file`): a request body and what a pass means.
struct CustomProbeScenario {
  std::string name;
  Protocol protocol = Protocol::OpenAiChat;
  std::string body;     ///< JSON text, sent as written (the model replaced by the probed one)
  bool stream = false;  ///< the body asks for a stream (Gemini: the streaming method)
  /// The pass rule: a status within [status_min, status_max] and, when set, a JSON pointer that
  /// must exist (and equal `equals` when set) and a substring the answer must contain.
  int status_min = 200;
  int status_max = 299;
  std::string pointer;
  std::optional<std::string> equals;  ///< compared with the pointed value as JSON text or string
  std::string contains;
};

/// `probes:` at the top level: the limits of every channel's health probes.
struct ProbeSettings {
  unsigned max_concurrent = 2;  ///< probes running at once (a scheduled one over it waits a turn)
  unsigned max_per_hour = 600;  ///< probes started in any hour (over it: refused, counted, logged)
  std::string scenarios_file;   ///< as written ("" = none)
  std::vector<CustomProbeScenario> custom;  ///< read from `scenarios_file`
  CustomProbeScenario const* customNamed(std::string_view name) const {
    for (auto const& scenario : custom) {
      if (scenario.name == name) return &scenario;
    }
    return nullptr;
  }
};

/// `probes:` of a channel: what its health probes ask, and how often.
struct ChannelProbes {
  std::vector<std::string> scenarios{"chat"};  ///< built-in or custom scenario names
  std::vector<std::string> models;             ///< client model names; empty: the first model
  std::size_t row = 0;                         ///< the protocol row spoken (an index into rows)
  std::optional<ClientPreset> preset;          ///< a client to emulate
  std::optional<Millis> interval;              ///< absent: on demand only
  Millis jitter{0};                            ///< up to this much later than the interval

  /// The models probed: `models`, else the channel's first model.
  std::vector<std::string> modelsOf(std::vector<std::string> const& channel_models) const {
    if (!models.empty()) return models;
    if (channel_models.empty()) return {};
    return {channel_models.front()};
  }
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
  /// `expose_rate_limit_headers:` — relay the upstream's rate-limit headers (x-ratelimit-*,
  /// anthropic-ratelimit-*) to clients. Off by default: they describe a key shared by tenants.
  bool expose_rate_limit_headers = false;
  /// `racing: {enabled}` — false: never raced as a primary, never a shadow; unset: the global
  /// `racing.enabled`.
  std::optional<bool> racing_enabled;
  /// `proxy:` — how the channel's connections leave (an index into Settings::proxies); a key's
  /// own `proxy:` wins.
  std::optional<std::size_t> proxy;
  /// `exclusive_connections:` — each key has connections of its own (accounts with a login
  /// session must never share one).
  bool exclusive_connections = false;
  /// `media:` — the media endpoints this channel serves (none by default).
  MediaSettings media;

  /// Every protocol the channel speaks, the first being `protocol`/`url`/`auth` above; never empty
  /// in a loaded configuration (`protocols:` in YAML, or one row made from `protocol`).
  std::vector<ProtocolRow> rows;

  /// `client_preset:` — requests are built as that client would send them (its protocol,
  /// headers and default fields; docs/presets.md).
  std::optional<ClientPreset> client_preset;
  /// `model_presets:` — a preset for some client model names, instead of `client_preset`.
  std::map<std::string, ClientPreset> model_presets;
  /// `capabilities:` — overrides of the capability table per client model name ("*": every
  /// model of the channel; a named model's entry wins over "*", field by field).
  std::map<std::string, ModelCapabilities> capabilities;
  /// `breaker:` — the circuit breakers of this channel's (channel, upstream model) pairs.
  BreakerSettings breaker;
  /// `model_limits:` — token buckets per upstream model of this channel (RPM, TPM).
  std::map<std::string, BucketLimits> model_limits;
  /// `inspection:` — model-list refresh and balance probes; nullopt: none.
  std::optional<InspectionSettings> inspection;
  /// `probes:` — health probes of this channel's keys (absent: none configured).
  std::optional<ChannelProbes> probes;

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
  /// `admin_listen:` — when set, /admin/* is served there only (never on `listen`).
  std::string admin_listen;
  /// `metrics_listen:` — when set, /metrics is served there only (never on `listen`).
  std::string metrics_listen;
  unsigned threads = 0;                        ///< 0: one per core
  std::size_t max_body_bytes = 32u << 20;      ///< larger bodies get 413 (routes not in body_limits)
  /// `body_limits:` — the body limit of a route, by its label ("/v1/images/edits"), over
  /// max_body_bytes. Uploads are bigger: the multipart routes default to kUploadBodyLimit.
  std::map<std::string, std::size_t, std::less<>> body_limits;
  static constexpr std::size_t kUploadBodyLimit = 128u << 20;
  /// The body limit of the route labelled `route_label`: its `body_limits:` entry, else
  /// kUploadBodyLimit for an `upload` route (multipart), else max_body_bytes.
  std::size_t bodyLimitFor(std::string_view route_label, bool upload) const;
  std::size_t max_header_bytes = 64u << 10;    ///< larger heads get 431
  std::size_t max_header_count = 100;          ///< more header fields get 431
  std::size_t max_connections = 10'000;        ///< open client connections; more get 503
  /// Request body bytes held in memory by the whole process; a body that does not fit gets 503.
  std::size_t max_buffered_body_bytes = 1u << 30;
  /// Minimum average body rate in bytes per second once `body_rate_grace` has passed (0: none).
  std::size_t body_min_rate = 1024;
  Millis body_rate_grace{10'000};
  Millis header_timeout{30'000};               ///< to receive a complete request head
  Millis body_timeout{60'000};                 ///< between two reads of a request body
  Millis keepalive_timeout{75'000};            ///< idle keep-alive connection
  /// SIGTERM: how long the server keeps accepting, every answer closing its connection, while
  /// load balancers notice /readyz failing. Then the drain.
  Millis lame_duck{5'000};
  /// How long requests and uploads in progress may finish after the lame duck. The defaults
  /// (5 s + 20 s, then the log flush) fit an orchestrator's usual 30 s grace period.
  Millis drain_timeout{20'000};
};

/// Where the access log and the request log go.
struct LogSettings {
  std::string access_log = "stdout";  ///< "stdout", "stderr", "off" or a file path
  bool request_log = true;             ///< one row per request (and attempt) in the SQLite state
  std::string level = "info";         ///< application log level: debug | info | warn | error
};

/// `retention:` — how long each table of the store keeps its rows (docs/operations.md#retention).
struct RetentionSettings {
  /// Days the request log keeps a request (and its attempts) before deleting it; 0 = forever.
  /// Also written `log.request_log_retention_days` (the same setting).
  int request_log_days = 30;
  /// Days a video job can be polled and downloaded (memory and the store): 1..365.
  int video_jobs_days = 7;
  /// Days ClickHouse keeps captured bodies before the payload writer deletes them; 0 = llmux
  /// never deletes them (the operator's to expire).
  int payloads_days = 0;
};

/// One member of a model group: a model name, optionally served only by one channel.
struct GroupMember {
  std::string model;
  std::string channel;  ///< "" = any channel serving `model`

  bool operator==(GroupMember const&) const = default;
};

/// `model_groups:` — a name clients may request; its members are tried in order, each after the
/// previous one's candidates all failed (the members after the first are fallbacks).
struct ModelGroup {
  std::string name;
  std::vector<GroupMember> members;
};

/// What a freeze rule takes out of rotation.
enum class FreezeObject { Key, KeyModel, Channel, ChannelModel };
/// For how long: a fixed duration, until the end of the current UTC day / ISO week / month,
/// forever (until lifted), or until the reset time the upstream gave (else the end of the day).
enum class FreezePeriod { Fixed, Today, Week, Month, Forever, UpstreamReset };

std::string_view freezeObjectName(FreezeObject object);  ///< "key", "key+model", "channel", "channel+model"
std::string_view freezePeriodName(FreezePeriod period);  ///< "fixed", "today", "week", "month", "forever", "reset"
/// The inverses of the two above; nullopt for a name this build does not know.
std::optional<FreezeObject> freezeObjectNamed(std::string_view name);
std::optional<FreezePeriod> freezePeriodNamed(std::string_view name);

/// `freeze_rules:` — an upstream answer that matches freezes an object.
struct FreezeRule {
  std::string name;           ///< shown in logs and the admin API ("" → generated "rule#<i>")
  int status = 0;             ///< the upstream's HTTP status
  std::string body_contains;  ///< optional substring of the error body ("" = any)
  std::string header;         ///< optional response header name that must be present ("" = none)
  std::string header_value;   ///< optional substring of that header's value
  FreezeObject object = FreezeObject::Key;
  FreezePeriod period = FreezePeriod::Today;
  Millis duration{0};         ///< for FreezePeriod::Fixed
};

/// `retry:` — the budget of one request across candidates and fallbacks.
struct RetrySettings {
  int max_attempts = 8;        ///< upstream attempts per request, all fallbacks included
  /// No new attempt starts this long after the request arrived, and no attempt waits past it
  /// before its answer starts reaching the client (connect, first byte, first token, buckets).
  Millis deadline{300'000};
  /// The longest a 429's `retry-after` (or Gemini's RetryInfo) pauses a key: an upstream asking
  /// for more gets this. Longer outages are the freeze rules' job (visible, liftable).
  Millis max_key_pause{3'600'000};
};

/// `buckets:` — the upstream token buckets' waiting rules.
struct BucketSettings {
  /// How long an attempt waits for its buckets; then it goes anyway (an `overflow`, counted,
  /// never an error of its own).
  Millis max_wait{30'000};
  /// The answer size pre-deducted from TPM before the real usage is known (settled after).
  std::int64_t expected_output_tokens = 1024;
};

/// `redis:` — where replicas share buckets and gateway-key windows.
struct RedisSettings {
  std::string host = "127.0.0.1";
  std::uint16_t port = 6379;
  std::string password;          ///< from the URL or `password_env`; never logged
  int db = 0;
  Millis timeout{50};            ///< a call slower than this falls back to local limits ...
  Millis cooldown{10'000};       ///< ... for this long
  std::string prefix = "llmux:"; ///< of every key llmux writes
};

/// `database:` — PostgreSQL as the request log's store (absent: SQLite in `state_dir`).
struct DatabaseSettings {
  std::string url;      ///< postgres://…; a secret (its password): shown only masked
  std::string url_env;  ///< the variable `url` came from ("" when written in the file)
  /// This replica's name in the request log's `replica` column and the heartbeats; "": made up
  /// from the host, the pid and random digits.
  std::string replica;
  /// How often this replica marks itself alive, and how long another replica's heartbeat may
  /// lapse before its running requests are closed as `interrupted`.
  Millis heartbeat{2000};
  Millis heartbeat_lapse{15000};
  /// How often shared state (freezes) is read back from the database: a change made by one
  /// replica reaches the others within this.
  Millis sync_interval{500};
};

/// `payloads:` — request and response bodies captured to ClickHouse (docs/operations.md,
/// ClickHouse payloads). Read at start.
struct PayloadSettings {
  UpstreamUrl clickhouse;             ///< `clickhouse_url:` — http only (host, port)
  std::string user = "default";       ///< `user:`
  std::string password;               ///< from `password_env:` only; never logged
  std::string password_env;           ///< the variable it came from ("" = none)
  std::string database = "default";   ///< `database:`
  std::string table = "llmux_payloads";  ///< `table:`
  double sample = 1.0;                ///< `sample:` — share of requests captured, 0..1
  std::size_t max_bytes = 1u << 20;   ///< `max_bytes:` — per body; longer ones truncated
  /// `redact:` — JSON field names (at any depth) and header names whose values are blanked.
  std::vector<std::string> redact{"api_key", "authorization"};
  std::size_t queue_bytes = 64u << 20;  ///< `queue_bytes:` — captured bytes waiting to be written
};

/// `prices:` entry: USD per million tokens, and per unit of what media endpoints produce or take.
struct ModelPrice {
  double input = 0;
  double output = 0;
  double per_image = 0;               ///< `per_image:` — each image generated or edited
  double per_second = 0;              ///< `per_second:` — of video generated, or audio transcribed
  double per_million_characters = 0;  ///< `per_million_characters:` — of text spoken (speech)
};

/// A whole, validated configuration. Immutable once built; shared as `SettingsPtr`
/// (config/loader.h).
/// `racing:` — a second upstream ("shadow") asked when the first is slow to its first token; the
/// first to deliver answers (docs/racing.md).
struct RacingSettings {
  bool enabled = false;  ///< `enabled:` — the global switch
  CostPreference cost_preference = CostPreference::Balanced;  ///< `cost_preference:`
  int max_shadows_in_flight = 12;  ///< `max_shadows_in_flight:` — process-wide, never waited for
  double hedge_budget = 0.10;      ///< `hedge_budget:` — shadows per armed request, sliding minute
};

/// `proxies:` — the exits connections to upstreams can take (docs/egress.md).
enum class ProxyMode {
  Network,    ///< an HTTP(S) or SOCKS5 proxy
  UrlPrefix,  ///< a forwarder that takes the whole upstream URL after its own
  Direct,     ///< straight to the upstream, whatever the environment says
  Node,       ///< an `llmux node` egress agent on another machine
};
std::string_view proxyModeName(ProxyMode mode);

struct Proxy {
  std::string name;  ///< as configured; "$HTTPS_PROXY" and the like for the environment's
  ProxyMode mode = ProxyMode::Direct;
  std::string url;   ///< as written, credentials removed (for check-config and logs)
  /// network and node: how a connection reaches the upstream through it.
  std::shared_ptr<Egress const> egress;
  /// url_prefix: the forwarder's address and path; the upstream URL follows the path.
  UpstreamUrl prefix;
  std::string tls_ca_file;  ///< verifies an https proxy, node or forwarder ("" = system store)
};

/// `slo:` — the service level objectives (docs/operations.md, SLOs and alerts). Exposed as
/// gauges; the alert loop measures against them.
struct SloSettings {
  double success_rate = 0.99;     ///< `success_rate:` — of success + failed client outcomes
  Millis first_token_p95{3'000};  ///< `first_token_p95_ms:` — successful streams' first token
};

/// Where an alert goes: the message format of the receiver.
enum class WebhookKind : unsigned char {
  Webhook,   ///< a generic JSON document (docs/operations.md)
  Slack,     ///< Slack incoming webhook: {"text": ...}
  Feishu,    ///< Feishu / Lark custom bot: msg_type text, optional signature
  DingTalk,  ///< DingTalk custom robot: msgtype text, optional signature in the URL
  WeCom,     ///< WeCom (WeChat Work) group robot: msgtype text
};
std::string_view webhookKindName(WebhookKind kind);  ///< "webhook", "slack", "feishu", ...
std::optional<WebhookKind> parseWebhookKind(std::string_view name);

/// One entry of `alerts.webhooks:`. The URL carries the robot's token: never logged; logs and
/// metrics name the receiver by `name`.
struct Webhook {
  WebhookKind kind = WebhookKind::Webhook;
  std::string name;    ///< "<kind>#<index>" ("slack#0")
  UpstreamUrl target;  ///< scheme, host, port; `path_prefix` is the path ("/" at least)
  std::string query;   ///< after '?', without it ("" = none)
  std::string secret;  ///< `secret_env:` — DingTalk / Feishu signing secret ("" = unsigned)
};

/// `alerts:` — the built-in alert loop (docs/operations.md). Absent: no loop.
struct AlertSettings {
  Millis interval{60'000};   ///< `interval_ms:` — one evaluation per interval
  Millis window{300'000};    ///< `window_ms:` — of the rates and the first-token p95
  Millis cooldown{900'000};  ///< `cooldown_ms:` — per alert and subject, between firing messages
  /// `min_samples:` — samples in the window before the p95 (successful streams), the burn rate
  /// (success + failed) or the 429 share (answers) is judged.
  std::int64_t min_samples = 20;
  /// `first_token_ceiling_ms:` — a p95 above this fires on any number of samples.
  Millis first_token_ceiling{15'000};
  double burn_rate = 10;             ///< `burn_rate:` — error-budget burn over the window
  Millis breaker_open{300'000};      ///< `breaker_open_ms:` — a breaker not closed this long
  double rate_limited_share = 0.05;  ///< `rate_limited_share:` — of answers that were 429
  double budget_share = 0.8;         ///< `budget_share:` — of a gateway key's budget
  std::vector<Webhook> webhooks;     ///< `webhooks:` — none: an error log line per message
};

struct Settings {
  ServerSettings server;
  std::vector<GatewayKey> gateway_keys;
  std::vector<Channel> channels;
  LogSettings log;
  RetentionSettings retention;
  std::string state_dir;  ///< SQLite state; "" means $LLMUX_HOME or ./.llmux
  /// `admin_token` / `admin_token_env`: the bearer token of every /admin/* route ("" = none).
  /// Never a gateway key.
  std::string admin_token;
  /// Every token of the admin API: `admin_token` first (named "admin", full access), then the
  /// `admin_tokens:` entries. Empty: the admin API is off.
  std::vector<AdminToken> admin_tokens;
  /// `metrics_token` / `metrics_token_env`: when set, /metrics needs `Authorization: Bearer`
  /// with it ("" = /metrics is open to whoever reaches its address).
  std::string metrics_token;
  std::vector<ModelGroup> model_groups;
  /// `fallbacks:` — model → the models to try, in order, when all of its candidates failed.
  std::map<std::string, std::vector<std::string>> fallbacks;
  /// `freeze_rules:` followed by the default rules (unless `default_freeze_rules: false`).
  std::vector<FreezeRule> freeze_rules;
  RetrySettings retry;
  /// `racing:` — hedged requests when the first token is slow.
  RacingSettings racing;
  /// `buckets:` — how attempts wait for the upstream token buckets.
  BucketSettings buckets;
  /// `redis:` — shared limits across replicas; absent: every limit is this process's own.
  std::optional<RedisSettings> redis;
  /// `database:` — the request log in PostgreSQL; absent: in the SQLite state database.
  std::optional<DatabaseSettings> database;
  /// `payloads:` — bodies captured to ClickHouse; absent: none.
  std::optional<PayloadSettings> payloads;
  /// `prices:` — USD per million tokens by model (client or upstream name), for cost budgets.
  std::map<std::string, ModelPrice> prices;
  /// `proxies:`, then the ones the environment names (HTTPS_PROXY, ...), each once.
  std::vector<Proxy> proxies;
  /// `slo:` — the targets (defaults when absent).
  SloSettings slo;
  /// `alerts:` — the alert loop; absent: none.
  std::optional<AlertSettings> alerts;
  /// `probes:` — the limits of the channels' health probes and the custom scenarios.
  ProbeSettings probes;
};

/// What a channel's connections go to: every row's protocol, URL and paths, the media endpoints
/// it enables and their paths, the CA bundle, and each key's exit. Runtime state learned about
/// the route (its breakers) is kept across a reload only while this stays the same.
std::string channelRoute(Settings const& settings, Channel const& channel);

/// The proxy a connection of `key` (of `channel`, spoken to in `row`) leaves through: the key's,
/// else the channel's, else the environment's for the row's URL; nullptr when it goes direct
/// (none, or a `direct` one).
Proxy const* proxyFor(Settings const& settings, Channel const& channel, ChannelKey const& key,
                      ProtocolRow const& row);

}  // namespace llmux::config
