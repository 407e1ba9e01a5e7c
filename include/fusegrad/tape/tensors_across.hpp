// tape/tensors_across.hpp -- tensors_across: the tensors of the other scalar type that cast nodes read, kept for a walk
// over their graphs after the current one.
#pragma once

#include <utility>
#include <vector>

#include <fusegrad/tape/across_visitor.hpp>
#include <fusegrad/tape/ref_counted.hpp>
#include <fusegrad/tape/tensor_impl.hpp>

namespace fusegrad::detail {

// What a walk over one graph collects from its cast nodes (node::visit_across), to walk next: graphs that change
// scalar type k times take k rounds of one loop, never k nested calls. Each tensor is held, so that releasing the
// cast node that read it destroys nothing still to be walked.
struct tensors_across final : across_visitor {
  std::vector<ref<tensor_impl<float>>> floats;
  std::vector<ref<tensor_impl<double>>> doubles;

  void visit(tensor_impl<float>& source) override { floats.emplace_back(&source); }
  void visit(tensor_impl<double>& source) override { doubles.emplace_back(&source); }

  /// Hands `walk` each tensor collected, floats before doubles and the latest of each first, until none is left;
  /// `walk` may collect more.
  template <class Walk>
  void drain(Walk&& walk) {
    while (!floats.empty() || !doubles.empty()) {
      if (!floats.empty()) {
        const ref<tensor_impl<float>> source = std::move(floats.back());
        floats.pop_back();
        walk(*source);
      } else {
        const ref<tensor_impl<double>> source = std::move(doubles.back());
        doubles.pop_back();
        walk(*source);
      }
    }
  }
};

}  // namespace fusegrad::detail
