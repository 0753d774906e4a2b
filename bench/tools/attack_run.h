#pragma once
// llmux-attack-bench: hostile clients against a running gateway while a legitimate client keeps
// sending requests, with the gateway's memory sampled throughout (bench/README.md, figure 9).

#include <netinet/in.h>

#include <cstdint>
#include <string>

namespace llmux::bench {

struct AttackOptions {
  sockaddr_in gateway{};
  int gateway_pid = 0;         ///< whose VmRSS is sampled
  std::string key;             ///< gateway key of the legitimate client and of the slow uploaders
  std::string model = "gpt-4o-mini";
  int anonymous = 2000;        ///< connections without a key, each declaring `declared` bytes
  int slow_authenticated = 0;  ///< the same with a valid key: only the body's pace can cut them
  int header_flood = 200;      ///< connections sending a head of `flood_headers` tiny fields
  int flood_headers = 5000;
  std::uint64_t declared = 32ull << 20;
  int trickle_ms = 60'000;     ///< one more body byte per attacker this often
  int duration_ms = 20'000;    ///< of the attack
  int legit_interval_ms = 20;  ///< pause between two legitimate requests
  int timeout_ms = 10'000;     ///< per legitimate request
  std::string json_file;
};

/// Runs the attack; prints a summary, writes the JSON figures when asked. 0 on a completed run
/// (the figures say how the gateway did), 1 when the run itself failed.
int runAttack(AttackOptions const& options);

}  // namespace llmux::bench
