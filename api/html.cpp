// html.cpp - Run::write_html: the --html page of a one- or two-core run, with the kernel's source lines.
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>

#include "api/run.h"
#include "sim/html_timeline.h"

namespace nkisim::api {
namespace {

// Lines of the source files named by the programs' locations, read once each; a file that is not a regular file
// of at most 64 MiB (the front end's limit for kernel sources) gives no text.
class SourceFiles {
 public:
  std::string line(const std::string& file, uint32_t n) {
    auto it = files_.find(file);
    if (it == files_.end()) it = files_.emplace(file, read(file)).first;
    const std::vector<std::string>& lines = it->second;
    return n >= 1 && n <= lines.size() ? lines[n - 1] : std::string();
  }

 private:
  static std::vector<std::string> read(const std::string& file) {
    std::vector<std::string> lines;
    std::error_code ec;
    if (!std::filesystem::is_regular_file(file, ec) || std::filesystem::file_size(file, ec) > (64u << 20) || ec)
      return lines;
    std::ifstream f(file, std::ios::binary);
    std::string l;
    while (std::getline(f, l)) {
      if (!l.empty() && l.back() == '\r') l.pop_back();
      lines.push_back(std::move(l));
    }
    return lines;
  }
  std::map<std::string, std::vector<std::string>> files_;
};

}  // namespace

void Run::write_html(std::span<const isa::Program> programs, const isa::TargetDesc& t, const std::string& title,
                     bool read_sources, std::ostream& os) const {
  std::vector<const sim::Result*> cores;
  for (const sim::Result& c : result.cores) cores.push_back(&c);
  SourceFiles files;
  sim::SourceLineFn source;
  if (read_sources) source = [&](const std::string& file, uint32_t line) { return files.line(file, line); };
  sim::write_html_timeline(programs, cores, t, title, source, os);
}

}  // namespace nkisim::api
