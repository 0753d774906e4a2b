#include "config/body_limits_parser.h"

#include <map>

#include "protocol/routes.h"

namespace llmux::config::detail {
namespace {

constexpr long long kMaxBodyLimit = 1LL << 40;  // as max_body_bytes

/// The label of the client route `key` names, or "" with `why` set.
std::string routeOf(std::string const& key, std::string& why) {
  protocol::RouteLookup const lookup = protocol::matchRoute("POST", key);
  if (lookup.match == protocol::RouteMatch::NotFound) {
    why = "not a route llmux serves (expected the path of a POST route, e.g. "
          "/v1/audio/transcriptions or /audio/transcriptions)";
    return {};
  }
  if (protocol::isAdminRoute(lookup.route.kind)) {
    why = "an admin route (body_limits are for the routes clients call)";
    return {};
  }
  if (lookup.match == protocol::RouteMatch::MethodNotAllowed) {
    why = "a " + std::string(protocol::routeMethod(lookup.route.kind)) +
          " route: it takes no request body";
    return {};
  }
  return std::string(protocol::routeLabel(lookup.route));
}

}  // namespace

void readBodyLimits(YamlReader& reader, YAML::Node const& node, std::string const& path,
                    ServerSettings& server) {
  auto entries = reader.anyMap(node, path);
  if (!entries) return;
  std::map<std::string, std::string> keys;  // label -> the key that named it first
  for (auto const& [key, value] : *entries) {
    std::string const entry_path = fieldPath(path, key);
    std::string why;
    std::string label = routeOf(key, why);
    if (label.empty()) {
      reader.fail(entry_path, std::move(why));
      continue;
    }
    if (auto [first, added] = keys.emplace(label, key); !added) {
      reader.fail(entry_path,
                  "the same route (" + label + ") as " + fieldPath(path, first->second));
      continue;
    }
    auto bytes = reader.integer(value, entry_path, 1, kMaxBodyLimit);
    if (!bytes) continue;
    server.body_limits.emplace(std::move(label), static_cast<std::size_t>(*bytes));
  }
}

}  // namespace llmux::config::detail
