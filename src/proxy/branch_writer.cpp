#include "proxy/branch_writer.h"

#include "racing/pseudo_tool_call.h"

namespace llmux::proxy {

BranchWriter::BranchWriter(http::ResponseWriter& client, racing::ClaimGate& gate, int branch,
                           RaceReferee& referee, bool quality_gate)
    : client_(client), gate_(gate), branch_(branch), referee_(referee), quality_gate_(quality_gate) {
  client_cancel_id_ =
      client_.cancellation().add([this](http::CancelReason reason) { own_.cancel(reason); });
}

BranchWriter::~BranchWriter() { client_.cancellation().remove(client_cancel_id_); }

bool BranchWriter::claim(int status, std::string_view first_piece) {
  if (won_) return true;
  if (lost_ || own_.cancelled() || !declined_.empty()) return false;
  if (referee_.othersMayAnswer(branch_)) {
    if (status >= 300) {
      declined_ = "error_answer";
      return false;
    }
    if (quality_gate_ && racing::looksLikePseudoToolCall(first_piece)) {
      declined_ = "pseudo_tool_call";
      return false;
    }
  }
  if (!gate_.claim(branch_)) {
    lose();
    return false;
  }
  won_ = true;
  referee_.claimed(branch_);
  return true;
}

void BranchWriter::lose() {
  if (won_ || lost_) return;
  lost_ = true;
  own_.cancel(http::CancelReason::LostRace);
}

// The writes forward the client's own awaitable instead of awaiting it in a frame of their own:
// a stream's every chunk passes here, and a coroutine frame per chunk is what this saves. A write
// is claimed when it is called (the forwarder awaits each write as it makes it).
namespace {
net::Task<bool> refused() { co_return false; }
}  // namespace

net::Task<bool> BranchWriter::send(int status, HeaderList const& headers, std::string_view body) {
  if (!claim(status, body)) return refused();
  return client_.send(status, headers, body);
}

net::Task<bool> BranchWriter::beginBody(int status, HeaderList const& headers,
                                        std::optional<std::uint64_t> content_length,
                                        std::string_view first_piece) {
  if (!claim(status, first_piece)) return refused();
  return client_.beginBody(status, headers, content_length, first_piece);
}

net::Task<bool> BranchWriter::writeBody(std::string_view piece) {
  if (!won_) return refused();  // a body is only written after its beginning claimed
  return client_.writeBody(piece);
}

net::Task<bool> BranchWriter::endBody(std::string_view last_piece) {
  if (!won_) return refused();
  return client_.endBody(last_piece);
}

void BranchWriter::breakConnection() {
  if (won_) client_.breakConnection();
}

}  // namespace llmux::proxy
