// test_npy.cpp - .npy reading/writing (round trips, numpy cross-checks, hostile inputs) and to_host_array.
#include <doctest/doctest.h>
#include <unistd.h>

#include <cmath>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <functional>

#include "isa/diagnostic.h"
#include "sim/npy.h"
#include "file_test_util.h"

#ifndef NKISIM_PYTHON
#define NKISIM_PYTHON "/usr/bin/python3"
#endif

using namespace nkisim::sim;
using nkisim::isa::DType;
namespace fs = std::filesystem;

namespace {

using filetest::error_of;
struct TempDir : filetest::TempDir {
  TempDir() : filetest::TempDir("nkisim_npy_") {}
};


void write_bytes(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out << bytes;
}

std::string read_bytes(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  return std::string((std::istreambuf_iterator<char>(in)), std::istreambuf_iterator<char>());
}

// A hand-made .npy: magic, version, little-endian header length, header text, data.
std::string npy_bytes(const std::string& header, const std::string& data, int major = 1) {
  std::string s("\x93NUMPY", 6);
  s += char(major);
  s += char(0);
  const uint32_t n = uint32_t(header.size());
  for (int k = 0; k < (major == 1 ? 2 : 4); ++k) s += char((n >> (8 * k)) & 0xFF);
  return s + header + data;
}

template <typename T>
HostArray make(DType t, std::vector<int64_t> shape, const std::vector<T>& values) {
  HostArray a;
  a.dtype = t;
  a.shape = std::move(shape);
  a.data.resize(values.size() * sizeof(T));
  if (!values.empty()) std::memcpy(a.data.data(), values.data(), a.data.size());
  return a;
}

template <typename T>
std::vector<T> values_of(const std::vector<uint8_t>& data) {
  std::vector<T> v(data.size() / sizeof(T));
  if (!v.empty()) std::memcpy(v.data(), data.data(), v.size() * sizeof(T));
  return v;
}

int run_python(const TempDir& dir, const std::string& script) {
  write_bytes(dir / "script.py", script);
  const std::string cmd = std::string(NKISIM_PYTHON) + " " + (dir / "script.py") + " " + dir.path.string();
  return std::system(cmd.c_str());
}

}  // namespace

TEST_CASE("write_npy/read_npy round trips") {
  TempDir dir;
  const auto f = make<float>(DType::float32, {2, 3}, {0.5f, -1.0f, 2.0f, 3.25f, 1e-30f, -0.0f});
  write_npy(dir / "a.npy", f);
  NpyFile r = read_npy(dir / "a.npy");
  CHECK(r.descr == "<f4");
  CHECK(r.shape == std::vector<int64_t>{2, 3});
  CHECK(r.data == f.data);
  // header: version 1.0, data 64-byte aligned, newline-terminated, numpy's exact dict text
  const std::string bytes = read_bytes(dir / "a.npy");
  CHECK(bytes.substr(0, 8) == std::string("\x93NUMPY\x01\x00", 8));
  const size_t hlen = uint8_t(bytes[8]) | uint8_t(bytes[9]) << 8;
  CHECK((10 + hlen) % 64 == 0);
  CHECK(bytes[10 + hlen - 1] == '\n');
  const std::string dict = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
  CHECK(bytes.substr(10, dict.size()) == dict);
  CHECK(bytes.substr(10 + dict.size(), 20) == std::string(20, ' '));  // numpy's growth-axis padding

  for (auto [t, shape] : std::vector<std::pair<DType, std::vector<int64_t>>>{{DType::int8, {5}},
                                                                             {DType::uint16, {}},
                                                                             {DType::bool_, {2, 2}},
                                                                             {DType::int32, {2, 3, 4}},
                                                                             {DType::float16, {0, 3}},
                                                                             {DType::uint32, {1, 1, 1, 1}}}) {
    HostArray a;
    a.dtype = t;
    a.shape = shape;
    a.data.resize(a.elements() * nkisim::isa::dtype_size(t));
    for (size_t k = 0; k < a.data.size(); ++k) a.data[k] = uint8_t(k * 37 + 1);
    if (t == DType::bool_)
      for (auto& b : a.data) b &= 1;
    write_npy(dir / "b.npy", a);
    NpyFile rb = read_npy(dir / "b.npy");
    CHECK(rb.descr == nkisim::isa::dtype_numpy_descr(t));
    CHECK(rb.shape == shape);
    CHECK(rb.data == a.data);
    HostArray back = to_host_array(rb, std::nullopt);
    CHECK(back.dtype == t);
    CHECK(back.shape == shape);
    CHECK(back.data == a.data);
  }

  // Low-precision floats: widened to fp32, or raw bits as unsigned integers.
  const auto bf = make<uint16_t>(DType::bfloat16, {3}, {0x3F80, 0xC000, 0x7F80});
  write_npy(dir / "bf.npy", bf);
  NpyFile w = read_npy(dir / "bf.npy");
  CHECK(w.descr == "<f4");
  CHECK(values_of<float>(w.data) == std::vector<float>{1.0f, -2.0f, INFINITY});
  CHECK(to_host_array(w, DType::bfloat16).data == bf.data);
  write_npy(dir / "bfraw.npy", bf, true);
  NpyFile raw = read_npy(dir / "bfraw.npy");
  CHECK(raw.descr == "<u2");
  CHECK(raw.data == bf.data);
  CHECK(to_host_array(raw, DType::bfloat16).data == bf.data);
  const auto f8 = make<uint8_t>(DType::float8_e4m3, {2}, {0x38, 0xF7});
  write_npy(dir / "f8raw.npy", f8, true);
  CHECK(read_npy(dir / "f8raw.npy").descr == "|u1");
  const auto tf = make<uint32_t>(DType::tfloat32, {1}, {0x3F802000u});
  write_npy(dir / "tfraw.npy", tf, true);
  CHECK(read_npy(dir / "tfraw.npy").descr == "<u4");
}

TEST_CASE("files written by numpy are read correctly") {
  TempDir dir;
  REQUIRE(run_python(dir, R"PY(import sys, numpy as np
d = sys.argv[1]
np.save(d + '/f4.npy', (np.arange(12, dtype=np.float32) / 7).reshape(3, 4))
np.save(d + '/f2.npy', np.array([1.5, -2.25, 65504, np.inf], dtype=np.float16))
np.save(d + '/i1.npy', np.array([-128, -1, 0, 127], dtype=np.int8))
np.save(d + '/u2.npy', np.array([0, 1, 65535], dtype=np.uint16))
np.save(d + '/b1.npy', np.array([True, False, True]))
np.save(d + '/zero_d.npy', np.array(3.5, dtype=np.float32))
np.save(d + '/three_d.npy', np.arange(24, dtype=np.int32).reshape(2, 3, 4))
np.save(d + '/v2.npy', np.array([0x3F80, 0xC000, 0x7F80], dtype='<u2').view('V2'))
np.save(d + '/v2zeros.npy', np.zeros(4, dtype='V2'))
np.save(d + '/be_f4.npy', np.array([1.0, -2.5, 3e38], dtype='>f4'))
np.save(d + '/be_i2.npy', np.array([1, -2, 300], dtype='>i2'))
np.save(d + '/f8.npy', np.array([0.1, 1e300, -1e-300, 2.5, np.nan]))
np.save(d + '/i8.npy', np.array([1, -1, 2**40, -2**40], dtype=np.int64))
np.save(d + '/empty.npy', np.zeros((0, 3), dtype=np.float32))
np.save(d + '/fortran.npy', np.asfortranarray(np.arange(6, dtype=np.float32).reshape(2, 3)))
np.save(d + '/c8.npy', np.zeros(2, dtype=np.complex64))
for v in (2, 3):
    with open(d + '/version%d.npy' % v, 'wb') as f:
        np.lib.format.write_array(f, np.arange(5, dtype=np.float32), version=(v, 0))
)PY") == 0);

  NpyFile f4 = read_npy(dir / "f4.npy");
  CHECK(f4.descr == "<f4");
  CHECK(f4.shape == std::vector<int64_t>{3, 4});
  auto fv = values_of<float>(f4.data);
  REQUIRE(fv.size() == 12);
  for (int k = 0; k < 12; ++k) CHECK(fv[k] == float(k) / 7.0f);

  NpyFile f2 = read_npy(dir / "f2.npy");
  CHECK(f2.descr == "<f2");
  CHECK(values_of<uint16_t>(f2.data) == std::vector<uint16_t>{0x3E00, 0xC080, 0x7BFF, 0x7C00});
  HostArray f2a = to_host_array(f2, std::nullopt);
  CHECK(f2a.dtype == DType::float16);
  HostArray f2b = to_host_array(f2, DType::bfloat16);
  CHECK(values_of<uint16_t>(f2b.data) == std::vector<uint16_t>{0x3FC0, 0xC010, 0x4780, 0x7F80});

  NpyFile i1 = read_npy(dir / "i1.npy");
  CHECK(i1.descr == "|i1");
  CHECK(values_of<int8_t>(i1.data) == std::vector<int8_t>{-128, -1, 0, 127});
  CHECK(to_host_array(i1, std::nullopt).dtype == DType::int8);
  CHECK(values_of<uint8_t>(to_host_array(i1, DType::uint8).data) == std::vector<uint8_t>{0, 0, 0, 127});
  CHECK(values_of<float>(to_host_array(i1, DType::float32).data) == std::vector<float>{-128, -1, 0, 127});

  NpyFile u2 = read_npy(dir / "u2.npy");
  CHECK(u2.descr == "<u2");
  CHECK(values_of<uint16_t>(u2.data) == std::vector<uint16_t>{0, 1, 65535});
  CHECK(values_of<int16_t>(to_host_array(u2, DType::int16).data) == std::vector<int16_t>{0, 1, 32767});
  CHECK(values_of<uint16_t>(to_host_array(u2, DType::bfloat16).data) == std::vector<uint16_t>{0, 1, 65535});

  NpyFile b1 = read_npy(dir / "b1.npy");
  CHECK(b1.descr == "|b1");
  CHECK(b1.data == std::vector<uint8_t>{1, 0, 1});
  CHECK(to_host_array(b1, std::nullopt).dtype == DType::bool_);

  NpyFile z = read_npy(dir / "zero_d.npy");
  CHECK(z.shape.empty());
  CHECK(values_of<float>(z.data) == std::vector<float>{3.5f});
  CHECK(to_host_array(z, std::nullopt).elements() == 1);

  NpyFile t3 = read_npy(dir / "three_d.npy");
  CHECK(t3.descr == "<i4");
  CHECK(t3.shape == std::vector<int64_t>{2, 3, 4});
  CHECK(values_of<int32_t>(t3.data)[23] == 23);

  NpyFile v2 = read_npy(dir / "v2.npy");
  CHECK(v2.descr == "<V2");
  HostArray bf = to_host_array(v2, DType::bfloat16);
  CHECK(values_of<uint16_t>(bf.data) == std::vector<uint16_t>{0x3F80, 0xC000, 0x7F80});
  CHECK(nkisim::isa::to_f32(DType::bfloat16, 0xC000) == -2.0f);
  CHECK(error_of([&] { to_host_array(v2, std::nullopt); }) ==
        "raw dtype <V2 has no meaning by itself; name it with FILE:DTYPE (e.g. FILE:bfloat16)");
  CHECK(error_of([&] { to_host_array(v2, DType::float8_e4m3); }) ==
        "raw dtype <V2 has 2-byte elements but float8_e4m3 needs 1");
  NpyFile v2z = read_npy(dir / "v2zeros.npy");
  CHECK(v2z.descr == "<V2");
  CHECK(v2z.data == std::vector<uint8_t>(8, 0));

  NpyFile be = read_npy(dir / "be_f4.npy");
  CHECK(be.descr == "<f4");
  CHECK(values_of<float>(be.data) == std::vector<float>{1.0f, -2.5f, 3e38f});
  NpyFile bei = read_npy(dir / "be_i2.npy");
  CHECK(bei.descr == "<i2");
  CHECK(values_of<int16_t>(bei.data) == std::vector<int16_t>{1, -2, 300});

  NpyFile f8 = read_npy(dir / "f8.npy");
  CHECK(f8.descr == "<f8");
  CHECK(error_of([&] { to_host_array(f8, std::nullopt); }) ==
        "dtype float64 is not an NKI dtype; convert it with FILE:float32 (or FILE:DTYPE)");
  auto f8f = values_of<float>(to_host_array(f8, DType::float32).data);
  REQUIRE(f8f.size() == 5);
  CHECK(f8f[0] == 0.1f);
  CHECK(std::isinf(f8f[1]));
  CHECK((f8f[2] == 0.0f && std::signbit(f8f[2])));
  CHECK(std::isnan(f8f[4]));
  CHECK(values_of<int32_t>(to_host_array(f8, DType::int32).data) ==
        std::vector<int32_t>{0, INT32_MAX, 0, 2, 0});  // RNE: 2.5 -> 2; NaN -> 0
  CHECK(values_of<uint16_t>(to_host_array(f8, DType::bfloat16).data)[3] == 0x4020);

  NpyFile i8 = read_npy(dir / "i8.npy");
  CHECK(error_of([&] { to_host_array(i8, std::nullopt); }) ==
        "dtype int64 is not an NKI dtype; convert it with FILE:int32 (or FILE:DTYPE)");
  CHECK(values_of<int32_t>(to_host_array(i8, DType::int32).data) == std::vector<int32_t>{1, -1, INT32_MAX, INT32_MIN});
  CHECK(values_of<float>(to_host_array(i8, DType::float32).data) == std::vector<float>{1, -1, 0x1p40f, -0x1p40f});

  NpyFile e = read_npy(dir / "empty.npy");
  CHECK(e.shape == std::vector<int64_t>{0, 3});
  CHECK(e.data.empty());
  CHECK(to_host_array(e, DType::bfloat16).data.empty());

  NpyFile fo = read_npy(dir / "fortran.npy");  // Fortran order: read in C order, as numpy.load gives it
  CHECK(fo.shape == std::vector<int64_t>{2, 3});
  CHECK(values_of<float>(fo.data) == std::vector<float>{0, 1, 2, 3, 4, 5});
  CHECK(error_of([&] { read_npy(dir / "c8.npy"); }) == dir / "c8.npy" + ": unsupported dtype '<c8'");
  for (const char* v : {"version2.npy", "version3.npy"}) {
    NpyFile r = read_npy(dir / v);
    CHECK(r.shape == std::vector<int64_t>{5});
    CHECK(values_of<float>(r.data) == std::vector<float>{0, 1, 2, 3, 4});
  }
}

TEST_CASE("files written by write_npy load in numpy and match np.save byte for byte") {
  TempDir dir;
  std::vector<float> f(6);
  for (int k = 0; k < 6; ++k) f[k] = k * 0.25f - 1.0f;
  write_npy(dir / "f4.npy", make<float>(DType::float32, {2, 3}, f));
  write_npy(dir / "i1.npy", make<int8_t>(DType::int8, {5}, {-128, -1, 0, 1, 127}));
  write_npy(dir / "u2.npy", make<uint16_t>(DType::uint16, {}, {65535}));
  write_npy(dir / "b1.npy", make<uint8_t>(DType::bool_, {2, 2}, {1, 0, 0, 1}));
  write_npy(dir / "f2.npy", make<uint16_t>(DType::float16, {2}, {0x3C00, 0xFC00}));
  write_npy(dir / "bf16.npy", make<uint16_t>(DType::bfloat16, {3}, {0x3F80, 0xC000, 0x7F80}));
  write_npy(dir / "bf16raw.npy", make<uint16_t>(DType::bfloat16, {3}, {0x3F80, 0xC000, 0x7F80}), true);
  write_npy(dir / "e4m3.npy", make<uint8_t>(DType::float8_e4m3, {2, 1}, {0x77, 0x81}));
  write_npy(dir / "e4m3raw.npy", make<uint8_t>(DType::float8_e4m3, {2, 1}, {0x77, 0x81}), true);
  write_npy(dir / "empty.npy", make<float>(DType::float32, {0}, {}));
  std::vector<int16_t> longv(12345);
  for (size_t k = 0; k < longv.size(); ++k) longv[k] = int16_t(k % 7);
  write_npy(dir / "long.npy", make<int16_t>(DType::int16, {12345}, longv));
  std::vector<int32_t> i4(24);
  for (int k = 0; k < 24; ++k) i4[k] = -k;
  write_npy(dir / "i4.npy", make<int32_t>(DType::int32, {2, 3, 4}, i4));
  CHECK(run_python(dir, R"PY(import sys, io, numpy as np
d = sys.argv[1]
def check(name, want):
    got = np.load(d + '/' + name)
    assert got.dtype == want.dtype, (name, got.dtype, want.dtype)
    assert got.shape == want.shape, (name, got.shape, want.shape)
    assert np.array_equal(got, want), (name, got, want)
    b = io.BytesIO()
    np.save(b, want)
    assert open(d + '/' + name, 'rb').read() == b.getvalue(), name + ': bytes differ from np.save'
check('f4.npy', (np.arange(6, dtype=np.float32) * np.float32(0.25) - np.float32(1)).reshape(2, 3))
check('i1.npy', np.array([-128, -1, 0, 1, 127], dtype=np.int8))
check('u2.npy', np.array(65535, dtype=np.uint16))
check('b1.npy', np.array([[True, False], [False, True]]))
check('f2.npy', np.array([1.0, -np.inf], dtype=np.float16))
check('bf16.npy', np.array([1.0, -2.0, np.inf], dtype=np.float32))
check('bf16raw.npy', np.array([0x3F80, 0xC000, 0x7F80], dtype=np.uint16))
check('e4m3.npy', np.array([[240.0], [-2.0**-9]], dtype=np.float32))
check('e4m3raw.npy', np.array([[0x77], [0x81]], dtype=np.uint8))
check('empty.npy', np.zeros(0, dtype=np.float32))
check('long.npy', (np.arange(12345) % 7).astype(np.int16))
check('i4.npy', -np.arange(24, dtype=np.int32).reshape(2, 3, 4))
)PY") == 0);
}

TEST_CASE("malformed and hostile .npy files give exact errors") {
  TempDir dir;
  const std::string good_hdr = "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }\n";
  const std::string data12(12, '\0');
  auto expect = [&](const std::string& name, const std::string& bytes, const std::string& msg) {
    const std::string p = dir / name;
    write_bytes(p, bytes);
    CHECK(error_of([&] { read_npy(p); }) == p + ": " + msg);
  };
  // sanity: the hand-made good file reads, in any key order and quoting style
  write_bytes(dir / "good.npy", npy_bytes(good_hdr, data12));
  CHECK(read_npy(dir / "good.npy").shape == std::vector<int64_t>{3});
  write_bytes(dir / "order.npy", npy_bytes("{\"shape\":(1,3),\"descr\":\"<f4\",\"fortran_order\":False}", data12));
  CHECK(read_npy(dir / "order.npy").shape == std::vector<int64_t>{1, 3});
  write_bytes(dir / "py2.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3L,), }", data12));
  CHECK(read_npy(dir / "py2.npy").shape == std::vector<int64_t>{3});
  write_bytes(dir / "trailing.npy", npy_bytes(good_hdr, data12 + "xyz"));
  CHECK(read_npy(dir / "trailing.npy").data.size() == 12);

  expect("empty.npy", "", "not an .npy file (file is empty)");
  expect("magic.npy", "PK\x03\x04 this is a zip file", "not an .npy file (bad magic)");
  expect("short.npy", std::string("\x93NUM", 4), "not an .npy file (bad magic)");
  expect("version.npy", npy_bytes(good_hdr, data12, 4), "unsupported .npy format version 4.0");
  expect("nolen.npy", std::string("\x93NUMPY\x01\x00\x76", 9), "malformed header: file ends inside the header");
  expect("trunc_hdr.npy", npy_bytes(good_hdr, "").substr(0, 30), "malformed header: file ends inside the header");
  {
    std::string big = npy_bytes("", "", 2);
    big[8] = 0, big[9] = 0, big[10] = 0x20, big[11] = 0;  // 2 MiB header length
    expect("bighdr.npy", big + std::string(100, ' '), "malformed header: header length 2097152 exceeds 1 MiB");
  }
  expect("garbage.npy", npy_bytes("hello world\n", data12), "malformed header: expected a Python dict literal");
  expect("unclosed.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,) \n", data12),
         "malformed header: expected ',' or '}' after 'shape'");
  expect("nokey.npy", npy_bytes("{'descr': '<f4', 'shape': (3,), }", data12),
         "malformed header: missing key 'fortran_order'");
  expect("extrakey.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'foo': 1}", data12),
         "malformed header: unexpected key 'foo'");
  expect("badshape.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (3), }", data12),
         "malformed header: 'shape' must be a tuple of non-negative integers");
  expect("negshape.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (-3,), }", data12),
         "malformed header: 'shape' must be a tuple of non-negative integers");
  expect("bigint.npy",
         npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (99999999999999999999,), }", data12),
         "malformed header: 'shape' must be a tuple of non-negative integers");
  expect("badbool.npy", npy_bytes("{'descr': '<f4', 'fortran_order': 0, 'shape': (3,), }", data12),
         "malformed header: 'fortran_order' must be True or False");
  expect("badstr.npy", npy_bytes("{'descr': '<f4, 'fortran_order': False, 'shape': (3,), }", data12),
         "malformed header: expected ',' or '}' after 'descr'");
  expect("struct.npy", npy_bytes("{'descr': [('a', '<f4')], 'fortran_order': False, 'shape': (3,), }", data12),
         "unsupported dtype: structured arrays are not supported");
  expect("descr.npy", npy_bytes("{'descr': '<c8', 'fortran_order': False, 'shape': (3,), }", data12),
         "unsupported dtype '<c8'");
  expect("descr2.npy", npy_bytes("{'descr': 'float32', 'fortran_order': False, 'shape': (3,), }", data12),
         "unsupported dtype 'float32'");
  expect("fortran.npy", npy_bytes("{'descr': '<f4', 'fortran_order': True, 'shape': (2, 3), }", data12),
         "truncated data: expected 24 bytes, found 12");
  expect("trunc_data.npy",
         npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (512, 1024), }", std::string(1000, 'x')),
         "truncated data: expected 2097152 bytes, found 1000");
  expect("huge.npy", npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776,), }", ""),
         "truncated data: expected 4398046511104 bytes, found 0");
  expect("overflow.npy",
         npy_bytes("{'descr': '<f4', 'fortran_order': False, 'shape': (1099511627776, 1099511627776), }", ""),
         "malformed header: shape is too large");
  expect("overflow2.npy", npy_bytes("{'descr': '<f8', 'fortran_order': False, 'shape': (4611686018427387904,), }", ""),
         "malformed header: shape is too large");

  const std::string missing = dir / "missing.npy";
  CHECK(error_of([&] { read_npy(missing); }) == missing + ": cannot open: No such file or directory");
  CHECK(error_of([&] { read_npy(dir.path.string()); }) == dir.path.string() + ": cannot open: Is a directory");
  const std::string unwritable = dir / "no/such/dir/out.npy";
  CHECK(error_of([&] { write_npy(unwritable, make<float>(DType::float32, {1}, {1.0f})); }) ==
        unwritable + ": cannot write: No such file or directory");
}

TEST_CASE("randomly corrupted files either read or throw nkisim::Error") {
  TempDir dir;
  const std::string good =
      npy_bytes("{'descr': '<i2', 'fortran_order': False, 'shape': (2, 3), }\n", std::string(12, '\x01'));
  uint32_t state = 12345;
  auto next = [&] { return state = state * 1664525u + 1013904223u; };
  const std::string p = dir / "fuzz.npy";
  int ok = 0, errors = 0, other = 0;
  for (int iter = 0; iter < 3000; ++iter) {
    std::string b = good;
    const int edits = 1 + int(next() % 4);
    for (int k = 0; k < edits; ++k) {
      const uint32_t r = next();
      const size_t pos = (r >> 8) % b.size();
      switch (r % 4) {
        case 0:
          b[pos] = char(next() >> 24);
          break;
        case 1:
          b.erase(pos, 1 + (r >> 20) % 8);
          break;
        case 2:
          b.insert(pos, 1, "0123456789(),'{}: TrueFalse<>|fiubV"[(r >> 16) % 35]);
          break;
        default:
          b.resize(pos);
          break;
      }
      if (b.empty()) b = "x";
    }
    write_bytes(p, b);
    try {
      NpyFile f = read_npy(p);
      HostArray a = to_host_array(f, DType::float32);
      CHECK(a.data.size() == a.elements() * 4);
      ++ok;
    } catch (const nkisim::Error&) {
      ++errors;
    } catch (...) {
      ++other;
    }
  }
  CHECK(other == 0);
  CHECK(ok > 0);
  CHECK(errors > 0);
}
