// shape/axis_runs.hpp -- groups the axes of a broadcast into runs that one Eigen call can handle.
#pragma once

#include <array>
#include <cstddef>

#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/broadcast_rule.hpp>
#include <fusegrad/shape/extents.hpp>

namespace fusegrad::detail {

// A broadcast from `small` to `big` extents, with adjacent axes of the same kind merged.
// Each run is either kept (extents equal) or broadcast (small has 1, or no axis at all).
// Row-major data of `big` is then an (outer, run, inner) block for any run, which lets
// reduce_broadcast and broadcast_to be one Eigen column-sum or replicate per run.
struct axis_runs {
  struct run {
    std::size_t extent;
    bool broadcast;
  };
  std::array<run, Extents::max_rank> runs{};
  std::size_t count = 0;

  // Throws shape_error unless `small` broadcasts to exactly `big`; `what` names the caller.
  axis_runs(const Extents& small, const Extents& big, const char* what) {
    if (!broadcasts_to(small, big)) throw not_broadcast_to_error(what, small, big);
    for (std::size_t i = 0; i < big.rank(); ++i) {
      const std::size_t s = aligned_extent(small.axes(), big.rank(), i);
      if (big[i] == 1) continue;  // extent-1 axes hold no data: they merge with either kind
      const bool broadcast = s != big[i];
      if (count > 0 && runs[count - 1].broadcast == broadcast)
        runs[count - 1].extent *= big[i];
      else
        runs[count++] = {big[i], broadcast};
    }
  }

  // Elements of `big` spanned by the runs in [from, to).
  [[nodiscard]] std::size_t span(std::size_t from, std::size_t to) const {
    std::size_t n = 1;
    for (std::size_t i = from; i < to; ++i) n *= runs[i].extent;
    return n;
  }
};

}  // namespace fusegrad::detail
