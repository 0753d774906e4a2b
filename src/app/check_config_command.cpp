#include <algorithm>
#include <cstdio>
#include <string>
#include <vector>

#include "app/commands.h"
#include "config/address.h"
#include "config/database_parser.h"
#include "config/loader.h"
#include "config/media_routes.h"
#include "protocol/upstream_path.h"
#include "proxy/upstream_request.h"

namespace llmux::app {
namespace {

/// "?NAME=<key>" for a row that sends its key as a query parameter: the final URL's shape,
/// never the secret. "" otherwise.
std::string queryAuthPlaceholder(config::ProtocolRow const& row) {
  auto auth = config::resolveAuth(row.protocol, row.auth);
  if (auth.style != config::AuthStyle::Query) return {};
  return "?" + auth.name + "=<key>";
}

/// "corp (network http://proxy.corp:3128)", "direct": an exit as check-config shows it (never a
/// credential).
std::string exitText(config::Proxy const* proxy) {
  if (proxy == nullptr) return "direct";
  return proxy->name + " (" + std::string(config::proxyModeName(proxy->mode)) + " " + proxy->url + ")";
}

/// How the row's connections leave: one line when every key takes the same exit, else a line per
/// key (docs/egress.md).
void printExits(config::Settings const& settings, config::Channel const& channel,
                config::ProtocolRow const& row) {
  std::vector<std::string> exits;
  for (config::ChannelKey const& key : channel.keys) {
    exits.push_back(exitText(config::proxyFor(settings, channel, key, row)));
  }
  bool const same = std::all_of(exits.begin(), exits.end(),
                                [&](std::string const& exit) { return exit == exits.front(); });
  std::string const exclusive = channel.exclusive_connections ? ", connections per key" : "";
  if (same) {
    if (exits.front() != "direct" || !exclusive.empty()) {
      std::printf("    exit: %s%s\n", exits.front().c_str(), exclusive.c_str());
    }
    return;
  }
  for (std::size_t k = 0; k < exits.size(); ++k) {
    std::printf("    exit of %s: %s%s\n", channel.keys[k].label.c_str(), exits[k].c_str(),
                exclusive.c_str());
  }
}

/// The final URL of media route `kind` on `channel` (sent on its media row), as a request would
/// have it: the configured path, else the standard one behind the base URL's path.
std::string mediaUrl(config::Channel const& channel, protocol::RouteKind kind) {
  config::ProtocolRow const& row = channel.rows[channel.media.row];
  protocol::RowPaths const paths{.prefix = row.url.path_prefix,
                                 .media = config::configuredMediaPath(channel.media, kind)};
  protocol::Route route;
  route.kind = kind;
  return config::originOf(row.url) + protocol::upstreamPath(paths, route, "") +
         queryAuthPlaceholder(row);
}

/// What one modality's line shows: images both of their endpoints, videos the job collection
/// (a job's own routes are below it), the others their endpoint.
std::string mediaLine(config::Channel const& channel, config::Modality modality) {
  using protocol::RouteKind;
  switch (modality) {
    case config::Modality::Images:
      return "generations " + mediaUrl(channel, RouteKind::ImageGenerations) + ", edits " +
             mediaUrl(channel, RouteKind::ImageEdits);
    case config::Modality::Videos:
      return mediaUrl(channel, RouteKind::VideoCreate) +
             " (a job: /{id} below it, its content: /{id}/content)";
    case config::Modality::Speech: return mediaUrl(channel, RouteKind::Speech);
    case config::Modality::Transcriptions: return mediaUrl(channel, RouteKind::Transcriptions);
    case config::Modality::Embeddings: return mediaUrl(channel, RouteKind::Embeddings);
  }
  return {};
}

/// The media endpoints the channel enables, one line each, under the row they are sent on.
void printMediaUrls(config::Channel const& channel) {
  if (!channel.media.any()) return;
  config::ProtocolRow const& row = channel.rows[channel.media.row];
  std::printf("  %s media (on its %s row)%s:\n", channel.name.c_str(),
              std::string(protocolName(row.protocol)).c_str(),
              channel.enabled ? "" : " (disabled)");
  for (std::size_t i = 0; i < config::kModalityCount; ++i) {
    auto const modality = static_cast<config::Modality>(i);
    if (!channel.media.enables(modality)) continue;
    std::printf("    %s: %s\n", std::string(config::modalityName(modality)).c_str(),
                mediaLine(channel, modality).c_str());
  }
}

/// One line per protocol row: where its completions and its model list go, so an operator sees
/// the final URLs that `base_url`, `chat_path` and `models_path` make, and the exits they take;
/// then the channel's media endpoints (`media:`).
void printUpstreamUrls(config::Settings const& settings) {
  std::printf("upstream URLs:\n");
  for (config::Channel const& channel : settings.channels) {
    for (config::ProtocolRow const& row : channel.rows) {
      std::string const query = queryAuthPlaceholder(row);
      std::string line = "  " + channel.name + " " + std::string(protocolName(row.protocol));
      if (row.preset_only) line += " (client presets only)";
      if (!channel.enabled) line += " (disabled)";
      line += ": chat " + proxy::chatUrl(row) + query + ", models " + proxy::modelsUrl(row) + query;
      std::printf("%s\n", line.c_str());
      printExits(settings, channel, row);
    }
    printMediaUrls(channel);
  }
}

}  // namespace

int runCheckConfig(std::string const& config_path) {
  auto outcome = config::loadSettingsFile(config_path, config::processEnvironment());
  if (!outcome.ok()) {
    std::fputs(config::formatIssues(outcome.issues).c_str(), stderr);
    std::fprintf(stderr, "%s: %zu error(s)\n", config_path.c_str(), outcome.issues.size());
    return 2;
  }
  auto const& s = *outcome.settings;
  std::printf("%s: OK (%zu channel(s), %zu gateway key(s))\n", config_path.c_str(),
              s.channels.size(), s.gateway_keys.size());
  // What the state database will keep, so an operator sees the disk it may take.
  if (!s.log.request_log) {
    std::printf("request log: off\n");
  } else if (s.retention.request_log_days == 0) {
    std::printf("request log: kept forever (retention.request_log_days: 0)\n");
  } else {
    std::printf("request log: requests kept %d day(s)\n", s.retention.request_log_days);
  }
  std::printf("video jobs: kept %d day(s)\n", s.retention.video_jobs_days);
  // The URL is a secret (its password): shown masked, with the variable it came from.
  if (s.database && s.log.request_log) {
    std::string from = s.database->url_env.empty() ? "" : " (from $" + s.database->url_env + ")";
    std::printf("request log store: PostgreSQL at %s%s\n",
                config::maskedDatabaseUrl(s.database->url).c_str(), from.c_str());
  }
  if (s.database) {
    std::printf("shared state (freezes, racing switches and latency penalties, video jobs): "
                "PostgreSQL, read back every %lld ms; replica heartbeat every %lld ms, lapsed "
                "after %lld ms\n",
                static_cast<long long>(s.database->sync_interval.count()),
                static_cast<long long>(s.database->heartbeat.count()),
                static_cast<long long>(s.database->heartbeat_lapse.count()));
  }
  if (s.payloads) {
    // The password is never shown: only where it comes from.
    std::string password = s.payloads->password_env.empty() ? "none" : "$" + s.payloads->password_env;
    std::printf("payloads: %g of requests to ClickHouse at %s (%s.%s, user %s, password %s), "
                "bodies up to %zu bytes\n",
                s.payloads->sample, config::originOf(s.payloads->clickhouse).c_str(),
                s.payloads->database.c_str(), s.payloads->table.c_str(), s.payloads->user.c_str(),
                password.c_str(), s.payloads->max_bytes);
    if (s.retention.payloads_days == 0) {
      std::printf("payloads: kept until you delete them (retention.payloads_days: 0)\n");
    } else {
      std::printf("payloads: rows older than %d day(s) deleted, hourly\n",
                  s.retention.payloads_days);
    }
  }
  printUpstreamUrls(s);
  return 0;
}

}  // namespace llmux::app
