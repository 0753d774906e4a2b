#include "e2e/support/temp_dir.h"

#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <stdexcept>
#include <system_error>

namespace llmux::e2e {

TempDir::TempDir() {
  char const* base = std::getenv("TMPDIR");
  std::string pattern =
      std::string(base != nullptr && *base != '\0' ? base : "/tmp") + "/llmux-e2e-XXXXXX";
  if (::mkdtemp(pattern.data()) == nullptr) {
    throw std::runtime_error("cannot create a temporary directory from " + pattern);
  }
  path_ = pattern;
}

TempDir::~TempDir() {
  std::error_code ignored;
  std::filesystem::remove_all(path_, ignored);
}

std::string TempDir::writeFile(std::string_view name, std::string_view contents) {
  std::string file = path_ + "/" + std::string(name);
  std::ofstream out(file, std::ios::binary | std::ios::trunc);
  out.write(contents.data(), static_cast<std::streamsize>(contents.size()));
  out.close();
  if (!out) throw std::runtime_error("cannot write " + file);
  return file;
}

std::string TempDir::writeTempFile(std::string_view contents, std::string_view suffix) {
  return writeFile("file-" + std::to_string(next_file_++) + std::string(suffix), contents);
}

}  // namespace llmux::e2e
