// expr/leaf_identity.hpp -- what tells two leaves apart when an expression is drawn or named.
#pragma once

namespace fusegrad::detail {

// A Tensor's implementation; a static leaf's values, which a Var named twice in one expression shares; or, for a
// leaf that holds no values (an empty Var, whose data() is null as every other empty one's), the leaf itself.
template <class Leaf>
[[nodiscard]] const void* leaf_identity(const Leaf& leaf) {
  if constexpr (requires { leaf.impl(); })
    return leaf.impl();
  else if (leaf.data() != nullptr)
    return leaf.data();
  else
    return &leaf;
}

}  // namespace fusegrad::detail
