#pragma once

#include <filesystem>
#include <string_view>

#include "core/result.h"
#include "store/sqlite_db.h"

namespace llmux::store {

/// Where llmux keeps its state (the SQLite database): `configured` when not empty, else
/// `llmux_home` ($LLMUX_HOME) when set and not empty, else "./.llmux".
std::filesystem::path resolveStateDir(std::string_view configured, char const* llmux_home);

/// `resolveStateDir(configured, getenv("LLMUX_HOME"))`. Start-up only.
std::filesystem::path resolveStateDir(std::string_view configured);

/// A connection of its own to the state database (`<state_dir>/llmux.db`, the request log's
/// file), for a store beside the request log: creates `state_dir` if needed, runs `pragmas`
/// (WAL is a property of the file, so asking again is harmless) and applies the schema
/// migrations (a no-op when another connection already did). Start-up only.
Result<SqliteDb> openStateDatabase(std::filesystem::path const& state_dir, char const* pragmas);

}  // namespace llmux::store
