#pragma once

#include <boost/json/fwd.hpp>
#include <cstddef>
#include <optional>
#include <span>
#include <string>
#include <vector>
#include <string_view>

#include "mock/answer_plan.h"
#include "mock/mock_ids.h"
#include "mock/mock_provider.h"
#include "mock/mock_reply.h"

namespace llmux::mock {

/// One generation request being answered: the HTTP request, its parsed body and the model.
struct MockCall {
  MockRequest const& http;
  boost::json::object const& body;
  std::string_view model;  ///< from the body, or from the path for Gemini
  IdSource& ids;
};

// Each protocol module offers the same pair of functions:
//   std::optional<MockReply> inspect(MockCall const&, RequestFacts&)
//       validates like the provider (an error reply when it would refuse) and extracts the facts;
//   Rendered render(MockCall const&, RequestFacts const&, AnswerPlan const&)
//       writes the answer in the provider's exact shape, streamed or not.

namespace openai {
/// OpenAI's range checks on sampling parameters (temperature 0..2, top_p 0..1), shared by Chat and
/// Responses, with OpenAI's wording (fx:openai-responses/pydantic-ai--responses_http_error_400).
std::optional<MockReply> checkSampling(boost::json::object const& body, IdSource& ids);
}  // namespace openai

namespace chat {
std::optional<MockReply> inspect(MockCall const& call, RequestFacts& facts);
Rendered render(MockCall const& call, RequestFacts const& facts, AnswerPlan const& plan);
}  // namespace chat

namespace responses {
std::optional<MockReply> inspect(MockCall const& call, RequestFacts& facts);
Rendered render(MockCall const& call, RequestFacts const& facts, AnswerPlan const& plan);
/// A stream that fails after it started (response.created, response.in_progress, error,
/// response.failed): how the Responses API reports errors such as a context overflow in a stream.
Rendered renderStreamFailure(MockCall const& call, RequestFacts const& facts, std::string_view code,
                             std::string_view message);
}  // namespace responses

namespace anthropic {
std::optional<MockReply> inspect(MockCall const& call, RequestFacts& facts);
Rendered render(MockCall const& call, RequestFacts const& facts, AnswerPlan const& plan);
}  // namespace anthropic

namespace gemini {
/// How a Gemini answer is delivered (REFERENCE §4.1).
enum class Delivery {
  Whole,      ///< :generateContent
  Sse,        ///< :streamGenerateContent?alt=sse
  JsonArray,  ///< :streamGenerateContent without alt=sse: one JSON array, sent piece by piece
};
std::optional<MockReply> inspect(MockCall const& call, Delivery delivery, RequestFacts& facts);
Rendered render(MockCall const& call, Delivery delivery, RequestFacts const& facts,
                AnswerPlan const& plan);
}  // namespace gemini

namespace catalog {
/// The ids each provider lists by default (Gemini's without "models/").
std::vector<std::string> defaultModelIds(Protocol protocol);
/// GET .../v1/models in OpenAI's shape (never paged).
MockReply openAiModels(std::span<std::string const> ids, IdSource& id_source);
/// GET .../v1/models in Anthropic's shape: one page, `has_more` when more follow.
MockReply anthropicModels(std::span<std::string const> page, bool has_more, IdSource& ids);
/// GET .../v1beta/models: one page, with `nextPageToken` when more follow.
MockReply geminiModels(std::span<std::string const> page, std::string_view next_page_token);
/// POST .../v1/messages/count_tokens (after validation of model and messages).
MockReply anthropicCountTokens(std::int64_t tokens, IdSource& ids);
/// POST .../models/{m}:countTokens.
MockReply geminiCountTokens(std::int64_t tokens);
}  // namespace catalog

}  // namespace llmux::mock
