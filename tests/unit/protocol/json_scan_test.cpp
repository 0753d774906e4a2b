#include "protocol/json_scan.h"

#include <gtest/gtest.h>

#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>
#include <filesystem>
#include <optional>
#include <random>

#include "test_data.h"

namespace llmux::protocol {
namespace {

TEST(JsonScan, AcceptsWellFormedDocumentsOfEveryKind) {
  struct Case {
    std::string_view text;
    JsonType root;
  };
  Case const cases[] = {
      {"{}", JsonType::Object},
      {" \t\r\n{ } \n", JsonType::Object},
      {"[]", JsonType::Array},
      {"[1, -0, 0.5, -12.25e+3, 1E-7, 1e5, 0e0]", JsonType::Array},
      {"\"plain\"", JsonType::String},
      {R"("esc \" \\ \/ \b \f \n \r \t \u00e9 \uD83D\uDE00")", JsonType::String},
      {"\"raw utf-8 \xC3\xA9 and invalid \xFF\xFE bytes pass\"", JsonType::String},
      {"\"del \x7F is not a control character\"", JsonType::String},
      {"42", JsonType::Number},
      {"-1.0e10", JsonType::Number},
      {"true", JsonType::True},
      {"false", JsonType::False},
      {"null", JsonType::Null},
      {R"({"a":{"b":[{"c":[[],{}]}]},"d":[true,false,null]})", JsonType::Object},
  };
  for (auto const& c : cases) {
    JsonScan scan = scanJson(c.text);
    ASSERT_TRUE(scan.ok()) << c.text << ": " << scan.error->reason << " at " << scan.error->offset;
    EXPECT_EQ(scan.root, c.root) << c.text;
  }
}

TEST(JsonScan, RejectsMalformedDocumentsWithOffsetAndReason) {
  struct Case {
    std::string_view text;
    std::size_t offset;
    std::string_view reason;
  };
  Case const cases[] = {
      {"", 0, "empty"},
      {"   ", 3, "empty"},
      {"{", 1, "end of input"},
      {"{\"a\"", 4, "end of input"},
      {"{\"a\":", 5, "end of input"},
      {"{\"a\":1", 6, "end of input"},
      {"{\"a\" 1}", 5, "':'"},
      {"{a:1}", 1, "string key"},
      {"{\"a\":1,}", 7, "string key"},
      {"[1,]", 3, "JSON value"},
      {"[1 2]", 3, "','"},
      {"{\"a\":1]", 6, "','"},
      {"[1}", 2, "','"},
      {"{} {}", 3, "after the JSON value"},
      {"{}x", 2, "after the JSON value"},
      {"01", 1, "after the JSON value"},
      {"-", 1, "number"},
      {"-a", 1, "number"},
      {"1.", 2, "after '.'"},
      {"1.e5", 2, "after '.'"},
      {"1e", 2, "exponent"},
      {"1e+", 3, "exponent"},
      {"+1", 0, "JSON value"},
      {".5", 0, "JSON value"},
      {"NaN", 0, "JSON value"},
      {"tru", 0, "literal"},
      {"nul", 0, "literal"},
      {"True", 0, "JSON value"},
      {"\"abc", 4, "unterminated"},
      {"\"abc\\", 4, "unterminated"},
      {"\"a\x01z\"", 2, "control character"},
      {"\"tab\there\"", 4, "control character"},
      {"\"new\nline\"", 4, "control character"},
      {"\"\\x41\"", 1, "invalid escape"},
      {"\"\\'\"", 1, "invalid escape"},
      {"\"\\u12\"", 1, "\\u escape"},
      {"\"\\u12G4\"", 1, "\\u escape"},
      {"{\"a\":'x'}", 5, "JSON value"},
      {"[1,2,3", 6, "end of input"},
      {"\xEF\xBB\xBF{}", 0, "JSON value"},  // a byte-order mark is not whitespace
      {"{\"k\x01\":1}", 3, "control character"},
  };
  for (auto const& c : cases) {
    JsonScan scan = scanJson(c.text);
    ASSERT_FALSE(scan.ok()) << c.text;
    EXPECT_EQ(scan.error->offset, c.offset) << c.text;
    EXPECT_NE(scan.error->reason.find(c.reason), std::string_view::npos)
        << c.text << ": " << scan.error->reason;
  }
}

TEST(JsonScan, LocatesTopLevelMembersOnly) {
  std::string_view text =
      R"( { "a" : 1 , "b":[1,{"a":2}], "c" : "x\"y" ,"d":{"e":{}},"e":null,"f":true,"g":false } )";
  JsonScan scan = scanJson(text);
  ASSERT_TRUE(scan.ok());
  EXPECT_EQ(scan.root_begin, 1u);
  EXPECT_EQ(scan.root_end, text.size() - 1);
  ASSERT_EQ(scan.members.size(), 7u);
  auto value = [&](std::size_t i) {
    return text.substr(scan.members[i].value_begin,
                       scan.members[i].value_end - scan.members[i].value_begin);
  };
  EXPECT_EQ(scan.members[0].key, "a");
  EXPECT_EQ(value(0), "1");
  EXPECT_EQ(scan.members[0].type, JsonType::Number);
  EXPECT_EQ(value(1), R"([1,{"a":2}])");
  EXPECT_EQ(scan.members[1].type, JsonType::Array);
  EXPECT_EQ(value(2), R"("x\"y")");
  EXPECT_EQ(scan.members[2].type, JsonType::String);
  EXPECT_EQ(value(3), R"({"e":{}})");
  EXPECT_EQ(scan.members[3].type, JsonType::Object);
  EXPECT_EQ(value(4), "null");
  EXPECT_EQ(scan.members[4].type, JsonType::Null);
  EXPECT_EQ(scan.members[5].type, JsonType::True);
  EXPECT_EQ(scan.members[6].type, JsonType::False);
  EXPECT_EQ(value(6), "false");

  // A non-object root has no members, even when it contains objects.
  JsonScan array = scanJson(R"([{"model":"x"}])");
  ASSERT_TRUE(array.ok());
  EXPECT_TRUE(array.members.empty());
}

TEST(JsonScan, TopLevelMembersAreCappedNestedOnesAreNot) {
  auto object = [](std::size_t members) {
    std::string text = "{";
    for (std::size_t i = 0; i < members; ++i) text += (i ? ",\"a\":1" : "\"a\":1");
    return text + "}";
  };
  JsonScan at_cap = scanJson(object(kJsonMaxMembers));
  ASSERT_TRUE(at_cap.ok());
  EXPECT_EQ(at_cap.members.size(), kJsonMaxMembers);
  JsonScan over = scanJson(object(kJsonMaxMembers + 1));
  ASSERT_FALSE(over.ok());
  EXPECT_EQ(over.error->reason, "more than 1024 top-level members");
  // Members of nested objects are validated, never recorded: no cap on them.
  JsonScan nested = scanJson("{\"tools\":" + object(50'000) + "}");
  ASSERT_TRUE(nested.ok());
  EXPECT_EQ(nested.members.size(), 1u);
}

TEST(JsonScan, KeysAreComparedDecoded) {
  JsonScan scan =
      scanJson(R"({"mod\u0065l":"a","model":"b","\u006d\u006F\u0064\u0065\u006c":"c","x\"y":1})");
  ASSERT_TRUE(scan.ok());
  ASSERT_EQ(scan.members.size(), 4u);
  EXPECT_TRUE(scan.members[0].key_escaped);
  EXPECT_TRUE(scan.members[0].keyIs("model"));
  EXPECT_FALSE(scan.members[1].key_escaped);
  EXPECT_TRUE(scan.members[1].keyIs("model"));
  EXPECT_TRUE(scan.members[2].keyIs("model"));
  EXPECT_TRUE(scan.members[3].keyIs("x\"y"));
  EXPECT_FALSE(scan.members[3].keyIs("x\\\"y"));
}

TEST(JsonScan, DecodesStringsIncludingSurrogatePairs) {
  EXPECT_EQ(decodeJsonString(R"(a\"b\\c\/d\b\f\n\r\t)"), "a\"b\\c/d\b\f\n\r\t");
  EXPECT_EQ(decodeJsonString(R"(\u0041\u00e9\u20AC)"), "A\xC3\xA9\xE2\x82\xAC");
  EXPECT_EQ(decodeJsonString(R"(\uD83D\uDE00)"), "\xF0\x9F\x98\x80");
  EXPECT_EQ(decodeJsonString(R"(\uD83Dx)"), "\xEF\xBF\xBDx");  // lone high surrogate
  EXPECT_EQ(decodeJsonString(R"(\uDE00)"), "\xEF\xBF\xBD");    // lone low surrogate
  EXPECT_EQ(decodeJsonString(R"(\uD83D\u0041)"),
            "\xEF\xBF\xBD"
            "A");  // high + non-low
  EXPECT_EQ(decodeJsonString("raw \xC3\xA9"), "raw \xC3\xA9");
}

TEST(JsonScan, EnforcesTheDepthLimit) {
  std::string ok = std::string(kJsonMaxDepth, '[') + std::string(kJsonMaxDepth, ']');
  EXPECT_TRUE(scanJson(ok).ok());
  std::string objects;
  for (std::size_t i = 0; i < kJsonMaxDepth; ++i) objects += "{\"a\":";
  objects += "1";
  objects += std::string(kJsonMaxDepth, '}');
  EXPECT_TRUE(scanJson(objects).ok());

  std::string deep = std::string(kJsonMaxDepth + 1, '[') + std::string(kJsonMaxDepth + 1, ']');
  JsonScan scan = scanJson(deep);
  ASSERT_FALSE(scan.ok());
  EXPECT_EQ(scan.error->offset, kJsonMaxDepth);
  EXPECT_NE(scan.error->reason.find("nesting"), std::string_view::npos);
}

// The string scan works 16 bytes at a time: put the interesting byte at every offset around
// the block boundaries.
TEST(JsonScan, FindsStringSpecialsAtEveryPosition) {
  for (std::size_t k = 0; k < 70; ++k) {
    std::string pad(k, 'a');
    std::string with_control = "\"" + pad + "\x1f" + "bb\"";
    JsonScan bad = scanJson(with_control);
    ASSERT_FALSE(bad.ok()) << k;
    EXPECT_EQ(bad.error->offset, k + 1) << k;

    std::string with_escape = "{\"k\":\"" + pad + "\\\"" + pad + "\",\"z\":1}";
    JsonScan good = scanJson(with_escape);
    ASSERT_TRUE(good.ok()) << k;
    ASSERT_EQ(good.members.size(), 2u);
    EXPECT_EQ(good.members[0].value_end, 6 + 2 * k + 2 + 1) << k;

    std::string unterminated = "\"" + pad;
    JsonScan open = scanJson(unterminated);
    ASSERT_FALSE(open.ok());
    EXPECT_EQ(open.error->offset, k + 1);

    std::string high_bytes = "\"" + std::string(k, '\xE9') + "\"";
    EXPECT_TRUE(scanJson(high_bytes).ok()) << k;

    // \u escapes wherever they fall, including split across blocks.
    std::string unicode = "[\"" + pad + "\\u00e9\\uD83D\\uDE00" + pad + "\\u20AC\"]";
    EXPECT_TRUE(scanJson(unicode).ok()) << k;
    std::string bad_hex = "\"" + pad + "\\u12G4" + pad + "\"";
    JsonScan hex = scanJson(bad_hex);
    ASSERT_FALSE(hex.ok()) << k;
    EXPECT_EQ(hex.error->offset, k + 1) << k;
    EXPECT_NE(hex.error->reason.find("\\u escape"), std::string_view::npos);
    std::string short_hex = "\"" + pad + "\\u12\"";
    EXPECT_FALSE(scanJson(short_hex).ok()) << k;

    std::string bad_escape = "\"" + pad + "\\\\\\x" + pad + "\"";  // \\ then the invalid \x
    JsonScan esc = scanJson(bad_escape);
    ASSERT_FALSE(esc.ok()) << k;
    EXPECT_EQ(esc.error->offset, k + 3) << k;

    // A control character right after an escape that may straddle a block boundary.
    for (std::string_view escape : {"\\n", "\\u00e9", "\\\\"}) {
      std::string text = "\"" + pad + std::string(escape) + "\x01\"";
      JsonScan after = scanJson(text);
      ASSERT_FALSE(after.ok()) << k << escape;
      EXPECT_EQ(after.error->offset, k + 1 + escape.size()) << k << escape;
      EXPECT_NE(after.error->reason.find("control"), std::string_view::npos);
    }
    std::string escaped_control = "\"" + pad + "\\\x01\"";  // a backslash escaping a control byte
    JsonScan bad_control = scanJson(escaped_control);
    ASSERT_FALSE(bad_control.ok()) << k;
    EXPECT_EQ(bad_control.error->offset, k + 1) << k;

    // Backslash runs: an even run leaves the quote closing the string, an odd run escapes it.
    std::string even = "[\"" + pad + "\\\\\\\\\",1]";
    EXPECT_TRUE(scanJson(even).ok()) << k;
    std::string odd = "[\"" + pad + "\\\\\\\"\",1]";
    JsonScan odd_scan = scanJson(odd);
    ASSERT_TRUE(odd_scan.ok()) << k;
  }
}

TEST(JsonScan, AsciiEscapedTextAndLongStrings) {
  std::string text = "{\"model\":\"m\",\"content\":\"";
  for (int i = 0; i < 500; ++i) text += "\\u4f60\\u597d";
  text += "\"}";
  JsonScan scan = scanJson(text);
  ASSERT_TRUE(scan.ok());
  ASSERT_EQ(scan.members.size(), 2u);
  EXPECT_EQ(scan.members[1].value_end, text.size() - 1);
  EXPECT_EQ(decodeJsonString(text.substr(scan.members[1].value_begin + 1, 12)),
            "\xE4\xBD\xA0\xE5\xA5\xBD");

  std::string big = "{\"data\":\"" + std::string(1 << 20, 'A') + "\"}";
  JsonScan big_scan = scanJson(big);
  ASSERT_TRUE(big_scan.ok());
  EXPECT_EQ(big_scan.members[0].value_end, big.size() - 1);
  big[big.size() / 2] = '\n';
  JsonScan broken = scanJson(big);
  ASSERT_FALSE(broken.ok());
  EXPECT_EQ(broken.error->offset, big.size() / 2);
}

boost::json::parse_options boostOptions() {
  boost::json::parse_options opt;
  opt.max_depth = 100000;  // the depth limit is tested separately
  opt.allow_invalid_utf8 = true;
  return opt;
}

bool boostAccepts(std::string_view text) {
  boost::system::error_code ec;
  boost::json::parse(text, ec, {}, boostOptions());
  return !ec;
}

// Every recorded request body is accepted, and the members found agree with a full parser.
TEST(JsonScan, AgreesWithBoostJsonOnRecordedBodies) {
  for (std::string folder : {"openai-chat", "openai-responses", "anthropic", "gemini"}) {
    for (auto const& path : test::requestFiles(folder)) {
      std::string body = test::readFile(path);
      JsonScan scan = scanJson(body);
      ASSERT_TRUE(scan.ok()) << path << ": " << scan.error->reason << " at " << scan.error->offset;
      boost::json::value const parsed = boost::json::parse(body);
      boost::json::object const& object = parsed.as_object();
      ASSERT_EQ(scan.members.size(), object.size()) << path;
      for (JsonMember const& member : scan.members) {
        std::string key = decodeJsonString(member.key);
        ASSERT_TRUE(object.contains(key)) << path << " " << key;
        std::string_view span(body.data() + member.value_begin,
                              member.value_end - member.value_begin);
        EXPECT_EQ(boost::json::parse(span), object.at(key)) << path << " " << key;
      }
    }
  }
}

// Random byte mutations of real bodies: the scanner and Boost.JSON must agree on validity.
TEST(JsonScan, AgreesWithBoostJsonOnMutatedBodies) {
  std::vector<std::string> seeds;
  for (std::string folder : {"openai-chat", "anthropic"}) {
    for (auto const& path : test::requestFiles(folder)) seeds.push_back(test::readFile(path));
  }
  seeds.push_back(R"({"a":[1,-2.5e3,true,false,null,{"b":"c\u00e9\n"}],"s":"x"})");
  constexpr std::string_view kAlphabet = "{}[]\",:\\ 0123456789eE.-+truefalsn/bu\x01\t\xC3";
  std::mt19937 rng(12345);
  int valid = 0;
  int invalid = 0;
  for (int round = 0; round < 20000; ++round) {
    std::string text = seeds[rng() % seeds.size()];
    if (text.size() > 2000) text.resize(2000 + rng() % 64);
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      std::size_t at = rng() % text.size();
      char c = kAlphabet[rng() % kAlphabet.size()];
      switch (rng() % 3) {
        case 0:
          text[at] = c;
          break;
        case 1:
          text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
          break;
        default:
          text.erase(at, 1 + rng() % 4);
          break;
      }
    }
    bool ours = scanJson(text).ok();
    ASSERT_EQ(ours, boostAccepts(text)) << text;
    (ours ? valid : invalid)++;
  }
  // The mutations must exercise both outcomes to mean anything.
  EXPECT_GT(valid, 1000);
  EXPECT_GT(invalid, 5000);
}

// --- skimTopLevelMember ---------------------------------------------------------------------

/// What scanJson says the last top-level member called `key` is (the reference for the skim).
std::optional<JsonMember> scannedMember(std::string_view text, std::string_view key) {
  JsonScan scan = scanJson(text);
  if (!scan.ok() || scan.root != JsonType::Object) return std::nullopt;
  std::optional<JsonMember> last;
  for (auto const& member : scan.members) {
    if (member.keyIs(key)) last = member;
  }
  return last;
}

void expectSameMember(std::string_view text, std::string_view key) {
  auto scanned = scannedMember(text, key);
  auto skimmed = skimTopLevelMember(text, {key});
  ASSERT_EQ(skimmed.has_value(), scanned.has_value()) << key << " in " << text.substr(0, 200);
  if (!scanned) return;
  EXPECT_EQ(skimmed->key, scanned->key);
  EXPECT_EQ(skimmed->type, scanned->type) << key;
  EXPECT_EQ(skimmed->value_begin, scanned->value_begin) << key;
  EXPECT_EQ(skimmed->value_end, scanned->value_end) << key;
}

TEST(SkimTopLevelMember, FindsWhatTheFullScanFindsInEveryRecordedAnswer) {
  // Real provider answers (tests/data/fixtures, see its SOURCES.md), compact and pretty-printed.
  int documents = 0;
  for (auto const& entry :
       std::filesystem::recursive_directory_iterator(std::filesystem::path(LLMUX_TEST_DATA_DIR) / "fixtures")) {
    if (entry.path().extension() != ".json") continue;
    std::string text = test::readFile(entry.path());
    JsonScan scan = scanJson(text);
    if (!scan.ok() || scan.root != JsonType::Object) continue;
    ++documents;
    for (auto const& member : scan.members) expectSameMember(text, member.key);
    expectSameMember(text, "usage");
    expectSameMember(text, "no_such_member");
  }
  EXPECT_GT(documents, 20);
}

TEST(SkimTopLevelMember, FollowsStringsEscapesAndNesting) {
  // A key inside a string, a nested member of the same name, an escaped quote before it.
  std::string_view text =
      R"({"note":"\"usage\":{\"x\":1}","choices":[{"usage":{"nested":1}}],"a\\":"b\\\"","usage" : { "ok" : [1, {"n":2}] } , "z":null })";
  auto usage = skimTopLevelMember(text, {"usage"});
  ASSERT_TRUE(usage);
  EXPECT_EQ(text.substr(usage->value_begin, usage->value_end - usage->value_begin),
            R"({ "ok" : [1, {"n":2}] })");
  EXPECT_EQ(usage->type, JsonType::Object);
  expectSameMember(text, "usage");
  expectSameMember(text, "z");
  expectSameMember(text, "a\\");
  // The last of duplicates wins, as in a DOM; an escaped key is decoded; either of several keys.
  EXPECT_EQ(skimTopLevelMember(R"({"usage":1,"usage":{}})", {"usage"})->type, JsonType::Object);
  EXPECT_TRUE(skimTopLevelMember(R"({"us\u0061ge":{}})", {"usage"}));
  auto either = skimTopLevelMember(R"({"usage_metadata":{"a":1}})", {"usageMetadata", "usage_metadata"});
  ASSERT_TRUE(either);
  EXPECT_EQ(either->key, "usage_metadata");
  EXPECT_EQ(skimTopLevelMember("{\n  \"usage\": 12\n}\n", {"usage"})->value_end, 15u);
}

// Random edits of real answers: wherever the full scan accepts the document, the skim finds the
// same members (it may also find them in documents the scan refuses: it does not validate).
TEST(SkimTopLevelMember, AgreesWithTheFullScanOnMutatedAnswers) {
  std::vector<std::string> seeds;
  for (auto const& entry :
       std::filesystem::recursive_directory_iterator(std::filesystem::path(LLMUX_TEST_DATA_DIR) / "fixtures")) {
    if (entry.path().filename().string().ends_with(".response.json")) seeds.push_back(test::readFile(entry.path()));
  }
  ASSERT_GT(seeds.size(), 10u);
  constexpr std::string_view kAlphabet = "{}[]\",:\\ 0123456789usage\n";
  std::mt19937 rng(6789);
  int compared = 0;
  for (int round = 0; round < 5000; ++round) {
    std::string text = seeds[rng() % seeds.size()];
    int edits = 1 + static_cast<int>(rng() % 3);
    for (int e = 0; e < edits && !text.empty(); ++e) {
      std::size_t at = rng() % text.size();
      char c = kAlphabet[rng() % kAlphabet.size()];
      if (rng() % 2 == 0) {
        text[at] = c;
      } else {
        text.insert(text.begin() + static_cast<std::ptrdiff_t>(at), c);
      }
    }
    if (!scanJson(text).ok()) continue;
    ++compared;
    expectSameMember(text, "usage");
    expectSameMember(text, "model");
  }
  EXPECT_GT(compared, 500);
}

TEST(SkimTopLevelMember, RefusesWhatIsNotAWholeObject) {
  for (std::string_view text : {"", "  ", "[1]", "\"usage\"", R"({"usage":{"a":1})",
                                 R"({"usage":{"a":"1}}})", R"({"usage")", R"({"usage" 1})",
                                 R"({"a":"b)"}) {
    EXPECT_FALSE(skimTopLevelMember(text, {"usage"})) << text;
  }
  EXPECT_FALSE(skimTopLevelMember("{}", {"usage"}));
}

}  // namespace
}  // namespace llmux::protocol
