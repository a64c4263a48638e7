// For the end-to-end tests of the hone binary: runs it as a child process with stdin empty and stdout and stderr
// captured apart, and reports how it ended.
#pragma once

#include <fcntl.h>
#include <signal.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>

#include <gmock/gmock.h>
#include <gtest/gtest.h>
#include <nlohmann/json.hpp>

#include <chrono>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

extern char** environ;

namespace hone::test {

inline const std::string kHoneBinary = std::string(HONE_BINARY_DIR) + "/hone";

struct RunResult {
  int exit_code = -1;  // -1 if killed or not run
  std::string out, err;
  std::string Describe() const { return "exit " + std::to_string(exit_code) + "\nstdout:\n" + out + "\nstderr:\n" + err; }
};

inline std::string ReadAll(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}

// Runs hone with `args`; its stdout and stderr go through files in `scratch_dir` (files, not pipes, so that a chatty
// child never blocks on a full pipe). Killed, and the test failed, after `timeout_s`.
inline RunResult RunHone(std::vector<std::string> args, const std::filesystem::path& scratch_dir,
                         double timeout_s = 300) {
  const std::string out_path = (scratch_dir / ".stdout").string(), err_path = (scratch_dir / ".stderr").string();
  std::vector<char*> argv{const_cast<char*>(kHoneBinary.c_str())};
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  posix_spawn_file_actions_addopen(&actions, STDIN_FILENO, "/dev/null", O_RDONLY, 0);
  posix_spawn_file_actions_addopen(&actions, STDOUT_FILENO, out_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  posix_spawn_file_actions_addopen(&actions, STDERR_FILENO, err_path.c_str(), O_WRONLY | O_CREAT | O_TRUNC, 0644);
  pid_t pid = 0;
  const int rc = posix_spawn(&pid, kHoneBinary.c_str(), &actions, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&actions);
  RunResult r;
  if (rc != 0) {
    ADD_FAILURE() << "cannot start " << kHoneBinary << ": " << std::strerror(rc);
    return r;
  }
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::duration<double>(timeout_s);
  int status = 0;
  while (waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > deadline) {
      kill(pid, SIGKILL);
      waitpid(pid, &status, 0);
      ADD_FAILURE() << "hone did not finish within " << timeout_s << " s";
      break;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  if (WIFEXITED(status)) r.exit_code = WEXITSTATUS(status);
  r.out = ReadAll(out_path);
  r.err = ReadAll(err_path);
  return r;
}

// Bad usage: exit 2, nothing on stdout, and a message on stderr holding every one of `parts`.
inline void ExpectUsage(const RunResult& r, const std::vector<std::string>& parts) {
  EXPECT_EQ(r.exit_code, 2) << r.Describe();
  EXPECT_EQ(r.out, "") << r.Describe();
  for (const auto& p : parts) EXPECT_THAT(r.err, ::testing::HasSubstr(p)) << r.Describe();
}

// Reads a hone report (`--json FILE`) and checks its envelope (tool, schema_version, report == `kind`, command,
// system, model); returns the subcommand's body. A copy goes to <build>/test-reports/, where the schema test
// (tests/python/test_report_schemas.py) validates every report the tests wrote.
inline nlohmann::json ReadReport(const std::string& path, const std::string& kind) {
  const std::string text = ReadAll(path);
  auto j = nlohmann::json::parse(text, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded() || !j.is_object()) {
    ADD_FAILURE() << path << " is not a JSON object:\n" << text;
    return nlohmann::json();
  }
  EXPECT_EQ(j.value("tool", ""), "hone") << path;
  EXPECT_EQ(j.value("schema_version", 0), 1) << path;
  EXPECT_EQ(j.value("report", ""), kind) << path;
  EXPECT_TRUE(j["command"].is_array() && !j["command"].empty()) << path;
  EXPECT_TRUE(j["system"].is_object() && j["model"].is_object()) << path;
  const auto* test = ::testing::UnitTest::GetInstance()->current_test_info();
  const std::filesystem::path copies = std::filesystem::path(HONE_BINARY_DIR) / "test-reports";
  std::error_code ec;
  std::filesystem::create_directories(copies, ec);
  std::ofstream(copies / (std::string(test ? test->test_suite_name() : "x") + "." + (test ? test->name() : "x") +
                          "." + std::filesystem::path(path).filename().string()))
      << text;
  return j.contains(kind) ? j[kind] : nlohmann::json();
}

}  // namespace hone::test
