#include "e2e/support/secret_sweep.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <cstdlib>
#include <set>

namespace llmux::e2e {
namespace {

using Env = std::vector<std::pair<std::string, std::string>>;

std::string lookup(Env const& env, std::string const& name) {
  for (auto const& [key, value] : env) {
    if (key == name) return value;
  }
  char const* value = std::getenv(name.c_str());
  return value ? value : "";
}

/// A scalar as the gateway expands it: "${VAR}" parts replaced.
std::string expanded(std::string text, Env const& env) {
  for (auto at = text.find("${"); at != std::string::npos; at = text.find("${", at)) {
    auto end = text.find('}', at);
    if (end == std::string::npos) break;
    std::string value = lookup(env, text.substr(at + 2, end - at - 2));
    text.replace(at, end - at + 1, value);
    at += value.size();
  }
  return text;
}

bool isSecretField(std::string const& name) {
  return name == "key" || name == "admin_token" || name == "metrics_token" || name == "token" ||
         name == "password";
}

void collect(YAML::Node const& node, Env const& env, std::set<std::string>& out) {
  if (node.IsSequence()) {
    for (auto const& item : node) collect(item, env, out);
    return;
  }
  if (!node.IsMap()) return;
  for (auto const& entry : node) {
    std::string name = entry.first.as<std::string>("");
    YAML::Node const& value = entry.second;
    if (value.IsScalar()) {
      if (isSecretField(name)) out.insert(expanded(value.as<std::string>(""), env));
      if (name.ends_with("_env")) out.insert(lookup(env, value.as<std::string>("")));
    } else if (name == "keys" && value.IsSequence()) {
      for (auto const& item : value) {
        if (item.IsScalar()) out.insert(expanded(item.as<std::string>(""), env));
      }
    }
    collect(value, env, out);
  }
}

}  // namespace

std::vector<std::string> configuredSecrets(std::string_view yaml, Env const& env) {
  std::set<std::string> found;
  try {
    collect(YAML::Load(std::string(yaml)), env, found);
  } catch (YAML::Exception const&) {
    return {};  // a test of a broken file: the gateway did not start with it
  }
  std::vector<std::string> out;
  for (auto const& secret : found) {
    if (secret.size() >= kMinSweptSecretBytes) out.push_back(secret);
  }
  return out;
}

std::string accessLogPath(std::string_view yaml) {
  try {
    YAML::Node root = YAML::Load(std::string(yaml));
    if (!root.IsMap() || !root["log"] || !root["log"]["access_log"]) return {};
    std::string path = root["log"]["access_log"].as<std::string>("");
    if (path == "stdout" || path == "stderr" || path == "off") return {};
    return path;
  } catch (YAML::Exception const&) {
    return {};
  }
}

std::string leakContext(std::string_view text, std::string_view secret) {
  auto at = text.find(secret);
  if (at == std::string_view::npos) return {};
  auto begin = text.rfind('\n', at);
  begin = begin == std::string_view::npos ? 0 : begin + 1;
  auto end = text.find('\n', at);
  std::string line(text.substr(begin, std::min<std::size_t>(end - begin, 400)));
  for (auto pos = line.find(secret); pos != std::string::npos; pos = line.find(secret, pos)) {
    line.replace(pos, secret.size(), "<SECRET>");
  }
  std::replace_if(line.begin(), line.end(), [](char c) {
    return static_cast<unsigned char>(c) < 0x20 && c != '\t';
  }, '.');
  return line;
}

}  // namespace llmux::e2e
