#pragma once

// The configuration in force: the file's tree with the admin API's objects laid over it
// (config/managed_objects.h). Every change — an object created, updated or deleted through the
// admin API, the file reloaded, another replica's objects read back — is validated as a whole
// configuration before it is kept or comes into force, and comes into force through one `apply`
// (the reload path: runtime state kept for what still exists). `change`, `reloadFile` and
// `adopt` are synchronous (a store write, a parse): made off the I/O threads. `list` and `get`
// only read memory. Thread-safe.
#include <yaml-cpp/yaml.h>

#include <cstdint>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "config/env.h"
#include "config/issues.h"
#include "config/loader.h"
#include "config/managed_object.h"
#include "core/clock.h"
#include "core/result.h"
#include "store/managed_object_store.h"

namespace llmux::proxy {

/// One object as the admin API shows it.
struct ObjectView {
  std::string name;
  std::string json;          ///< secrets masked
  std::int64_t version = 0;  ///< 0: the file's, never changed through the API
  bool managed = false;      ///< created or changed through the API (kept in the state store)
};

/// What a change asks for.
struct ObjectChange {
  enum class Action { Create, Update, Delete } action = Action::Create;
  config::ObjectKind kind = config::ObjectKind::Channel;
  std::string name;
  std::string body;  ///< Create, Update: the entry's JSON
  /// Update: instead of `body`, the entry made from the current one, secrets included (one key
  /// of a channel changed on its own: config/channel_keys.h). An error is the change's answer
  /// (NotFound, InvalidRequest).
  std::function<Result<std::string>(std::string const& current)> edit;
  /// Update, Delete: the version the caller read (ObjectView::version); nullopt for Create.
  std::optional<std::int64_t> expected_version;
  std::string actor;     ///< the admin token's name, for the audit log
  /// The audit entry's action when not the plain create / update / delete ("key-update second"):
  /// a rotated secret changes nothing the masked before and after show.
  std::string audit_action;
  bool dry_run = false;  ///< validate only: nothing kept, nothing applied
};

/// What became of a change.
struct ChangeOutcome {
  enum class Status {
    Applied,    ///< kept and in force (or, for a dry run, would be)
    Invalid,    ///< the body or the resulting configuration is invalid: `message`, `issues`
    NotFound,   ///< Update, Delete: no such object
    Exists,     ///< Create: the name is taken
    Conflict,   ///< the version is not the caller's any more: `version` is the current one
  } status = Status::Applied;
  std::string message;
  std::vector<config::ConfigIssue> issues;
  std::int64_t version = 0;
  std::optional<ObjectView> object;  ///< Applied (not for a deletion)
};

/// What an import did (or, for a dry run, would do).
struct ImportOutcome {
  enum class Status {
    Applied,  ///< every change kept and in force (a dry run: valid)
    Invalid,  ///< not YAML, an entry refused, or the result invalid: nothing changed
    Partial,  ///< the store refused a write midway: `changes` lists those kept (in force)
  } status = Status::Applied;
  std::string message;
  std::vector<config::ConfigIssue> issues;
  struct Change {
    config::ObjectKind kind;
    std::string name;
    std::string action;  ///< "create", "update", "delete"
  };
  std::vector<Change> changes;
  /// Top-level settings of the import that differ from the ones in force: they come from the
  /// file, which an import does not change.
  std::vector<std::string> ignored;
};

class ManagedConfig {
 public:
  using Apply = std::function<void(config::SettingsPtr)>;

  /// `file`: the configuration file's tree; `objects`: what the state store keeps. `apply` brings
  /// a configuration into force. `rows`, `clock` must outlive this.
  ManagedConfig(YAML::Node file, std::vector<config::ManagedObject> objects,
                store::ManagedObjectRows& rows, config::EnvLookup env, TimeSource const& clock,
                Apply apply);

  /// The configuration of the file and the objects as they are now (checked at start: see
  /// `current`).
  config::LoadOutcome current() const;

  std::vector<ObjectView> list(config::ObjectKind kind) const;
  std::optional<ObjectView> get(config::ObjectKind kind, std::string const& name) const;
  ChangeOutcome change(ObjectChange const& change);

  /// A reload: the file's new tree, with the objects laid over. Nothing changes (the issues are
  /// returned) when the result is invalid.
  config::LoadOutcome reloadFile(YAML::Node file);
  /// The objects as another replica left them in the shared store: brought into force when they
  /// differ from this replica's and the result is valid. Returns whether anything changed.
  Result<bool> adopt(std::vector<config::ManagedObject> stored);

  /// The configuration in force as one YAML document, secrets written "***"
  /// (config/config_export.h).
  std::string exportYaml() const;
  /// Makes the objects of every section `yaml` holds what it says: entries created, changed
  /// (where they differ; "***" keeps a secret) and deleted (those the section no longer lists);
  /// sections it leaves out stay as they are. The result is validated as a whole first; each
  /// change is audited under `actor`.
  ImportOutcome importYaml(std::string_view yaml, std::string const& actor, bool dry_run);

  std::vector<store::AuditEntry> audit(std::int64_t before_id, std::size_t limit,
                                       std::string& error) const;

 private:
  config::LoadOutcome parseLocked(std::vector<config::ManagedObject> const& objects) const;
  std::optional<ObjectView> viewLocked(config::ObjectKind kind, std::string const& name) const;
  config::ManagedObject const* storedLocked(config::ObjectKind kind, std::string const& name) const;

  /// Serialises the changes (held across a store write; never taken on an I/O thread).
  std::mutex change_mutex_;
  /// Guards the state below; held only for work in memory.
  mutable std::mutex mutex_;
  YAML::Node file_;
  std::vector<config::ManagedObject> objects_;
  store::ManagedObjectRows& rows_;
  config::EnvLookup env_;
  TimeSource const& clock_;
  Apply apply_;
};

}  // namespace llmux::proxy
