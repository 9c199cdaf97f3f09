// ndarray.h - compile-time host arrays (numpy_lite's np.array, zeros, eye, kron, ...): small numpy arrays a
// kernel builds at trace time, e.g. to pass to nl.shared_constant. Values are held as doubles (exact for every
// dtype nki-sim has and for numpy's default int64/float64 within 2^53); the size is capped (kMaxHostElements).
#pragma once
#include <optional>

#include "frontend/interp.h"

namespace nkisim::frontend {

inline constexpr int64_t kMaxHostElements = int64_t(1) << 23;

struct NdArrayObj : Object {
  enum class Wide : uint8_t { None, F64, I64 };  // numpy's default dtypes, which no device dtype holds
  Wide wide = Wide::F64;
  isa::DType dtype = isa::DType::float32;  // when wide == None
  std::vector<int64_t> shape;
  std::vector<double> data;  // row-major
  NdArrayObj() : Object(VK::Other) {}
  std::string repr() const override;
  std::string type_name() const override { return "ndarray"; }
  bool is_int() const;
  std::string dtype_str() const;
};

const NdArrayObj* as_ndarray(const Value& v);
// A new array; raises ValueError (located at the call) past kMaxHostElements.
Value new_ndarray(std::vector<int64_t> shape, NdArrayObj::Wide wide, isa::DType dt = isa::DType::float32);
// The array (or nested list, or number) `v` as an ndarray.
Value to_ndarray(Interp& in, const Value& v);
// Rounds every element to `dt` as the hardware converts (floats) or numpy casts (ints, wrapping).
Value ndarray_astype(const NdArrayObj& a, isa::DType dt);
// The little-endian bytes of the array in `dt` (which it must already be converted to).
std::vector<uint8_t> ndarray_bytes(const NdArrayObj& a);

bool ndarray_attr(Interp& in, const Value& obj, Sym name, Value* out);
bool virtual_file_attr(Interp& in, const Value& obj, Sym name, Value* out);  // f.name, with f: ...
Value ndarray_get_item(Interp& in, const Value& obj, const Value& key);
void ndarray_set_item(Interp& in, const Value& obj, const Value& key, const Value& v);
Value ndarray_binop(Interp& in, BinKind k, const Value& a, const Value& b);  // unbound: not an array operation
std::vector<Value> ndarray_rows(const Value& obj);

// The virtual files np.save writes (tempfile.NamedTemporaryFile names and any name passed to np.save):
// kernel code never writes host files. np.load / nl.shared_constant read them back by name.
Value virtual_file_load(Interp& in, const std::string& name, const char* fname);
void install_numpy_arrays(Interp& in, ModuleObj* np);  // np.array, zeros, ..., save, load; tempfile; scipy.linalg

}  // namespace nkisim::frontend
