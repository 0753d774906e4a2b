#include "config/managed_objects.h"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include <algorithm>
#include <charconv>
#include <cmath>
#include <set>
#include <utility>

namespace llmux::config {
namespace {

namespace json = boost::json;

constexpr std::string_view kMasked = "***";

struct KindInfo {
  ObjectKind kind;
  std::string_view section;
  bool list;
};

constexpr KindInfo kKinds[] = {
    {ObjectKind::Channel, "channels", true},      {ObjectKind::GatewayKey, "gateway_keys", true},
    {ObjectKind::Proxy, "proxies", true},         {ObjectKind::FreezeRule, "freeze_rules", true},
    {ObjectKind::ModelGroup, "model_groups", false}, {ObjectKind::Fallback, "fallbacks", false},
    {ObjectKind::Price, "prices", false},
};

KindInfo const& infoOf(ObjectKind kind) {
  for (auto const& info : kKinds) {
    if (info.kind == kind) return info;
  }
  return kKinds[0];
}

/// The `name:` of a list entry ("" when it has none or it is not a mapping).
std::string entryName(YAML::Node const& entry) {
  if (!entry.IsMap()) return {};
  YAML::Node name = entry["name"];
  return name && name.IsScalar() ? name.Scalar() : std::string();
}

/// The section's node (undefined, so false, when the tree has none).
YAML::Node section(YAML::Node const& root, ObjectKind kind) {
  if (!root.IsMap()) return YAML::Node(YAML::NodeType::Undefined);
  return root[std::string(infoOf(kind).section)];
}

/// The section's entry `name`.
std::optional<YAML::Node> findEntry(YAML::Node const& root, ObjectKind kind,
                                    std::string_view name) {
  YAML::Node items = section(root, kind);
  if (!items) return std::nullopt;
  if (infoOf(kind).list) {
    if (!items.IsSequence()) return std::nullopt;
    for (YAML::Node const& item : items) {
      if (entryName(item) == name) return item;
    }
    return std::nullopt;
  }
  if (!items.IsMap()) return std::nullopt;
  for (auto const& item : items) {
    if (item.first.IsScalar() && item.first.Scalar() == name) return item.second;
  }
  return std::nullopt;
}

json::value jsonOf(YAML::Node const& node) {
  switch (node.Type()) {
    case YAML::NodeType::Map: {
      json::object out;
      for (auto const& item : node) out[item.first.as<std::string>()] = jsonOf(item.second);
      return out;
    }
    case YAML::NodeType::Sequence: {
      json::array out;
      for (auto const& item : node) out.push_back(jsonOf(item));
      return out;
    }
    case YAML::NodeType::Scalar: {
      std::string const& text = node.Scalar();
      if (node.Tag() == "!") return json::string(text);  // quoted in the file: a string
      if (text == "true" || text == "True") return true;
      if (text == "false" || text == "False") return false;
      if (text == "~" || text == "null") return nullptr;
      std::int64_t integer = 0;
      auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), integer);
      if (error == std::errc() && end == text.data() + text.size()) return integer;
      double number = 0;
      auto [dend, derror] = std::from_chars(text.data(), text.data() + text.size(), number);
      if (derror == std::errc() && dend == text.data() + text.size() && std::isfinite(number)) {
        return number;
      }
      return json::string(text);
    }
    case YAML::NodeType::Null:
    case YAML::NodeType::Undefined:
      return nullptr;
  }
  return nullptr;
}

YAML::Node yamlOf(json::value const& value) {
  switch (value.kind()) {
    case json::kind::object: {
      YAML::Node out(YAML::NodeType::Map);
      for (auto const& [key, member] : value.get_object()) out[std::string(key)] = yamlOf(member);
      return out;
    }
    case json::kind::array: {
      YAML::Node out(YAML::NodeType::Sequence);
      for (auto const& item : value.get_array()) out.push_back(yamlOf(item));
      return out;
    }
    case json::kind::string: {
      YAML::Node out(std::string(value.get_string()));
      out.SetTag("!");  // a string even when it reads as a number or a boolean
      return out;
    }
    case json::kind::bool_: return YAML::Node(value.get_bool() ? "true" : "false");
    case json::kind::null: return YAML::Node(YAML::NodeType::Null);
    case json::kind::int64:
    case json::kind::uint64:
    case json::kind::double_: return YAML::Node(json::serialize(value));
  }
  return YAML::Node(YAML::NodeType::Null);
}

Result<json::value> parseJson(std::string_view text) {
  boost::system::error_code ec;
  json::value value = json::parse(text, ec);
  if (ec) return makeError(ErrorKind::InvalidRequest, "the body is not valid JSON: " + ec.message());
  return value;
}

/// Calls `mask` on each secret-holding member of the entry.
template <class Mask>
void forEachSecret(ObjectKind kind, json::value& entry, Mask mask) {
  if (!entry.is_object()) return;
  json::object& fields = entry.get_object();
  if (kind == ObjectKind::GatewayKey) {
    if (auto* key = fields.if_contains("key")) mask(*key);
    return;
  }
  if (kind != ObjectKind::Channel) return;
  // A channel's extra headers may carry a relay's credentials.
  if (auto* headers = fields.if_contains("headers"); headers && headers->is_object()) {
    for (auto& [name, value] : headers->get_object()) mask(value);
  }
  auto* keys = fields.if_contains("keys");
  if (keys == nullptr || !keys->is_array()) return;
  for (json::value& item : keys->get_array()) {
    if (item.is_string()) {
      mask(item);
    } else if (item.is_object()) {
      if (auto* key = item.get_object().if_contains("key")) mask(*key);
    }
  }
}

/// Every read of the environment in `value`: `*_env` members (as "member=value") and strings
/// holding `${`.
void environmentReads(json::value const& value, std::string const& member,
                      std::set<std::string>& reads) {
  if (value.is_object()) {
    for (auto const& [key, item] : value.get_object()) {
      environmentReads(item, std::string(key), reads);
    }
  } else if (value.is_array()) {
    for (auto const& item : value.get_array()) environmentReads(item, member, reads);
  } else if (value.is_string()) {
    std::string_view const text = value.get_string();
    bool const env_member = member.size() > 4 && member.ends_with("_env");
    if (env_member || text.find("${") != std::string_view::npos) {
      reads.insert(member + "=" + std::string(text));
    }
  }
}

bool masked(json::value const* value) {
  return value == nullptr || (value->is_string() && value->get_string() == kMasked);
}

/// The current channel key an incoming one stands for: the one of the same `name:`, else the one
/// at the same position.
json::value const* currentKey(json::array const& current, json::value const& incoming,
                              std::size_t index) {
  if (incoming.is_object()) {
    if (auto const* name = incoming.get_object().if_contains("name"); name && name->is_string()) {
      for (auto const& key : current) {
        if (!key.is_object()) continue;
        auto const* other = key.get_object().if_contains("name");
        if (other && other->is_string() && other->get_string() == name->get_string()) return &key;
      }
      return nullptr;
    }
  }
  return index < current.size() ? &current[index] : nullptr;
}

/// A key item's secret members ("key", "key_env") as in `current` (the short form: "key").
void copySecret(json::value const& current, json::object& into) {
  if (current.is_string()) {
    into["key"] = current;
  } else if (current.is_object()) {
    for (std::string_view member : {"key", "key_env"}) {
      if (auto const* value = current.get_object().if_contains(member)) into[member] = *value;
    }
  }
}

/// Header values written "***" take the current value of that header.
Result<void> restoreHeaders(json::object& incoming, json::value const* current) {
  auto* headers = incoming.if_contains("headers");
  if (headers == nullptr || !headers->is_object()) return {};
  json::object const* before = nullptr;
  if (current != nullptr && current->is_object()) {
    if (auto const* was = current->get_object().if_contains("headers"); was && was->is_object()) {
      before = &was->get_object();
    }
  }
  for (auto& [name, value] : headers->get_object()) {
    if (!masked(&value)) continue;
    json::value const* was = before ? before->if_contains(name) : nullptr;
    if (was == nullptr) {
      return makeError(ErrorKind::InvalidRequest,
                       "headers." + std::string(name) + ": a new header needs its value");
    }
    value = *was;
  }
  return {};
}

Result<void> restoreChannelSecrets(json::object& incoming, json::value const* current) {
  if (auto restored = restoreHeaders(incoming, current); !restored.ok()) return restored;
  auto* keys = incoming.if_contains("keys");
  if (keys == nullptr || !keys->is_array()) return {};
  json::array const empty;
  json::array const& before =
      current != nullptr && current->is_object() && current->get_object().contains("keys") &&
              current->get_object().at("keys").is_array()
          ? current->get_object().at("keys").get_array()
          : empty;
  json::array& items = keys->get_array();
  for (std::size_t i = 0; i < items.size(); ++i) {
    json::value& item = items[i];
    bool const short_masked = item.is_string() && item.get_string() == kMasked;
    bool const object_masked = item.is_object() && masked(item.get_object().if_contains("key")) &&
                               !item.get_object().contains("key_env");
    if (!short_masked && !object_masked) continue;
    json::value const* was = currentKey(before, item, i);
    std::string const where = "keys[" + std::to_string(i) + "]";
    if (was == nullptr) {
      return makeError(ErrorKind::InvalidRequest,
                       where + ": a new key needs its secret in \"key\"");
    }
    if (short_masked) {
      item = *was;  // the key as it is, in its own form
      continue;
    }
    json::object restored = item.get_object();
    restored.erase("key");
    copySecret(*was, restored);
    item = std::move(restored);
  }
  return {};
}

}  // namespace

std::string_view objectKindName(ObjectKind kind) { return infoOf(kind).section; }

std::optional<ObjectKind> objectKindNamed(std::string_view section) {
  for (auto const& info : kKinds) {
    if (info.section == section) return info.kind;
  }
  return std::nullopt;
}

bool isListKind(ObjectKind kind) { return infoOf(kind).list; }

YAML::Node layOver(YAML::Node const& file, std::span<ManagedObject const> objects) {
  YAML::Node root = YAML::Clone(file);
  if (!root.IsMap()) root = YAML::Node(YAML::NodeType::Map);
  for (ManagedObject const& object : objects) {
    std::string const key(objectKindName(object.kind));
    YAML::Node body;
    if (object.body) {
      auto parsed = yamlOfJson(*object.body);
      if (!parsed.ok()) continue;  // kept bodies were checked when made
      body = std::move(*parsed);
    }
    if (isListKind(object.kind)) {
      YAML::Node items = root[key];
      YAML::Node rebuilt(YAML::NodeType::Sequence);
      bool placed = false;
      if (items && items.IsSequence()) {
        for (YAML::Node const& item : items) {
          if (entryName(item) != object.name) {
            rebuilt.push_back(item);
          } else if (object.body && !placed) {
            rebuilt.push_back(body);  // in the file's place: order matters (freeze rules)
            placed = true;
          }
        }
      }
      if (object.body && !placed) rebuilt.push_back(body);
      root[key] = rebuilt;
    } else {
      YAML::Node items = root[key];
      YAML::Node rebuilt(YAML::NodeType::Map);
      if (items && items.IsMap()) {
        for (auto const& item : items) {
          if (item.first.as<std::string>() != object.name) rebuilt[item.first] = item.second;
        }
      }
      if (object.body) rebuilt[object.name] = body;
      root[key] = rebuilt;
    }
  }
  return root;
}

std::vector<std::string> objectNames(YAML::Node const& root, ObjectKind kind) {
  std::vector<std::string> names;
  YAML::Node items = section(root, kind);
  if (!items) return names;
  if (isListKind(kind) && items.IsSequence()) {
    for (YAML::Node const& item : items) {
      if (std::string name = entryName(item); !name.empty()) names.push_back(std::move(name));
    }
  } else if (!isListKind(kind) && items.IsMap()) {
    for (auto const& item : items) {
      if (item.first.IsScalar()) names.push_back(item.first.Scalar());
    }
  }
  return names;
}

std::optional<std::string> objectJson(YAML::Node const& root, ObjectKind kind,
                                      std::string_view name) {
  auto entry = findEntry(root, kind, name);
  if (!entry) return std::nullopt;
  return jsonOfYaml(*entry);
}

Result<YAML::Node> yamlOfJson(std::string_view text) {
  auto value = parseJson(text);
  if (!value.ok()) return value.takeError();
  return yamlOf(*value);
}

std::string jsonOfYaml(YAML::Node const& node) { return json::serialize(jsonOf(node)); }

std::string withoutUrlPassword(std::string const& url) {
  auto scheme = url.find("://");
  if (scheme == std::string::npos) return url;
  auto const authority_end = url.find_first_of("/?#", scheme + 3);
  auto const at = url.rfind('@', authority_end == std::string::npos ? url.size() : authority_end);
  if (at == std::string::npos || at < scheme + 3) return url;
  auto const colon = url.find(':', scheme + 3);
  if (colon == std::string::npos || colon > at) return url;
  return url.substr(0, colon + 1) + std::string(kMasked) + url.substr(at);
}

std::string withoutSecrets(ObjectKind kind, std::string const& text) {
  auto value = parseJson(text);
  if (!value.ok()) return text;
  forEachSecret(kind, *value, [](json::value& secret) { secret = json::string(kMasked); });
  // A proxy's URL may carry its credentials: only the password goes.
  if (kind == ObjectKind::Proxy && value->is_object()) {
    if (auto* url = value->get_object().if_contains("url"); url && url->is_string()) {
      *url = json::string(withoutUrlPassword(std::string(url->get_string())));
    }
  }
  return json::serialize(*value);
}

Result<std::string> prepareBody(ObjectKind kind, std::string_view name, std::string_view incoming,
                                std::optional<std::string> const& current) {
  auto value = parseJson(incoming);
  if (!value.ok()) return value.takeError();
  std::optional<json::value> before;
  if (current) {
    auto parsed = parseJson(*current);
    if (parsed.ok()) before = std::move(*parsed);
  }
  if (isListKind(kind)) {
    if (!value->is_object()) {
      return makeError(ErrorKind::InvalidRequest, "the body must be a JSON object");
    }
    json::object& fields = value->get_object();
    if (auto const* given = fields.if_contains("name")) {
      if (!given->is_string() || given->get_string() != name) {
        return makeError(ErrorKind::InvalidRequest,
                         "name: must be \"" + std::string(name) + "\", the object's name");
      }
    } else {
      fields["name"] = json::string(name);
    }
    if (kind == ObjectKind::Channel) {
      if (auto restored = restoreChannelSecrets(fields, before ? &*before : nullptr);
          !restored.ok()) {
        return restored.error();
      }
    } else if (kind == ObjectKind::GatewayKey && masked(fields.if_contains("key")) &&
               !fields.contains("key_env")) {
      fields.erase("key");
      if (before && before->is_object()) copySecret(*before, fields);
    } else if (kind == ObjectKind::Proxy) {
      // A URL whose password reads "***" keeps the current one, when it is the same URL.
      auto* url = fields.if_contains("url");
      json::value const* was = before && before->is_object() ? before->get_object().if_contains("url")
                                                             : nullptr;
      if (url && url->is_string() && url->get_string().find(":***@") != json::string::npos) {
        if (!was || !was->is_string() ||
            withoutUrlPassword(std::string(was->get_string())) != url->get_string()) {
          return makeError(ErrorKind::InvalidRequest, "url: a new address needs its password");
        }
        *url = *was;
      }
    }
  }
  std::set<std::string> allowed;
  if (before) environmentReads(*before, "", allowed);
  std::set<std::string> reads;
  environmentReads(*value, "", reads);
  for (std::string const& read : reads) {
    if (!allowed.contains(read)) {
      return makeError(ErrorKind::InvalidRequest,
                       read.substr(0, read.find('=')) +
                           ": objects made through the admin API hold their values; only the "
                           "file may read the environment (${VAR}, *_env)");
    }
  }
  return json::serialize(*value);
}

FittingObjects fittingObjects(YAML::Node const& file, std::vector<ManagedObject> objects,
                              EnvLookup const& env) {
  FittingObjects out;
  out.parsed = parseSettingsTree(layOver(file, objects), env);
  if (out.parsed.ok()) {
    out.kept = std::move(objects);
    return out;
  }
  out.parsed = parseSettingsTree(file, env);
  for (bool progress = true; progress && !objects.empty();) {
    progress = false;
    for (auto it = objects.begin(); it != objects.end();) {
      std::vector<ManagedObject> trial = out.kept;
      trial.push_back(*it);
      auto parsed = parseSettingsTree(layOver(file, trial), env);
      if (parsed.ok()) {
        out.kept = std::move(trial);
        out.parsed = std::move(parsed);
        it = objects.erase(it);
        progress = true;
      } else {
        ++it;
      }
    }
  }
  out.left_out = std::move(objects);
  return out;
}

}  // namespace llmux::config
