// print.cpp - Kernel IR text dump: tensors, then ops in program order with their views.
#include "ir/print.h"

#include <cstdio>
#include <sstream>

#include "isa/program.h"

namespace nkisim::ir {
namespace {

std::string shape_str(const std::vector<int64_t>& s) {
  std::string r = "[";
  for (size_t i = 0; i < s.size(); ++i) r += (i ? "," : "") + std::to_string(s[i]);
  return r + "]";
}

std::string view_str(const Kernel& k, const View& v) {
  std::string r = "%" + k.tensors[size_t(v.tensor)].name + "." + std::string(isa::dtype_name(v.dtype)) + "{off=" +
                  std::to_string(v.offset) + " ap=[";
  for (size_t i = 0; i < v.dims.size(); ++i)
    r += (i ? "," : "") + ("[" + std::to_string(v.dims[i].stride) + "," + std::to_string(v.dims[i].count) + "]");
  return r + "]}";
}

}  // namespace

std::string print_kernel(const Kernel& k) {
  std::ostringstream os;
  os << "kernel " << k.name << " target=" << k.target << " file=\"" << k.file << "\"\n";
  for (size_t i = 0; i < k.tensors.size(); ++i) {
    const Tensor& t = k.tensors[i];
    os << "  tensor %" << t.name << " : " << isa::dtype_name(t.dtype) << shape_str(t.shape) << " in "
       << buffer_name(t.buffer);
    if (t.role == Tensor::Role::Param) os << " param " << t.param_index;
    if (t.address) os << " address=(" << t.address->first << "," << t.address->second << ")";
    if (t.loc.known()) os << "  ; line " << t.loc.line;
    os << "\n";
  }
  for (auto& op : k.ops) {
    const isa::InstrInfo& in = isa::info(op.opcode);
    os << "  " << in.mnemonic;
    if (op.engine) os << " engine=" << isa::engine_name(*op.engine);
    for (int s = 0; s < in.num_operands; ++s)
      if (op.operands[size_t(s)]) os << " " << in.operands[size_t(s)].name << "=" << view_str(k, *op.operands[size_t(s)]);
    // Reuse the ISA printer's parameter text by printing a bare instruction.
    isa::Instruction bare;
    bare.op = op.opcode;
    bare.params = op.params;
    std::string p = isa::print_instruction(bare);
    size_t sp = p.find(' ');
    if (isa::has_trait(op.opcode, isa::Trait::DMA)) p = p.substr(0, p.rfind(" queue="));
    if (sp != std::string::npos && sp < p.size()) os << p.substr(sp);
    if (op.loc.known()) os << "  ; line " << op.loc.line;
    os << "\n";
  }
  os << "  return";
  for (size_t i = 0; i < k.outputs.size(); ++i) os << (i ? ", %" : " %") << k.tensors[size_t(k.outputs[i])].name;
  os << "\n";
  return os.str();
}

}  // namespace nkisim::ir
