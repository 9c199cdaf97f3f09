// staged_output.h - output files written to a temporary file beside them and renamed into place only when the
// whole run succeeded (DESIGN.md item 11, docs/hardening.md "Output files"); shared by the command-line tools
// (tools/staged_files.h adds their input checks) and the Python package. Header-only: nki-as and nki-objdump
// link only nkisim_isa.
//
// The temporary files and created folders of every live StagedOutputs are also kept in a fixed table that a
// signal handler can read without allocating: remove_staged_on_signals() makes SIGINT, SIGTERM, SIGHUP, SIGQUIT
// and SIGPIPE remove them before the process dies of the signal. A signal that arrives while commit() renames
// files is held until the renames are done (then the outputs are complete), so an interrupted run leaves
// either every output or none.
#pragma once
#include <sched.h>
#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <memory>
#include <string>
#include <vector>

#include "isa/diagnostic.h"

namespace nkisim::sim {

namespace staged_detail {
// Slots of NUL-terminated paths owned by live StagedOutputs (nullptr: free). More outputs than slots still
// work; only their signal cleanup is lost.
constexpr int kSlots = 256;
inline std::atomic<const char*> g_files[kSlots];
inline std::atomic<const char*> g_dirs[kSlots];
inline std::atomic<int> g_cleaning{0};    // a handler is removing the files (the process is about to die)
inline std::atomic<int> g_committing{0};  // commits renaming files now
inline std::atomic<int> g_deferred{0};    // a signal that arrived during a commit, raised when it ends
inline std::atomic<unsigned long> g_counter{0};  // numbers the temporary files of the process

// Waits while a handler runs (it either ends the process or, finding a commit, returns at once). Called after
// publishing or withdrawing a path, so that a handler never reads a path its owner has freed (both sides use
// sequentially consistent atomics: the handler sets g_cleaning, then reads the slots).
inline void wait_for_handler() {
  while (g_cleaning.load()) sched_yield();
}
inline int publish(std::atomic<const char*>* slots, const char* path) {
  for (int i = 0; i < kSlots; ++i) {
    const char* none = nullptr;
    if (slots[i].compare_exchange_strong(none, path)) {
      wait_for_handler();
      return i;
    }
  }
  return -1;
}
inline void withdraw(std::atomic<const char*>* slots, int& slot) {
  if (slot < 0) return;
  slots[slot].store(nullptr);
  slot = -1;
  wait_for_handler();
}

inline void on_signal(int sig) {
  const int saved = errno;
  g_cleaning.store(1);
  if (g_committing.load() > 0) {  // outputs are being moved into place: let that finish, then die
    g_deferred.store(sig);
    g_cleaning.store(0);
    errno = saved;
    return;
  }
  for (auto& s : g_files)
    if (const char* p = s.load()) ::unlink(p);
  for (auto& s : g_dirs)  // published deepest first
    if (const char* p = s.load()) ::rmdir(p);
  ::signal(sig, SIG_DFL);
  ::raise(sig);  // delivered when the handler returns: the process ends as the signal intended
  errno = saved;
}
}  // namespace staged_detail

// Installs the cleanup handler for SIGINT, SIGTERM, SIGHUP, SIGQUIT and SIGPIPE (a signal the process
// ignores, e.g. SIGHUP under nohup, stays ignored). For programs that own their signals (the CLI tools), not
// for a library loaded into another process (the Python package leaves SIGINT to Python).
inline void remove_staged_on_signals() {
  for (int sig : {SIGINT, SIGTERM, SIGHUP, SIGQUIT, SIGPIPE}) {
    struct sigaction old {};
    if (::sigaction(sig, nullptr, &old) == 0 && old.sa_handler == SIG_IGN) continue;
    struct sigaction sa {};
    sa.sa_handler = staged_detail::on_signal;
    sigemptyset(&sa.sa_mask);
    ::sigaction(sig, &sa, nullptr);
  }
}

// A run's output files. stage(path) returns where to write `path` now: a new temporary file in the folder of
// the file `path` finally names (the target of a symlink the user put there); `path` itself when it is a
// device, FIFO or socket; an Error when it is a directory. commit() moves every staged file
// into place when the run has succeeded; the destructor removes whatever was not committed, so a failed run
// (an error, a full disk, `ulimit -f`, an exception from Python) leaves no new or changed output and no
// temporary file behind.
class StagedOutputs {
 public:
  StagedOutputs() = default;
  StagedOutputs(const StagedOutputs&) = delete;
  StagedOutputs& operator=(const StagedOutputs&) = delete;

  std::string stage(const std::string& path) {
    if (path.empty()) throw Error("cannot write file: the file name is empty");
    auto s = std::make_unique<Staged>();
    s->path = path;
    struct stat st {};
    if (::stat(path.c_str(), &st) == 0 && !S_ISREG(st.st_mode)) {
      if (S_ISDIR(st.st_mode)) throw Error("cannot write file: Is a directory", SourceLoc{path});
      // A device, FIFO or socket (/dev/null, /dev/stdout, a pipe): written directly, as a shell redirection
      // would. Nothing to stage or take back, and renaming a file over it would replace the device node.
      s->temp = path;
      s->direct = true;
      staged_.push_back(std::move(s));
      return path;
    }
    s->target = final_target(path);
    const std::filesystem::path dest(s->target);
    std::string name = dest.filename().string();
    if (name.size() > 200) name.resize(200);  // the temporary name stays within NAME_MAX (255) bytes
    s->temp = (dest.parent_path() / ("." + name + ".tmp" + std::to_string(::getpid()) + "-" +
                                     std::to_string(staged_detail::g_counter.fetch_add(1))))
                  .string();
    ::unlink(s->temp.c_str());
    s->slot = staged_detail::publish(staged_detail::g_files, s->temp.c_str());
    staged_.push_back(std::move(s));
    return staged_.back()->temp;
  }

  // A folder the run created for its outputs (call deepest first): removed again (when empty) unless the run
  // commits.
  void created_dir(const std::string& path) {
    auto d = std::make_unique<Dir>();
    d->path = path;
    d->slot = staged_detail::publish(staged_detail::g_dirs, d->path.c_str());
    dirs_.push_back(std::move(d));
  }

  // Renames every staged file into place. A file with other hard links is rewritten in place instead (its
  // links keep seeing the new contents, as before).
  void commit() {
    using namespace staged_detail;
    g_committing.fetch_add(1);
    wait_for_handler();
    struct Done {  // raises a signal that arrived meanwhile, once no commit is running
      ~Done() {
        if (g_committing.fetch_sub(1) == 1)
          if (const int sig = g_deferred.exchange(0)) ::raise(sig);
      }
    } done;
    for (auto& s : staged_) {
      if (s->committed || s->direct) continue;
      struct stat st {};
      if (::stat(s->target.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink > 1) {
        copy_into(s->temp, s->target);
        ::unlink(s->temp.c_str());
      } else if (::rename(s->temp.c_str(), s->target.c_str()) != 0) {
        throw Error(std::string("cannot write file: ") + std::strerror(errno), SourceLoc{s->path});
      }
      s->committed = true;
      withdraw(g_files, s->slot);
    }
    for (auto& d : dirs_) withdraw(g_dirs, d->slot);
    committed_ = true;
  }

  ~StagedOutputs() {
    for (auto& s : staged_) {
      if (!s->committed && !s->direct) ::unlink(s->temp.c_str());
      staged_detail::withdraw(staged_detail::g_files, s->slot);
    }
    for (auto& d : dirs_) {
      if (!committed_) ::rmdir(d->path.c_str());  // deepest first
      staged_detail::withdraw(staged_detail::g_dirs, d->slot);
    }
  }

 private:
  struct Staged {
    std::string path, target, temp;
    int slot = -1;
    bool committed = false, direct = false;  // direct: not a regular file, written in place
  };
  struct Dir {
    std::string path;
    int slot = -1;
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
  std::vector<std::unique_ptr<Staged>> staged_;  // pointers: the published paths never move
  std::vector<std::unique_ptr<Dir>> dirs_;
  bool committed_ = false;
};

}  // namespace nkisim::sim
