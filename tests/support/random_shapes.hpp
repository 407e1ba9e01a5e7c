// support/random_shapes.hpp -- RapidCheck generators for shapes, broadcasts of them, and values.
// A failing property prints its counterexample and the seed; rerun with RC_PARAMS="seed=<n>"
// (and e.g. RC_PARAMS="seed=<n> max_success=1000" to search harder) to replay it.
#pragma once

#include <cstddef>
#include <ostream>
#include <vector>

#include <rapidcheck.h>
#include <Eigen/Core>

#include <fusegrad/shape/extents.hpp>

namespace fusegrad {

// How RapidCheck (showValue) and GoogleTest (PrintTo) print Extents in counterexamples; found by ADL.
inline void showValue(const Extents& e, std::ostream& os) { os << e.to_string(); }
inline void PrintTo(const Extents& e, std::ostream* os) { *os << e.to_string(); }

}  // namespace fusegrad

namespace fusegrad::test {

/// An operand shape `target` and a shape `big` it broadcasts to: `big` has extra leading axes
/// and/or expands some of target's extent-1 axes.
struct BroadcastCase {
  Extents target;
  Extents big;
};

inline void showValue(const BroadcastCase& c, std::ostream& os) {
  os << c.target.to_string() << " broadcast to " << c.big.to_string();
}

/// One extent in 1..4, with 1 twice as likely as the others so that broadcasting axes are common.
inline rc::Gen<std::size_t> gen_extent() { return rc::gen::element<std::size_t>(1, 1, 2, 3, 4); }

/// A rank in `min_rank`..`max_rank`, uniformly: gen::inRange would favour small ranks in early cases
/// (it follows RapidCheck's size parameter); elementOf still shrinks towards `min_rank`.
inline rc::Gen<std::size_t> gen_rank(std::size_t min_rank, std::size_t max_rank) {
  std::vector<std::size_t> ranks;
  for (std::size_t r = min_rank; r <= max_rank; ++r) ranks.push_back(r);
  return rc::gen::elementOf(ranks);
}

/// Extents of rank `min_rank`..`max_rank`, each extent drawn by gen_extent().
inline rc::Gen<Extents> gen_extents(std::size_t min_rank = 0, std::size_t max_rank = 4) {
  return rc::gen::exec([=] {
    const std::size_t rank = *gen_rank(min_rank, max_rank);
    const auto extents = *rc::gen::container<std::vector<std::size_t>>(rank, gen_extent());
    return Extents(std::span<const std::size_t>(extents));
  });
}

/// A target shape of rank 0..4 (extents 1..4) and a random broadcast of it: 0..2 new leading
/// axes of extent 1..4, and each extent-1 axis of the target expanded to 1..4 or left alone.
inline rc::Gen<BroadcastCase> gen_broadcast_case() {
  return rc::gen::exec([] {
    const Extents target = *gen_extents(0, 4);
    std::vector<std::size_t> big = *rc::gen::container<std::vector<std::size_t>>(*gen_rank(0, 2), gen_extent());
    for (std::size_t i = 0; i < target.rank(); ++i) big.push_back(target[i] == 1 ? *gen_extent() : target[i]);
    return BroadcastCase{target, Extents(std::span<const std::size_t>(big))};
  });
}

/// `n` values: small integers divided by 4, so sums are exact in double and failures easy to read.
inline rc::Gen<Eigen::ArrayXd> gen_values(std::size_t n) {
  return rc::gen::map(rc::gen::container<std::vector<int>>(n, rc::gen::inRange(-40, 41)),
                      [](const std::vector<int>& v) {
                        Eigen::ArrayXd out(static_cast<Eigen::Index>(v.size()));
                        for (std::size_t i = 0; i < v.size(); ++i) out[static_cast<Eigen::Index>(i)] = v[i] / 4.0;
                        return out;
                      });
}

/// Reference reduce_broadcast by definition: every element of `grad` (row-major, extents `big`)
/// is added to the element of `target` it was broadcast from. Slow and obviously right.
inline Eigen::ArrayXd naive_reduce_broadcast(const Eigen::ArrayXd& grad, const Extents& big, const Extents& target) {
  Eigen::ArrayXd out = Eigen::ArrayXd::Zero(static_cast<Eigen::Index>(target.size()));
  const std::size_t pad = big.rank() - target.rank();
  for (std::size_t flat = 0; flat < big.size(); ++flat) {
    std::size_t rest = flat, source = 0, stride = 1;
    for (std::size_t axis = big.rank(); axis-- > 0;) {
      const std::size_t index = rest % big[axis];
      rest /= big[axis];
      if (axis < pad) continue;  // a new leading axis: summed over
      const std::size_t extent = target[axis - pad];
      source += (extent == 1 ? 0 : index) * stride;
      stride *= extent;
    }
    out[static_cast<Eigen::Index>(source)] += grad[static_cast<Eigen::Index>(flat)];
  }
  return out;
}

}  // namespace fusegrad::test
