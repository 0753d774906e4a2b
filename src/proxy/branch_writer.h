#pragma once

#include <cstddef>
#include <functional>

#include "http/cancellation.h"
#include "http/response_writer.h"
#include "racing/claim_gate.h"

namespace llmux::proxy {

/// The client's writer as one branch of a raced request sees it (docs/racing.md). The forwarder
/// writes nothing before its commit point (a stream's first content, a whole answer), so a
/// branch's first write is its claim: the first branch to write wins the gate and from then on
/// writes straight to the client; every other branch has lost, gets false from every write (as
/// if the client had gone) and is cancelled with `LostRace`, so that it closes its upstream
/// connection at once. No byte of a losing branch ever reaches the client.
///
/// Each branch has a cancellation of its own, fired when the client's fires (with its reason) or
/// when the branch loses. Thread safety: the branches of a request run on its worker thread.
class BranchWriter final : public http::ResponseWriter {
 public:
  /// `on_claimed` runs once, when this branch wins (the race cancels the others with `lose()`).
  BranchWriter(http::ResponseWriter& client, racing::ClaimGate& gate, int branch,
               std::function<void(int branch)> on_claimed);
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
  int branch() const { return branch_; }

 private:
  /// True when this branch may write: it won before, or wins now.
  bool claim();

  http::ResponseWriter& client_;
  racing::ClaimGate& gate_;
  int const branch_;
  std::function<void(int)> on_claimed_;
  http::Cancellation own_;
  std::size_t client_cancel_id_ = 0;
  bool won_ = false;
  bool lost_ = false;
};

}  // namespace llmux::proxy
