#include "config/config_export.h"

#include <algorithm>
#include <array>
#include <vector>

#include "config/managed_object.h"
#include "config/managed_objects.h"

namespace llmux::config {
namespace {

constexpr std::string_view kMasked = "***";
constexpr std::array<std::string_view, 7> kSecretMembers = {
    "token", "admin_token", "metrics_token", "password", "secret", "api_key", "key"};

bool namesVariable(std::string_view value) { return value.find("${") != std::string_view::npos; }

bool isSecretMember(std::string_view name) {
  return std::find(kSecretMembers.begin(), kSecretMembers.end(), name) != kSecretMembers.end();
}

/// `urls_are_secret`: a webhook's URL is its credential (Slack's and most chat services' carry
/// the token in the path).
void maskSettings(YAML::Node node, bool urls_are_secret) {
  if (node.IsSequence()) {
    for (YAML::Node item : node) maskSettings(item, urls_are_secret);
    return;
  }
  if (!node.IsMap()) return;
  for (auto member : node) {
    YAML::Node value = member.second;
    if (value.IsScalar()) {
      std::string const name = member.first.as<std::string>();
      std::string const text = value.Scalar();
      if (namesVariable(text)) continue;
      if (isSecretMember(name) || (urls_are_secret && name == "url")) {
        value = std::string(kMasked);
      } else {
        std::string masked = withoutUrlPassword(text);
        if (masked != text) value = masked;
      }
    } else {
      maskSettings(value, urls_are_secret);
    }
  }
}

}  // namespace

YAML::Node maskedTree(YAML::Node const& tree) {
  YAML::Node out = YAML::Clone(tree);
  if (!out.IsMap()) return out;
  // The objects first, each as the admin API shows it (so an export and GET /admin/{section}
  // agree), then everything else.
  std::vector<ManagedObject> masked;
  for (ObjectKind kind : kObjectKinds) {
    for (std::string const& name : objectNames(out, kind)) {
      if (auto json = objectJson(out, kind, name)) {
        masked.push_back(ManagedObject{kind, name, 1, withoutSecrets(kind, *json)});
      }
    }
  }
  out = layOver(out, masked);
  for (auto member : out) {
    std::string const section = member.first.as<std::string>();
    if (objectKindNamed(section)) continue;
    YAML::Node value = member.second;
    if (value.IsScalar()) {
      if (isSecretMember(section) && !namesVariable(value.Scalar())) value = std::string(kMasked);
    } else {
      maskSettings(value, section == "alerts");
    }
  }
  return out;
}

std::string yamlText(YAML::Node const& node) {
  YAML::Emitter out;
  out << node;
  return std::string(out.c_str()) + "\n";
}

}  // namespace llmux::config
