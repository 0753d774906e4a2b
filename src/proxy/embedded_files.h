#pragma once

#include <cstddef>
#include <span>
#include <string_view>

namespace llmux::proxy {

/// A file built into the binary (cmake/embed_files.cmake).
struct EmbeddedFile {
  char const* path;  ///< relative to its folder, '/'-separated
  unsigned char const* bytes;
  std::size_t size;

  std::string_view text() const { return {reinterpret_cast<char const*>(bytes), size}; }
};

/// The web console's files (console/web, with the chart library's copied into vendor/): empty
/// when the build had none.
std::span<EmbeddedFile const> consoleFiles();
/// The admin API's OpenAPI description (docs/admin-openapi.json), one file.
std::span<EmbeddedFile const> adminOpenApiFiles();

/// The embedded file at `path` among `files`, nullptr when none.
EmbeddedFile const* findEmbedded(std::span<EmbeddedFile const> files, std::string_view path);

}  // namespace llmux::proxy
