#include "proxy/preset_request.h"

#include <gtest/gtest.h>

#include "core/http_syntax.h"

namespace llmux::proxy {
namespace {

TEST(WireSafeSessionId, KeepsTheIdsClientsReallySend) {
  EXPECT_EQ(wireSafeSessionId("6f1c7a0e-3b9d-4c39-9a55-0f0e2a7b1c11"), "6f1c7a0e-3b9d-4c39-9a55-0f0e2a7b1c11");
  EXPECT_EQ(wireSafeSessionId("user_abc.def:1@x+y~z"), "user_abc.def:1@x+y~z");
  EXPECT_EQ(wireSafeSessionId(""), "");
}

TEST(WireSafeSessionId, HashesAnythingElseStablyAndSafely) {
  std::string const hostile = "abc\r\n\r\nPOST /v1/smuggled HTTP/1.1\r\nHost: evil\r\nX-Pad: ";
  std::string safe = wireSafeSessionId(hostile);
  EXPECT_TRUE(safe.starts_with("sha256-")) << safe;
  EXPECT_EQ(safe.size(), 7u + 32u);
  EXPECT_TRUE(isSafeHeaderValue(safe));
  EXPECT_EQ(safe, wireSafeSessionId(hostile)) << "the same session keeps its id";
  EXPECT_NE(safe, wireSafeSessionId(hostile + "x"));
  EXPECT_TRUE(wireSafeSessionId("with space").starts_with("sha256-"));
  EXPECT_TRUE(wireSafeSessionId("caf\xc3\xa9").starts_with("sha256-"));
  EXPECT_EQ(wireSafeSessionId(std::string(kMaxWireSessionIdBytes, 'a')), std::string(kMaxWireSessionIdBytes, 'a'));
  EXPECT_TRUE(wireSafeSessionId(std::string(kMaxWireSessionIdBytes + 1, 'a')).starts_with("sha256-"));
}

}  // namespace
}  // namespace llmux::proxy
