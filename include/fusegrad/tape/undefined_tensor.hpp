// tape/undefined_tensor.hpp -- how a tensor comes to be undefined, in the words of every error that meets one.
#pragma once

namespace fusegrad::detail {

// Said inside the parentheses of "... is undefined (...)": every way a program comes to hold an undefined tensor.
inline constexpr const char* undefined_tensor_causes =
    "default-constructed or moved from; fg::grad's result for an input it does not reach (allow_unused); or the "
    "grad() of a tensor that no backward has reached since it was made or since zero_grad() (fg::grad fills no "
    "grad()), or of one that is not a leaf, which keeps none unless retain_grad() was called before backward";

}  // namespace fusegrad::detail
