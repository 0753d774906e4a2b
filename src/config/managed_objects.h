#pragma once

// Objects the admin API manages (docs/admin-api.md, "Objects"): the named entries of some of the
// configuration's sections. The file stays the bootstrap; what the API creates, changes or
// deletes is kept in the state store as one JSON body per object and laid over the file's tree
// before the tree is parsed, so an object is validated exactly as in the file and a change comes
// into force through the same path as a reload.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "core/result.h"

namespace llmux::config {

/// The sections whose entries the admin API manages. A list section's entries are named by their
/// `name:`; a map section's by their key.
enum class ObjectKind { Channel, GatewayKey, Proxy, FreezeRule, ModelGroup, Fallback, Price };

inline constexpr ObjectKind kObjectKinds[] = {
    ObjectKind::Channel,    ObjectKind::GatewayKey, ObjectKind::Proxy, ObjectKind::FreezeRule,
    ObjectKind::ModelGroup, ObjectKind::Fallback,   ObjectKind::Price};

/// The section's name in the file and in the admin API's paths: "channels", "gateway_keys",
/// "proxies", "freeze_rules", "model_groups", "fallbacks", "prices".
std::string_view objectKindName(ObjectKind kind);
std::optional<ObjectKind> objectKindNamed(std::string_view section);
/// Whether the section is a list of entries with a `name:` (else a map keyed by name).
bool isListKind(ObjectKind kind);

/// One object as the admin API left it, laid over the file.
struct ManagedObject {
  ObjectKind kind = ObjectKind::Channel;
  std::string name;
  std::int64_t version = 1;  ///< 1 at creation (or at the first change of a file object), then +1
  /// The entry as it would be written in the file's section, as JSON (a list entry with its
  /// `name`, a map entry's value alone); nullopt: deleted (the file's entry of that name is gone).
  std::optional<std::string> body;
};

/// The file's tree with `objects` laid over it: each replaces the entry of its name in its
/// section (or joins the section's end); a deleted one removes it. The file's tree is not changed.
YAML::Node layOver(YAML::Node const& file, std::span<ManagedObject const> objects);

/// The names of `kind`'s entries in `root`, in order.
std::vector<std::string> objectNames(YAML::Node const& root, ObjectKind kind);
/// Entry `name` of `kind` in `root` as JSON, nullopt when there is none.
std::optional<std::string> objectJson(YAML::Node const& root, ObjectKind kind,
                                      std::string_view name);

/// An entry's JSON as YAML (objects → mappings, arrays → sequences, strings → quoted scalars).
/// Invalid JSON is an InvalidRequest error saying where.
Result<YAML::Node> yamlOfJson(std::string_view json);
/// A YAML node as JSON: plain scalars that read as a number, boolean or null become one, quoted
/// ones stay strings.
std::string jsonOfYaml(YAML::Node const& node);

/// The entry's JSON with every secret it holds replaced by "***": channel keys (`key`, and the
/// short form), a gateway key's `key`. For the admin API's answers and audit rows.
std::string withoutSecrets(ObjectKind kind, std::string const& json);

/// An incoming body (the admin API's create or update) made ready to keep:
/// - its `name` (a list kind) must be `name` — added when absent;
/// - secrets written as "***" or left out are the current entry's (a channel key matched by its
///   `name:`, else by position; a gateway key's `key`);
/// - it may not read the server's environment (`${VAR}` or a `*_env` field) beyond what the
///   current entry already reads: the environment holds the server's own secrets.
/// Errors (InvalidRequest) name the member at fault.
Result<std::string> prepareBody(ObjectKind kind, std::string_view name, std::string_view incoming,
                                std::optional<std::string> const& current);

}  // namespace llmux::config
