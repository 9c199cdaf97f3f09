// prefault.cpp - ir/prefault.h.
#include "ir/prefault.h"

#include <sys/mman.h>
#include <unistd.h>

namespace nkisim::ir {

void prefault(const void* begin, const void* end) {
#ifdef MADV_POPULATE_WRITE
  static const uintptr_t page = uintptr_t(sysconf(_SC_PAGESIZE));
  const uintptr_t a = (reinterpret_cast<uintptr_t>(begin) + page - 1) & ~(page - 1);
  const uintptr_t b = reinterpret_cast<uintptr_t>(end) & ~(page - 1);
  if (a < b) madvise(reinterpret_cast<void*>(a), b - a, MADV_POPULATE_WRITE);  // EINVAL before Linux 5.14: ignored
#else
  (void)begin;
  (void)end;
#endif
}

}  // namespace nkisim::ir
