#pragma once

// What every ManagedObjectRows must do, checked the same way on SQLite and PostgreSQL.
#include <gtest/gtest.h>

#include "store/managed_object_store.h"

namespace llmux::store {

inline AuditEntry auditOf(std::string action, config::ManagedObject const& object,
                          std::optional<std::string> before, WallTime at) {
  AuditEntry entry;
  entry.at = at;
  entry.actor = "ops";
  entry.action = std::move(action);
  entry.kind = object.kind;
  entry.name = object.name;
  entry.version = object.version;
  entry.before = std::move(before);
  entry.after = object.body;
  return entry;
}

/// Creation, a conflicting creation, updates with the right and a stale version, a deletion, the
/// order of load, and the audit log newest first with its cursor.
inline void checkManagedObjectRows(ManagedObjectRows& rows) {
  using config::ManagedObject;
  using config::ObjectKind;
  WallTime const t0{std::chrono::hours(500'000)};
  ManagedObject channel{ObjectKind::Channel, "fresh", 1, R"({"name":"fresh"})"};
  auto created = rows.put(channel, 0, auditOf("create", channel, std::nullopt, t0));
  ASSERT_TRUE(created.ok()) << created.error().message;
  EXPECT_TRUE(created->written);
  EXPECT_EQ(created->stored_version, 1);
  // Made meanwhile by someone else: the second creation writes nothing and says what is stored.
  auto again = rows.put(channel, 0, auditOf("create", channel, std::nullopt, t0));
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_FALSE(again->written);
  EXPECT_EQ(again->stored_version, 1);

  ManagedObject changed{ObjectKind::Channel, "fresh", 2, R"({"name":"fresh","weight":2})"};
  auto updated = rows.put(changed, 1, auditOf("update", changed, channel.body, t0 + std::chrono::seconds(1)));
  ASSERT_TRUE(updated.ok()) << updated.error().message;
  EXPECT_TRUE(updated->written);
  ManagedObject stale{ObjectKind::Channel, "fresh", 2, R"({"name":"fresh","weight":9})"};
  auto refused = rows.put(stale, 1, auditOf("update", stale, channel.body, t0));
  ASSERT_TRUE(refused.ok()) << refused.error().message;
  EXPECT_FALSE(refused->written) << "version 1 is no longer the stored one";
  EXPECT_EQ(refused->stored_version, 2);

  // A file object deleted: kept as an object without a body.
  ManagedObject deleted{ObjectKind::Price, "gpt-4o", 1, std::nullopt};
  auto removed = rows.put(deleted, 0, auditOf("delete", deleted, R"({"input":2.5})",
                                              t0 + std::chrono::seconds(2)));
  ASSERT_TRUE(removed.ok()) << removed.error().message;
  EXPECT_TRUE(removed->written);

  auto loaded = rows.load();
  ASSERT_TRUE(loaded.ok()) << loaded.error().message;
  ASSERT_EQ(loaded->size(), 2u);
  EXPECT_EQ((*loaded)[0].name, "fresh");
  EXPECT_EQ((*loaded)[0].version, 2);
  EXPECT_EQ((*loaded)[0].body, changed.body);
  EXPECT_EQ((*loaded)[1].kind, ObjectKind::Price);
  EXPECT_EQ((*loaded)[1].body, std::nullopt);

  auto log = rows.audit(0, 10);
  ASSERT_TRUE(log.ok()) << log.error().message;
  ASSERT_EQ(log->size(), 3u) << "refused writes leave no audit row";
  EXPECT_EQ((*log)[0].action, "delete");
  EXPECT_EQ((*log)[0].before, R"({"input":2.5})");
  EXPECT_EQ((*log)[0].after, std::nullopt);
  EXPECT_EQ((*log)[1].action, "update");
  EXPECT_EQ((*log)[1].version, 2);
  EXPECT_EQ((*log)[1].actor, "ops");
  EXPECT_EQ((*log)[1].at, t0 + std::chrono::seconds(1));
  EXPECT_EQ((*log)[2].before, std::nullopt);
  auto older = rows.audit((*log)[1].id, 10);
  ASSERT_TRUE(older.ok()) << older.error().message;
  ASSERT_EQ(older->size(), 1u);
  EXPECT_EQ((*older)[0].action, "create");
}

}  // namespace llmux::store
