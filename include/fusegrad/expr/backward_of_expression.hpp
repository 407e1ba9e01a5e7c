// expr/backward_of_expression.hpp -- what `.backward()` on an expression says: the PyTorch habit of calling backward on
// a loss meets one diagnostic that says how fusegrad spells it.
#pragma once

#include <fusegrad/detail/always_false.hpp>

namespace fusegrad::detail {

// Called by every expression node's backward(): never compiles.
template <class... A>
void backward_of_expression() {
  static_assert(always_false<A...>,
                "fusegrad: an expression is not recorded, so it has no backward(); on the tape, record it as a Tensor "
                "first: fg::Tensor loss = expr; loss.backward(); over Vars, fg::value_and_grad(expr, x)");
}

}  // namespace fusegrad::detail
