#include "proxy/embedded_files.h"

namespace llmux::proxy {

EmbeddedFile const* findEmbedded(std::span<EmbeddedFile const> files, std::string_view path) {
  for (auto const& file : files) {
    if (path == file.path) return &file;
  }
  return nullptr;
}

}  // namespace llmux::proxy
