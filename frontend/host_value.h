// host_value.h - a host (Python) value handed to a kernel call, as a tree the front end rebuilds at compile time.
#pragma once
#include <cstdint>
#include <string>
#include <vector>

namespace nkisim::frontend {

// What the Python package passes for each kernel argument (python/nkisim/_hostvalue.py builds it):
// plain values, containers, references to input tensors, to module attributes (nl.add, np.float32, an enum
// member, a user function) and instances of user classes (rebuilt without calling __init__).
struct HostValue {
  enum class Kind : uint8_t { None, Bool, Int, Float, Str, Tuple, List, Dict, Tensor, Attr, Object };
  Kind kind = Kind::None;
  bool b = false;
  int64_t i = 0;  // Int; Tensor: index into CompileOptions::inputs
  double f = 0;
  // Str: the text. Attr: the attribute path inside `module` ("add", "NormType.RMS"). Object: the class's path.
  std::string s;
  std::string module;  // Attr / Object: the dotted module name ("nki.language", "numpy", "pkg.mod")
  std::string file;    // Attr / Object: the module's source file; "" for modules built into nki-sim
  // Tuple / List: the items. Dict: key, value, key, value, ... Object: the field values (names in `keys`).
  std::vector<HostValue> items;
  std::vector<std::string> keys;
};

}  // namespace nkisim::frontend
