// A Responses API event stream (REFERENCE.md §2.4) as neutral events, frame by frame.
//
// Items are keyed by output_index, never by item_id (some upstreams rotate item ids). Items are
// streamed one after the other; should an upstream interleave them, the events of a later item
// are held until the earlier ones are done, so that neutral blocks never interleave.
#include <algorithm>
#include <boost/json/monotonic_resource.hpp>
#include <boost/json/parse.hpp>
#include <map>

#include "protocol/sse_parser.h"
#include "translate/json_access.h"
#include "translate/openai_responses/codec.h"
#include "translate/openai_responses/wire.h"

namespace llmux::translate::openai_responses {
namespace {

namespace json = boost::json;

enum class Kind { Unknown, Message, FunctionCall, Reasoning, Other };

struct Item {
  Kind kind = Kind::Unknown;
  std::string item_id;
  bool done = false;  ///< output_item.done seen
  bool block_open = false;
  int blocks = 0;                   ///< blocks opened so far
  int block_index = -1;             ///< neutral index of the current block (set when delivered)
  std::int64_t content_index = -1;  ///< Message: the content part of the open text block
  std::int64_t last_content_index = -1;  ///< Message: the highest content part opened
  std::string text;                      ///< Message: text of the open part sent so far
  std::string args;                      ///< FunctionCall: arguments sent so far
  std::string part_key;        ///< Reasoning: the summary or content part being sent ("s0", "c1")
  std::string part_text;       ///< Reasoning: text of that part sent so far
  bool thought = false;        ///< Reasoning: some text was sent
  std::string encrypted;       ///< Reasoning: encrypted_content of output_item.added
  std::vector<Event> pending;  ///< events held while an earlier item streams
};

/// What `full` adds to what was already sent (nothing when they disagree: the deltas win).
std::string_view remainder(std::string_view sent, std::string_view full) {
  if (full.size() > sent.size() && full.starts_with(sent)) return full.substr(sent.size());
  return {};
}

Kind kindOf(std::string_view type) {
  if (type == "message") return Kind::Message;
  if (type == "function_call") return Kind::FunctionCall;
  if (type == "reasoning") return Kind::Reasoning;
  return Kind::Other;
}

class Decoder final : public StreamDecoder {
 public:
  void feed(std::string_view bytes, std::vector<Event>& out) override;
  void finish(std::vector<Event>& out) override;

 private:
  void frame(protocol::SseEvent const& sse, std::vector<Event>& out);
  void dispatch(std::string_view type, json::object const& e, std::vector<Event>& out);
  void fail(int status, std::string message, std::vector<Event>& out);
  void start(std::string_view id, std::string_view model, std::vector<Event>& out);

  Item& item(json::object const& e);
  Item& itemAt(std::int64_t output_index);
  void emit(Item& it, Event ev, std::vector<Event>& out);
  void deliver(Item& it, Event& ev, std::vector<Event>& out);
  void retire(std::vector<Event>& out);
  void flushAll(std::vector<Event>& out);

  void openBlock(Item& it, Block block, std::vector<Event>& out);
  void closeBlock(Item& it, std::vector<Event>& out);
  void openText(Item& it, std::int64_t content_index, std::vector<Event>& out);
  void text(Item& it, std::int64_t content_index, std::string_view delta, std::vector<Event>& out);
  void ensureCall(Item& it, json::object const* item, std::vector<Event>& out);
  void ensureReasoning(Item& it, std::vector<Event>& out);
  void arguments(Item& it, std::string_view delta, std::vector<Event>& out);
  void thinking(Item& it, std::string const& key, std::string_view delta, std::vector<Event>& out);
  void thinkingDone(Item& it, std::string const& key, std::string_view full,
                    std::vector<Event>& out);
  void itemAdded(Item& it, json::object const& item, std::vector<Event>& out);
  void itemDone(Item& it, json::object const& item, std::vector<Event>& out);
  void terminal(json::object const& response, std::string_view status, std::vector<Event>& out);

  protocol::SseParser sse_;
  std::vector<protocol::SseEvent> frames_;
  bool started_ = false;
  bool finished_ = false;
  std::map<std::int64_t, Item> items_;
  std::vector<std::int64_t> order_;  ///< output indexes in arrival order
  std::size_t active_ = 0;           ///< position in order_ of the item whose events flow
  std::int64_t last_index_ = 0;      ///< output_index of the latest item (events without one)
  int next_block_ = 0;
  bool called_ = false;
  bool refused_ = false;
};

void Decoder::feed(std::string_view bytes, std::vector<Event>& out) {
  if (finished_) return;
  frames_.clear();
  sse_.feed(bytes, frames_);
  for (auto const& f : frames_) {
    if (finished_) break;
    frame(f, out);
  }
  if (!finished_ && sse_.overflowed()) fail(502, "The upstream sent a stream event too large.", out);
}

void Decoder::finish(std::vector<Event>& out) {
  if (finished_) return;
  frames_.clear();
  sse_.finish(frames_);
  for (auto const& f : frames_) {
    if (finished_) break;
    frame(f, out);
  }
  if (!finished_) fail(502, "The upstream stream ended before its response was complete.", out);
}

void Decoder::fail(int status, std::string message, std::vector<Event>& out) {
  Event ev{.type = EventType::Error, .text = std::move(message), .error_status = status};
  out.push_back(std::move(ev));
  finished_ = true;
}

void Decoder::start(std::string_view id, std::string_view model, std::vector<Event>& out) {
  if (started_) return;
  started_ = true;
  Event ev{.type = EventType::MessageStart};
  ev.id = std::string(id);
  ev.model = std::string(model);
  out.push_back(std::move(ev));
}

void Decoder::frame(protocol::SseEvent const& sse, std::vector<Event>& out) {
  std::string_view data = sse.data;
  while (!data.empty() && (data.back() == ' ' || data.back() == '\t')) data.remove_suffix(1);
  if (data.empty() || data == "[DONE]") return;
  unsigned char scratch[4096];
  json::monotonic_resource resource(scratch, sizeof(scratch));
  json::parse_options options;
  options.max_depth = 64;
  boost::system::error_code ec;
  json::value v = json::parse(data, ec, &resource, options);
  if (ec || !v.is_object()) {
    fail(502, "The upstream sent a malformed stream event.", out);
    return;
  }
  json::object const& e = v.as_object();
  std::string_view type = stringAt(e, "type").value_or(sse.event);
  dispatch(type, e, out);
}

void Decoder::dispatch(std::string_view type, json::object const& e, std::vector<Event>& out) {
  if (type == "response.created" || type == "response.in_progress" || type == "response.queued") {
    json::object const* r = objectAt(e, "response");
    start(r ? stringAt(*r, "id").value_or("") : "", r ? stringAt(*r, "model").value_or("") : "",
          out);
    return;
  }
  if (type == "error" || type == "response.failed") {
    // The error event nests its fields on the wire and has them flat in the SDK's type (REFERENCE
    // §2.4); response.failed carries them in response.error.
    json::object const* r = type == "error" ? &e : objectAt(e, "response");
    json::object const* err = r ? objectAt(*r, "error") : nullptr;
    if (type == "error" && !err) err = &e;
    std::string_view code = err ? stringAt(*err, "code").value_or("") : "";
    std::string_view kind = err ? stringAt(*err, "type").value_or("") : "";
    std::string_view message = err ? stringAt(*err, "message").value_or("") : "";
    int status = statusForError(code, kind, message);
    fail(status, std::string(message.empty() ? "The upstream response failed." : message), out);
    return;
  }
  if (!type.starts_with("response.")) return;  // keep-alives and unknown events
  start("", "", out);
  if (type == "response.completed" || type == "response.incomplete") {
    json::object const* r = objectAt(e, "response");
    static json::object const kEmpty;
    terminal(r ? *r : kEmpty, type == "response.incomplete" ? "incomplete" : "completed", out);
    return;
  }
  std::string_view rest = type.substr(9);
  if (rest == "output_item.added" || rest == "output_item.done") {
    json::object const* it = objectAt(e, "item");
    if (!it) return;
    Item& item_state = item(e);
    if (rest == "output_item.added") {
      itemAdded(item_state, *it, out);
    } else {
      itemDone(item_state, *it, out);
    }
    return;
  }
  std::int64_t content_index = intAt(e, "content_index").value_or(0);
  if (rest == "content_part.added" || rest == "content_part.done") {
    json::object const* part = objectAt(e, "part");
    std::string_view ptype = part ? stringAt(*part, "type").value_or("") : "";
    Item& it = item(e);
    if (ptype == "reasoning_text") {
      if (rest == "content_part.done") {
        thinkingDone(it, "c" + std::to_string(content_index), stringAt(*part, "text").value_or(""),
                     out);
      }
      return;
    }
    if (ptype != "output_text" && ptype != "refusal") return;
    if (ptype == "refusal") refused_ = true;
    if (it.kind == Kind::Unknown) it.kind = Kind::Message;
    if (it.kind != Kind::Message) return;
    if (rest == "content_part.added") {
      openText(it, content_index, out);
    } else {
      std::string_view full = stringAt(*part, ptype == "refusal" ? "refusal" : "text").value_or("");
      text(it, content_index, remainder(it.content_index == content_index ? it.text : "", full),
           out);
      closeBlock(it, out);
    }
    return;
  }
  bool refusal = rest.starts_with("refusal.");
  if (refusal || rest.starts_with("output_text.")) {
    Item& it = item(e);
    refused_ = refused_ || refusal;
    if (it.kind == Kind::Unknown) it.kind = Kind::Message;
    if (it.kind != Kind::Message) return;
    if (rest.ends_with(".delta")) {
      text(it, content_index, stringAt(e, "delta").value_or(""), out);
    } else if (rest.ends_with(".done")) {
      std::string_view full = stringAt(e, refusal ? "refusal" : "text").value_or("");
      text(it, content_index, remainder(it.content_index == content_index ? it.text : "", full),
           out);
    }
    return;
  }
  if (rest == "function_call_arguments.delta" || rest == "function_call_arguments.done") {
    Item& it = item(e);
    ensureCall(it, nullptr, out);
    if (it.kind != Kind::FunctionCall) return;
    if (rest == "function_call_arguments.delta") {
      arguments(it, stringAt(e, "delta").value_or(""), out);
    } else {
      arguments(it, remainder(it.args, stringAt(e, "arguments").value_or("")), out);
    }
    return;
  }
  bool summary = rest.starts_with("reasoning_summary_text.");
  bool raw = rest.starts_with("reasoning_text.");
  if (summary || raw || rest == "reasoning_summary_part.done") {
    Item& it = item(e);
    ensureReasoning(it, out);
    if (it.kind != Kind::Reasoning) return;
    std::string key = summary || rest == "reasoning_summary_part.done"
                          ? "s" + std::to_string(intAt(e, "summary_index").value_or(0))
                          : "c" + std::to_string(content_index);
    if (rest.ends_with(".delta")) {
      thinking(it, key, stringAt(e, "delta").value_or(""), out);
    } else if (rest == "reasoning_summary_part.done") {
      json::object const* part = objectAt(e, "part");
      thinkingDone(it, key, part ? stringAt(*part, "text").value_or("") : "", out);
    } else {
      thinkingDone(it, key, stringAt(e, "text").value_or(""), out);
    }
  }
  // Everything else (annotations, built-in tool progress, reasoning_summary_part.added) carries
  // nothing the neutral model holds.
}

Item& Decoder::item(json::object const& e) {
  return itemAt(intAt(e, "output_index").value_or(last_index_));
}

Item& Decoder::itemAt(std::int64_t output_index) {
  auto [it, inserted] = items_.try_emplace(output_index);
  if (inserted) {
    order_.push_back(output_index);
    last_index_ = output_index;
  }
  return it->second;
}

void Decoder::emit(Item& it, Event ev, std::vector<Event>& out) {
  bool active = active_ < order_.size() && &items_[order_[active_]] == &it;
  if (active) {
    deliver(it, ev, out);
  } else {
    it.pending.push_back(std::move(ev));
  }
}

void Decoder::deliver(Item& it, Event& ev, std::vector<Event>& out) {
  if (ev.type == EventType::BlockStart) it.block_index = next_block_++;
  ev.index = it.block_index;
  out.push_back(std::move(ev));
}

/// The active item is done: let the next ones flow, releasing what they held.
void Decoder::retire(std::vector<Event>& out) {
  while (active_ < order_.size()) {
    Item& current = items_[order_[active_]];
    for (Event& ev : current.pending) deliver(current, ev, out);
    current.pending.clear();
    if (!current.done) return;
    ++active_;
  }
}

void Decoder::flushAll(std::vector<Event>& out) {
  for (; active_ < order_.size(); ++active_) {
    Item& current = items_[order_[active_]];
    for (Event& ev : current.pending) deliver(current, ev, out);
    current.pending.clear();
    if (current.block_open) {
      Event stop{.type = EventType::BlockStop};
      deliver(current, stop, out);
      current.block_open = false;
    }
  }
}

void Decoder::openBlock(Item& it, Block block, std::vector<Event>& out) {
  if (it.done) return;  // late events of a finished item
  closeBlock(it, out);
  block.item_id = it.item_id;
  Event ev{.type = EventType::BlockStart, .block = std::move(block)};
  emit(it, std::move(ev), out);
  it.block_open = true;
  ++it.blocks;
}

void Decoder::closeBlock(Item& it, std::vector<Event>& out) {
  if (!it.block_open) return;
  emit(it, Event{.type = EventType::BlockStop}, out);
  it.block_open = false;
}

void Decoder::openText(Item& it, std::int64_t content_index, std::vector<Event>& out) {
  if (it.block_open && it.content_index == content_index) return;
  openBlock(it, Block{.type = BlockType::Text}, out);
  it.content_index = content_index;
  it.last_content_index = std::max(it.last_content_index, content_index);
  it.text.clear();
}

void Decoder::text(Item& it, std::int64_t content_index, std::string_view delta,
                   std::vector<Event>& out) {
  if (it.done) return;
  openText(it, content_index, out);
  if (delta.empty()) return;
  Event ev{.type = EventType::TextDelta, .text = std::string(delta)};
  emit(it, std::move(ev), out);
  it.text += delta;
}

void Decoder::ensureCall(Item& it, json::object const* item, std::vector<Event>& out) {
  if (it.kind == Kind::Unknown) it.kind = Kind::FunctionCall;
  if (it.kind != Kind::FunctionCall || it.blocks > 0) return;
  called_ = true;
  Block b{.type = BlockType::ToolCall};
  if (item) {
    b.id = std::string(stringAt(*item, "call_id").value_or(""));
    b.name = std::string(stringAt(*item, "name").value_or(""));
  }
  openBlock(it, std::move(b), out);
}

void Decoder::ensureReasoning(Item& it, std::vector<Event>& out) {
  if (it.kind == Kind::Unknown) it.kind = Kind::Reasoning;
  if (it.kind != Kind::Reasoning || it.blocks > 0) return;
  Block b{.type = BlockType::Thinking};
  b.signature_origin = Protocol::OpenAiResponses;
  openBlock(it, std::move(b), out);
}

void Decoder::arguments(Item& it, std::string_view delta, std::vector<Event>& out) {
  if (delta.empty() || !it.block_open) return;
  emit(it, Event{.type = EventType::ArgumentsDelta, .text = std::string(delta)}, out);
  it.args += delta;
}

void Decoder::thinking(Item& it, std::string const& key, std::string_view delta,
                       std::vector<Event>& out) {
  if (delta.empty() || !it.block_open) return;
  if (key != it.part_key) {
    // Separate summary parts read as paragraphs (REFERENCE §9.5).
    if (it.thought) emit(it, Event{.type = EventType::ThinkingDelta, .text = "\n\n"}, out);
    it.part_key = key;
    it.part_text.clear();
  }
  emit(it, Event{.type = EventType::ThinkingDelta, .text = std::string(delta)}, out);
  it.part_text += delta;
  it.thought = true;
}

void Decoder::thinkingDone(Item& it, std::string const& key, std::string_view full,
                           std::vector<Event>& out) {
  if (key == it.part_key) {
    thinking(it, key, remainder(it.part_text, full), out);
  } else {
    thinking(it, key, full, out);
  }
}

void Decoder::itemAdded(Item& it, json::object const& item, std::vector<Event>& out) {
  if (it.kind != Kind::Unknown || it.blocks > 0) return;  // a repeated added
  it.kind = kindOf(stringAt(item, "type").value_or(""));
  it.item_id = std::string(stringAt(item, "id").value_or(""));
  switch (it.kind) {
    case Kind::FunctionCall:
      ensureCall(it, &item, out);
      arguments(it, stringAt(item, "arguments").value_or(""), out);
      break;
    case Kind::Reasoning:
      it.encrypted = std::string(stringAt(item, "encrypted_content").value_or(""));
      ensureReasoning(it, out);
      break;
    default:
      break;  // a message opens its blocks with its content parts
  }
}

void Decoder::itemDone(Item& it, json::object const& item, std::vector<Event>& out) {
  if (it.done) return;
  if (it.kind == Kind::Unknown) it.kind = kindOf(stringAt(item, "type").value_or(""));
  if (it.item_id.empty()) it.item_id = std::string(stringAt(item, "id").value_or(""));
  switch (it.kind) {
    case Kind::Message: {
      auto const* content = arrayAt(item, "content");
      std::int64_t streamed = it.last_content_index;  // parts after it never streamed
      std::int64_t ci = 0;
      for (auto const* part = content ? content->begin() : nullptr;
           content && part != content->end(); ++part, ++ci) {
        if (!part->is_object()) continue;
        auto const& p = part->as_object();
        std::string_view ptype = stringAt(p, "type").value_or("");
        if (ptype != "output_text" && ptype != "refusal") continue;
        if (ptype == "refusal") refused_ = true;
        std::string_view full = stringAt(p, ptype == "refusal" ? "refusal" : "text").value_or("");
        bool open = it.block_open && it.content_index == ci;
        if (ci > streamed || open) {
          // Parts that never streamed, or the rest of the open one.
          text(it, ci, remainder(open ? it.text : "", full), out);
          closeBlock(it, out);
        }
      }
      break;
    }
    case Kind::FunctionCall:
      ensureCall(it, &item, out);
      arguments(it, remainder(it.args, stringAt(item, "arguments").value_or("")), out);
      if (it.args.empty()) arguments(it, "{}", out);
      break;
    case Kind::Reasoning: {
      ensureReasoning(it, out);
      if (!it.thought) {
        std::int64_t i = 0;
        for (std::string_view list : {"summary", "content"}) {
          auto const* parts = arrayAt(item, list);
          i = 0;
          for (auto const* p = parts ? parts->begin() : nullptr; parts && p != parts->end();
               ++p, ++i) {
            if (!p->is_object()) continue;
            std::string key = (list == "summary" ? "s" : "c") + std::to_string(i);
            thinking(it, key, stringAt(p->as_object(), "text").value_or(""), out);
          }
        }
      }
      // The .done copy of encrypted_content is the complete one (REFERENCE §2.3).
      std::string_view enc = stringAt(item, "encrypted_content").value_or("");
      if (enc.empty()) enc = it.encrypted;
      if (!enc.empty() && it.block_open) {
        emit(it, Event{.type = EventType::SignatureDelta, .text = std::string(enc)}, out);
      }
      break;
    }
    default:
      break;
  }
  closeBlock(it, out);
  it.done = true;
  retire(out);
}

void Decoder::terminal(json::object const& response, std::string_view default_status,
                       std::vector<Event>& out) {
  if (items_.empty()) {
    // An upstream that streamed no item events: its items are in the final response.
    if (auto const* output = arrayAt(response, "output")) {
      std::int64_t i = 0;
      for (auto const& v : *output) {
        if (!v.is_object()) continue;
        Item& it = itemAt(i++);
        itemAdded(it, v.as_object(), out);
        itemDone(it, v.as_object(), out);
      }
    }
  }
  flushAll(out);
  if (auto const* usage = objectAt(response, "usage")) {
    Event ev{.type = EventType::UsageUpdate};
    ev.usage = usageFrom(*usage);
    out.push_back(std::move(ev));
  }
  std::string_view reason;
  if (auto const* details = objectAt(response, "incomplete_details")) {
    reason = stringAt(*details, "reason").value_or("");
  }
  std::string_view status = stringAt(response, "status").value_or(default_status);
  Event stop{.type = EventType::MessageStop};
  stop.stop = stopFor(status, reason, called_, refused_);
  out.push_back(std::move(stop));
  finished_ = true;
}

}  // namespace

std::unique_ptr<StreamDecoder> makeStreamDecoder() {
  return std::make_unique<Decoder>();
}

}  // namespace llmux::translate::openai_responses
