// tape/undefined_tensor.hpp -- how a tensor comes to be undefined, in the words of every error that meets one.
#pragma once

namespace fusegrad::detail {

// Said inside the parentheses of "... is undefined (...)": a tensor made by Tensor(), or the grad() of one that no
// backward has given a gradient, which includes every grad() of a tensor that is not a leaf.
inline constexpr const char* undefined_tensor_causes =
    "default-constructed, or the grad() of a tensor no backward has reached yet or of one that is not a leaf, which "
    "keeps none unless retain_grad() was called before backward";

}  // namespace fusegrad::detail
