#include "mock/png_image.h"

#include <string_view>

#include "mock/byte_writer.h"
#include "mock/checksums.h"
#include "mock/mock_ids.h"

namespace llmux::mock {
namespace {

void putChunk(std::string& png, std::string_view type, std::string_view data) {
  putBigEndian(png, data.size(), 4);
  std::string typed(type);
  typed.append(data);
  png += typed;
  putBigEndian(png, crc32(typed), 4);
}

/// A zlib stream holding `raw` in one stored (uncompressed) deflate block; raw stays < 64 KiB.
std::string storedZlib(std::string_view raw) {
  std::string out("\x78\x01", 2);
  out.push_back('\x01');  // the final block, stored
  putLittleEndian(out, raw.size(), 2);
  putLittleEndian(out, ~raw.size() & 0xFFFF, 2);
  out.append(raw);
  putBigEndian(out, adler32(raw), 4);
  return out;
}

}  // namespace

std::string tinyPng(std::uint64_t seed) {
  IdSource colours(seed);
  std::uint64_t first = colours.next();
  std::uint64_t second = colours.next();
  std::string pixels;  // each row: filter type 0, then RGB triples
  for (std::uint32_t y = 0; y < kMockImageSide; ++y) {
    pixels.push_back('\0');
    for (std::uint32_t x = 0; x < kMockImageSide; ++x) {
      std::uint64_t colour = (x + y) % 2 == 0 ? first : second;
      putBigEndian(pixels, colour, 3);
    }
  }
  std::string header;
  putBigEndian(header, kMockImageSide, 4);
  putBigEndian(header, kMockImageSide, 4);
  header += std::string("\x08\x02\x00\x00\x00", 5);  // 8-bit RGB, deflate, no filter, no interlace
  std::string png("\x89PNG\r\n\x1a\n", 8);
  putChunk(png, "IHDR", header);
  putChunk(png, "IDAT", storedZlib(pixels));
  putChunk(png, "IEND", {});
  return png;
}

}  // namespace llmux::mock
