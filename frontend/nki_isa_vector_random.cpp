// nki_isa_vector_random.cpp - nki.isa bindings of the vector_random family: rng, rand2, dropout, set_rng_seed,
// rand_set_state, rand_get_state (verifiers: isa/verify_vector_random.cpp, executors: sim/exec_vector_random.cpp).
#include "frontend/isa_bindings.h"

namespace nkisim::frontend {
namespace {
using namespace vector_binding;

const Binding kBindings[] = {
    {"rng", Opcode::rng, {tensor("dst", 0), kEngine, kName}},
    {"rand2", Opcode::rand2,
     {tensor("dst", 0), tensor_or_number("min", 1, &P::imm0), tensor_or_number("max", 2, &P::imm1), kName}},
    {"dropout", Opcode::dropout, {tensor("dst", 0), tensor("data", 1), tensor_or_number("prob", 2, &P::imm0), kName}},
    {"set_rng_seed", Opcode::set_rng_seed, {tensor("src_seeds", 0), kName}},
    {"rand_set_state", Opcode::rand_set_state, {tensor("src_seeds", 0), kEngine, kName}},
    {"rand_get_state", Opcode::rand_get_state, {tensor("dst", 0), kEngine, kName}},
};

}  // namespace

void install_nki_isa_vector_random(Interp& in, ModuleObj* isa) { install_bindings(in, isa, kBindings); }

}  // namespace nkisim::frontend
