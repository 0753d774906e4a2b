#pragma once

#include <filesystem>
#include <string>

#include "core/ids.h"

namespace llmux::store {

/// A fresh directory under the system's temporary directory, removed with everything in it at
/// the end of the test.
class TempDir {
 public:
  TempDir() : path_(std::filesystem::temp_directory_path() / ("llmux-store-" + newRequestId())) {}
  ~TempDir() { std::filesystem::remove_all(path_); }
  TempDir(TempDir const&) = delete;
  TempDir& operator=(TempDir const&) = delete;
  std::filesystem::path const& path() const { return path_; }

 private:
  std::filesystem::path path_;
};

}  // namespace llmux::store
