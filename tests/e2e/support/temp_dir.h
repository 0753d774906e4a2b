#pragma once

#include <string>
#include <string_view>

namespace llmux::e2e {

/// A fresh directory under $TMPDIR (or /tmp), removed with everything in it on destruction.
/// Tests get one each from the `E2eTest` fixture.
class TempDir {
 public:
  /// Creates the directory; throws std::runtime_error if it cannot (test set-up, not data plane).
  TempDir();
  TempDir(TempDir const&) = delete;
  TempDir& operator=(TempDir const&) = delete;
  ~TempDir();

  std::string const& path() const { return path_; }
  /// Writes `contents` to `name` inside the directory (replacing it) and returns the full path.
  std::string writeFile(std::string_view name, std::string_view contents);
  /// Writes `contents` to a new uniquely named file ("file-<n><suffix>") and returns its path.
  std::string writeTempFile(std::string_view contents, std::string_view suffix = ".yaml");

 private:
  std::string path_;
  int next_file_ = 0;
};

}  // namespace llmux::e2e
