// detail/extremum_share.hpp -- the share of an element-wise maximum's or minimum's gradient that goes to one operand.
#pragma once

#include <Eigen/Core>

#include <fusegrad/detail/real_functor.hpp>

namespace fusegrad::detail {

/// f(mine, other): the share of maximum(mine, other)'s gradient (Max) or minimum's (!Max) that goes to `mine`: 0 where
/// the other operand wins, 1/2 where the two are equal, 1 elsewhere (where either is NaN too, as PyTorch).
template <class T, bool Max>
struct extremum_share : real_functor<T> {
  T operator()(T mine, T other) const {
    const bool loses = Max ? mine < other : other < mine;
    return loses ? T(0) : mine == other ? T(0.5) : T(1);
  }
  template <class Packet>
  Packet packetOp(const Packet& mine, const Packet& other) const {
    using namespace Eigen::internal;
    const Packet loses = Max ? pcmp_lt(mine, other) : pcmp_lt(other, mine);
    const Packet one = pset1<Packet>(T(1));
    return psub(pandnot(one, loses), pand(pcmp_eq(mine, other), pset1<Packet>(T(0.5))));
  }
};

}  // namespace fusegrad::detail
