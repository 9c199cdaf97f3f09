// sym.h - interned identifiers (Sym): names compared and hashed as small integers in the evaluator.
#pragma once
#include <cstdint>
#include <string>
#include <string_view>

namespace nkisim::frontend {

using Sym = uint32_t;  // 0 = no name

// Interns `s` (thread-safe); the same text always yields the same Sym for the process lifetime.
Sym intern(std::string_view s);
// The text of an interned Sym (valid for the process lifetime).
std::string_view sym_name(Sym s);
inline std::string sym_str(Sym s) { return std::string(sym_name(s)); }

// Predefined symbols with fixed ids (S::append etc.), interned at start-up in this order.
#define NKISIM_PREDEF_SYMS(X)                                                                                          \
  X(__init__)                                                                                                          \
  X(__name__) X(__call__) X(__eq__) X(__ne__) X(__hash__) X(__repr__) X(__str__) X(__getitem__) X(__setitem__)         \
      X(__len__) X(__contains__) X(__iter__) X(__enter__) X(__exit__) X(__post_init__) X(__class__) X(__dict__)        \
          X(__file__) X(__lt__) X(__le__) X(__gt__) X(__ge__) X(__bool__) X(__add__) X(__mul__) X(__sub__) X(__doc__)  \
              X(__module__) X(__qualname__) X(self) X(append) X(extend) X(pop) X(insert) X(index) X(remove) X(reverse) \
                  X(sort) X(count) X(copy) X(clear) X(keys) X(values) X(items) X(get) X(setdefault) X(update) X(join)  \
                      X(split) X(rsplit) X(strip) X(lstrip) X(rstrip) X(upper) X(lower) X(startswith) X(endswith)      \
                          X(replace) X(find) X(rfind) X(format) X(isdigit) X(isalpha) X(isalnum) X(isupper) X(islower) \
                              X(isspace) X(zfill) X(ljust) X(rjust) X(center) X(title) X(capitalize) X(splitlines)     \
                                  X(partition) X(rpartition) X(encode) X(decode) X(add) X(discard) X(union_)           \
                                      X(intersection) X(difference) X(issubset) X(issuperset) X(start) X(stop) X(step) \
                                          X(shape) X(dtype) X(buffer) X(ndim) X(size) X(name) X(value) X(key) X(real)  \
                                              X(imag) X(is_integer) X(bit_length) X(conjugate) X(args) X(fromkeys)     \
                                                  X(isdecimal) X(isidentifier) X(casefold) X(swapcase) X(expandtabs)   \
                                                      X(removeprefix) X(removesuffix) X(popitem)

namespace S {
enum : Sym {
  none_ = 0,
#define NKISIM_SYM_ENUM(n) n,
  NKISIM_PREDEF_SYMS(NKISIM_SYM_ENUM)
#undef NKISIM_SYM_ENUM
      kCount
};
}  // namespace S

}  // namespace nkisim::frontend
