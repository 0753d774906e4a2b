// llmux-bench-client: the timing and load helper behind bench/run (see bench/README.md).
//   rounds: interleaved one-at-a-time exchanges against several targets, every sample printed
//   hold:   N concurrent open streams against one target, held until stdin closes
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <vector>

#include "hold.h"
#include "http_wire.h"
#include "rounds.h"

int main(int argc, char** argv) {
  using namespace llmux::bench;
  CLI::App cli{"llmux benchmark client"};
  cli.require_subcommand(1);

  std::vector<std::string> targets;
  std::string request_file;
  RoundsOptions rounds;
  auto* rounds_cmd = cli.add_subcommand(
      "rounds",
      "Send the request to every target in turn, one at a time; print all samples (JSON)");
  rounds_cmd->add_option("--target", targets,
                         "NAME=HOST:PORT, or NAME=HOST:PORT>TUNNEL_HOST:TUNNEL_PORT to go through "
                         "a CONNECT tunnel the target (a proxy or node) opens (repeatable)")
      ->required();
  std::string tunnel_authorization;
  rounds_cmd->add_option("--tunnel-authorization", tunnel_authorization,
                         "Proxy-Authorization value of every CONNECT (e.g. 'Bearer TOKEN')");
  rounds_cmd->add_option("--request", request_file, "file with the raw HTTP/1.1 request")
      ->required();
  rounds_cmd->add_option("--rounds", rounds.rounds, "recorded rounds")->capture_default_str();
  rounds_cmd->add_option("--warmup", rounds.warmup, "unrecorded rounds first")
      ->capture_default_str();
  rounds_cmd->add_option("--rate", rounds.rate, "rounds per second (0 = back to back)");
  rounds_cmd->add_option("--timeout-ms", rounds.timeout_ms, "per exchange")->capture_default_str();
  rounds_cmd->add_option("--seed", rounds.seed, "shuffle seed")->capture_default_str();
  rounds_cmd->add_option("--content-marker", rounds.content_marker,
                         "also record first_content_us: when the body first contains this text "
                         "(the first content event of a stream)");

  std::string hold_target;
  HoldOptions hold;
  auto* hold_cmd = cli.add_subcommand(
      "hold",
      "Open N streams to one target, print 'ready <open> <failed> <ms>', hold until stdin closes");
  hold_cmd->add_option("--target", hold_target, "HOST:PORT")->required();
  hold_cmd->add_option("--request", request_file, "file with the raw HTTP/1.1 request")->required();
  hold_cmd->add_option("--connections", hold.connections)->capture_default_str();
  hold_cmd->add_option("--window", hold.connect_window, "connections being set up at once")
      ->capture_default_str();
  hold_cmd->add_option("--ready-timeout-ms", hold.ready_timeout_ms)->capture_default_str();
  hold_cmd->add_flag("--idle", hold.idle,
                     "wait for whole answers, then hold the connections idle (keep-alive)");

  CLI11_PARSE(cli, argc, argv);

  std::string request;
  try {
    request = readFile(request_file);
  } catch (std::exception const& e) {
    std::fprintf(stderr, "%s\n", e.what());
    return 2;
  }

  if (*rounds_cmd) {
    for (auto const& t : targets) {
      auto eq = t.find('=');
      RoundTarget target;
      std::string_view endpoint = eq == std::string::npos ? std::string_view() : std::string_view(t).substr(eq + 1);
      if (auto arrow = endpoint.find('>'); arrow != std::string_view::npos) {
        target.tunnel_to = std::string(endpoint.substr(arrow + 1));
        target.tunnel_authorization = tunnel_authorization;
        endpoint = endpoint.substr(0, arrow);
      }
      if (eq == std::string::npos || !parseEndpoint(endpoint, target.address)) {
        std::fprintf(stderr, "--target: expected NAME=HOST:PORT[>HOST:PORT], got '%s'\n", t.c_str());
        return 2;
      }
      target.name = t.substr(0, eq);
      rounds.targets.push_back(target);
    }
    rounds.request = std::move(request);
    return runRounds(rounds);
  }
  if (!parseEndpoint(hold_target, hold.address)) {
    std::fprintf(stderr, "--target: expected HOST:PORT, got '%s'\n", hold_target.c_str());
    return 2;
  }
  hold.request = std::move(request);
  return runHold(hold);
}
