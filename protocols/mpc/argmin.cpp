#include "protocols/mpc/argmin.hpp"

#include <stdexcept>

#include "protocols/mpc/arithmetic.hpp"
#include "protocols/mpc/boolean.hpp"

namespace veil::protocols::mpc {

task<argmin_result> argmin(party& self, words values, std::size_t groups,
                           std::size_t length, bool open_index) {
  if (length == 0 || values.size() != groups * length)
    throw std::invalid_argument("mpc::argmin: groups x length values");
  // Per group: the surviving values and their indices (S1 shares).
  std::vector<words> vals(groups), idx(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    vals[g].assign(values.begin() + static_cast<long>(g * length),
                   values.begin() + static_cast<long>((g + 1) * length));
    words ids(length);
    for (std::size_t i = 0; i < length; ++i)
      ids[i] = i;
    idx[g] = self.constant(ids);
  }
  std::size_t alive = length;
  while (alive > 1) {
    auto pairs = alive / 2;
    words right(groups * pairs), left(groups * pairs);
    for (std::size_t g = 0; g < groups; ++g)
      for (std::size_t j = 0; j < pairs; ++j) {
        left[g * pairs + j] = vals[g][2 * j];
        right[g * pairs + j] = vals[g][2 * j + 1];
      }
    // c = [right < left] (XOR-shared): the right one only when strictly
    // smaller; the selection converts it on the way (1 round, no B2A).
    auto c = co_await less_than_bits(self, right, left);
    words cc(2 * groups * pairs), diff(2 * groups * pairs);
    for (std::size_t g = 0; g < groups; ++g)
      for (std::size_t j = 0; j < pairs; ++j) {
        auto at = g * pairs + j;
        cc[at] = cc[groups * pairs + at] = c[at];
        diff[at] = vals[g][2 * j + 1] - vals[g][2 * j];
        diff[groups * pairs + at] = idx[g][2 * j + 1] - idx[g][2 * j];
      }
    auto chosen = co_await select(self, std::move(cc), std::move(diff));
    auto next = (alive + 1) / 2;
    for (std::size_t g = 0; g < groups; ++g) {
      words v(next), ix(next);
      for (std::size_t j = 0; j < pairs; ++j) {
        auto at = g * pairs + j;
        v[j] = vals[g][2 * j] + chosen[at];
        ix[j] = idx[g][2 * j] + chosen[groups * pairs + at];
      }
      if (alive % 2 == 1) { // the odd last one passes through
        v[next - 1] = vals[g][alive - 1];
        ix[next - 1] = idx[g][alive - 1];
      }
      vals[g] = std::move(v);
      idx[g] = std::move(ix);
    }
    alive = next;
  }
  words winners(groups), minimum(groups);
  for (std::size_t g = 0; g < groups; ++g) {
    winners[g] = idx[g][0];
    minimum[g] = vals[g][0];
  }
  argmin_result out;
  out.shared_index = winners;
  out.minimum = std::move(minimum);
  if (open_index) {
    auto opened = co_await self.open(std::move(winners));
    out.index.assign(opened.begin(), opened.end());
  }
  co_return out;
}

} // namespace veil::protocols::mpc
