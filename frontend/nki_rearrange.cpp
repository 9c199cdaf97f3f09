// nki_rearrange.cpp - NkiTensor.rearrange(src, dst, sizes): einops-style split / permute / merge of a view's
// dimensions, expressed through ir/view.h (reshape_dim, permute_view, flatten_dims); no data moves.
#include "frontend/nki_rearrange.h"

#include <algorithm>
#include <map>

#include "frontend/nki.h"
#include "ir/view.h"

namespace nkisim::frontend {
namespace {

using Groups = std::vector<std::vector<std::string>>;  // one entry per pattern item; a plain name = 1 member

bool name_start(char ch) { return (ch >= 'a' && ch <= 'z') || (ch >= 'A' && ch <= 'Z') || ch == '_'; }
bool name_char(char ch) { return name_start(ch) || (ch >= '0' && ch <= '9'); }

Groups parse_string(const std::string& s, const char* which) {
  auto bad = [&](const std::string& why) {
    raise("ValueError", std::string("rearrange: ") + why + " in " + which + " pattern '" + s + "'");
  };
  Groups g;
  bool open = false;
  for (size_t i = 0; i < s.size();) {
    const char ch = s[i];
    if (ch == ' ' || ch == '\t') {
      ++i;
    } else if (ch == '(') {
      if (open) bad("nested parentheses");
      open = true;
      g.emplace_back();
      ++i;
    } else if (ch == ')') {
      if (!open) bad("unbalanced parentheses");
      if (g.back().empty()) bad("an empty group '()'");
      open = false;
      ++i;
    } else if (name_start(ch)) {
      size_t j = i;
      while (j < s.size() && name_char(s[j])) ++j;
      if (open) g.back().push_back(s.substr(i, j - i));
      else g.push_back({s.substr(i, j - i)});
      i = j;
    } else {
      bad(std::string("unexpected character '") + ch + "'");
    }
  }
  if (open) bad("unbalanced parentheses");
  return g;
}

Groups parse_pattern(const Value& p, const char* which) {
  if (p.is(VK::Str)) return parse_string(str_of(p), which);
  if (!p.is(VK::Tuple) && !p.is(VK::List))
    raise("TypeError", std::string("rearrange: the ") + which + " pattern must be a string such as 'p (a b)' or a "
                           "tuple of names, got '" + type_name(p) + "'");
  Groups g;
  auto name = [&](const Value& n) {
    if (!n.is(VK::Str))
      raise("TypeError", std::string("rearrange: ") + which + " pattern items must be names (str) or tuples of names, got '" +
                             type_name(n) + "'");
    return str_of(n);
  };
  for (const Value& item : items_of(p)) {
    if (item.is(VK::Tuple) || item.is(VK::List)) {
      g.emplace_back();
      for (const Value& n : items_of(item)) g.back().push_back(name(n));
      if (g.back().empty()) raise("ValueError", std::string("rearrange: an empty group in the ") + which + " pattern");
    } else {
      g.push_back({name(item)});
    }
  }
  return g;
}

std::string group_text(const std::vector<std::string>& grp) {
  if (grp.size() == 1) return grp[0];
  std::string s = "(";
  for (size_t i = 0; i < grp.size(); ++i) s += (i ? " " : "") + grp[i];
  return s + ")";
}

std::vector<std::string> flat_names(const Groups& g, const char* which) {
  std::vector<std::string> out;
  for (auto& grp : g)
    for (auto& n : grp) {
      if (std::find(out.begin(), out.end(), n) != out.end())
        raise("ValueError", std::string("rearrange: name '") + n + "' appears twice in the " + which + " pattern");
      out.push_back(n);
    }
  return out;
}

// Runs an ir/view.h operation, turning its error into a rearrange error.
template <class F>
ir::View view_op(F&& f) {
  try {
    return f();
  } catch (const Error& e) {
    raise("ValueError", std::string("rearrange: ") + e.what());
  }
}

}  // namespace

ir::View rearrange_view(Interp& in, const ir::View& v, bool on_chip, const Value& src_v, const Value& dst_v,
                        const Value& sizes_v) {
  const Groups src = parse_pattern(src_v, "src"), dst = parse_pattern(dst_v, "dst");
  const std::vector<std::string> names = flat_names(src, "src"), dnames = flat_names(dst, "dst");
  const size_t nd = v.dims.size();
  if (src.size() != nd)
    raise("ValueError", "rearrange: the src pattern has " + std::to_string(src.size()) + " items but the tensor has " +
                            std::to_string(nd) + " dimensions " + ir::shape_string(v.shape()));
  for (auto& n : dnames)
    if (std::find(names.begin(), names.end(), n) == names.end())
      raise("ValueError", "rearrange: name '" + n + "' of the dst pattern is not in the src pattern");
  for (auto& n : names)
    if (std::find(dnames.begin(), dnames.end(), n) == dnames.end())
      raise("ValueError", "rearrange: name '" + n + "' of the src pattern is missing from the dst pattern");
  if (names.size() > 5)
    raise("ValueError", "rearrange: the pattern has " + std::to_string(names.size()) +
                            " names; a view has at most 5 dimensions");
  std::map<std::string, int64_t> size;
  if (!sizes_v.is_unbound() && !sizes_v.is_none()) {
    if (!sizes_v.is(VK::Dict))
      raise("TypeError", "rearrange: sizes must be a dict {name: size}, got '" + type_name(sizes_v) + "'");
    for (auto& e : sizes_v.as<DictObj>()->entries) {
      if (!e.live) continue;
      if (!e.key.is(VK::Str)) raise("TypeError", "rearrange: sizes keys must be names (str), got '" + type_name(e.key) + "'");
      const std::string n = str_of(e.key);
      if (std::find(names.begin(), names.end(), n) == names.end())
        raise("ValueError", "rearrange: sizes names '" + n + "', which is not in the src pattern");
      const int64_t k = in.to_index(e.value, "rearrange() sizes");
      if (k <= 0) raise("ValueError", "rearrange: the size of '" + n + "' must be positive, got " + std::to_string(k));
      size[n] = k;
    }
  }
  if (on_chip && (src[0].size() != 1 || dst[0].size() != 1 || dst[0][0] != src[0][0]))
    raise("ValueError", "rearrange: on an on-chip tensor the partition dimension (" + group_text(src[0]) +
                            " in src) must stay first and alone in both patterns");
  // Sizes of the split groups: all but one given, the last inferred.
  std::vector<std::vector<int64_t>> split(nd);
  for (size_t i = 0; i < nd; ++i) {
    const int64_t n = v.dims[i].count;
    int64_t known = 1;
    int unknown = -1;
    for (size_t j = 0; j < src[i].size(); ++j) {
      auto it = size.find(src[i][j]);
      if (it != size.end()) {
        known *= it->second;
        split[i].push_back(it->second);
      } else if (src[i].size() == 1) {
        split[i].push_back(n);
        known = n;
      } else {
        if (unknown >= 0)
          raise("ValueError", "rearrange: cannot infer the sizes of " + group_text(src[i]) + " (dimension " +
                                  std::to_string(i) + " of size " + std::to_string(n) + "): give all but one in sizes");
        unknown = int(j);
        split[i].push_back(-1);
      }
    }
    if (unknown >= 0 && n % known == 0) {
      split[i][size_t(unknown)] = n / known;
      known = n;
    }
    if (known != n)
      raise("ValueError", "rearrange: " + group_text(src[i]) + " cannot split dimension " + std::to_string(i) +
                              " of size " + std::to_string(n) + " with the given sizes");
  }
  ir::View r = v;
  for (size_t i = nd; i-- > 0;)
    if (src[i].size() > 1) r = view_op([&] { return ir::reshape_dim(r, int(i), split[i], on_chip); });
  std::vector<int> order;
  for (auto& n : dnames) order.push_back(int(std::find(names.begin(), names.end(), n) - names.begin()));
  r = view_op([&] { return ir::permute_view(r, order, on_chip); });
  int pos = int(dnames.size());
  for (size_t g = dst.size(); g-- > 0;) {
    pos -= int(dst[g].size());
    if (dst[g].size() > 1) {
      try {
        r = ir::flatten_dims(r, pos, pos + int(dst[g].size()) - 1, on_chip);
      } catch (const Error&) {
        raise("ValueError", "rearrange: " + group_text(dst[g]) + " of the dst pattern cannot be merged: its dimensions "
                                "are not contiguous in memory");
      }
    }
  }
  return r;
}

}  // namespace nkisim::frontend
