#include "command_binding.h"

#include <iostream>
#include <mutex>
#include <sstream>
#include <string>
#include <vector>

#include <nanobind/stl/string.h>
#include <nanobind/stl/tuple.h>
#include <nanobind/stl/vector.h>

#include "bench/interrupt.h"
#include "cli/run.h"

namespace nb = nanobind;

namespace hone::python {
namespace {

// Swaps a stream's buffer for a string's while alive.
class Capture {
 public:
  explicit Capture(std::ostream& stream) : stream_(stream), saved_(stream.rdbuf(text_.rdbuf())) {}
  ~Capture() { stream_.rdbuf(saved_); }
  std::string text() const { return text_.str(); }

 private:
  std::ostream& stream_;
  std::ostringstream text_;
  std::streambuf* saved_;
};

// Captured text as a Python str; bytes that are not UTF-8 (a path in another encoding) are replaced.
nb::object Text(const std::string& s) {
  return nb::steal(PyUnicode_DecodeUTF8(s.data(), static_cast<Py_ssize_t>(s.size()), "replace"));
}

// The command line keeps process-wide state (the report context, the streams): one command at a time.
std::mutex g_command_mu;

// Runs `hone ARGS...` and returns (exit status, what it wrote to std::cout, what it wrote to std::cerr). The GIL is
// released meanwhile; a Ctrl-C that arrived is raised as KeyboardInterrupt after the command returns (hone bench
// stops at the next point on its own SIGINT handling and reports what it measured).
nb::tuple RunCommand(const std::vector<std::string>& args) {
  std::vector<std::string> argv = {"hone"};
  argv.insert(argv.end(), args.begin(), args.end());
  int status = 0;
  std::string out, err;
  {
    nb::gil_scoped_release unlocked;
    std::lock_guard lock(g_command_mu);
    Capture captured_out(std::cout), captured_err(std::cerr);
    status = cli::RunHone(argv);
    std::cout.flush();
    out = captured_out.text();
    err = captured_err.text();
  }
  if (PyErr_CheckSignals() != 0) throw nb::python_error();
  return nb::make_tuple(status, Text(out), Text(err));
}

std::vector<std::tuple<std::string, bool, bool>> Flags(const std::string& command) {
  std::vector<std::tuple<std::string, bool, bool>> out;
  for (const cli::CommandFlag& f : cli::CommandFlags(command)) out.emplace_back(f.name, f.takes_value, f.positional);
  return out;
}

}  // namespace

void RegisterCommands(nb::module_& m) {
  // A second Ctrl-C must not end the interpreter (the command line's bench exits at once on it).
  bench::InterruptScope::SetSecondInterruptExits(false);
  m.def("run_command", &RunCommand, nb::arg("args"),
        "Runs `hone ARGS...` in this process: (exit status, standard output text, standard error text).");
  m.def("command_flags", &Flags, nb::arg("command"),
        "A command's flags: (name, takes a value, positional) each; empty for an unknown command.");
}

}  // namespace hone::python
