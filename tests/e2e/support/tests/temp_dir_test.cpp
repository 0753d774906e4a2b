#include "e2e/support/temp_dir.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <sstream>

#include "e2e/support/socket_io.h"

namespace llmux::e2e {
namespace {

std::string readFile(std::string const& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream out;
  out << in.rdbuf();
  return out.str();
}

TEST(TempDir, WritesFilesAndRemovesEverythingAtTheEnd) {
  std::string path;
  {
    TempDir dir;
    path = dir.path();
    EXPECT_TRUE(std::filesystem::is_directory(path));
    auto a = dir.writeTempFile("listen: 127.0.0.1:0\n");
    auto b = dir.writeTempFile("second", ".txt");
    EXPECT_NE(a, b);
    EXPECT_TRUE(a.ends_with(".yaml"));
    EXPECT_TRUE(b.ends_with(".txt"));
    EXPECT_EQ(readFile(a), "listen: 127.0.0.1:0\n");
    auto named = dir.writeFile("named.json", std::string("a\0b", 3));
    EXPECT_EQ(named, path + "/named.json");
    EXPECT_EQ(readFile(named), std::string("a\0b", 3));
    std::filesystem::create_directories(path + "/nested/deeper");
    dir.writeFile("nested/deeper/f", "x");
  }
  EXPECT_FALSE(std::filesystem::exists(path));
}

TEST(FreePort, NamesAPortNothingListensOn) {
  std::uint16_t port = freePort();
  ASSERT_NE(port, 0);
  auto connection = connectLoopback(port, Millis(1000));
  ASSERT_FALSE(connection.ok());
  EXPECT_EQ(connection.error().kind, ErrorKind::Connect);
  auto listener = listenLoopback(port);
  EXPECT_TRUE(listener.ok()) << "the port should be bindable";
}

}  // namespace
}  // namespace llmux::e2e
