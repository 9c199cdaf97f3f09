// npy.h - reading and writing NumPy .npy files, and turning their contents into kernel inputs.
#pragma once
#include <memory>
#include <optional>
#include <string>

#include "sim/host_array.h"

namespace nkisim::sim {

// The raw contents of an .npy file: its dtype descriptor (normalised to little-endian, e.g. "<f4",
// "|u1", "<V2", "|b1", "<f8"), shape and C-order data (Fortran-order files are rejected).
struct NpyFile {
  std::string descr;
  std::vector<int64_t> shape;
  std::vector<uint8_t> data;
};

// An opened .npy file whose header was read and checked (everything read_npy checks) but whose data was not.
struct NpyHandle {
  struct Fd {
    explicit Fd(int f) : fd(f) {}
    Fd(const Fd&) = delete;
    Fd& operator=(const Fd&) = delete;
    ~Fd();
    int fd;
  };
  std::string path;
  std::string descr;  // normalised, as NpyFile::descr
  std::vector<int64_t> shape;
  uint64_t data_offset = 0, data_bytes = 0;  // where the C-order data is in the file
  bool byteswap = false;                     // big-endian data ('>'): swapped to little-endian on read
  std::shared_ptr<const Fd> file;
  // A Fortran-order file (fortran_order: True, what np.save writes for a transposed array): its data read at
  // open and reordered to C order; reads come from here.
  std::shared_ptr<const std::vector<uint8_t>> c_order;
};

// Opens `path` and reads and checks its header; the same errors as read_npy except for reading the data.
NpyHandle open_npy(const std::string& path);
// Reads n bytes of the data at byte `offset` of it into dst (little-endian); "path: cannot read: ..." on failure.
void read_npy_data(const NpyHandle& h, uint64_t offset, uint8_t* dst, size_t n);

// Reads an .npy file (format versions 1, 2, 3). Throws nkisim::Error whose message starts with the path
// and says what is wrong: missing/unreadable file, bad magic, bad header, unsupported dtype, size
// mismatch (truncated data), Fortran order.
NpyFile read_npy(const std::string& path);

// Turns file contents into a kernel input:
// * no requested dtype: the descriptor must be a numpy-native NKI dtype (<f4 <f2 |i1 |u1 <i2 <u2 <i4 <u4 |b1);
//   anything else (e.g. <f8, <i8) is an error suggesting FILE:DTYPE.
// * requested dtype D: float data (<f8 <f4 <f2) is rounded to D with the hardware conversion (via fp32);
//   raw data of D's width (<V2, <u2, <i2 for 2-byte D, ...) is reinterpreted bit for bit when D is a float
//   type numpy lacks; integer data converts numerically (saturating, as from_f32 does).
// Throws nkisim::Error with a message that does not include the path (the caller prefixes it).
HostArray to_host_array(const NpyFile& f, std::optional<isa::DType> requested);
// The same, taking over f's data instead of copying it when it needs no conversion (f.data is left empty).
HostArray to_host_array(NpyFile&& f, std::optional<isa::DType> requested);
// The same checks, but the data is not read: the HostArray's `source` reads (and converts) it when the
// simulator binds the input, straight into simulated HBM.
HostArray to_host_array(const NpyHandle& f, std::optional<isa::DType> requested);

// Call before (re)writing the file at `path`: removes it when it is a plain file with no other links, so
// it is created anew rather than truncated. ext4 (auto_da_alloc) flushes a file that is truncated and
// rewritten when it is closed: 50-70 ms for a 16 MiB output against 5 ms for a new file. Symlinks and
// hard-linked files are kept and written through.
void prepare_rewrite(const std::string& path);

// Writes `a`. Float dtypes numpy lacks (bfloat16, tfloat32, fp8) are widened to float32 (exact) unless
// raw_low_precision, in which case their raw bits are written as unsigned integers of the same width.
// Throws nkisim::Error ("path: cannot write ...") on I/O failure.
void write_npy(const std::string& path, const HostArray& a, bool raw_low_precision = false);

}  // namespace nkisim::sim
