// detail/extremum_vjp.hpp -- the VJP of an element-wise maximum or minimum for one operand.
#pragma once

#include <Eigen/Core>

#include <fusegrad/detail/elementwise_functor.hpp>

namespace fusegrad::detail {

/// f(dy, mine, other): the gradient of maximum(mine, other) (Max) or minimum(mine, other) (!Max) that goes to `mine`:
/// 0 where the other operand wins (whatever dy is), dy/2 where the two are equal, dy elsewhere (where either is NaN
/// too), as PyTorch's masks give it.
template <class T, bool Max>
struct extremum_vjp : elementwise_functor<T> {
  T operator()(T dy, T mine, T other) const {
    const bool loses = Max ? mine < other : other < mine;
    return loses ? T(0) : mine == other ? dy * T(0.5) : dy;
  }
  template <class Packet>
  Packet packetOp(const Packet& dy, const Packet& mine, const Packet& other) const {
    using namespace Eigen::internal;
    const Packet loses = Max ? pcmp_lt(mine, other) : pcmp_lt(other, mine);
    return pandnot(pselect(pcmp_eq(mine, other), pmul(dy, pset1<Packet>(T(0.5))), dy), loses);
  }
};

}  // namespace fusegrad::detail
