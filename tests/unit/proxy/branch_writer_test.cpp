#include "proxy/branch_writer.h"

#include <gtest/gtest.h>

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include <boost/asio/co_spawn.hpp>
#include <boost/asio/io_context.hpp>

namespace llmux::proxy {
namespace {

/// The client's writer: a transcript of what reached the client.
class TranscriptWriter final : public http::ResponseWriter {
 public:
  net::Task<bool> send(int status, HeaderList const&, std::string_view body) override {
    log.push_back("send " + std::to_string(status) + " " + std::string(body));
    head_sent = true;
    co_return open;
  }
  net::Task<bool> beginBody(int status, HeaderList const&, std::optional<std::uint64_t>,
                            std::string_view first) override {
    log.push_back("begin " + std::to_string(status) + " " + std::string(first));
    head_sent = true;
    co_return open;
  }
  net::Task<bool> writeBody(std::string_view piece) override {
    log.push_back("write " + std::string(piece));
    co_return open;
  }
  net::Task<bool> endBody(std::string_view last) override {
    log.push_back("end " + std::string(last));
    co_return open;
  }
  void breakConnection() override { log.push_back("break"); }
  bool headSent() const override { return head_sent; }
  std::uint64_t bodyBytesSent() const override { return 0; }
  MonoTime firstByteAt() const override { return {}; }
  http::Cancellation& cancellation() override { return cancellation_; }

  std::vector<std::string> log;
  bool head_sent = false;
  bool open = true;

 private:
  http::Cancellation cancellation_;
};

bool run(net::Task<bool> task) {
  boost::asio::io_context io;
  std::optional<bool> out;
  boost::asio::co_spawn(io, std::move(task), [&](std::exception_ptr e, bool value) {
    if (e) std::rethrow_exception(e);
    out = value;
  });
  io.run();
  return out.value();
}

using Log = std::vector<std::string>;

/// A race as its branches see it: which claimed, and whether another branch may still answer.
struct RecordingReferee final : RaceReferee {
  bool othersMayAnswer(int) const override { return others_may_answer; }
  void claimed(int branch) override { claims.push_back(branch); }
  std::vector<int> claims;
  bool others_may_answer = false;
};

struct BranchWriterTest : ::testing::Test {
  TranscriptWriter client;
  racing::ClaimGate gate;
  RecordingReferee referee;
  std::vector<int>& claimed = referee.claims;
  BranchWriter primary{client, gate, 0, referee, /*quality_gate=*/true};
  BranchWriter shadow{client, gate, 1, referee, /*quality_gate=*/true};
};

TEST_F(BranchWriterTest, TheFirstBranchToWriteAnswersAndTheOtherIsSilenced) {
  std::vector<http::CancelReason> primary_cancelled;
  primary.cancellation().add([&](http::CancelReason r) { primary_cancelled.push_back(r); });

  EXPECT_TRUE(run(shadow.beginBody(200, {}, std::nullopt, "data: first")));
  EXPECT_TRUE(shadow.won());
  EXPECT_EQ(claimed, (std::vector<int>{1}));
  // The race's coordinator cancels the others when told of the claim.
  primary.lose();
  EXPECT_EQ(primary_cancelled, (std::vector<http::CancelReason>{http::CancelReason::LostRace}));

  EXPECT_FALSE(run(primary.beginBody(200, {}, std::nullopt, "data: late")));
  EXPECT_FALSE(run(primary.writeBody("data: more")));
  EXPECT_FALSE(run(primary.endBody("")));
  primary.breakConnection();
  EXPECT_FALSE(primary.headSent());

  EXPECT_TRUE(run(shadow.writeBody("data: second")));
  EXPECT_TRUE(run(shadow.endBody("data: [DONE]")));
  EXPECT_TRUE(shadow.headSent());
  EXPECT_EQ(client.log,
            (Log{"begin 200 data: first", "write data: second", "end data: [DONE]"}));
  EXPECT_FALSE(shadow.cancellation().cancelled());
}

TEST_F(BranchWriterTest, ALoserThatWritesFirstWithoutBeingToldStillLoses) {
  EXPECT_TRUE(run(primary.send(200, {}, "{\"whole\":true}")));
  // No coordinator told the shadow: its own claim fails, and it cancels itself.
  EXPECT_FALSE(run(shadow.send(200, {}, "{\"other\":true}")));
  EXPECT_TRUE(shadow.lost());
  EXPECT_EQ(shadow.cancellation().reason(), http::CancelReason::LostRace);
  EXPECT_EQ(client.log, (Log{"send 200 {\"whole\":true}"}));
  EXPECT_EQ(claimed, (std::vector<int>{0}));
}

TEST_F(BranchWriterTest, NoBodyWithoutItsBeginning) {
  // writeBody and endBody never claim: a branch cannot win with the middle of a body.
  EXPECT_FALSE(run(primary.writeBody("piece")));
  EXPECT_FALSE(run(primary.endBody("piece")));
  EXPECT_FALSE(gate.claimed());
  EXPECT_TRUE(client.log.empty());
}

TEST_F(BranchWriterTest, TheClientLeavingCancelsEveryBranchWithItsReason) {
  client.cancellation().cancel(http::CancelReason::ClientGone);
  EXPECT_EQ(primary.cancellation().reason(), http::CancelReason::ClientGone);
  EXPECT_EQ(shadow.cancellation().reason(), http::CancelReason::ClientGone);
  // A cancelled branch does not claim.
  EXPECT_FALSE(run(primary.send(200, {}, "late")));
  EXPECT_FALSE(gate.claimed());
}

TEST_F(BranchWriterTest, TheWinnerSeesTheClientsOwnFailures) {
  client.open = false;
  EXPECT_FALSE(run(primary.beginBody(200, {}, std::nullopt, "x")));
  EXPECT_TRUE(primary.won());
  primary.breakConnection();
  EXPECT_EQ(client.log, (Log{"begin 200 x", "break"}));
}

TEST_F(BranchWriterTest, AnErrorAnswerDeclinesWhileAnotherBranchMayAnswer) {
  referee.others_may_answer = true;
  EXPECT_FALSE(run(primary.send(503, {}, "{\"error\":{}}")));
  EXPECT_EQ(primary.declined(), "error_answer");
  EXPECT_FALSE(gate.claimed());
  EXPECT_TRUE(client.log.empty());
  // Alone, a branch's error is the client's answer.
  referee.others_may_answer = false;
  EXPECT_TRUE(run(shadow.send(400, {}, "{\"error\":{}}")));
  EXPECT_TRUE(shadow.won());
  EXPECT_EQ(client.log, (Log{"send 400 {\"error\":{}}"}));
}

TEST_F(BranchWriterTest, PseudoToolCallMarkupDeclinesWhileAnotherBranchMayAnswer) {
  referee.others_may_answer = true;
  // As a relay's stand-in model streams it, with Go's JSON escapes.
  EXPECT_FALSE(run(primary.beginBody(
      200, {}, std::nullopt, "data: {\"choices\":[{\"delta\":{\"content\":\"\\u003ctool_call\\u003e{\"}}]}\n\n")));
  EXPECT_EQ(primary.declined(), "pseudo_tool_call");
  EXPECT_FALSE(gate.claimed());
  EXPECT_TRUE(run(shadow.beginBody(200, {}, std::nullopt, "data: {\"content\":\"Hello\"}\n\n")));
  EXPECT_TRUE(shadow.won());
}

TEST(BranchWriter, WithoutToolsMarkupIsJustText) {
  TranscriptWriter client;
  racing::ClaimGate gate;
  RecordingReferee referee;
  referee.others_may_answer = true;
  BranchWriter branch(client, gate, 0, referee, /*quality_gate=*/false);
  EXPECT_TRUE(run(branch.beginBody(200, {}, std::nullopt, "<tool_call>")));
  EXPECT_TRUE(branch.won());
}

TEST(BranchWriter, ADestroyedBranchLeavesTheClientsCancellationClean) {
  TranscriptWriter client;
  racing::ClaimGate gate;
  RecordingReferee referee;
  bool fired = false;
  auto branch = std::make_unique<BranchWriter>(client, gate, 0, referee, false);
  branch->cancellation().add([&](http::CancelReason) { fired = true; });
  branch.reset();
  // The branch removed its callback: nothing reaches the destroyed branch (ASan would see it).
  client.cancellation().cancel(http::CancelReason::Shutdown);
  EXPECT_FALSE(fired);
  // A live branch does hear it.
  TranscriptWriter other;
  BranchWriter live(other, gate, 1, referee, false);
  other.cancellation().cancel(http::CancelReason::Shutdown);
  EXPECT_EQ(live.cancellation().reason(), http::CancelReason::Shutdown);
}

}  // namespace
}  // namespace llmux::proxy
