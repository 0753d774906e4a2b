#pragma once

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

namespace llmux::protocol::test {

inline std::filesystem::path dataDir() {
  return std::filesystem::path(LLMUX_TEST_DATA_DIR) / "protocol";
}

inline std::string readFile(std::filesystem::path const& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream out;
  out << in.rdbuf();
  return out.str();
}

/// Every `*.request.json` under tests/data/protocol/requests/<folder>, sorted.
inline std::vector<std::filesystem::path> requestFiles(std::string const& folder) {
  std::vector<std::filesystem::path> files;
  for (auto const& entry : std::filesystem::directory_iterator(dataDir() / "requests" / folder)) {
    if (entry.path().filename().string().ends_with(".request.json")) files.push_back(entry.path());
  }
  std::sort(files.begin(), files.end());
  return files;
}

}  // namespace llmux::protocol::test
