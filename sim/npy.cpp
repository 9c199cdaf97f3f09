// npy.cpp - a defensive .npy reader/writer and the conversion of file contents into kernel inputs.
//
// Reader policy:
// * Versions 1.0 (2-byte header length), 2.0 and 3.0 (4-byte). Headers longer than 1 MiB are rejected.
// * The header is parsed as the Python dict literal numpy writes: keys 'descr', 'fortran_order', 'shape'
//   (exactly these, any order, either quote style, optional trailing comma, Python 2 "3L" integers).
// * Accepted descriptors: b1, i1/i2/i4/i8, u1/u2/u4/u8, f2/f4/f8 and raw V1/V2/V4 (numpy writes
//   "|V2"; we normalise to "<V2" as dtypes.def does). Big-endian ('>') numeric data is byte-swapped to
//   little-endian on read, so NpyFile always holds little-endian data; '=' means native (little-endian).
// * Fortran-order files are rejected. Trailing bytes after the data are ignored (numpy does the same).
// * Sizes are checked against the actual file size before anything is allocated, so hostile headers
//   cannot trigger huge allocations.
#include "sim/npy.h"

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstdio>
#include <cstring>
#include <exception>
#include <filesystem>
#include <limits>
#include <memory>
#include <mutex>

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <unistd.h>

#include "isa/diagnostic.h"
#include "sim/convert.h"
#include "sim/parallel.h"

namespace nkisim::sim {
namespace {

constexpr size_t kMaxHeader = size_t(1) << 20;

[[noreturn]] void fail(const std::string& path, const std::string& msg) { throw Error(path + ": " + msg); }

// Reads up to n bytes at `offset` (fewer only at end of file or on an error, errno set).
size_t pread_all(int fd, void* dst, size_t n, uint64_t offset) {
  size_t done = 0;
  while (done < n) {
    const ssize_t r = ::pread(fd, static_cast<uint8_t*>(dst) + done, n - done, off_t(offset + done));
    if (r < 0 && errno == EINTR) continue;
    if (r <= 0) break;
    done += size_t(r);
  }
  return done;
}

// --- header dict parser ---------------------------------------------------------------------------
struct HeaderParser {
  std::string_view s;
  size_t i = 0;

  void ws() {
    while (i < s.size() && (s[i] == ' ' || s[i] == '\t' || s[i] == '\n' || s[i] == '\r')) ++i;
  }
  bool eat(char c) {
    ws();
    if (i < s.size() && s[i] == c) {
      ++i;
      return true;
    }
    return false;
  }
  bool string(std::string& out) {
    ws();
    if (i >= s.size() || (s[i] != '\'' && s[i] != '"')) return false;
    const char q = s[i++];
    const size_t start = i;
    while (i < s.size() && s[i] != q) {
      if (s[i] == '\\' || s[i] == '\n') return false;
      ++i;
    }
    if (i >= s.size()) return false;
    out.assign(s.substr(start, i - start));
    ++i;
    return true;
  }
  bool word(std::string_view w) {
    ws();
    if (s.substr(i, w.size()) != w) return false;
    const size_t end = i + w.size();
    if (end < s.size() && (std::isalnum(static_cast<unsigned char>(s[end])) || s[end] == '_')) return false;
    i = end;
    return true;
  }
  bool integer(int64_t& out) {
    ws();
    const size_t start = i;
    uint64_t v = 0;
    while (i < s.size() && s[i] >= '0' && s[i] <= '9') {
      const uint64_t d = uint64_t(s[i] - '0');
      if (v > (uint64_t(std::numeric_limits<int64_t>::max()) - d) / 10) return false;
      v = v * 10 + d;
      ++i;
    }
    if (i == start) return false;
    if (i < s.size() && s[i] == 'L') ++i;  // Python 2 long
    out = int64_t(v);
    return true;
  }
  bool shape(std::vector<int64_t>& out) {
    if (!eat('(')) return false;
    out.clear();
    if (eat(')')) return true;
    for (;;) {
      int64_t d;
      if (!integer(d)) return false;
      out.push_back(d);
      if (out.size() > 64) return false;
      if (eat(')')) return out.size() > 1;  // "(3)" is an int, not a tuple
      if (!eat(',')) return false;
      if (eat(')')) return true;
    }
  }
};

struct Header {
  std::string descr;
  bool fortran = false;
  std::vector<int64_t> shape;
};

Header parse_header(const std::string& path, std::string_view text) {
  HeaderParser p{text};
  Header h;
  bool have_descr = false, have_fortran = false, have_shape = false;
  auto bad = [&](const std::string& why) { fail(path, "malformed header: " + why); };
  if (!p.eat('{')) bad("expected a Python dict literal");
  while (!p.eat('}')) {
    std::string key;
    if (!p.string(key)) bad("expected a quoted key at offset " + std::to_string(p.i));
    if (!p.eat(':')) bad("expected ':' after '" + key + "'");
    if (key == "descr") {
      p.ws();
      if (p.i < text.size() && text[p.i] == '[') fail(path, "unsupported dtype: structured arrays are not supported");
      if (!p.string(h.descr)) bad("'descr' must be a string");
      have_descr = true;
    } else if (key == "fortran_order") {
      if (p.word("True"))
        h.fortran = true;
      else if (p.word("False"))
        h.fortran = false;
      else
        bad("'fortran_order' must be True or False");
      have_fortran = true;
    } else if (key == "shape") {
      if (!p.shape(h.shape)) bad("'shape' must be a tuple of non-negative integers");
      have_shape = true;
    } else {
      bad("unexpected key '" + key + "'");
    }
    if (!p.eat(',')) {
      if (!p.eat('}')) bad("expected ',' or '}' after '" + key + "'");
      break;
    }
  }
  p.ws();
  if (p.i != text.size()) bad("unexpected text after the dict");
  if (!have_descr) bad("missing key 'descr'");
  if (!have_fortran) bad("missing key 'fortran_order'");
  if (!have_shape) bad("missing key 'shape'");
  return h;
}

// Splits a descriptor into byte order, kind and item size; normalises it. Returns false if unsupported.
bool normalise_descr(const std::string& d, char& order, char& kind, unsigned& size, std::string& norm) {
  if (d.size() < 3 || d.size() > 4) return false;
  order = d[0];
  if (order != '<' && order != '>' && order != '|' && order != '=') return false;
  kind = d[1];
  size = 0;
  for (size_t k = 2; k < d.size(); ++k) {
    if (d[k] < '0' || d[k] > '9') return false;
    size = size * 10 + unsigned(d[k] - '0');
  }
  bool ok = false;
  switch (kind) {
    case 'b':
      ok = size == 1;
      break;
    case 'i':
    case 'u':
      ok = size == 1 || size == 2 || size == 4 || size == 8;
      break;
    case 'f':
      ok = size == 2 || size == 4 || size == 8;
      break;
    case 'V':
      ok = size == 1 || size == 2 || size == 4;
      break;
    default:
      ok = false;
  }
  if (!ok) return false;
  if (order == '=') order = '<';
  if (size == 1) order = '|';
  norm = std::string(1, size == 1 ? '|' : '<') + kind + std::to_string(size);
  return true;
}

}  // namespace

NpyHandle open_npy(const std::string& path) {
  std::error_code ec;
  if (std::filesystem::is_directory(path, ec)) fail(path, std::string("cannot open: ") + std::strerror(EISDIR));
  // O_NONBLOCK: a FIFO without a writer must not block the open; only regular files are read.
  const int fd = ::open(path.c_str(), O_RDONLY | O_NONBLOCK | O_CLOEXEC);
  if (fd < 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
  NpyHandle out;
  out.path = path;
  out.file = std::make_shared<const NpyHandle::Fd>(fd);
  struct stat st{};
  if (::fstat(fd, &st) != 0) fail(path, std::string("cannot open: ") + std::strerror(errno));
  if (!S_ISREG(st.st_mode)) fail(path, "cannot open: not a regular file");
  const off_t end = ::lseek(fd, 0, SEEK_END);
  if (end < 0) fail(path, std::string("cannot read: ") + std::strerror(errno));
  const uint64_t file_size = uint64_t(end);

  uint64_t pos = 0;
  auto read_exact = [&](void* dst, size_t n) {
    const bool ok = pread_all(fd, dst, n, pos) == n;
    pos += n;
    return ok;
  };

  if (file_size == 0) fail(path, "not an .npy file (file is empty)");
  unsigned char pre[8];
  static const unsigned char kMagic[6] = {0x93, 'N', 'U', 'M', 'P', 'Y'};
  if (file_size < 8 || !read_exact(pre, 8) || std::memcmp(pre, kMagic, 6) != 0)
    fail(path, "not an .npy file (bad magic)");
  const unsigned major = pre[6], minor = pre[7];
  if ((major != 1 && major != 2 && major != 3) || minor != 0)
    fail(path, "unsupported .npy format version " + std::to_string(major) + "." + std::to_string(minor));
  const unsigned len_bytes = major == 1 ? 2 : 4;
  unsigned char lb[4] = {0, 0, 0, 0};
  if (!read_exact(lb, len_bytes)) fail(path, "malformed header: file ends inside the header");
  const uint64_t hlen = uint64_t(lb[0]) | uint64_t(lb[1]) << 8 | uint64_t(lb[2]) << 16 | uint64_t(lb[3]) << 24;
  if (hlen > kMaxHeader) fail(path, "malformed header: header length " + std::to_string(hlen) + " exceeds 1 MiB");
  const uint64_t data_start = 8 + len_bytes + hlen;
  if (data_start > file_size) fail(path, "malformed header: file ends inside the header");
  std::string text(hlen, '\0');
  if (!read_exact(text.data(), hlen)) fail(path, "malformed header: file ends inside the header");

  Header h = parse_header(path, text);
  char order, kind;
  unsigned size;
  if (!normalise_descr(h.descr, order, kind, size, out.descr)) fail(path, "unsupported dtype '" + h.descr + "'");
  uint64_t count = 1;
  bool overflow = false;
  for (int64_t d : h.shape) overflow |= __builtin_mul_overflow(count, uint64_t(d), &count);
  uint64_t bytes = 0;
  overflow |= __builtin_mul_overflow(count, uint64_t(size), &bytes);
  if (overflow) fail(path, "malformed header: shape is too large");
  const uint64_t avail = file_size - data_start;
  if (bytes > avail)
    fail(path, "truncated data: expected " + std::to_string(bytes) + " bytes, found " + std::to_string(avail));
  out.shape = std::move(h.shape);
  out.data_offset = data_start;
  out.data_bytes = bytes;
  out.byteswap = order == '>' && kind != 'V' && size > 1;
  if (h.fortran && out.shape.size() > 1 && bytes) {  // reorder to C order: element (i0, ..., in) is at
    std::vector<uint8_t> f(bytes), c(bytes);          // sum(ik * prod(shape[:k])) in the file
    if (!read_exact(f.data(), bytes)) fail(path, "cannot read: unexpected end of file");
    const size_t nd = out.shape.size();
    std::vector<uint64_t> fstride(nd, 1), idx(nd, 0);
    for (size_t k = 1; k < nd; ++k) fstride[k] = fstride[k - 1] * uint64_t(out.shape[k - 1]);
    uint64_t src = 0;
    for (uint64_t j = 0; j < count; ++j) {
      std::memcpy(c.data() + j * size, f.data() + src * size, size);
      for (size_t k = nd; k-- > 0;) {  // next C-order index; src follows in Fortran strides
        src += fstride[k];
        if (++idx[k] < uint64_t(out.shape[k])) break;
        src -= fstride[k] * idx[k];
        idx[k] = 0;
      }
    }
    out.c_order = std::make_shared<const std::vector<uint8_t>>(std::move(c));
  }
  return out;
}

void read_npy_data(const NpyHandle& h, uint64_t offset, uint8_t* dst, size_t n) {
  errno = 0;
  if (h.c_order) {
    if (offset > h.c_order->size() || n > h.c_order->size() - offset) fail(h.path, "cannot read: past the end of the data");
    if (n) std::memcpy(dst, h.c_order->data() + offset, n);
  } else if (n && pread_all(h.file->fd, dst, n, h.data_offset + offset) != n)
    fail(h.path, std::string("cannot read: ") + (errno ? std::strerror(errno) : "unexpected end of file"));
  if (h.byteswap) {
    const size_t size = h.descr.size() == 3 ? size_t(h.descr[2] - '0') : 8;  // "<f4", "<i8": the item size
    for (size_t k = 0; k + size <= n; k += size) std::reverse(dst + k, dst + k + size);
  }
}

NpyFile read_npy(const std::string& path) {
  NpyHandle h = open_npy(path);
  NpyFile out;
  out.descr = h.descr;
  out.shape = h.shape;
  out.data.resize(size_t(h.data_bytes));
  read_npy_data(h, 0, out.data.data(), out.data.size());
  return out;
}

// --- conversion into kernel inputs -----------------------------------------------------------------
namespace {

std::string numpy_name(char kind, unsigned size) {
  switch (kind) {
    case 'b':
      return "bool";
    case 'i':
      return "int" + std::to_string(size * 8);
    case 'u':
      return "uint" + std::to_string(size * 8);
    case 'f':
      return "float" + std::to_string(size * 8);
  }
  return std::string("raw ") + kind + std::to_string(size);
}

// Loads a little-endian signed/unsigned/bool element as int64 (uint64 beyond INT64_MAX saturates, which
// is only used for integer targets where it saturates anyway).
int64_t load_int(const uint8_t* p, char kind, unsigned size) {
  if (kind == 'b' || kind == 'u') {
    uint64_t v = 0;
    std::memcpy(&v, p, size);
    return v > uint64_t(std::numeric_limits<int64_t>::max()) ? std::numeric_limits<int64_t>::max() : int64_t(v);
  }
  switch (size) {
    case 1:
      return int8_t(p[0]);
    case 2: {
      int16_t v;
      std::memcpy(&v, p, 2);
      return v;
    }
    case 4: {
      int32_t v;
      std::memcpy(&v, p, 4);
      return v;
    }
    default: {
      int64_t v;
      std::memcpy(&v, p, 8);
      return v;
    }
  }
}

uint64_t load_u64(const uint8_t* p, unsigned size) {
  uint64_t v = 0;
  std::memcpy(&v, p, size);
  return v;
}

float load_float(const uint8_t* p, unsigned size) {
  if (size == 2) return isa::to_f32(isa::DType::float16, isa::load_bits(p, 2));
  if (size == 4) return isa::bits_to_float(isa::load_bits(p, 4));
  double d;
  std::memcpy(&d, p, 8);
  return static_cast<float>(d);  // round to nearest even (default FP environment)
}

// Saturating integer -> integer conversion (exact, no detour through fp32).
uint32_t int_to_int(int64_t v, isa::DType t) {
  int64_t lo = 0, hi = 0;
  switch (t) {
    case isa::DType::int8:
      lo = INT8_MIN;
      hi = INT8_MAX;
      break;
    case isa::DType::int16:
      lo = INT16_MIN;
      hi = INT16_MAX;
      break;
    case isa::DType::int32:
      lo = INT32_MIN;
      hi = INT32_MAX;
      break;
    case isa::DType::bool_:
    case isa::DType::uint8:
      lo = 0;
      hi = UINT8_MAX;
      break;
    case isa::DType::uint16:
      lo = 0;
      hi = UINT16_MAX;
      break;
    default:
      lo = 0;
      hi = UINT32_MAX;
      break;
  }
  v = v < lo ? lo : v > hi ? hi : v;
  return uint32_t(uint64_t(v));
}

}  // namespace

namespace {
// How file data of descriptor `descr` becomes a kernel input of dtype `dtype`: used as is (`copy`) or
// converted element by element (convert_run).
struct Plan {
  isa::DType dtype = isa::DType::float32;
  bool copy = false;
  char kind = 'f';
  unsigned size = 4;
};

// The checks of to_host_array (throws its errors); n = elements, data_size = bytes of file data.
Plan plan_input(const std::string& descr, size_t n, size_t data_size, std::optional<isa::DType> requested) {
  char order, kind;
  unsigned size;
  std::string norm;
  if (!normalise_descr(descr, order, kind, size, norm)) throw Error("unsupported dtype '" + descr + "'");
  if (n * size != data_size)
    throw Error("data size " + std::to_string(data_size) + " does not match shape and dtype " + norm);
  Plan pl;
  pl.kind = kind;
  pl.size = size;
  if (!requested) {
    for (int k = 0; k < isa::kNumDTypes; ++k) {
      const auto t = static_cast<isa::DType>(k);
      if (isa::is_numpy_native(t) && isa::dtype_numpy_descr(t) == norm) {
        pl.dtype = t;
        pl.copy = true;
        return pl;
      }
    }
    if (kind == 'V') {
      const char* hint = size == 1 ? "float8_e4m3" : size == 2 ? "bfloat16" : "tfloat32";
      throw Error("raw dtype " + norm + " has no meaning by itself; name it with FILE:DTYPE (e.g. FILE:" + hint + ")");
    }
    const char* hint = kind == 'f' ? "float32" : kind == 'i' ? "int32" : kind == 'u' ? "uint32" : nullptr;
    throw Error("dtype " + numpy_name(kind, size) + " is not an NKI dtype; convert it with " +
                (hint ? "FILE:" + std::string(hint) + " (or FILE:DTYPE)" : std::string("FILE:DTYPE")));
  }

  const isa::DType t = *requested;
  const unsigned tsize = isa::dtype_size(t);
  pl.dtype = t;
  const bool native_same = isa::is_numpy_native(t) && isa::dtype_numpy_descr(t) == norm;
  const bool raw_same_width =
      size == tsize && (kind == 'V' || (!isa::is_numpy_native(t) && (kind == 'u' || kind == 'i')));
  if (native_same || raw_same_width) {
    pl.copy = true;
    return pl;
  }
  if (isa::dtype_kind(t) == isa::DTypeKind::Packed)
    throw Error("a packed MX dtype (" + std::string(isa::dtype_name(t)) + ") takes its raw " +
                std::to_string(tsize * 8) + "-bit words (e.g. uint" + std::to_string(tsize * 8) + " data), not " +
                norm);
  if (kind == 'V')
    throw Error("raw dtype " + norm + " has " + std::to_string(size) + "-byte elements but " +
                std::string(isa::dtype_name(t)) + " needs " + std::to_string(tsize));
  return pl;
}

// Converts n elements of file data (little-endian) at src to pl.dtype at dst.
void convert_run(const Plan& pl, const uint8_t* src, size_t n, uint8_t* dst) {
  const isa::DType t = pl.dtype;
  const unsigned tsize = isa::dtype_size(t), size = pl.size;
  const char kind = pl.kind;
  if (kind == 'f' && size == 4 && isa::is_float(t)) {  // float32 data: the run-level conversion (same bits)
    constexpr size_t kBlock = 4096;
    float buf[kBlock];
    for (size_t k = 0; k < n; k += kBlock) {
      const size_t m = std::min(kBlock, n - k);
      std::memcpy(buf, src + k * 4, m * 4);
      store_f32(t, dst + k * tsize, tsize, m, buf);
    }
    return;
  }
  for (size_t k = 0; k < n; ++k, src += size, dst += tsize) {
    uint32_t bits;
    if (kind == 'f') {
      bits = isa::from_f32(t, load_float(src, size));
    } else if (isa::is_integer(t)) {
      bits = int_to_int(load_int(src, kind, size), t);
    } else if (kind == 'u' || kind == 'b') {
      bits = isa::from_f32(t, static_cast<float>(load_u64(src, size)));
    } else {
      bits = isa::from_f32(t, static_cast<float>(load_int(src, kind, size)));
    }
    isa::store_bits(dst, tsize, bits);
  }
}

// to_host_array's body; `steal` (the file's own data, or null) is moved instead of copied when the data is
// used as is.
HostArray convert(const NpyFile& f, std::optional<isa::DType> requested, std::vector<uint8_t>* steal) {
  HostArray a;
  a.shape = f.shape;
  const size_t n = a.elements();
  const Plan pl = plan_input(f.descr, n, f.data.size(), requested);
  a.dtype = pl.dtype;
  if (pl.copy) {
    a.data = steal ? std::move(*steal) : f.data;
    return a;
  }
  a.data.resize(n * isa::dtype_size(pl.dtype));
  convert_run(pl, f.data.data(), n, a.data.data());
  return a;
}

// An input read from an .npy file when it is bound: straight into dst, converted block by block when the
// dtypes differ.
class NpySource final : public ByteSource {
 public:
  NpySource(NpyHandle h, Plan pl, size_t n) : h_(std::move(h)), pl_(pl), n_(n) {}
  size_t size() const override { return n_ * isa::dtype_size(pl_.dtype); }
  // Blocks of kBlock elements, each read (and converted) on one of the parallel_for threads: a big input is
  // a copy out of the page cache plus a conversion, and both halve with a second core (case (a) of the
  // benchmark reads 32 MiB of float32 into bfloat16). The first error is rethrown after all blocks.
  void read_into(uint8_t* dst) const override {
    constexpr size_t kBlock = 1 << 16;  // elements per read (<= 512 KiB of file data)
    const size_t blocks = (n_ + kBlock - 1) / kBlock, tsize = isa::dtype_size(pl_.dtype);
    std::mutex mu;
    std::exception_ptr error;
    auto block = [&](size_t b) {
      const size_t k = b * kBlock, m = std::min(kBlock, n_ - k);
      try {
        if (pl_.copy) {
          read_npy_data(h_, k * pl_.size, dst + k * pl_.size, m * pl_.size);
          return;
        }
        thread_local std::vector<uint8_t> buf;
        buf.resize(m * pl_.size);
        read_npy_data(h_, k * pl_.size, buf.data(), m * pl_.size);
        convert_run(pl_, buf.data(), m, dst + k * tsize);
      } catch (...) {
        std::lock_guard<std::mutex> l(mu);
        if (!error) error = std::current_exception();
      }
    };
    if (blocks > 1) parallel_for(blocks, block);
    else if (blocks == 1) block(0);
    if (error) std::rethrow_exception(error);
  }
  int64_t file_offset() const override {
    return pl_.copy && !h_.byteswap && !h_.c_order && h_.file ? int64_t(h_.data_offset) : -1;
  }
  // The page-aligned middle is mapped from the page cache (MAP_PRIVATE: copy on write), the partial pages at
  // both ends are read. A regular file holding all the data is required (else read_into reports the error).
  bool map_into(uint8_t* dst) const override {
    constexpr uintptr_t kPage = 4096;
    const int64_t off = file_offset();
    const size_t n = size();
    const uintptr_t d = reinterpret_cast<uintptr_t>(dst);
    if (off < 0 || n < 4 * kPage || (d - uintptr_t(off)) % kPage) return false;
    struct stat st;
    if (fstat(h_.file->fd, &st) != 0 || !S_ISREG(st.st_mode) || uint64_t(st.st_size) < uint64_t(off) + n) return false;
    const uintptr_t a = (d + kPage - 1) & ~(kPage - 1), b = (d + n) & ~(kPage - 1);
    void* m = mmap(reinterpret_cast<void*>(a), b - a, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_FIXED, h_.file->fd,
                   off_t(uint64_t(off) + (a - d)));
    if (m == MAP_FAILED) fail(h_.path, std::string("cannot map: ") + std::strerror(errno));
    read_npy_data(h_, 0, dst, a - d);
    read_npy_data(h_, b - d, reinterpret_cast<uint8_t*>(b), d + n - b);
    return true;
  }

 private:
  NpyHandle h_;
  Plan pl_;
  size_t n_;
};

// --- writer ----------------------------------------------------------------------------------------
}  // namespace

HostArray to_host_array(const NpyFile& f, std::optional<isa::DType> requested) {
  return convert(f, requested, nullptr);
}
HostArray to_host_array(NpyFile&& f, std::optional<isa::DType> requested) {
  return convert(f, requested, &f.data);
}
HostArray to_host_array(const NpyHandle& f, std::optional<isa::DType> requested) {
  HostArray a;
  a.shape = f.shape;
  const size_t n = a.elements();
  const Plan pl = plan_input(f.descr, n, size_t(f.data_bytes), requested);
  a.dtype = pl.dtype;
  a.source = std::make_shared<const NpySource>(f, pl, n);
  return a;
}

NpyHandle::Fd::~Fd() {
  if (fd >= 0) ::close(fd);
}

void prepare_rewrite(const std::string& path) {
  struct stat st {};
  if (::lstat(path.c_str(), &st) == 0 && S_ISREG(st.st_mode) && st.st_nlink == 1) ::unlink(path.c_str());
}

void write_npy(const std::string& path, const HostArray& a, bool raw_low_precision) {
  const isa::DType t = a.dtype;
  const unsigned size = isa::dtype_size(t);
  const size_t n = a.elements();
  if (a.byte_size() < n * size) throw Error(path + ": cannot write: array data is smaller than its shape");
  std::string descr;
  std::vector<uint8_t> materialized;  // a lazily read input (`source`) is read first
  if (a.source) materialized = a.materialize();
  const uint8_t* const src = a.source ? materialized.data() : a.bytes();
  const uint8_t* data = src;
  size_t nbytes = n * size;
  std::vector<uint8_t> widened;
  if (isa::is_numpy_native(t)) {
    descr = std::string(isa::dtype_numpy_descr(t));
  } else if (raw_low_precision || isa::dtype_kind(t) == isa::DTypeKind::Packed) {
    // Packed MX dtypes (4 values per element) are always written as their raw words (uint32 / uint16).
    descr = size == 1 ? "|u1" : "<u" + std::to_string(size);
  } else {
    descr = "<f4";
    widened.resize(n * 4);
    for (size_t k = 0; k < n; ++k)
      isa::store_bits(&widened[k * 4], 4, isa::float_to_bits(isa::to_f32(t, isa::load_bits(src + k * size, size))));
    data = widened.data();
    nbytes = n * 4;
  }

  // Header exactly as numpy 1.24 writes it (sorted keys, repr'd values, growth-axis spaces, 64-byte align).
  std::string shape = "(";
  for (size_t k = 0; k < a.shape.size(); ++k) shape += (k ? ", " : "") + std::to_string(a.shape[k]);
  shape += a.shape.size() == 1 ? ",)" : ")";
  std::string header = "{'descr': '" + descr + "', 'fortran_order': False, 'shape': " + shape + ", }";
  if (!a.shape.empty()) {
    const size_t digits = std::to_string(a.shape[0]).size();
    if (digits < 21) header.append(21 - digits, ' ');
  }
  const size_t hlen = header.size() + 1;
  size_t len_bytes = 2;  // version 1.0 unless the header does not fit a 16-bit length
  size_t pad = 64 - ((8 + len_bytes + hlen) % 64);
  if (hlen + pad > 65535) {
    len_bytes = 4;
    pad = 64 - ((8 + len_bytes + hlen) % 64);
  }
  header.append(pad, ' ');
  header += '\n';
  std::string prefix("\x93NUMPY", 6);
  prefix += char(len_bytes == 2 ? 1 : 2);
  prefix += char(0);
  const uint32_t total = uint32_t(header.size());
  for (size_t k = 0; k < len_bytes; ++k) prefix += char((total >> (8 * k)) & 0xFF);

  // One writev for prefix, header and data (the data straight from where it lives, e.g. simulated HBM).
  prepare_rewrite(path);  // an existing output (a kernel run again) is replaced, not truncated
  const int fd = ::open(path.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
  if (fd < 0) fail(path, std::string("cannot write: ") + std::strerror(errno));
  iovec iov[3] = {{prefix.data(), prefix.size()}, {header.data(), header.size()},
                  {const_cast<uint8_t*>(data), nbytes}};
  int first = 0, err = 0;
  bool ok = true;
  while (first < 3) {
    const ssize_t w = ::writev(fd, iov + first, 3 - first);
    if (w < 0 && errno == EINTR) continue;
    if (w <= 0) {
      ok = false;
      err = w < 0 ? errno : 0;
      break;
    }
    size_t left = size_t(w);  // skip what was written (a short write continues where it stopped)
    while (first < 3 && left >= iov[first].iov_len) left -= iov[first++].iov_len;
    if (first < 3) {
      iov[first].iov_base = static_cast<uint8_t*>(iov[first].iov_base) + left;
      iov[first].iov_len -= left;
    }
  }
  if (::close(fd) != 0 && ok) {
    ok = false;
    err = errno;
  }
  if (!ok) fail(path, std::string("cannot write: ") + (err ? std::strerror(err) : "I/O error"));
}

}  // namespace nkisim::sim
