#pragma once

#include <filesystem>
#include <string_view>

namespace llmux::store {

/// Where llmux keeps its state (the SQLite database): `configured` when not empty, else
/// `llmux_home` ($LLMUX_HOME) when set and not empty, else "./.llmux".
std::filesystem::path resolveStateDir(std::string_view configured, char const* llmux_home);

/// `resolveStateDir(configured, getenv("LLMUX_HOME"))`. Start-up only.
std::filesystem::path resolveStateDir(std::string_view configured);

}  // namespace llmux::store
