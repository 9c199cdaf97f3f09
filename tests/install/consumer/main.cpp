// consumer: compiles KERNEL.py with the installed nki-sim's public API, runs it on a = i (fp32 [128, 64])
// and prints the outputs' element 5 and 200 (11 and 401 for scale_add.py) and the simulated time.
#include <cstdio>
#include <cstring>
#include <vector>

#include "api/run.h"

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: consumer KERNEL.py\n");
    return 2;
  }
  using namespace nkisim;
  try {
    api::CompileRequest req;
    req.kernel_path = argv[1];
    req.target = *isa::find_target("trn2");
    req.copts.inputs.push_back({isa::DType::float32, {128, 64}});
    api::Compiled c = api::compile_kernel(req);

    sim::HostArray a;
    a.shape = {128, 64};
    std::vector<float> v(128 * 64);
    for (size_t i = 0; i < v.size(); ++i) v[i] = float(i);
    a.data.resize(v.size() * sizeof(float));
    std::memcpy(a.data.data(), v.data(), a.data.size());

    sim::Options o;
    o.target = c.target;
    std::vector<sim::HostArray> inputs{a};
    api::Run run = api::simulate(c.programs, inputs, o);
    std::vector<uint8_t> out = run.outputs().at(0).materialize();
    float r[2];
    std::memcpy(&r[0], out.data() + 5 * sizeof(float), sizeof(float));
    std::memcpy(&r[1], out.data() + 200 * sizeof(float), sizeof(float));
    std::printf("out[5]=%g out[200]=%g total_ns=%.1f\n", r[0], r[1], run.total_ns());
    return 0;
  } catch (const std::exception& e) {
    std::fprintf(stderr, "consumer: %s\n", e.what());
    return 1;
  }
}
