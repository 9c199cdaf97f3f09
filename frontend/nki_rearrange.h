// nki_rearrange.h - NkiTensor.rearrange(src, dst, sizes): einops-style compile-time views (nki_rearrange.cpp).
#pragma once
#include "frontend/interp.h"
#include "ir/kernel.h"

namespace nkisim::frontend {

// `view.rearrange(src, dst, sizes)`: src / dst are einops patterns, a string such as "p (a b) c" or a
// tuple/list whose items are names or tuples of names (a group); sizes is None or a dict {name: int}
// giving all but one size of every split group. src names one pattern item per view dimension; a group
// splits its dimension (row-major), dst reorders the names and merges its groups (which must be
// contiguous in memory). On chip the partition dimension stays first and alone. Raises located ValueError /
// TypeError for bad patterns.
ir::View rearrange_view(Interp& in, const ir::View& v, bool on_chip, const Value& src, const Value& dst,
                        const Value& sizes);

}  // namespace nkisim::frontend
