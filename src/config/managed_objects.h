#pragma once

// Objects the admin API manages (docs/admin-api.md, "Objects"): the named entries of some of the
// configuration's sections. The file stays the bootstrap; what the API creates, changes or
// deletes is kept in the state store as one JSON body per object and laid over the file's tree
// before the tree is parsed, so an object is validated exactly as in the file and a change comes
// into force through the same path as a reload.
#include <yaml-cpp/yaml.h>

#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "config/loader.h"
#include "config/managed_object.h"
#include "core/result.h"

namespace llmux::config {

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

/// `scheme://user:password@host...` with the password written "***"; unchanged without one.
std::string withoutUrlPassword(std::string const& url);

/// The entry's JSON with every secret it holds replaced by "***": channel keys (`key`, and the
/// short form) and header values, a gateway key's `key`, the password in a proxy's `url`. For the admin API's answers and audit rows.
std::string withoutSecrets(ObjectKind kind, std::string const& json);

/// An incoming body (the admin API's create or update) made ready to keep:
/// - its `name` (a list kind) must be `name` — added when absent;
/// - secrets written as "***" or left out are the current entry's (a channel key matched by its
///   `name:`, else by position; a channel header by its name; a gateway key's `key`);
/// - it may not read the server's environment (`${VAR}` or a `*_env` field) beyond what the
///   current entry already reads: the environment holds the server's own secrets.
/// Errors (InvalidRequest) name the member at fault.
Result<std::string> prepareBody(ObjectKind kind, std::string_view name, std::string_view incoming,
                                std::optional<std::string> const& current);

/// The objects that fit the file: the ones with which the whole configuration is valid. Objects
/// are taken one at a time, each kept when the configuration with it and those kept before is
/// valid, in passes until no more fits (an object may need one kept after it). `left_out` gets
/// the others, for the log; they stay in the store and come back at a start where they fit.
struct FittingObjects {
  std::vector<ManagedObject> kept;
  std::vector<ManagedObject> left_out;
  LoadOutcome parsed;  ///< the configuration with `kept` (valid when the file alone is)
};
FittingObjects fittingObjects(YAML::Node const& file, std::vector<ManagedObject> objects,
                              EnvLookup const& env);

}  // namespace llmux::config
