// sim_test_util.h - helpers for simulator tests: hand-built access patterns, programs and host arrays.
#pragma once
#include <cmath>
#include <cstring>
#include <initializer_list>
#include <utility>
#include <vector>

#include "isa/program.h"
#include "isa/target.h"
#include "sim/simulate.h"

namespace simtest {
using namespace nkisim;
using isa::AccessPattern;
using isa::DType;
using isa::Engine;
using isa::Opcode;

using Dims = std::initializer_list<std::pair<int32_t, uint32_t>>;  // {stride, count}, outer -> inner

inline AccessPattern onchip(isa::Memory m, DType t, uint32_t p0, uint32_t np, int64_t offset, Dims dims) {
  AccessPattern ap;
  ap.mem = m;
  ap.dtype = t;
  ap.start_partition = p0;
  ap.num_partitions = np;
  ap.offset = offset;
  for (auto [s, c] : dims) ap.dims[ap.num_dims++] = isa::ApDim{s, c};
  return ap;
}
// A [np, f] tile at byte `offset` of partitions [p0, p0+np), contiguous free dim.
inline AccessPattern sbuf(DType t, uint32_t p0, uint32_t np, int64_t offset, uint32_t f) {
  return onchip(isa::Memory::SBUF, t, p0, np, offset, {{1, f}});
}
inline AccessPattern psum(DType t, uint32_t p0, uint32_t np, int64_t offset, uint32_t f) {
  return onchip(isa::Memory::PSUM, t, p0, np, offset, {{1, f}});
}
inline AccessPattern hbm(DType t, int64_t address, int64_t pstride, uint32_t np, Dims dims) {
  AccessPattern ap;
  ap.mem = isa::Memory::HBM;
  ap.dtype = t;
  ap.num_partitions = np;
  ap.partition_stride = pstride;
  ap.offset = address;
  for (auto [s, c] : dims) ap.dims[ap.num_dims++] = isa::ApDim{s, c};
  return ap;
}

inline isa::Instruction make(Opcode op, std::initializer_list<AccessPattern> operands) {
  isa::Instruction ins;
  ins.op = op;
  int k = 0;
  for (const AccessPattern& ap : operands) ins.operands[k++] = ap;
  return ins;
}

// Builds a program: HBM tensors, stream instructions, semaphores.
struct Builder {
  isa::Program p;
  Builder() { p.num_semaphores = 8; }

  size_t tensor(const char* name, isa::HbmTensor::Kind kind, DType t, std::vector<int64_t> shape) {
    isa::HbmTensor ht;
    ht.name = name;
    ht.kind = kind;
    ht.dtype = t;
    ht.shape = shape;
    uint64_t n = 1;
    for (auto d : shape) n *= uint64_t(d);
    ht.bytes = n * isa::dtype_size(t);
    ht.address = (p.hbm_bytes + 63) / 64 * 64;
    p.hbm_bytes = ht.address + ht.bytes;
    if (kind == isa::HbmTensor::Kind::Input) {
      int k = 0;
      for (auto& o : p.hbm_tensors) k += o.kind == isa::HbmTensor::Kind::Input;
      ht.param_index = k;
    }
    if (kind == isa::HbmTensor::Kind::Output) {
      int k = 0;
      for (auto& o : p.hbm_tensors) k += o.output_index >= 0;
      ht.output_index = k;
    }
    p.hbm_tensors.push_back(ht);
    return p.hbm_tensors.size() - 1;
  }
  size_t input(const char* name, DType t, std::vector<int64_t> shape) {
    return tensor(name, isa::HbmTensor::Kind::Input, t, std::move(shape));
  }
  size_t output(const char* name, DType t, std::vector<int64_t> shape) {
    return tensor(name, isa::HbmTensor::Kind::Output, t, std::move(shape));
  }
  // The whole 2-D tensor as an HBM access pattern [rows (partition dim), cols].
  AccessPattern whole(size_t t) const {
    const isa::HbmTensor& ht = p.hbm_tensors[t];
    int64_t rows = ht.shape.size() > 1 ? ht.shape[0] : 1;
    int64_t cols = ht.shape.empty() ? 1 : ht.shape.back();
    return hbm(ht.dtype, int64_t(ht.address), cols, uint32_t(rows), {{1, uint32_t(cols)}});
  }
  isa::Instruction& add(Engine e, isa::Instruction ins) {
    ins.engine = e;
    p.streams[int(e)].push_back(std::move(ins));
    return p.streams[int(e)].back();
  }
  uint32_t loc(const char* file, uint32_t line, uint32_t col = 1) {
    p.locations.push_back(SourceLoc{file, line, col});
    return uint32_t(p.locations.size() - 1);
  }
};

// A one-compute-instruction kernel: DMA every input tensor [P, F] into SBUF (Sync, queue 0, each +1 on
// sem 0), run the compute instructions on their engines (each waits sem 0 >= #loads, then +1 on sem 1),
// DMA the result tiles out (Sync waits sem 1 >= #computes). Tests fill in the compute instructions.
struct Pipeline {
  Builder b;
  uint32_t loads = 0, computes = 0;
  std::vector<std::pair<AccessPattern, size_t>> stores;

  AccessPattern load(const char* name, DType t, uint32_t P, uint32_t F, int64_t sbuf_offset) {
    size_t id = b.input(name, t, {P, F});
    AccessPattern tile = sbuf(t, 0, P, sbuf_offset, F);
    auto& ins = b.add(Engine::Sync, make(Opcode::dma_copy, {tile, b.whole(id)}));
    ins.updates.push_back({0, 1});
    ++loads;
    return tile;
  }
  isa::Instruction& compute(Engine e, isa::Instruction ins) {
    ins.waits.push_back({0, loads});
    ins.updates.push_back({1, 1});
    ++computes;
    return b.add(e, std::move(ins));
  }
  void store(const char* name, const AccessPattern& tile) {
    size_t id = b.output(name, tile.dtype, {tile.num_partitions, int64_t(tile.free_elements())});
    stores.emplace_back(tile, id);
  }
  sim::Result run(const std::vector<sim::HostArray>& inputs, sim::Options opts = {}) {
    for (auto& [tile, id] : stores) {
      auto& ins = b.add(Engine::Sync, make(Opcode::dma_copy, {b.whole(id), tile}));
      ins.waits.push_back({1, computes});
    }
    stores.clear();
    return sim::simulate(b.p, inputs, opts);
  }
};

inline sim::HostArray f32_array(std::vector<int64_t> shape, const std::vector<float>& v) {
  sim::HostArray a;
  a.dtype = DType::float32;
  a.shape = std::move(shape);
  a.data.resize(v.size() * 4);
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}
template <class T>
inline sim::HostArray raw_array(DType t, std::vector<int64_t> shape, const std::vector<T>& v) {
  sim::HostArray a;
  a.dtype = t;
  a.shape = std::move(shape);
  a.data.resize(v.size() * sizeof(T));
  std::memcpy(a.data.data(), v.data(), a.data.size());
  return a;
}
template <class T>
inline std::vector<T> values(const sim::HostArray& a) {
  std::vector<T> v(a.byte_size() / sizeof(T));  // `data`, or `view` for an output of Options::outputs_in_place
  std::memcpy(v.data(), a.bytes(), v.size() * sizeof(T));
  return v;
}

// Reference bfloat16 rounding (round to nearest even; independent of the code under test).
inline uint16_t bf16_bits(float f) {
  uint32_t b;
  std::memcpy(&b, &f, 4);
  if (std::isnan(f)) return uint16_t((b >> 16) | 0x40);
  uint32_t lsb = (b >> 16) & 1;
  return uint16_t((b + 0x7fff + lsb) >> 16);
}
inline float bf16_value(uint16_t h) {
  uint32_t b = uint32_t(h) << 16;
  float f;
  std::memcpy(&f, &b, 4);
  return f;
}
inline float bf16_round(float f) { return bf16_value(bf16_bits(f)); }

inline std::vector<float> ramp(size_t n, float start, float step) {
  std::vector<float> v(n);
  for (size_t i = 0; i < n; ++i) v[i] = start + step * float(i);
  return v;
}

inline isa::TargetDesc trn2() { return *isa::find_target("trn2"); }

}  // namespace simtest
