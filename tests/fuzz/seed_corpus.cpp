// Writes the fuzz targets' seed corpora from the recorded provider traffic, so that the fuzzer
// starts from real streams and bodies (the recordings stay where they are; nothing is copied into
// the repository):
//   fuzz_seed_corpus <tests/data/fixtures> <out>   ->   <out>/<target>/<fixture name>[.cut]
// Stream seeds carry the stream targets' cut header (translate_fuzz_support.h, kCutHeader bytes):
// one seed fed whole, one cut into pieces of 1, 7, 64 and 200 bytes. `.chunks.txt` recordings get
// their SSE framing back. upstream_response_fuzz gets every recorded body with an HTTP response
// head (and interim heads) in front, with the same cut header.
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <sstream>
#include <string>
#include <vector>

namespace fs = std::filesystem;

namespace {

struct Folder {
  char const* name;           ///< tests/data/fixtures/<name>
  char const* stream_target;  ///< the stream decoder target of that protocol
  unsigned char selector;     ///< body_translate_fuzz's protocol bits
  char const* route;          ///< a path request_fuzz routes to that protocol
};

constexpr Folder kFolders[] = {
    {"openai-chat", "openai_chat_stream_fuzz", 0, "/v1/chat/completions"},
    {"openai-responses", "openai_responses_stream_fuzz", 1, "/v1/responses"},
    {"anthropic", "anthropic_stream_fuzz", 2, "/v1/messages"},
    {"gemini", "gemini_stream_fuzz", 3, "/v1beta/models/fuzz-model:streamGenerateContent?alt=sse"},
};

std::string readFile(fs::path const& path) {
  std::ifstream in(path, std::ios::binary);
  return {std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>()};
}

void writeSeed(fs::path const& out, char const* target, std::string const& name,
               std::string const& bytes) {
  fs::create_directories(out / target);
  std::ofstream(out / target / name, std::ios::binary) << bytes;
}

/// The stream targets' cut header: fed whole (a first piece of 0 is everything), or cut into
/// pieces of 1, 7, 64 and 200 bytes in turn.
void writeStreamSeeds(fs::path const& out, char const* target, std::string const& name,
                      std::string const& stream) {
  writeSeed(out, target, name, std::string(4, '\0') + stream);
  writeSeed(out, target, name + ".cut", std::string("\x01\x07\x40\xc8", 4) + stream);
}

std::vector<std::string> lines(std::string const& text) {
  std::vector<std::string> out;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

/// A vercel-ai recording (one JSON payload per line) with its protocol's SSE framing.
std::string frameChunks(std::string_view folder, std::vector<std::string> const& payloads) {
  std::string out;
  for (auto const& payload : payloads) {
    if (folder == "openai-chat") {
      out += "data: " + payload + "\n\n";
    } else if (folder == "gemini") {
      out += "data: " + payload + "\r\n\r\n";
    } else {
      boost::system::error_code ec;
      auto value = boost::json::parse(payload, ec);
      std::string type;
      if (!ec && value.is_object() && value.as_object().contains("type") &&
          value.as_object().at("type").is_string()) {
        type = value.as_object().at("type").as_string();
      }
      out += "event: " + type + "\ndata: " + payload + "\n\n";
    }
  }
  if (folder == "openai-chat") out += "data: [DONE]\n\n";
  return out;
}

/// The `data:` payloads of a recorded SSE stream.
std::vector<std::string> ssePayloads(std::string const& stream) {
  std::vector<std::string> out;
  for (auto const& line : lines(stream)) {
    if (line.starts_with("data:")) out.push_back(line.substr(line.starts_with("data: ") ? 6 : 5));
  }
  return out;
}

/// Gemini's JSON-array framing of the same chunks, without its opening '[' (the array target
/// feeds that itself).
std::string arrayBody(std::vector<std::string> const& payloads) {
  std::string out;
  for (std::size_t i = 0; i < payloads.size(); ++i) out += (i ? ",\r\n" : "") + payloads[i];
  return out + "]";
}

/// upstream_response_fuzz seeds: a recorded body as an upstream sends it, after interim heads
/// (a Content-Length JSON answer after `100 Continue`, a chunked SSE stream after `100 Continue`
/// and `103 Early Hints`), once whole and once cut like the stream seeds. The status of an error
/// recording comes from its name (`error_404_...`).
void writeResponseSeeds(fs::path const& out, std::string const& name, std::string const& body,
                        bool stream) {
  constexpr char kTarget[] = "upstream_response_fuzz";
  std::string status = "200 OK";
  if (auto at = name.find("error_"); at != std::string::npos && name.size() >= at + 9) {
    status = name.substr(at + 6, 3) + " Error";
  }
  std::string response = "HTTP/1.1 100 Continue\r\n\r\n";
  if (stream) {
    response += "HTTP/1.1 103 Early Hints\r\nLink: </a.css>; rel=preload\r\n\r\n";
    response += "HTTP/1.1 " + status +
                "\r\nContent-Type: text/event-stream\r\nTransfer-Encoding: chunked\r\n\r\n";
    for (std::size_t at = 0; at < body.size(); at += 300) {
      std::string piece = body.substr(at, 300);
      char size[16];
      std::snprintf(size, sizeof size, "%zx", piece.size());
      response += std::string(size) + "\r\n" + piece + "\r\n";
    }
    response += "0\r\n\r\n";
  } else {
    response += "HTTP/1.1 " + status + "\r\nContent-Type: application/json\r\nContent-Length: " +
                std::to_string(body.size()) + "\r\n\r\n" + body;
  }
  writeStreamSeeds(out, kTarget, name, response);
}

/// Hand-made upstream_response_fuzz seeds for what the recordings do not show.
void writeFramingSeeds(fs::path const& out) {
  constexpr char kTarget[] = "upstream_response_fuzz";
  writeStreamSeeds(out, kTarget, "switching_protocols",
                   "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\n"
                   "Connection: Upgrade\r\n\r\n");
  writeStreamSeeds(out, kTarget, "close_delimited",
                   "HTTP/1.1 200 OK\r\nContent-Type: application/json\r\n\r\n{\"ok\":true}");
  writeStreamSeeds(out, kTarget, "no_content_then_next",
                   "HTTP/1.1 204 No Content\r\n\r\nHTTP/1.1 200 OK\r\nContent-Length: 2\r\n\r\n{}");
  writeStreamSeeds(out, kTarget, "chunk_extensions_and_trailer",
                   "HTTP/1.1 200 OK\r\nTransfer-Encoding: chunked\r\n\r\n"
                   "5;name=value\r\nhello\r\n0\r\nX-Trailer: 1\r\n\r\n");
}

/// Hand-made multipart_fuzz seeds (the recordings hold no form): the first line is the
/// Content-Type, the rest the body, as curl, a browser and the OpenAI SDK write them.
void writeMultipartSeeds(fs::path const& out) {
  constexpr char kTarget[] = "multipart_fuzz";
  std::string curl_boundary = "------------------------d74496d66958873e";
  writeSeed(out, kTarget, "curl",
            "multipart/form-data; boundary=" + curl_boundary + "\n--" + curl_boundary +
                "\r\nContent-Disposition: form-data; name=\"model\"\r\n\r\nwhisper-1\r\n--" +
                curl_boundary +
                "\r\nContent-Disposition: form-data; name=\"file\"; filename=\"a.wav\"\r\n"
                "Content-Type: audio/wav\r\n\r\n" +
                std::string("RIFF\0\0\0\0WAVE", 12) + "\r\n--" + curl_boundary + "--\r\n");
  writeSeed(out, kTarget, "browser",
            "multipart/form-data; boundary=----WebKitFormBoundary7MA4YWxkTrZu0gW\n"
            "preamble\r\n------WebKitFormBoundary7MA4YWxkTrZu0gW\r\n"
            "Content-Disposition: form-data; name=\"image[]\"; filename=\"C:\\x.png\"\r\n"
            "Content-Type: image/png\r\n\r\n\x89PNG\r\n\x1a\n\r\n"
            "------WebKitFormBoundary7MA4YWxkTrZu0gW\r\n"
            "Content-Disposition: form-data; name=\"prompt\"\r\n\r\nAdd a hat\r\n"
            "------WebKitFormBoundary7MA4YWxkTrZu0gW--\r\nepilogue");
  writeSeed(out, kTarget, "quoted_boundary",
            "Multipart/Form-Data; charset=utf-8; boundary=\"a b:c\"\n--a b:c \t\r\n"
            "content-disposition: form-data; name=\"we\\\"ird\"; filename*=UTF-8''%C3%A9\r\n"
            "\r\n\r\n--a b:c--");
}

/// A client recording in tests/data/fixtures/clients: {method, path, query, headers, body}.
void writeClientSeeds(fs::path const& out, fs::path const& file) {
  auto value = boost::json::parse(readFile(file));
  auto const& record = value.as_object();
  std::string path(record.at("path").as_string());
  std::string body = boost::json::serialize(record.at("body"));
  std::string name = file.filename().string();
  unsigned char selector = path.find(":streamGenerateContent") != std::string::npos ? 0x0B
                           : path.find("/responses") != std::string::npos           ? 0x01
                                                                                    : 0x02;
  writeSeed(out, "body_translate_fuzz", name, std::string(1, static_cast<char>(selector)) + body);
  writeSeed(out, "request_fuzz", name, path + "\n" + body);
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 3) {
    std::fprintf(stderr, "usage: %s <fixtures dir> <output dir>\n", argv[0]);
    return 2;
  }
  fs::path fixtures = argv[1];
  fs::path out = argv[2];
  int written = 0;
  for (Folder const& folder : kFolders) {
    for (auto const& entry : fs::directory_iterator(fixtures / folder.name)) {
      std::string name = entry.path().filename().string();
      std::string text = readFile(entry.path());
      bool gemini = std::string_view(folder.name) == "gemini";
      if (name.ends_with(".response.sse") || name.ends_with(".chunks.txt")) {
        std::string stream = name.ends_with(".sse") ? text : frameChunks(folder.name, lines(text));
        writeStreamSeeds(out, folder.stream_target, name, stream);
        writeResponseSeeds(out, name, stream, true);
        if (gemini)
          writeStreamSeeds(out, "gemini_array_stream_fuzz", name, arrayBody(ssePayloads(stream)));
      } else if (name.ends_with(".request.json")) {
        bool stream =
            name.find("stream") != std::string::npos || name.find("sse") != std::string::npos;
        char selector = static_cast<char>(folder.selector | (stream ? 0x08 : 0));
        writeSeed(out, "body_translate_fuzz", name, selector + text);
        writeSeed(out, "request_fuzz", name, std::string(folder.route) + "\n" + text);
        writeSeed(out, "json_scan_fuzz", name, text);
      } else if (name.ends_with(".json")) {
        // An answer or an error body (an error also comes back to a stream request as one).
        writeSeed(out, "body_translate_fuzz", name,
                  static_cast<char>(folder.selector | 0x04) + text);
        writeResponseSeeds(out, name, text, false);
        writeSeed(out, "json_scan_fuzz", name, text);
        std::size_t start = text.find_first_not_of(" \t\r\n");
        if (gemini && start != std::string::npos && text[start] == '[') {
          writeStreamSeeds(out, "gemini_array_stream_fuzz", name, text.substr(start + 1));
        } else {
          writeStreamSeeds(out, folder.stream_target, name, text);
        }
      } else {
        continue;
      }
      ++written;
    }
  }
  writeFramingSeeds(out);
  writeMultipartSeeds(out);
  for (auto const& entry : fs::directory_iterator(fixtures / "clients")) {
    if (!entry.path().string().ends_with(".request.json")) continue;
    writeClientSeeds(out, entry.path());
    ++written;
  }
  std::printf("fuzz_seed_corpus: %d recordings -> %s\n", written, out.c_str());
  return written > 0 ? 0 : 1;
}
