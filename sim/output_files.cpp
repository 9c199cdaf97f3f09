// output_files.cpp - outputs written in place into their files (sim/output_files.h).
#include "sim/output_files.h"

#include <cerrno>
#include <cstring>

#include <sys/mman.h>
#include <unistd.h>

namespace nkisim::sim {
namespace {

constexpr uint64_t kPage = 4096;
constexpr uint64_t kMinBytes = uint64_t(1) << 20;  // smaller outputs: writing them after the run is as cheap

bool write_all(int fd, const uint8_t* p, size_t n, uint64_t offset) {
  while (n) {
    const ssize_t w = ::pwrite(fd, p, n, off_t(offset));
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) return false;
    p += w, n -= size_t(w), offset += uint64_t(w);
  }
  return true;
}

// The whole pages of output `f`'s data in host memory: [a, b) (empty when the output spans none).
std::pair<uintptr_t, uintptr_t> inner_pages(MemorySpace& hbm, const isa::HbmTensor& t) {
  const uintptr_t d = reinterpret_cast<uintptr_t>(hbm.ptr(0, t.address));
  return {(d + kPage - 1) & ~(kPage - 1), (d + t.bytes) & ~(kPage - 1)};
}

}  // namespace

std::vector<OutputFileMap> open_output_files(const isa::Program& p, const Options& opts) {
  std::vector<OutputFileMap> files;
  if (!opts.output_file || !opts.outputs_in_place || opts.timing_only) return files;
  std::vector<size_t> outs;
  for (size_t i = 0; i < p.hbm_tensors.size(); ++i)
    if (p.hbm_tensors[i].output_index >= 0) outs.push_back(i);
  std::stable_sort(outs.begin(), outs.end(), [&](size_t a, size_t b) {
    return p.hbm_tensors[a].output_index < p.hbm_tensors[b].output_index;
  });
  for (size_t k = 0; k < outs.size(); ++k) {
    const isa::HbmTensor& t = p.hbm_tensors[outs[k]];
    if (t.bytes < kMinBytes || t.kind == isa::HbmTensor::Kind::Input || !t.init.empty()) continue;
    bool overlaps_input = false;  // an input's bytes are bound into HBM (maybe mapped from its own file)
    for (const isa::HbmTensor& u : p.hbm_tensors)
      if (u.kind == isa::HbmTensor::Kind::Input && u.address < t.address + t.bytes && t.address < u.address + u.bytes)
        overlaps_input = true;
    if (overlaps_input) continue;
    const OutputFile f = opts.output_file(k, t.dtype, t.shape);
    if (f.fd >= 0 && (f.offset - t.address) % kPage % 64 == 0) files.push_back({outs[k], k, f});
  }
  return files;
}

uint64_t output_host_offset(const isa::Program& p, const OutputFileMap& f) {
  return (f.file.offset - p.hbm_tensors[f.tensor].address) % kPage;
}

void map_output_files(MemorySpace& hbm, const isa::Program& p, std::vector<OutputFileMap>& files) {
  std::vector<OutputFileMap> mapped;
  for (const OutputFileMap& f : files) {
    const isa::HbmTensor& t = p.hbm_tensors[f.tensor];
    const uintptr_t d = reinterpret_cast<uintptr_t>(hbm.ptr(0, t.address));
    if ((d - f.file.offset) % kPage) continue;  // not congruent with this layout: written after the run
    const auto [a, b] = inner_pages(hbm, t);
    if (a < b) {
      void* m = mmap(reinterpret_cast<void*>(a), b - a, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_FIXED, f.file.fd,
                     off_t(f.file.offset + (a - d)));
      if (m == MAP_FAILED) throw Error(std::string("cannot map an output file: ") + std::strerror(errno));
    }
    mapped.push_back(f);
  }
  files = std::move(mapped);
}

void finish_output_files(MemorySpace& hbm, const isa::Program& p, const std::vector<OutputFileMap>& files,
                         std::vector<HostArray>& outputs) {
  for (const OutputFileMap& f : files) {
    const isa::HbmTensor& t = p.hbm_tensors[f.tensor];
    const uint8_t* d = hbm.ptr(0, t.address);
    auto [a, b] = inner_pages(hbm, t);
    if (a >= b) a = b = reinterpret_cast<uintptr_t>(d) + t.bytes;  // no whole page: all of it is written here
    const size_t head = a - reinterpret_cast<uintptr_t>(d), tail = reinterpret_cast<uintptr_t>(d) + t.bytes - b;
    if (write_all(f.file.fd, d, head, f.file.offset) &&
        write_all(f.file.fd, reinterpret_cast<const uint8_t*>(b), tail, f.file.offset + (t.bytes - tail)))
      outputs[f.output].in_file = true;
  }
}

}  // namespace nkisim::sim
