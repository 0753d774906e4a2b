#pragma once

#include <map>
#include <memory>
#include <string>

#include "config/env.h"

namespace llmux::config::testing {

/// An environment made of the given variables only; it never reads the process environment.
inline EnvLookup fakeEnv(std::map<std::string, std::string> vars = {}) {
  auto shared = std::make_shared<std::map<std::string, std::string>>(std::move(vars));
  return [shared](std::string_view name) -> std::optional<std::string> {
    auto it = shared->find(std::string(name));
    if (it == shared->end()) return std::nullopt;
    return it->second;
  };
}

}  // namespace llmux::config::testing
