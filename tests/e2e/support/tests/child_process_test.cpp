#include "e2e/support/child_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <sys/wait.h>

#include <cerrno>
#include <filesystem>
#include <fstream>
#include <thread>

#include "e2e/support/temp_dir.h"

namespace llmux::e2e {
namespace {

using namespace std::chrono_literals;

Result<ChildProcess> shell(std::string script,
                           std::vector<std::pair<std::string, std::string>> env = {}) {
  return ChildProcess::spawn(ChildOptions{"/bin/sh", {"-c", std::move(script)}, std::move(env)});
}

/// True when `pid` no longer runs: gone, or a zombie waiting for init to reap it.
bool isDead(pid_t pid) {
  if (::kill(pid, 0) != 0) return errno == ESRCH;
  std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
  std::string pid_field, comm, state;
  stat >> pid_field >> comm >> state;
  return !stat || state == "Z" || state == "X";
}

TEST(ChildProcess, CapturesStdoutStderrAndTheExitCode) {
  auto child = shell("echo hello; echo oops >&2; printf 'crlf\\r\\n'; printf partial; exit 3");
  ASSERT_TRUE(child.ok()) << child.error().message;
  auto status = child->waitExit(5s);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->code, 3);
  EXPECT_EQ(status->signal, 0);
  EXPECT_EQ(child->output(), "hello\ncrlf\r\npartial");
  EXPECT_EQ(child->lines(), (std::vector<std::string>{"hello", "crlf", "partial"}));
  EXPECT_EQ(child->output(Stream::Stderr), "oops\n");
  EXPECT_FALSE(child->running());
  EXPECT_NE(child->describe().find("exit 3"), std::string::npos);
}

TEST(ChildProcess, WaitsForLinesByPrefixOrPatternAndPassesEnvironment) {
  auto child = shell(
      "echo starting; echo \"value=$E2E_VALUE\"; sleep 0.2; echo 'listening on 127.0.0.1:4321';"
      " echo value=again; exec sleep 10",
      {{"E2E_VALUE", "42"}});
  ASSERT_TRUE(child.ok()) << child.error().message;
  auto value = child->waitForLineStartingWith("value=", 5s);
  ASSERT_TRUE(value.ok()) << value.error().message;
  EXPECT_EQ(value->text, "value=42");
  EXPECT_EQ(value->index, 1u);
  auto listening = child->waitForLineMatching(std::regex(R"(listening on 127\.0\.0\.1:\d+)"), 5s);
  ASSERT_TRUE(listening.ok()) << listening.error().message;
  EXPECT_EQ(listening->index, 2u);
  auto again = child->waitForLineStartingWith("value=", 5s, Stream::Stdout, value->index + 1);
  ASSERT_TRUE(again.ok()) << again.error().message;
  EXPECT_EQ(again->text, "value=again");
  EXPECT_TRUE(child->running());
}

TEST(ChildProcess, WaitForLineTimesOutAndShowsWhatWasPrinted) {
  auto child = shell("echo nothing-useful; exec sleep 10");
  ASSERT_TRUE(child.ok()) << child.error().message;
  auto started = MonoClock::now();
  auto line = child->waitForLineStartingWith("never", 150ms);
  ASSERT_FALSE(line.ok());
  EXPECT_EQ(line.error().kind, ErrorKind::Timeout);
  EXPECT_GE(MonoClock::now() - started, 150ms);
  EXPECT_LT(MonoClock::now() - started, 2s);
  EXPECT_NE(line.error().message.find("nothing-useful"), std::string::npos);
}

TEST(ChildProcess, WaitForLineFailsAsSoonAsTheChildExits) {
  auto child = shell("echo bye; echo 'fatal: bad config' >&2; exit 1");
  ASSERT_TRUE(child.ok()) << child.error().message;
  auto started = MonoClock::now();
  auto line = child->waitForLineStartingWith("listening", 10s);
  ASSERT_FALSE(line.ok());
  EXPECT_LT(MonoClock::now() - started, 5s);
  EXPECT_EQ(line.error().kind, ErrorKind::Cancelled);
  EXPECT_NE(line.error().message.find("fatal: bad config"), std::string::npos);
}

TEST(ChildProcess, DeliversSignalsAndReportsTheExitCode) {
  auto child = shell(
      "trap 'echo got-hup' HUP; trap 'echo got-term; exit 7' TERM; echo ready;"
      " while :; do sleep 0.02; done");
  ASSERT_TRUE(child.ok()) << child.error().message;
  ASSERT_TRUE(child->waitForLineStartingWith("ready", 5s).ok());
  ASSERT_TRUE(child->signal(SIGHUP).ok());
  auto hup = child->waitForLineStartingWith("got-hup", 5s);
  ASSERT_TRUE(hup.ok()) << hup.error().message;
  EXPECT_TRUE(child->running());
  ASSERT_TRUE(child->signal(SIGTERM).ok());
  auto status = child->waitExit(5s);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->code, 7);
  EXPECT_EQ(child->lines().back(), "got-term");
  EXPECT_FALSE(child->signal(SIGHUP).ok());
}

TEST(ChildProcess, ReportsDeathBySignal) {
  auto child = shell("echo ready; exec sleep 10");
  ASSERT_TRUE(child.ok()) << child.error().message;
  ASSERT_TRUE(child->waitForLineStartingWith("ready", 5s).ok());
  ASSERT_TRUE(child->signal(SIGINT).ok());
  auto status = child->waitExit(5s);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->code, -1);
  EXPECT_EQ(status->signal, SIGINT);
}

TEST(ChildProcess, WaitExitTimesOutWhileTheChildRuns) {
  auto child = shell("exec sleep 10");
  ASSERT_TRUE(child.ok()) << child.error().message;
  auto status = child->waitExit(50ms);
  ASSERT_FALSE(status.ok());
  EXPECT_EQ(status.error().kind, ErrorKind::Timeout);
  EXPECT_TRUE(child->running());
  child->kill();
  EXPECT_FALSE(child->running());
  auto killed = child->waitExit(1s);
  ASSERT_TRUE(killed.ok());
  EXPECT_EQ(killed->signal, SIGKILL);
}

TEST(ChildProcess, DestructionKillsTheWholeGroupAndReapsTheChild) {
  pid_t pid = 0;
  pid_t grandchild = 0;
  {
    auto child = shell("sleep 30 & echo $!; sleep 30");
    ASSERT_TRUE(child.ok()) << child.error().message;
    auto line = child->waitForLineMatching(std::regex(R"(\d+)"), 5s);
    ASSERT_TRUE(line.ok()) << line.error().message;
    pid = child->pid();
    grandchild = std::stoi(line->text);
  }
  // Reaped by us: not even a zombie is left, so waitpid has nothing to wait for.
  EXPECT_EQ(::waitpid(pid, nullptr, WNOHANG), -1);
  EXPECT_EQ(errno, ECHILD);
  EXPECT_TRUE(isDead(pid));
  // The background job of the shell died with it (init reaps it, perhaps a little later).
  for (int i = 0; i < 100 && !isDead(grandchild); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(isDead(grandchild));
}

TEST(ChildProcess, ExitOfTheLeaderClearsItsGroup) {
  auto child = shell("sleep 30 & echo $!; exit 0");
  ASSERT_TRUE(child.ok()) << child.error().message;
  auto line = child->waitForLineMatching(std::regex(R"(\d+)"), 5s);
  ASSERT_TRUE(line.ok()) << line.error().message;
  auto status = child->waitExit(5s);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(status->code, 0);
  pid_t grandchild = std::stoi(line->text);
  for (int i = 0; i < 100 && !isDead(grandchild); ++i) std::this_thread::sleep_for(10ms);
  EXPECT_TRUE(isDead(grandchild));
}

TEST(ChildProcess, RunsInTheGivenDirectoryWithArgumentsAsGiven) {
  TempDir dir;
  ChildOptions options{"sh", {"-c", "pwd; printf '%s|' \"$@\"", "sh", "a b", "", "*"}};
  options.cwd = dir.path();
  auto child = ChildProcess::spawn(options);
  ASSERT_TRUE(child.ok()) << child.error().message;
  ASSERT_TRUE(child->waitExit(5s).ok());
  auto lines = child->lines();
  ASSERT_EQ(lines.size(), 2u);
  EXPECT_EQ(std::filesystem::path(lines[0]), std::filesystem::canonical(dir.path()));
  EXPECT_EQ(lines[1], "a b||*|");
}

TEST(ChildProcess, SpawnFailsForAMissingProgram) {
  auto child = ChildProcess::spawn(ChildOptions{"/nonexistent/llmux", {"serve"}});
  ASSERT_FALSE(child.ok());
  EXPECT_NE(child.error().message.find("No such file"), std::string::npos) << child.error().message;
}

TEST(ChildProcess, KeepsWorkingAfterAMove) {
  auto child = shell("echo one; read line; echo two");  // stdin is /dev/null: read returns
  ASSERT_TRUE(child.ok()) << child.error().message;
  std::vector<ChildProcess> children;
  children.push_back(std::move(*child));
  auto status = children[0].waitExit(5s);
  ASSERT_TRUE(status.ok()) << status.error().message;
  EXPECT_EQ(children[0].lines(), (std::vector<std::string>{"one", "two"}));
}

}  // namespace
}  // namespace llmux::e2e
