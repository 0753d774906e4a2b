#include "proxy/admin_handler.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>

#include "admin_fixture.h"

namespace llmux::proxy {
namespace {

namespace json = boost::json;

config::FreezeRule forbidden() {
  config::FreezeRule rule;
  rule.name = "forbidden";
  rule.status = 403;
  return rule;
}

TEST_F(AdminHandlerTest, ListsFreezesWithLabelsNeverSecrets) {
  freezes.apply(forbidden(), {"openai", "kid-secretish", "openai#0", "gpt-4o"}, std::nullopt,
                "status 403: forbidden");
  auto answer = call("GET", "/admin/freezes", "adm");
  ASSERT_EQ(answer.status, 200);
  auto doc = json::parse(answer.body);
  auto const& list = doc.at("freezes").as_array();
  ASSERT_EQ(list.size(), 1u);
  auto const& f = list[0].as_object();
  EXPECT_TRUE(std::string_view(f.at("id").as_string()).starts_with("frz_"));
  EXPECT_EQ(f.at("object").as_string(), "key");
  EXPECT_EQ(f.at("period").as_string(), "today");
  EXPECT_EQ(f.at("channel").as_string(), "openai");
  EXPECT_EQ(f.at("key").as_string(), "openai#0");
  EXPECT_EQ(f.at("model").as_string(), "");
  EXPECT_EQ(f.at("created").as_string(), "2023-11-14T22:13:20Z");
  EXPECT_EQ(f.at("until").as_string(), "2023-11-15T00:00:00Z");
  EXPECT_EQ(f.at("rule").as_string(), "forbidden");
  EXPECT_EQ(f.at("reason").as_string(), "status 403: forbidden");
  EXPECT_EQ(answer.body.find("kid-secretish"), std::string::npos);
}

TEST_F(AdminHandlerTest, LiftsByIdAndAnswers404ForUnknownIds) {
  auto id = freezes.apply(forbidden(), {"openai", "k", "openai#0", "m"}, std::nullopt, "r").id;
  EXPECT_EQ(call("DELETE", "/admin/freezes/" + id, "adm").status, 204);
  EXPECT_TRUE(freezes.list().empty());
  auto again = call("DELETE", "/admin/freezes/" + id, "adm");
  EXPECT_EQ(again.status, 404);
  EXPECT_EQ(json::parse(again.body).at("error").at("type").as_string(), "not_found_error");
}

TEST_F(AdminHandlerTest, TheAdminTokenGuardsEveryRoute) {
  EXPECT_EQ(call("GET", "/admin/freezes", "").status, 401);
  EXPECT_EQ(call("GET", "/admin/freezes", "wrong").status, 403);
  EXPECT_EQ(call("DELETE", "/admin/freezes/frz_x", "").status, 401);
  EXPECT_EQ(call("GET", "/admin/breakers", "").status, 401);
  EXPECT_EQ(call("DELETE", "/admin/breakers/oa/gpt-4o", "wrong").status, 403);
  auto wrong = call("POST", "/admin/route-preview", "wrong");
  EXPECT_EQ(wrong.status, 403);
  EXPECT_TRUE(json::parse(wrong.body).at("error").at("message").is_string());
  catalog = catalogWithToken("");  // no admin token: the API is off
  EXPECT_EQ(call("GET", "/admin/freezes", "adm").status, 404);
  EXPECT_EQ(call("GET", "/admin/freezes", "").status, 404);
}

TEST_F(AdminHandlerTest, ListsBreakersAndResetsOne) {
  config::BreakerSettings settings;
  MonoTime now = clock.now();
  for (int i = 0; i < 5; ++i) {
    breakers.record("oa", "org/gpt-4o", settings, routing::AttemptSignal::CountedFailure, false, now);
  }
  breakers.record("an", "claude", settings, routing::AttemptSignal::Success, false, now);
  clock.advance(Millis(2500));
  auto answer = call("GET", "/admin/breakers", "adm");
  ASSERT_EQ(answer.status, 200);
  auto doc = json::parse(answer.body);
  auto const& list = doc.at("breakers").as_array();
  ASSERT_EQ(list.size(), 2u);
  auto const& open = list[1].as_object();  // sorted by channel: "an" first
  EXPECT_EQ(open.at("channel").as_string(), "oa");
  EXPECT_EQ(open.at("model").as_string(), "org/gpt-4o");
  EXPECT_EQ(open.at("failure").at("state").as_string(), "open");
  EXPECT_DOUBLE_EQ(open.at("failure").at("opened_at").as_double(), 2.5);
  EXPECT_EQ(open.at("failure").at("opens").as_int64(), 1);
  EXPECT_EQ(open.at("failure").at("consecutive_failures").as_int64(), 5);
  EXPECT_EQ(open.at("storm").at("state").as_string(), "closed");
  EXPECT_TRUE(open.at("storm").at("opened_at").is_null());
  EXPECT_EQ(open.at("storm").at("window_responses").as_int64(), 5);
  EXPECT_EQ(list[0].at("failure").at("state").as_string(), "closed");

  // The model may hold '/' and is percent-decoded.
  EXPECT_EQ(call("DELETE", "/admin/breakers/oa/org%2Fgpt-4o", "adm").status, 204);
  EXPECT_FALSE(breakers.refusing("oa", "org/gpt-4o", settings, clock.now()));
  EXPECT_EQ(call("DELETE", "/admin/breakers/oa/unknown-model", "adm").status, 404);
  EXPECT_EQ(call("DELETE", "/admin/breakers/oa", "adm").status, 404);  // no model: no route
}

TEST_F(AdminHandlerTest, RoutePreviewUsesTheHookElse501) {
  EXPECT_EQ(call("POST", "/admin/route-preview", "adm").status, 501);
  handler.preview = [](RequestContext& ctx) -> net::Task<void> {
    co_await sendAdminJson(ctx, 200, "{\"candidates\":[]}");
  };
  auto answer = call("POST", "/admin/route-preview", "adm");
  EXPECT_EQ(answer.status, 200);
  EXPECT_EQ(answer.body, "{\"candidates\":[]}");
}

TEST(AdminJson, ForeverIsNullAndTextIsEscaped) {
  routing::Freeze f;
  f.id = "frz_1";
  f.object = config::FreezeObject::ChannelModel;
  f.period = config::FreezePeriod::Forever;
  f.channel = "c";
  f.model = "m";
  f.created = WallTime{};
  f.reason = "said \"no\"";
  auto doc = json::parse(freezesJson({f}));
  auto const& got = doc.at("freezes").at(0).as_object();
  EXPECT_TRUE(got.at("until").is_null());
  EXPECT_EQ(got.at("object").as_string(), "channel+model");
  EXPECT_EQ(got.at("created").as_string(), "1970-01-01T00:00:00Z");
  EXPECT_EQ(got.at("reason").as_string(), "said \"no\"");
  EXPECT_EQ(freezesJson({}), "{\"freezes\":[]}");
  EXPECT_EQ(adminErrorJson("x", "y"), "{\"error\":{\"message\":\"x\",\"type\":\"y\"}}");
}

}  // namespace
}  // namespace llmux::proxy
