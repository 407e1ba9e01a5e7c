// tape/across_visitor.hpp -- across_visitor: what code that draws or inspects a recorded graph is shown of the graph
// of the other scalar type behind a cast node.
#pragma once

#include <fusegrad/concepts.hpp>

namespace fusegrad::detail {

template <Scalar T>
struct tensor_impl;

// Called with the tensor of the other scalar type that a cast node reads (fusegrad's tensors are
// float or double): walks over a graph (tensors_across) and its pictures cross casts through it.
struct across_visitor {
  virtual void visit(tensor_impl<float>& source) = 0;
  virtual void visit(tensor_impl<double>& source) = 0;

 protected:
  ~across_visitor() = default;
};

}  // namespace fusegrad::detail
