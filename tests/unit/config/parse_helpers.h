#pragma once

// Loading a test document: the settings of a valid one, the issues of an invalid one.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "config/loader.h"
#include "fake_env.h"

namespace llmux::config::testing {

/// The settings of `yaml`, which must be valid.
inline SettingsPtr loaded(std::string const& yaml, EnvLookup const& env = fakeEnv()) {
  auto outcome = parseSettings(yaml, env);
  EXPECT_TRUE(outcome.ok()) << formatIssues(outcome.issues);
  return outcome.settings;
}

/// A valid file of one gateway key and one channel, then `sections` (top-level sections under
/// test, as YAML lines).
inline std::string minimalFileWith(std::string const& sections) {
  return "gateway_keys: [{name: team, key: gw}]\nchannels:\n  - {name: c, protocol: openai-chat, "
         "base_url: \"https://o.example\", keys: [k1], models: [m]}\n" +
         sections;
}

/// The issues of `yaml`, which must be invalid, as "path: message" lines.
inline std::vector<std::string> issuesOf(std::string const& yaml, EnvLookup const& env = fakeEnv()) {
  auto outcome = parseSettings(yaml, env);
  EXPECT_EQ(outcome.settings, nullptr);
  std::vector<std::string> out;
  for (auto const& issue : outcome.issues) out.push_back(issue.text());
  return out;
}

}  // namespace llmux::config::testing
