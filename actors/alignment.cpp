#include "actors/alignment.hpp"

#include <string_view>
#include <unordered_map>
#include <unordered_set>

namespace veil::actors {

std::string align_rows(const std::vector<std::string>& names,
                       const std::vector<protocols::session::data_summary>& s,
                       bool ids, const char* what, row_orders& orders) {
  orders.assign(s.size(), {});
  const auto& ref = s[0];
  if (!ids) {
    for (std::size_t p = 1; p < s.size(); ++p)
      if (s[p].rows != ref.rows)
        return names[p] + "'s " + what + " data has " +
               std::to_string(s[p].rows) + " rows, " + names[0] + "'s has " +
               std::to_string(ref.rows) +
               " (no id column: rows are aligned by position)";
    return {};
  }
  std::unordered_map<std::string_view, std::uint32_t> ref_index;
  ref_index.reserve(ref.ids.size());
  for (std::size_t i = 0; i < ref.ids.size(); ++i)
    ref_index.emplace(ref.ids[i], static_cast<std::uint32_t>(i));
  for (std::size_t p = 1; p < s.size(); ++p) {
    const auto& ids_p = s[p].ids;
    // Position in party 0's order of each of p's rows.
    std::vector<std::uint32_t> pos(ids_p.size());
    for (std::size_t r = 0; r < ids_p.size(); ++r) {
      auto it = ref_index.find(ids_p[r]);
      if (it == ref_index.end())
        return names[p] + "'s " + what + " data has sample id \"" + ids_p[r] +
               "\", which " + names[0] + "'s has not";
      pos[r] = it->second;
    }
    if (ids_p.size() != ref.ids.size()) {
      std::unordered_set<std::string_view> have(ids_p.begin(), ids_p.end());
      for (const auto& id : ref.ids)
        if (!have.contains(id))
          return names[0] + "'s " + what + " data has sample id \"" + id +
                 "\", which " + names[p] + "'s has not";
    }
    // Ids are unique on each side (the reader checks), so pos is a
    // permutation: invert it.
    std::vector<std::uint32_t> order(ids_p.size());
    bool identity = true;
    for (std::size_t r = 0; r < pos.size(); ++r) {
      order[pos[r]] = static_cast<std::uint32_t>(r);
      identity = identity && pos[r] == r;
    }
    if (!identity)
      orders[p] = std::move(order);
  }
  return {};
}

std::string apply_order(learners::dataset& d,
                        const std::vector<std::uint32_t>& rows) {
  std::vector<std::size_t> pick(rows.size());
  for (std::size_t i = 0; i < rows.size(); ++i) {
    if (rows[i] >= d.rows())
      return "align: row " + std::to_string(rows[i]) + " out of range";
    pick[i] = rows[i];
  }
  d = d.select_rows(pick);
  return {};
}

} // namespace veil::actors
