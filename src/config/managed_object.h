#pragma once

// The kinds of object the admin API manages, and one object as it is kept (the state store) and
// laid over the file (config/managed_objects.h). Light on purpose: the stores include it.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

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

}  // namespace llmux::config
