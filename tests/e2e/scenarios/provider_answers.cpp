#include "e2e/scenarios/provider_answers.h"

namespace llmux::e2e {

std::string providerAnswerIn(Protocol protocol) {
  switch (protocol) {
    case Protocol::Anthropic:
      return RecordingUpstream::jsonResponse(
          R"({"id":"msg_01","type":"message","role":"assistant","model":"claude-x",)"
          R"("content":[{"type":"text","text":"hi"}],"stop_reason":"end_turn","stop_sequence":null,)"
          R"("usage":{"input_tokens":3,"output_tokens":1}})");
    case Protocol::OpenAiResponses:
      return RecordingUpstream::jsonResponse(
          R"({"id":"resp_01","object":"response","created_at":1,"status":"completed","model":"m",)"
          R"("output":[{"type":"message","id":"msg_01","role":"assistant","status":"completed",)"
          R"("content":[{"type":"output_text","text":"hi","annotations":[]}]}],)"
          R"("usage":{"input_tokens":3,"output_tokens":1,"total_tokens":4}})");
    case Protocol::Gemini:
      return RecordingUpstream::jsonResponse(
          R"({"candidates":[{"content":{"role":"model","parts":[{"text":"hi"}]},)"
          R"("finishReason":"STOP","index":0}],)"
          R"("usageMetadata":{"promptTokenCount":3,"candidatesTokenCount":1,"totalTokenCount":4}})");
    case Protocol::OpenAiChat:
      break;
  }
  return RecordingUpstream::jsonResponse(
      R"({"id":"chatcmpl-01","object":"chat.completion","created":1,"model":"m",)"
      R"("choices":[{"index":0,"message":{"role":"assistant","content":"hi"},"finish_reason":"stop"}],)"
      R"("usage":{"prompt_tokens":3,"completion_tokens":1,"total_tokens":4}})");
}

std::string providerAnswer(RecordedRequest const& request) {
  std::string_view line = request.request_line;
  if (line.find("/v1/messages") != std::string_view::npos) {
    return providerAnswerIn(Protocol::Anthropic);
  }
  if (line.find("/v1/responses") != std::string_view::npos) {
    return providerAnswerIn(Protocol::OpenAiResponses);
  }
  if (line.find(":generateContent") != std::string_view::npos) {
    return providerAnswerIn(Protocol::Gemini);
  }
  return providerAnswerIn(Protocol::OpenAiChat);
}

}  // namespace llmux::e2e
