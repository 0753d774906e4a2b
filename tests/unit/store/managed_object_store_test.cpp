#include "store/managed_object_store.h"

#include <gtest/gtest.h>

#include "managed_object_checks.h"
#include "temp_dir.h"

namespace llmux::store {
namespace {

TEST(SqliteManagedObjectStore, KeepsObjectsWithTheirVersionsAndAuditsEveryChange) {
  TempDir dir;
  auto rows = SqliteManagedObjectStore::open(dir.path());
  ASSERT_TRUE(rows.ok()) << rows.error().message;
  checkManagedObjectRows(**rows);
}

TEST(SqliteManagedObjectStore, TwoConnectionsToOneFileCannotBothWinOneVersion) {
  TempDir dir;
  auto a = SqliteManagedObjectStore::open(dir.path());
  auto b = SqliteManagedObjectStore::open(dir.path());
  ASSERT_TRUE(a.ok() && b.ok());
  config::ManagedObject object{config::ObjectKind::GatewayKey, "team", 1, R"({"name":"team"})"};
  WallTime const now{std::chrono::hours(500'000)};
  auto first = (*a)->put(object, 0, auditOf("create", object, std::nullopt, now));
  auto second = (*b)->put(object, 0, auditOf("create", object, std::nullopt, now));
  ASSERT_TRUE(first.ok() && second.ok());
  EXPECT_TRUE(first->written);
  EXPECT_FALSE(second->written);
}

}  // namespace
}  // namespace llmux::store
