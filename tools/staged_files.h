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

// Collects a run's outputs. stage(path) returns where to write `path` now: a new temporary file in the folder
// of the file `path` finally names (the target of a symlink the user put there). commit() moves every staged
// file into place when the run has succeeded; the destructor removes whatever was not committed, so a failed
// run (an error, a full disk, `ulimit -f`) leaves no new or changed output and no temporary file behind.
class StagedFiles {
 public:
  // The run's input files (kernel source, --program, --inputs, nki-as/objdump input): no output may be one.
  void add_input(const std::string& path) { inputs_.push_back({file_identity(path), path}); }

  // Refuses (UsageError, exit 2) an output that is an input, or the same file as another output, and returns
  // the temporary path to write it to.
  std::string stage(const std::string& path, const std::string& option) {
    const std::string id = file_identity(path);
    for (auto& [in_id, in_path] : inputs_)
      if (in_id == id)
        throw UsageError(option + " " + path + " is the input file " + in_path + " (it would be overwritten)");
    for (const Staged& s : staged_)
      if (s.id == id) throw UsageError(option + " " + path + " is also written by " + s.option);
    Staged s{path, final_target(path), "", id, option};
    const std::filesystem::path dest(s.target);
    s.temp = (dest.parent_path() / ("." + dest.filename().string() + ".tmp" + std::to_string(::getpid()) + "-" +
                                    std::to_string(staged_.size())))
                 .string();
    ::unlink(s.temp.c_str());
    staged_.push_back(s);
    return s.temp;
  }

  // Renames every staged file into place. A file with other hard links is rewritten in place instead (its
  // links keep seeing the new contents, as before).
  void commit() {
    for (Staged& s : staged_) {
      struct stat st {};
      if (::stat(s.target.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1) {
        copy_into(s.temp, s.target);
        ::unlink(s.temp.c_str());
      } else if (::rename(s.temp.c_str(), s.target.c_str()) != 0) {
        throw Error(std::string("cannot write file: ") + std::strerror(errno), SourceLoc{s.path});
      }
      s.temp.clear();
    }
    committed_ = true;
  }

  // A folder the run created for its outputs (deepest first): removed again (when empty) unless the run commits.
  void created_dir(const std::string& path) { dirs_.push_back(path); }

  ~StagedFiles() {
    for (const Staged& s : staged_)
      if (!s.temp.empty()) ::unlink(s.temp.c_str());
    if (!committed_)
      for (const std::string& dir : dirs_) ::rmdir(dir.c_str());  // deepest first
  }

 private:
  struct Staged {
    std::string path, target, temp, id, option;
  };
  // The file a write to `path` lands in: through symlinks (a dangling one too) to the file they name.
  static std::string final_target(const std::string& path) {
    std::filesystem::path p(path);
    for (int hops = 0; hops < 40; ++hops) {
      std::error_code ec;
      if (!std::filesystem::is_symlink(p, ec)) break;
      std::filesystem::path to = std::filesystem::read_symlink(p, ec);
      if (ec) break;
      p = to.is_absolute() ? to : p.parent_path() / to;
    }
    return p.string();
  }
  static void copy_into(const std::string& from, const std::string& to) {
    std::ifstream in(from, std::ios::binary);
    std::ofstream out(to, std::ios::binary | std::ios::trunc);
    if (!in || !out || !(out << in.rdbuf()) || !out.flush()) throw Error("cannot write file", SourceLoc{to});
  }
  std::vector<std::pair<std::string, std::string>> inputs_;
  std::vector<Staged> staged_;
  std::vector<std::string> dirs_;
  bool committed_ = false;
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
// temporary files are removed. Call at the start of main().
inline void ignore_file_size_signal() { std::signal(SIGXFSZ, SIG_IGN); }

}  // namespace nkisim::cli
