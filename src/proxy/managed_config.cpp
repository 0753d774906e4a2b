#include "proxy/managed_config.h"

#include <algorithm>

#include <boost/json/parse.hpp>

#include "config/config_export.h"
#include "config/managed_objects.h"
#include "telemetry/log.h"

namespace llmux::proxy {

using config::ManagedObject;
using config::ObjectKind;

namespace {

/// `next` in `objects`, instead of the object of its kind and name there was.
void placeObject(std::vector<ManagedObject>& objects, ManagedObject const& next) {
  std::erase_if(objects, [&](ManagedObject const& o) { return o.kind == next.kind && o.name == next.name; });
  objects.push_back(next);
}

}  // namespace

ManagedConfig::ManagedConfig(YAML::Node file, std::vector<ManagedObject> objects,
                             store::ManagedObjectRows& rows, config::EnvLookup env,
                             TimeSource const& clock, Apply apply)
    : file_(std::move(file)),
      objects_(std::move(objects)),
      rows_(rows),
      env_(std::move(env)),
      clock_(clock),
      apply_(std::move(apply)) {}

config::LoadOutcome ManagedConfig::parseLocked(std::vector<ManagedObject> const& objects) const {
  return config::parseSettingsTree(config::layOver(file_, objects), env_);
}

config::LoadOutcome ManagedConfig::current() const {
  std::lock_guard lock(mutex_);
  return parseLocked(objects_);
}

ManagedObject const* ManagedConfig::storedLocked(ObjectKind kind, std::string const& name) const {
  auto it = std::find_if(objects_.begin(), objects_.end(), [&](ManagedObject const& object) {
    return object.kind == kind && object.name == name;
  });
  return it == objects_.end() ? nullptr : &*it;
}

std::optional<ObjectView> ManagedConfig::viewLocked(ObjectKind kind, std::string const& name) const {
  ManagedObject const* stored = storedLocked(kind, name);
  std::optional<std::string> json;
  if (stored != nullptr) {
    if (!stored->body) return std::nullopt;  // deleted
    json = stored->body;
  } else {
    json = config::objectJson(file_, kind, name);
    if (!json) return std::nullopt;
  }
  return ObjectView{name, config::withoutSecrets(kind, *json), stored ? stored->version : 0,
                    stored != nullptr};
}

std::vector<ObjectView> ManagedConfig::list(ObjectKind kind) const {
  std::lock_guard lock(mutex_);
  std::vector<ObjectView> out;
  for (std::string const& name : config::objectNames(config::layOver(file_, objects_), kind)) {
    if (auto view = viewLocked(kind, name)) out.push_back(std::move(*view));
  }
  return out;
}

std::optional<ObjectView> ManagedConfig::get(ObjectKind kind, std::string const& name) const {
  std::lock_guard lock(mutex_);
  return viewLocked(kind, name);
}

ChangeOutcome ManagedConfig::change(ObjectChange const& change) {
  using Status = ChangeOutcome::Status;
  // Changes one at a time; the state's lock is let go while the store writes, so readers on the
  // I/O threads never wait for the database.
  std::lock_guard serial(change_mutex_);
  std::unique_lock lock(mutex_);
  ChangeOutcome outcome;
  ManagedObject const* stored = storedLocked(change.kind, change.name);
  std::int64_t const stored_version = stored ? stored->version : 0;
  std::optional<ObjectView> const before = viewLocked(change.kind, change.name);
  // The current entry with its secrets (a body of the store, else the file's).
  std::optional<std::string> current =
      stored ? stored->body : config::objectJson(file_, change.kind, change.name);

  if (change.action == ObjectChange::Action::Create) {
    if (before) {
      outcome.status = Status::Exists;
      outcome.version = before->version;
      outcome.message = std::string(config::objectKindName(change.kind)) + " \"" + change.name +
                        "\" exists already";
      return outcome;
    }
    current.reset();  // a deleted object's old body lends no secret to its successor
  } else {
    if (!before) {
      outcome.status = Status::NotFound;
      outcome.message = "no " + std::string(config::objectKindName(change.kind)) + " \"" +
                        change.name + "\"";
      return outcome;
    }
    if (change.expected_version != before->version) {
      outcome.status = Status::Conflict;
      outcome.version = before->version;
      outcome.message = "version " + std::to_string(change.expected_version.value_or(-1)) +
                        " is not the current one (" + std::to_string(before->version) +
                        "): read the object again";
      return outcome;
    }
  }

  ManagedObject next{change.kind, change.name, stored_version + 1, std::nullopt};
  if (change.action != ObjectChange::Action::Delete) {
    std::string incoming = change.body;
    if (change.edit) {
      auto edited = change.edit(current.value_or("{}"));
      if (!edited.ok()) {
        outcome.status = edited.error().kind == ErrorKind::NotFound ? Status::NotFound : Status::Invalid;
        outcome.message = edited.error().message;
        return outcome;
      }
      incoming = std::move(*edited);
    }
    auto body = config::prepareBody(change.kind, change.name, incoming, current);
    if (!body.ok()) {
      outcome.status = Status::Invalid;
      outcome.message = body.error().message;
      return outcome;
    }
    next.body = std::move(*body);
  }
  std::vector<ManagedObject> candidate = objects_;
  placeObject(candidate, next);
  config::LoadOutcome parsed = parseLocked(candidate);
  if (!parsed.ok()) {
    outcome.status = Status::Invalid;
    outcome.message = "the configuration would be invalid";
    outcome.issues = std::move(parsed.issues);
    return outcome;
  }
  outcome.version = next.version;
  if (next.body) {
    outcome.object = ObjectView{next.name, config::withoutSecrets(next.kind, *next.body),
                                next.version, true};
  }
  if (change.dry_run) return outcome;

  store::AuditEntry audit;
  audit.at = clock_.wallNow();
  audit.actor = change.actor;
  audit.action = change.action == ObjectChange::Action::Create   ? "create"
                 : change.action == ObjectChange::Action::Update ? "update"
                                                                 : "delete";
  if (!change.audit_action.empty()) audit.action = change.audit_action;
  audit.kind = next.kind;
  audit.name = next.name;
  audit.version = next.version;
  if (before) audit.before = before->json;
  if (outcome.object) audit.after = outcome.object->json;
  lock.unlock();
  auto put = rows_.put(next, stored_version, audit);
  lock.lock();
  if (!put.ok()) {
    outcome.status = Status::Invalid;
    outcome.message = "cannot keep the change: " + put.error().message;
    return outcome;
  }
  if (!put->written) {
    // Another replica changed it first: its version is read back by the sync.
    outcome.status = Status::Conflict;
    outcome.version = put->stored_version;
    outcome.message = "changed meanwhile (now version " + std::to_string(put->stored_version) +
                      "): read the object again";
    return outcome;
  }
  objects_ = std::move(candidate);
  apply_(parsed.settings);
  telemetry::logInfo("admin API: {} {} {} \"{}\" (version {})", change.actor, audit.action,
                     config::objectKindName(next.kind), next.name, next.version);
  return outcome;
}

config::LoadOutcome ManagedConfig::reloadFile(YAML::Node file) {
  std::lock_guard serial(change_mutex_);
  std::lock_guard lock(mutex_);
  auto parsed = config::parseSettingsTree(config::layOver(file, objects_), env_);
  if (!parsed.ok()) return parsed;
  file_ = std::move(file);
  apply_(parsed.settings);
  return parsed;
}

Result<bool> ManagedConfig::adopt(std::vector<ManagedObject> stored) {
  std::lock_guard serial(change_mutex_);
  std::lock_guard lock(mutex_);
  // Objects are never removed from the store (a deletion is a version without a body), so the
  // higher version of each is the newer: a read that missed this replica's latest write cannot
  // take it back.
  std::vector<ManagedObject> merged = objects_;
  bool changed = false;
  for (ManagedObject& object : stored) {
    auto it = std::find_if(merged.begin(), merged.end(), [&](ManagedObject const& mine) {
      return mine.kind == object.kind && mine.name == object.name;
    });
    if (it == merged.end()) {
      merged.push_back(std::move(object));
      changed = true;
    } else if (object.version > it->version) {
      *it = std::move(object);
      changed = true;
    }
  }
  if (!changed) return false;
  auto parsed = parseLocked(merged);
  if (!parsed.ok()) {
    return makeError(ErrorKind::Internal,
                     "the shared objects would make an invalid configuration here, kept the "
                     "current one:\n" + config::formatIssues(parsed.issues));
  }
  objects_ = std::move(merged);
  apply_(parsed.settings);
  return true;
}

std::string ManagedConfig::exportYaml() const {
  std::lock_guard lock(mutex_);
  return config::yamlText(config::maskedTree(config::layOver(file_, objects_)));
}

namespace {

bool sameJson(std::string const& a, std::string const& b) {
  boost::system::error_code ea, eb;
  auto va = boost::json::parse(a, ea);
  auto vb = boost::json::parse(b, eb);
  return !ea && !eb && va == vb;
}

/// The order an import writes in: what others name first (proxies, prices, freeze rules before
/// the channels that use them; channels before the groups and fallbacks of their models).
constexpr ObjectKind kWriteOrder[] = {ObjectKind::Proxy,     ObjectKind::Price,
                                      ObjectKind::FreezeRule, ObjectKind::Channel,
                                      ObjectKind::ModelGroup, ObjectKind::Fallback,
                                      ObjectKind::GatewayKey};

}  // namespace

ImportOutcome ManagedConfig::importYaml(std::string_view yaml, std::string const& actor,
                                        bool dry_run) {
  using Status = ImportOutcome::Status;
  ImportOutcome outcome;
  YAML::Node imported;
  try {
    imported = YAML::Load(std::string(yaml));
  } catch (YAML::Exception const& e) {
    outcome.status = Status::Invalid;
    outcome.message = "not YAML: " + std::string(e.what());
    return outcome;
  }
  if (!imported.IsMap()) {
    outcome.status = Status::Invalid;
    outcome.message = "the body must be a YAML mapping: a configuration, as the export gives it";
    return outcome;
  }
  std::lock_guard serial(change_mutex_);
  std::unique_lock lock(mutex_);
  YAML::Node const current = config::layOver(file_, objects_);
  YAML::Node const imported_view = imported;  // read only: operator[] on a const node adds nothing

  // What each object becomes; `before` is its view for the audit.
  struct Planned {
    ManagedObject next;
    std::int64_t stored_version;
    std::optional<std::string> before;
    std::string action;
  };
  std::vector<Planned> plan;
  for (ObjectKind kind : kWriteOrder) {
    std::string const section(config::objectKindName(kind));
    if (!imported_view[section]) continue;
    std::vector<std::string> const wanted = config::objectNames(imported_view, kind);
    auto plan_one = [&](std::string const& name, std::optional<std::string> body, std::string action) {
      ManagedObject const* stored = storedLocked(kind, name);
      std::int64_t const version = stored ? stored->version : 0;
      std::optional<std::string> before;
      if (auto view = viewLocked(kind, name)) before = view->json;
      plan.push_back({ManagedObject{kind, name, version + 1, std::move(body)}, version,
                      std::move(before), std::move(action)});
    };
    for (std::string const& name : wanted) {
      auto incoming = config::objectJson(imported_view, kind, name);
      auto now = config::objectJson(current, kind, name);
      auto body = config::prepareBody(kind, name, incoming.value_or("{}"), now);
      if (!body.ok()) {
        outcome.status = Status::Invalid;
        outcome.message = section + "." + name + ": " + body.error().message;
        return outcome;
      }
      if (now && sameJson(*body, *now)) continue;
      plan_one(name, std::move(*body), now ? "update" : "create");
    }
    for (std::string const& name : config::objectNames(current, kind)) {
      if (std::find(wanted.begin(), wanted.end(), name) == wanted.end()) {
        plan_one(name, std::nullopt, "delete");
      }
    }
  }
  YAML::Node const masked_now = config::maskedTree(current);
  for (auto const& member : imported_view) {
    std::string const key = member.first.as<std::string>();
    if (config::objectKindNamed(key)) continue;
    if (!masked_now[key] || config::yamlText(masked_now[key]) != config::yamlText(member.second)) {
      outcome.ignored.push_back(key);
    }
  }

  std::vector<ManagedObject> candidate = objects_;
  for (auto const& step : plan) placeObject(candidate, step.next);
  config::LoadOutcome parsed = parseLocked(candidate);
  if (!parsed.ok()) {
    outcome.status = Status::Invalid;
    outcome.message = "the configuration would be invalid";
    outcome.issues = std::move(parsed.issues);
    return outcome;
  }
  auto note = [&](Planned const& step) {
    outcome.changes.push_back({step.next.kind, step.next.name, step.action});
  };
  if (dry_run || plan.empty()) {
    for (auto const& step : plan) note(step);
    return outcome;
  }
  // Written one by one, in kWriteOrder: a store failure midway leaves in force what was kept.
  std::vector<ManagedObject> written = objects_;
  lock.unlock();
  for (auto const& step : plan) {
    store::AuditEntry audit;
    audit.at = clock_.wallNow();
    audit.actor = actor;
    audit.action = "import:" + step.action;
    audit.kind = step.next.kind;
    audit.name = step.next.name;
    audit.version = step.next.version;
    audit.before = step.before;
    if (step.next.body) audit.after = config::withoutSecrets(step.next.kind, *step.next.body);
    auto put = rows_.put(step.next, step.stored_version, audit);
    if (!put.ok() || !put->written) {
      outcome.status = Status::Partial;
      outcome.message = std::string(config::objectKindName(step.next.kind)) + " \"" + step.next.name +
                        "\": " + (put.ok() ? "changed meanwhile by another replica" : put.error().message) +
                        "; the changes listed were kept";
      break;
    }
    placeObject(written, step.next);
    note(step);
  }
  lock.lock();
  config::LoadOutcome in_force = outcome.status == Status::Applied ? std::move(parsed) : parseLocked(written);
  objects_ = std::move(written);
  if (in_force.ok()) apply_(in_force.settings);
  telemetry::logInfo("admin API: {} imported a configuration ({} change(s){})", actor,
                     outcome.changes.size(), outcome.status == Status::Partial ? ", stopped midway" : "");
  return outcome;
}

std::vector<store::AuditEntry> ManagedConfig::audit(std::int64_t before_id, std::size_t limit,
                                                    std::string& error) const {
  auto entries = rows_.audit(before_id, limit);
  if (!entries.ok()) {
    error = entries.error().message;
    return {};
  }
  return std::move(*entries);
}

}  // namespace llmux::proxy
