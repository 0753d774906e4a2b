#pragma once

namespace llmux::app {
inline constexpr char kVersion[] = "0.1.0";
}
