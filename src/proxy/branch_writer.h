#pragma once

#include <cstddef>
#include <string_view>

#include "http/cancellation.h"
#include "http/response_writer.h"
#include "racing/claim_gate.h"

namespace llmux::proxy {

/// What the branches of one race ask of it, and tell it.
class RaceReferee {
 public:
  virtual ~RaceReferee() = default;
  /// Whether a branch other than `branch` is running or may still start: while one is, `branch`
  /// may not answer with an error nor with pseudo tool-call markup (another branch may still
  /// answer well).
  virtual bool othersMayAnswer(int branch) const = 0;
  /// `branch` won the gate: the race makes every other branch lose.
  virtual void claimed(int branch) = 0;
};

/// The client's writer as one branch of a raced request sees it (docs/racing.md). The forwarder
/// writes nothing before its commit point (a stream's first content, a whole answer), so a
/// branch's first write is its claim: the first branch to write wins the gate and from then on
/// writes straight to the client; every other branch has lost, gets false from every write (as
/// if the client had gone) and is cancelled with `LostRace`, so that it closes its upstream
/// connection at once. No byte of a losing branch ever reaches the client.
///
/// A branch declines instead of claiming, while another branch may still answer, when its answer
/// is an error (status >= 300) or, for a request with tools, when its first content is tool-call
/// markup written as text (the quality gate): it then gets false as a loser does, and the race
/// takes it as failed.
///
/// Each branch has a cancellation of its own, fired when the client's fires (with its reason) or
/// when the branch loses. Thread safety: the branches of a request run on its worker thread.
class BranchWriter final : public http::ResponseWriter {
 public:
  /// `referee` hears of the claim (it makes the others `lose()`); `quality_gate`: the request
  /// offers tools, so pseudo tool-call markup declines.
  BranchWriter(http::ResponseWriter& client, racing::ClaimGate& gate, int branch,
               RaceReferee& referee, bool quality_gate);
  ~BranchWriter() override;
  BranchWriter(BranchWriter const&) = delete;
  BranchWriter& operator=(BranchWriter const&) = delete;

  net::Task<bool> send(int status, HeaderList const& headers, std::string_view body) override;
  net::Task<bool> beginBody(int status, HeaderList const& headers,
                            std::optional<std::uint64_t> content_length,
                            std::string_view first_piece) override;
  net::Task<bool> writeBody(std::string_view piece) override;
  net::Task<bool> endBody(std::string_view last_piece) override;
  void breakConnection() override;

  bool headSent() const override { return won_ && client_.headSent(); }
  std::uint64_t bodyBytesSent() const override { return won_ ? client_.bodyBytesSent() : 0; }
  MonoTime firstByteAt() const override { return won_ ? client_.firstByteAt() : MonoTime{}; }
  http::Cancellation& cancellation() override { return own_; }

  /// Another branch won: this one stops (its cancellation fires with `LostRace`).
  void lose();
  bool won() const { return won_; }
  bool lost() const { return lost_; }
  /// Why the branch declined to claim ("" when it did not): "error_answer", "pseudo_tool_call".
  std::string_view declined() const { return declined_; }
  int branch() const { return branch_; }

 private:
  /// True when this branch may write: it won before, or wins now with an answer of `status`
  /// beginning with `first_piece`.
  bool claim(int status, std::string_view first_piece);

  http::ResponseWriter& client_;
  racing::ClaimGate& gate_;
  int const branch_;
  RaceReferee& referee_;
  bool const quality_gate_;
  std::string_view declined_;
  http::Cancellation own_;
  std::size_t client_cancel_id_ = 0;
  bool won_ = false;
  bool lost_ = false;
};

}  // namespace llmux::proxy
