// test_io_paths.cpp - the large-array paths of issue #5: inputs read from .npy straight into simulated HBM
// (HostArray::source), outputs that alias simulated HBM (Options::outputs_in_place), and dma_copy into a
// dense HBM range skipping the sentinel fill of chunks it overwrites (the sentinel stays exact elsewhere),
// and the huge-page policy (which may populate memory but never changes a byte's value or validity).
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "isa/diagnostic.h"
#include "sim/memory.h"
#include "sim/npy.h"
#include "file_test_util.h"
#include "sim_test_util.h"

using namespace simtest;
using nkisim::sim::HostArray;
namespace fs = std::filesystem;

namespace {

using filetest::error_of;
struct TempDir : filetest::TempDir {
  TempDir() : filetest::TempDir("nkisim_io_") {}
};


std::string file_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A hand-made version 1.0 .npy file.
void write_npy_bytes(const std::string& path, const std::string& header, const std::string& data) {
  std::string s("\x93NUMPY\x01\x00", 8);
  s += char(header.size() & 0xFF);
  s += char(header.size() >> 8);
  std::ofstream(path, std::ios::binary) << s << header << data;
}

// A program y = x for x: [128, F] fp32 in HBM, through one SBUF tile (load, then store after it).
void copy_through_sbuf(Pipeline& pl, uint32_t F) {
  const AccessPattern tile = pl.load("x", DType::float32, 128, F, 0);
  pl.store("y", tile);
  for (auto& [t, id] : pl.stores) {
    auto& ins = pl.b.add(Engine::Sync, make(Opcode::dma_copy, {pl.b.whole(id), t}));
    ins.waits.push_back({0, 1});
  }
  pl.stores.clear();
}

uint32_t bits_of(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  return b;
}

}  // namespace

TEST_CASE("to_host_array(open_npy(...)) reads the same bytes as to_host_array(read_npy(...)), later") {
  TempDir dir;
  // 70,000 float32 values (more than one conversion block), with specials.
  std::vector<float> v = ramp(70000, -3.0f, 0.000123f);
  v[5] = std::nanf("");
  v[6] = -0.0f;
  v[7] = 1e-40f;
  v[8] = 3.0e38f;
  nkisim::sim::write_npy(dir / "f4.npy", f32_array({70, 1000}, v));
  for (std::optional<DType> dt : {std::optional<DType>(), std::optional<DType>(DType::float32),
                                  std::optional<DType>(DType::bfloat16), std::optional<DType>(DType::float16),
                                  std::optional<DType>(DType::float8_e4m3), std::optional<DType>(DType::int32)}) {
    CAPTURE(dt ? std::string(nkisim::isa::dtype_name(*dt)) : std::string("none"));
    const HostArray eager = nkisim::sim::to_host_array(nkisim::sim::read_npy(dir / "f4.npy"), dt);
    const HostArray lazy = nkisim::sim::to_host_array(nkisim::sim::open_npy(dir / "f4.npy"), dt);
    CHECK(lazy.data.empty());
    REQUIRE(lazy.source);
    CHECK(lazy.dtype == eager.dtype);
    CHECK(lazy.shape == eager.shape);
    CHECK(lazy.byte_size() == eager.data.size());
    CHECK(lazy.materialize() == eager.data);
  }
  // Big-endian int16 data, converted to float32 and taken as is (swapped to little-endian).
  write_npy_bytes(dir / "be.npy", "{'descr': '>i2', 'fortran_order': False, 'shape': (3,), }      \n",
                  std::string("\x01\x02\xff\xfe\x80\x00", 6));
  const HostArray be = nkisim::sim::to_host_array(nkisim::sim::open_npy(dir / "be.npy"), std::nullopt);
  CHECK(be.dtype == DType::int16);
  CHECK(be.materialize() == std::vector<uint8_t>{0x02, 0x01, 0xfe, 0xff, 0x00, 0x80});
  const HostArray bef = nkisim::sim::to_host_array(nkisim::sim::open_npy(dir / "be.npy"), DType::float32);
  std::vector<uint8_t> want(12);
  const float expect[3] = {258.0f, -2.0f, -32768.0f};
  std::memcpy(want.data(), expect, 12);
  CHECK(bef.materialize() == want);

  // The header errors are open_npy's (with the path), the dtype errors to_host_array's (without).
  write_npy_bytes(dir / "f8.npy", "{'descr': '<f8', 'fortran_order': False, 'shape': (1,), }       \n",
                  std::string(8, '\0'));
  CHECK(error_of([&] { nkisim::sim::to_host_array(nkisim::sim::open_npy(dir / "f8.npy"), std::nullopt); }) ==
        "dtype float64 is not an NKI dtype; convert it with FILE:float32 (or FILE:DTYPE)");
  write_npy_bytes(dir / "short.npy", "{'descr': '<f4', 'fortran_order': False, 'shape': (4,), }       \n",
                  std::string(8, '\0'));
  CHECK(error_of([&] { nkisim::sim::open_npy(dir / "short.npy"); }) ==
        dir / "short.npy" + ": truncated data: expected 16 bytes, found 8");
  const std::string missing = dir / "missing.npy";
  CHECK(error_of([&] { nkisim::sim::open_npy(missing); }) == missing + ": cannot open: No such file or directory");
  // The file shrinks after its header was checked: reading the data is a located error, not a crash.
  const HostArray late = nkisim::sim::to_host_array(nkisim::sim::open_npy(dir / "f4.npy"), std::nullopt);
  fs::resize_file(dir / "f4.npy", 1000);
  CHECK(error_of([&] { late.materialize(); }) == dir / "f4.npy" + ": cannot read: unexpected end of file");
}

TEST_CASE("write_npy writes a view or a lazily read source byte for byte like owned data") {
  TempDir dir;
  const HostArray owned = f32_array({2, 3}, {1.5f, -2.0f, 0.0f, 1e-30f, 7.0f, -0.0f});
  nkisim::sim::write_npy(dir / "owned.npy", owned);
  HostArray view;
  view.dtype = DType::float32;
  view.shape = {2, 3};
  view.view = owned.data.data();
  view.view_size = owned.data.size();
  nkisim::sim::write_npy(dir / "view.npy", view);
  CHECK(file_bytes(dir / "view.npy") == file_bytes(dir / "owned.npy"));
  const HostArray src = nkisim::sim::to_host_array(nkisim::sim::open_npy(dir / "owned.npy"), std::nullopt);
  nkisim::sim::write_npy(dir / "source.npy", src);
  CHECK(file_bytes(dir / "source.npy") == file_bytes(dir / "owned.npy"));
  // bfloat16 from a view is widened to float32 as from owned data.
  const HostArray bf = raw_array<uint16_t>(DType::bfloat16, {3}, {0x3fc0, 0xbf80, 0x7fc0});
  HostArray bfv = bf;
  bfv.data.clear();
  bfv.view = bf.data.data();
  bfv.view_size = bf.data.size();
  nkisim::sim::write_npy(dir / "bf.npy", bf);
  nkisim::sim::write_npy(dir / "bfv.npy", bfv);
  CHECK(file_bytes(dir / "bfv.npy") == file_bytes(dir / "bf.npy"));
}

TEST_CASE("simulate: lazily read inputs and outputs_in_place give the same outputs as copies") {
  TempDir dir;
  const std::vector<float> v = ramp(128 * 96, -5.0f, 0.01f);
  nkisim::sim::write_npy(dir / "x.npy", f32_array({128, 96}, v));
  Pipeline pl;
  copy_through_sbuf(pl, 96);
  const std::vector<HostArray> eager{f32_array({128, 96}, v)};
  const std::vector<HostArray> lazy{nkisim::sim::to_host_array(nkisim::sim::open_npy(dir / "x.npy"), std::nullopt)};
  const nkisim::sim::Result copied = nkisim::sim::simulate(pl.b.p, eager);
  nkisim::sim::Options opts;
  opts.outputs_in_place = true;
  nkisim::sim::Result aliased = nkisim::sim::simulate(pl.b.p, lazy, opts);
  REQUIRE(copied.outputs.size() == 1);
  REQUIRE(aliased.outputs.size() == 1);
  CHECK(values<float>(copied.outputs[0]) == v);
  CHECK(aliased.outputs[0].data.empty());
  CHECK(aliased.outputs[0].view != nullptr);
  // The view outlives the run (its owner keeps the simulated HBM mapped), also when the Result is moved.
  const HostArray out = std::move(aliased.outputs[0]);
  aliased = nkisim::sim::Result{};
  CHECK(out.materialize() == copied.outputs[0].data);
  CHECK(copied.total_ns == doctest::Approx(nkisim::sim::simulate(pl.b.p, lazy).total_ns));
}

TEST_CASE("dma_copy into a dense HBM range: unwritten bytes still read as the 0xFF sentinel") {
  // Output [4, 2048] fp32 = 32 KiB (8 host chunks of 4 KiB). The kernel writes row 1 from element 100 on
  // and all of row 2 (one contiguous byte range: chunk-interior chunks skip the fill, the partly covered
  // first and last chunks are filled), and copies HBM->HBM inside the output from bytes nobody wrote.
  Builder b;
  const size_t x = b.input("x", DType::float32, {4, 2048});
  const size_t y = b.output("y", DType::float32, {4, 2048});
  const int64_t ya = int64_t(b.p.hbm_tensors[y].address), xa = int64_t(b.p.hbm_tensors[x].address);
  // x[1, 100:] ++ x[2, :] (3996 elements) -> SBUF partition 0 -> y[1, 100:] ++ y[2, :]
  const uint32_t n = 2048 - 100 + 2048;
  const AccessPattern tile = sbuf(DType::float32, 0, 1, 0, n);
  auto& load = b.add(Engine::Sync, make(Opcode::dma_copy, {tile, hbm(DType::float32, xa + (2048 + 100) * 4, 0, 1, {{1, n}})}));
  load.updates.push_back({0, 1});
  auto& store = b.add(Engine::Sync, make(Opcode::dma_copy, {hbm(DType::float32, ya + (2048 + 100) * 4, 0, 1, {{1, n}}), tile}));
  store.waits.push_back({0, 1});
  store.updates.push_back({1, 1});
  // y[3, 1024:2048] <- y[3, 0:1024] (never written: the sentinel is copied)
  auto& h2h = b.add(Engine::Sync, make(Opcode::dma_copy, {hbm(DType::float32, ya + (3 * 2048 + 1024) * 4, 0, 1, {{1, 1024}}),
                                                         hbm(DType::float32, ya + 3 * 2048 * 4, 0, 1, {{1, 1024}})}));
  h2h.waits.push_back({1, 1});
  // y[0, 0:1024] <- y[0, 512:1536] (overlapping src and dst, nothing written there yet)
  auto& ovl = b.add(Engine::Sync, make(Opcode::dma_copy, {hbm(DType::float32, ya, 0, 1, {{1, 1024}}),
                                                         hbm(DType::float32, ya + 512 * 4, 0, 1, {{1, 1024}})}));
  ovl.waits.push_back({1, 1});

  const std::vector<float> xv = ramp(4 * 2048, 1.0f, 0.5f);
  for (bool in_place : {false, true}) {
    CAPTURE(in_place);
    nkisim::sim::Options opts;
    opts.outputs_in_place = in_place;
    const std::vector<HostArray> inputs{f32_array({4, 2048}, xv)};
    const nkisim::sim::Result r = nkisim::sim::simulate(b.p, inputs, opts);
    REQUIRE(r.outputs.size() == 1);
    const std::vector<uint8_t> bytes = r.outputs[0].materialize();
    REQUIRE(bytes.size() == 4 * 2048 * 4);
    std::vector<float> out(4 * 2048);
    std::memcpy(out.data(), bytes.data(), bytes.size());
    size_t written = 0, sentinel = 0, wrong = 0;
    for (size_t k = 0; k < out.size(); ++k) {
      const bool w = k >= 2048 + 100 && k < 3 * 2048;
      if (w) written += bits_of(out[k]) == bits_of(xv[k]);
      else sentinel += bits_of(out[k]) == 0xFFFFFFFFu;
      if (w ? bits_of(out[k]) != bits_of(xv[k]) : bits_of(out[k]) != 0xFFFFFFFFu) ++wrong;
    }
    CHECK(written == n);
    CHECK(sentinel == out.size() - n);
    CHECK(wrong == 0);
  }
}

TEST_CASE("dma_copy into a dense SBUF range: the rest of the partitions still reads as the sentinel") {
  // x[:, 0:1000] -> SBUF partitions 1..4, bytes [400, 4400) (chunk 0 partly, chunk 1 partly: both filled
  // first); then all 2048 elements of those partitions -> y.
  Builder b;
  const size_t x = b.input("x", DType::float32, {4, 2048});
  const size_t y = b.output("y", DType::float32, {4, 2048});
  const int64_t xa = int64_t(b.p.hbm_tensors[x].address);
  auto& load = b.add(Engine::Sync, make(Opcode::dma_copy, {sbuf(DType::float32, 1, 4, 400, 1000),
                                                          hbm(DType::float32, xa, 2048, 4, {{1, 1000}})}));
  load.updates.push_back({0, 1});
  // A second load into bytes [8192, 16384) of partitions 1..4: whole chunks, no fill at all.
  auto& load2 = b.add(Engine::Sync, make(Opcode::dma_copy, {sbuf(DType::float32, 1, 4, 8192, 2048),
                                                           hbm(DType::float32, xa, 2048, 4, {{1, 2048}})}));
  load2.updates.push_back({0, 1});
  auto& store = b.add(Engine::Sync, make(Opcode::dma_copy, {b.whole(y), sbuf(DType::float32, 1, 4, 0, 2048)}));
  store.waits.push_back({0, 2});
  const std::vector<float> xv = ramp(4 * 2048, -7.0f, 0.25f);
  const std::vector<HostArray> inputs{f32_array({4, 2048}, xv)};
  const nkisim::sim::Result r = nkisim::sim::simulate(b.p, inputs);
  const std::vector<float> out = values<float>(r.outputs[0]);
  REQUIRE(out.size() == 4 * 2048);
  size_t ok = 0;
  for (size_t p = 0; p < 4; ++p)
    for (size_t k = 0; k < 2048; ++k) {
      const bool w = k >= 100 && k < 1100;
      ok += bits_of(out[p * 2048 + k]) == (w ? bits_of(xv[p * 2048 + k - 100]) : 0xFFFFFFFFu);
    }
  CHECK(ok == 4 * 2048);
}

TEST_CASE("huge pages and up-front faulting change no byte: NKISIM_HUGEPAGES unset, 0, 1, auto") {
  // [128, 8192] fp32 in and out: 4 MiB tensors (advised, populated), copied through SBUF at 32 KiB per
  // partition (past 1/8 of a partition: SBUF is advised and populated up front too).
  const std::vector<float> v = ramp(128 * 8192, -7.0f, 0.001f);
  Pipeline pl;
  copy_through_sbuf(pl, 8192);
  const char* old = std::getenv("NKISIM_HUGEPAGES");
  const std::string saved = old ? old : "";
  for (const char* mode : {"", "0", "1", "auto"}) {
    CAPTURE(mode);
    if (*mode) setenv("NKISIM_HUGEPAGES", mode, 1);
    else unsetenv("NKISIM_HUGEPAGES");
    const nkisim::sim::Result r = nkisim::sim::simulate(pl.b.p, std::vector<HostArray>{f32_array({128, 8192}, v)});
    REQUIRE(r.outputs.size() == 1);
    CHECK(values<float>(r.outputs[0]) == v);
  }
  if (old) setenv("NKISIM_HUGEPAGES", saved.c_str(), 1);
  else unsetenv("NKISIM_HUGEPAGES");
}

// THPeligible of the mapping holding `addr` in /proc/self/smaps (1: the kernel may back it with huge pages), -1
// when the kernel does not say.
int thp_eligible(const void* addr) {
  std::ifstream f("/proc/self/smaps");
  const auto a = reinterpret_cast<uintptr_t>(addr);
  bool inside = false;
  for (std::string line; std::getline(f, line);) {
    unsigned long lo = 0, hi = 0;
    if (std::sscanf(line.c_str(), "%lx-%lx ", &lo, &hi) == 2)  // a mapping's first line; fields are "Name: ..."
      inside = a >= lo && a < hi;
    else if (inside && line.rfind("THPeligible:", 0) == 0)
      return std::atoi(line.c_str() + 12);
  }
  return -1;
}

TEST_CASE("Options::huge_pages: Always advises the run's memories (the Python package's setting), Off does not") {
  const char* old = std::getenv("NKISIM_HUGEPAGES");
  const std::string saved = old ? old : "";
  unsetenv("NKISIM_HUGEPAGES");
  std::ifstream sys("/sys/kernel/mm/transparent_hugepage/enabled");
  std::string thp;
  std::getline(sys, thp);
  const std::vector<float> v = ramp(128 * 8192, -3.0f, 0.002f);
  Pipeline pl;
  copy_through_sbuf(pl, 8192);
  for (auto mode : {nkisim::sim::HugePages::Off, nkisim::sim::HugePages::Always, nkisim::sim::HugePages::Auto}) {
    CAPTURE(int(mode));
    nkisim::sim::Options o;
    o.huge_pages = mode;
    o.outputs_in_place = true;  // the output stays in the run's HBM, so its mapping can be inspected
    const nkisim::sim::Result r = nkisim::sim::simulate(pl.b.p, std::vector<HostArray>{f32_array({128, 8192}, v)}, o);
    REQUIRE(r.outputs.size() == 1);
    REQUIRE(r.outputs[0].view != nullptr);
    CHECK(values<float>(r.outputs[0]) == v);
    // Only where the machine leaves the choice to the program ("[madvise]") does the advice show; Auto may take
    // it back when the pages prove cold, so only Off and Always are checked.
    if (thp.find("[madvise]") != std::string::npos && mode != nkisim::sim::HugePages::Auto) {
      const int e = thp_eligible(r.outputs[0].view);
      if (e >= 0) CHECK(e == (mode == nkisim::sim::HugePages::Off ? 0 : 1));
    }
  }
  if (old) setenv("NKISIM_HUGEPAGES", saved.c_str(), 1);
}

TEST_CASE("MemorySpace::populate / populate_huge: each whole huge page once, stops when told; bytes keep their state") {
  nkisim::sim::MemorySpace m;
  m.init(1, uint64_t(9) << 20);  // 9 MiB: 3 or 4 whole huge pages, wherever the mapping starts
  m.advise_huge(0, 1, 0, m.partition_bytes());
  int calls = 0;
  CHECK(m.populate_huge(0, 1, 0, m.partition_bytes(), [&](double s) {
    CHECK(s >= 0.0);
    ++calls;
    return true;
  }));
  CHECK((calls == 3 || calls == 4));
  calls = 0;
  CHECK(!m.populate_huge(0, 1, 0, m.partition_bytes(), [&](double) { return ++calls < 2; }));
  CHECK(calls == 2);
  calls = 0;
  CHECK(m.populate_huge(0, 1, 100, 200, [&](double) { return ++calls, true; }));  // no whole huge page
  CHECK(calls == 0);
  m.advise_huge(0, 1, 0, m.partition_bytes(), false);
  // Populated memory is still "never written": prepare() fills it with the sentinel.
  m.prepare(0, 1, 4096, 8192);
  CHECK(m.ptr(0, 4096)[0] == nkisim::sim::kSentinelByte);
  CHECK(m.ptr(0, 8191)[0] == nkisim::sim::kSentinelByte);
  // The same for one partition of an on-chip space (and a partition out of range is ignored).
  nkisim::sim::MemorySpace sb;
  sb.init(4, 64 << 10);
  sb.populate(2, 0, 32 << 10);
  sb.populate(7, 0, 32 << 10);
  sb.prepare(2, 1, 0, 4096);
  CHECK(sb.ptr(2, 0)[0] == nkisim::sim::kSentinelByte);
  CHECK(sb.ptr(2, 4095)[0] == nkisim::sim::kSentinelByte);
}

TEST_CASE("ByteSource::map_into maps a .npy file's data copy-on-write where the page offsets agree, else declines") {
  TempDir dir;
  const std::vector<float> v = ramp(128 * 2048, -3.0f, 0.25f);  // 1 MiB
  nkisim::sim::write_npy(dir / "x.npy", f32_array({128, 2048}, v));
  const std::string before = file_bytes(dir / "x.npy");
  const HostArray a = nkisim::sim::to_host_array(nkisim::sim::open_npy(dir / "x.npy"), std::nullopt);
  REQUIRE(a.source);
  const int64_t off = a.source->file_offset();
  REQUIRE(off > 0);
  CHECK(off % 64 == 0);
  // A converted input (float32 -> bfloat16) cannot be mapped.
  CHECK(nkisim::sim::to_host_array(nkisim::sim::open_npy(dir / "x.npy"), DType::bfloat16).source->file_offset() == -1);
  nkisim::sim::MemorySpace hbm;
  hbm.init(1, 4 << 20, uint64_t(off) % 4096);  // byte 0 congruent with the data's file offset
  uint8_t* dst = hbm.ptr(0, 8192);
  CHECK(!a.source->map_into(dst + 64));  // not congruent: nothing is mapped
  REQUIRE(a.source->map_into(dst));
  CHECK(std::memcmp(dst, v.data(), v.size() * 4) == 0);
  dst[5000] ^= 0xFF;  // private: the file keeps its bytes
  CHECK(file_bytes(dir / "x.npy") == before);
}

TEST_CASE("simulate: a large input mapped from its .npy file gives the outputs of a read one; writing it spares the file") {
  // x [128, 2048] fp32 (1 MiB: mapped). x[0, :] <- x[1, :] inside HBM, then y <- x.
  Builder b;
  const size_t x = b.input("x", DType::float32, {128, 2048});
  const size_t y = b.output("y", DType::float32, {128, 2048});
  const int64_t xa = int64_t(b.p.hbm_tensors[x].address);
  auto& w = b.add(Engine::Sync, make(Opcode::dma_copy, {hbm(DType::float32, xa, 0, 1, {{1, 2048}}),
                                                       hbm(DType::float32, xa + 2048 * 4, 0, 1, {{1, 2048}})}));
  w.updates.push_back({0, 1});
  auto& c = b.add(Engine::Sync, make(Opcode::dma_copy, {b.whole(y), b.whole(x)}));
  c.waits.push_back({0, 1});
  TempDir dir;
  std::vector<float> v = ramp(128 * 2048, 7.0f, -0.125f);
  nkisim::sim::write_npy(dir / "x.npy", f32_array({128, 2048}, v));
  const std::string before = file_bytes(dir / "x.npy");
  std::copy(v.begin() + 2048, v.begin() + 4096, v.begin());  // the expected x after the kernel
  for (bool in_place : {false, true}) {
    CAPTURE(in_place);
    nkisim::sim::Options opts;
    opts.outputs_in_place = in_place;
    const std::vector<HostArray> in{nkisim::sim::to_host_array(nkisim::sim::open_npy(dir / "x.npy"), std::nullopt)};
    const nkisim::sim::Result r = nkisim::sim::simulate(b.p, in, opts);
    REQUIRE(r.outputs.size() == 1);
    REQUIRE(r.written_inputs.size() == 1);
    const std::vector<uint8_t> out = r.outputs[0].materialize(), xin = r.written_inputs[0].second.materialize();
    REQUIRE(out.size() == v.size() * 4);
    CHECK(std::memcmp(out.data(), v.data(), out.size()) == 0);
    CHECK(xin == out);
    CHECK(file_bytes(dir / "x.npy") == before);
  }
}

TEST_CASE("MemorySpace::prepare over ranges mixing ready and fresh chunks: ready bytes kept, fresh ones 0xFF") {
  // 1 partition of 1 MiB = 256 chunks (4 full 64-chunk words of the ready bitset). Chunks 64..191 are written
  // (prepare_overwrite: ready without a fill) except chunk 130; then one prepare covers 10..250.
  nkisim::sim::MemorySpace m;
  m.init(1, 1 << 20);
  m.prepare_overwrite(0, 1, 64 * 4096, 130 * 4096);
  m.prepare_overwrite(0, 1, 131 * 4096, 192 * 4096);
  std::memset(m.ptr(0, 64 * 4096), 0x11, 66 * 4096);
  std::memset(m.ptr(0, 131 * 4096), 0x22, 61 * 4096);
  m.prepare(0, 1, 10 * 4096 + 5, 250 * 4096 - 7);
  auto all = [&](uint64_t c0, uint64_t c1, uint8_t v) {
    for (uint64_t b = c0 * 4096; b < c1 * 4096; ++b)
      if (*m.ptr(0, b) != v) return false;
    return true;
  };
  CHECK(all(10, 64, 0xFF));
  CHECK(all(64, 130, 0x11));
  CHECK(all(130, 131, 0xFF));
  CHECK(all(131, 192, 0x22));
  CHECK(all(192, 250, 0xFF));
  // A second prepare of the same range (now all ready) changes nothing.
  std::memset(m.ptr(0, 200 * 4096), 0x33, 4096);
  m.prepare(0, 1, 0, 1 << 20);
  CHECK(all(200, 201, 0x33));
  CHECK(all(0, 10, 0xFF));
  CHECK(all(250, 256, 0xFF));
}

TEST_CASE("MemorySpace::prepare on part of the partitions: their ready chunks kept, the others' chunks 0xFF") {
  // 128 partitions of 64 KiB (16 chunks each). A [96, 8 KiB] tile is written at byte 4096 of partitions 8..103
  // (prepare_overwrite: ready without a fill); later accesses over all 128 partitions, and again over 8..103,
  // must keep its bytes and give every other partition's chunks the sentinel.
  nkisim::sim::MemorySpace m;
  m.init(128, 64 << 10);
  m.prepare_overwrite(8, 96, 4096, 3 * 4096);
  for (uint32_t p = 8; p < 104; ++p) std::memset(m.ptr(p, 4096), 0x5A, 2 * 4096);
  m.prepare(8, 96, 0, 4 * 4096);        // chunks 1, 2 ready on 8..103; 0 and 3 fresh there
  m.prepare_overwrite(8, 96, 4096, 3 * 4096);  // all ready: nothing is filled
  m.prepare(0, 128, 4096, 3 * 4096);    // chunks 1, 2: fresh on 0..7 and 104..127 only
  auto is = [&](uint32_t p, uint64_t c, uint8_t v) {
    for (uint64_t b = c * 4096; b < (c + 1) * 4096; ++b)
      if (*m.ptr(p, b) != v) return false;
    return true;
  };
  for (uint32_t p = 0; p < 128; ++p) {
    CAPTURE(p);
    const bool tile = p >= 8 && p < 104;
    CHECK(is(p, 1, tile ? 0x5A : 0xFF));
    CHECK(is(p, 2, tile ? 0x5A : 0xFF));
    if (tile) CHECK(is(p, 0, 0xFF));
  }
}
