// file_test_util.h - helpers for tests that write files: a temporary directory removed at scope exit, and
// the message of the nkisim::Error a call throws.
#pragma once
#include <unistd.h>

#include <filesystem>
#include <functional>
#include <string>
#include <system_error>

#include "isa/diagnostic.h"

namespace filetest {

struct TempDir {
  std::filesystem::path path;
  explicit TempDir(const std::string& prefix = "nkisim_test_") {
    static int counter = 0;
    path = std::filesystem::temp_directory_path() /
           (prefix + std::to_string(::getpid()) + "_" + std::to_string(counter++));
    std::filesystem::create_directories(path);
  }
  ~TempDir() {
    std::error_code ec;
    std::filesystem::remove_all(path, ec);
  }
  TempDir(const TempDir&) = delete;
  TempDir& operator=(const TempDir&) = delete;
  std::string operator/(const std::string& name) const { return (path / name).string(); }
};

// The what() of the nkisim::Error f throws, or "<no error>".
inline std::string error_of(const std::function<void()>& f) {
  try {
    f();
  } catch (const nkisim::Error& e) {
    return e.what();
  }
  return "<no error>";
}

}  // namespace filetest
