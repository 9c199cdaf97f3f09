// host_args.h - HostValue trees (a Python call's arguments) -> compile-time values (frontend/host_args.cpp).
#pragma once
#include <functional>
#include <string>
#include <vector>

#include "frontend/host_value.h"
#include "frontend/value.h"

namespace nkisim::frontend {

class Interp;

// Rebuilds `h` in the interpreter. Tensor nodes become tensor(index); module references are resolved in the
// module loaded from the same file, else through the front end's import machinery (built-in nki / numpy
// namespaces included); user-class instances are made without calling __init__. `what` names the argument in
// errors ("argument 'cfg'").
// SbufIn / SbufOut nodes allocate their SBUF tiles (and DMA the input in) here; `sbuf` collects the output
// tiles (nullptr: SBUF arguments are refused).
struct HostSbuf {
  std::vector<std::pair<Value, const HostValue*>> outputs;  // the tile passed in, its SbufOut node
};
Value host_to_value(Interp& in, const HostValue& h, const std::function<Value(int64_t)>& tensor,
                    const std::string& what, HostSbuf* sbuf = nullptr);
// After the call: each SBUF output tile DMA'd to a new shared-HBM tensor of its shape and dtype (core c of an
// LNC=N call copies part c of the split axis; without one core 0 copies it all). The tensors in argument order;
// the function's results that are these tiles become their copies, the others follow its results.
std::vector<Value> host_sbuf_outputs(Interp& in, const HostSbuf& sbuf);
// names[i] = the name of input tensor i (HostValue::s of its first Tensor node); grows `names` as needed.
void host_tensor_names(const HostValue& h, std::vector<std::string>& names);

}  // namespace nkisim::frontend
