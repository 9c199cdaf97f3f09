// staged_files.h - the command-line tools' output files: each is written to a temporary file beside it and
// renamed into place only when the whole run succeeded (DESIGN.md item 11), and no output may be one of the
// run's input files (compared by filesystem identity, as gcc refuses -o equal to an input).
#pragma once
#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <string>
#include <utility>
#include <vector>

#include "isa/diagnostic.h"
#include "sim/staged_output.h"
#include "tools/cli_common.h"

namespace nkisim::cli {

// What names a file for the identity checks: (device, inode) of an existing file (through symlinks), else the
// absolute, normalised spelling of a path that does not exist yet.
inline std::string file_identity(const std::string& path) {
  struct stat st {};
  if (::stat(path.c_str(), &st) == 0) return "#" + std::to_string(st.st_dev) + ":" + std::to_string(st.st_ino);
  std::error_code ec;
  std::filesystem::path p = std::filesystem::weakly_canonical(std::filesystem::absolute(path, ec), ec);
  return ec ? path : p.string();
}

// Collects a run's outputs (sim::StagedOutputs: each written to a temporary file beside it and renamed into
// place when the run has succeeded; a failed or interrupted run leaves no new or changed output and no
// temporary file behind) and refuses an output that is one of the run's inputs or another output.
class StagedFiles {
 public:
  // The run's input files (kernel source, --program, --inputs, nki-as/objdump input): no output may be one.
  void add_input(const std::string& path) { inputs_.push_back({file_identity(path), path}); }

  // Refuses (UsageError, exit 2) an output that is an input, or the same file as another output, and returns
  // the temporary path to write it to. Devices and pipes (/dev/null, /dev/stdout) are written directly, and
  // may be named by several outputs.
  std::string stage(const std::string& path, const std::string& option) {
    if (path.empty()) throw UsageError(option + " expects a file name, got ''");
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) return files_.stage(path);  // /dev/null, a pipe
    const std::string id = file_identity(path);
    for (auto& [in_id, in_path] : inputs_)
      if (in_id == id)
        throw UsageError(option + " " + path + " is the input file " + in_path + " (it would be overwritten)");
    for (auto& [out_id, out_option] : outputs_)
      if (out_id == id) throw UsageError(option + " " + path + " is also written by " + out_option);
    outputs_.push_back({id, option});
    return files_.stage(path);
  }

  // Renames every staged file into place.
  void commit() { files_.commit(); }

  // A folder the run created for its outputs (deepest first): removed again (when empty) unless the run commits.
  void created_dir(const std::string& path) { files_.created_dir(path); }

 private:
  std::vector<std::pair<std::string, std::string>> inputs_, outputs_;  // (identity, path or option)
  sim::StagedOutputs files_;
};

// Writes `text` to `path` (a staged temporary file) and fails with an error naming `shown` (the user's path).
inline void write_file(const std::string& path, const std::string& text, const std::string& shown) {
  errno = 0;
  std::ofstream f(path, std::ios::binary);
  if (!f || !f.write(text.data(), std::streamsize(text.size())) || !f.flush())
    throw Error(std::string("cannot write file") + (errno ? std::string(": ") + std::strerror(errno) : ""),
                SourceLoc{shown});
}

// A write past `ulimit -f` fails with EFBIG instead of killing the process (SIGXFSZ), so that the run's
// temporary files are removed; Ctrl-C, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE remove them before the process
// dies (sim::remove_staged_on_signals). Call at the start of main().
inline void ignore_file_size_signal() {
  std::signal(SIGXFSZ, SIG_IGN);
  sim::remove_staged_on_signals();
}

}  // namespace nkisim::cli
