#include "learners/binning/bin_matrix.hpp"

#include "learners/parallel.hpp"

namespace veil::learners {

namespace {

template <class T>
void fill_bins(const dataset& d, const quantile_cuts& cuts,
               const hist_layout& layout, std::vector<T>& out, int threads) {
  auto n = d.rows();
  auto m = d.features();
  out.assign(n * m, 0);
  // Column by column: each thread writes a strided column of the row-major
  // matrix, and the binary search is over one feature's cuts at a time.
#pragma omp parallel for num_threads(threads_for(n* m * 8, threads))           \
    schedule(dynamic, 1)
  for (std::size_t f = 0; f < m; ++f) {
    auto col = d.column(f);
    auto c = cuts.cuts(f);
    auto missing = static_cast<T>(layout.bins(f));
    for (std::size_t i = 0; i < n; ++i) {
      float x = col[i];
      out[i * m + f] =
          is_missing(x) || c.empty() ? missing : static_cast<T>(bin_in(c, x));
    }
  }
}

} // namespace

bin_matrix::bin_matrix(const dataset& d, const quantile_cuts& cuts, int threads)
    : rows_(d.rows()), features_(d.features()) {
  std::vector<int> bins(features_);
  for (std::size_t f = 0; f < features_; ++f)
    bins[f] = cuts.bins(f);
  layout_ = hist_layout(bins);
  // One byte per bin suffices when every stored value fits: a feature's
  // missing marker bins(f) is stored only if the column has missing values.
  bool narrow = true;
  for (std::size_t f = 0; f < features_ && narrow; ++f) {
    if (bins[f] > 256)
      narrow = false;
    else if (bins[f] == 256)
      for (float x : d.column(f))
        if (is_missing(x)) {
          narrow = false;
          break;
        }
  }
  if (narrow)
    fill_bins(d, cuts, layout_, bins8_, threads);
  else
    fill_bins(d, cuts, layout_, bins16_, threads);
}

} // namespace veil::learners
