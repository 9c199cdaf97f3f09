// host_value.h - a host (Python) value handed to a kernel call, as a tree the front end rebuilds at compile time.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nkisim::frontend {

// What the Python package passes for each kernel argument (python/nkisim/_hostvalue.py builds it):
// plain values, containers, references to input tensors, to module attributes (nl.add, np.float32, an enum
// member, a user function) and instances of user classes (rebuilt without calling __init__).
// SBUF-resident arguments (nkisim.sbuf / nkisim.sbuf_output) for functions that take SBUF tiles:
//   SbufIn: input tensor `i` (HBM) DMA'd into an SBUF tile of its shape (partition dim first) before the call;
//   SbufOut: an SBUF tile of `shape` / `dtype` passed in, DMA'd to a new HBM output after the call (in the
//   place the function returns the tile, else after its results in argument order). `i` = the axis each core
//   of an LNC=2 call holds its share of (core c copies out part c), or -1: core 0 copies out the whole tile.
struct HostValue {
  enum class Kind : uint8_t { None, Bool, Int, Float, Str, Tuple, List, Dict, Tensor, Attr, Object, SbufIn, SbufOut };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;  // Int; Tensor, SbufIn: index into CompileOptions::inputs; SbufOut: the LNC split axis
  double f = 0;
  // Str: the text. Tensor, SbufIn, SbufOut: the argument's name. Attr: the attribute path inside `module`
  // ("add", "NormType.RMS"). Object: the class's path.
  std::string s;
  std::string module;  // Attr / Object: the dotted module name ("nki.language", "numpy", "pkg.mod")
  std::string file;    // Attr / Object: the module's source file; "" for modules built into nki-sim
  // Tuple / List: the items. Dict: key, value, key, value, ... Object: the field values (names in `keys`).
  std::vector<HostValue> items;
  std::vector<std::string> keys;
  std::vector<int64_t> shape;  // SbufOut
  std::string dtype;           // SbufOut: the NKI dtype name ("float16", "float8_e4m3fn_x4")
};

}  // namespace nkisim::frontend
