// prefault.h - first touches of big append-only vectors (the kernel's ops, the program's streams) in one system
// call per MiB (MADV_POPULATE_WRITE) rather than one page fault per 4 KiB page: on the development VM a fault
// costs ~1.3 us a page and a populated page ~0.75 us (docs/dev/performance-log.md, "Session 11, compile phase").
#pragma once
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace nkisim::ir {

// Maps the pages in [begin, end) now (whole pages inside the range), best effort: nothing where the system
// lacks MADV_POPULATE_WRITE. The memory's contents do not change.
void prefault(const void* begin, const void* end);

// Before appending to `v` within its capacity: when the new element reaches into a 1 MiB window (of the address
// space) that no earlier element reached, populates that window's part of the capacity. The window holding the
// first element is populated (from the new element on) once the elements reach 64 KiB into the vector, so that a
// vector that stays small costs no more than its pages. A vector of less than 2 MiB is left alone.
template <class T>
void prefault_append(const std::vector<T>& v) {
  constexpr uintptr_t kWindow = uintptr_t(1) << 20, kFirst = uintptr_t(64) << 10;
  if (v.size() >= v.capacity() || v.capacity() * sizeof(T) < 2 * kWindow) return;
  const uintptr_t begin = reinterpret_cast<uintptr_t>(v.data());
  const uintptr_t at = reinterpret_cast<uintptr_t>(v.data() + v.size()), last = at + sizeof(T) - 1;
  if (last / kWindow == begin / kWindow) {  // the first window
    if (at - begin < kFirst && last - begin >= kFirst)
      prefault(reinterpret_cast<const void*>(at),
               reinterpret_cast<const void*>(std::min((begin | (kWindow - 1)) + 1,
                                                      reinterpret_cast<uintptr_t>(v.data() + v.capacity()))));
    return;
  }
  if ((at - 1) / kWindow == last / kWindow) return;  // the window of its last byte was reached before
  const uintptr_t w0 = last & ~(kWindow - 1);
  const uintptr_t end = std::min(w0 + kWindow, reinterpret_cast<uintptr_t>(v.data() + v.capacity()));
  prefault(reinterpret_cast<const void*>(std::max(w0, at)), reinterpret_cast<const void*>(end));
}

}  // namespace nkisim::ir
