// graphviz/dot_options.hpp -- DotOptions: what fg::to_dot draws.
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <vector>

#include <fusegrad/expr/leaf_identity.hpp>

namespace fusegrad {

/// What `fg::to_dot` draws. `fg::to_dot(loss, {.expand_fused = false})`;
/// `fg::to_dot(f, fg::DotOptions{}.name(x, "x"))`.
struct DotOptions {
  /// Draws a node that fused several operations (FusedBackward) as a frame holding one box per
  /// operation; false draws it as one box.
  bool expand_fused = true;
  /// Names of the leaves drawn, set with name(): a static expression's Vars and Consts, by their values' address,
  /// and a recorded graph's tensors, over their own `t.name("w")` (detail::leaf_identity). Unnamed leaves of an
  /// expression are a, b, c ... as errors name them.
  std::vector<std::pair<const void*, std::string>> leaf_names{};

  /// Names a leaf of the expression drawn: a Var, a Const, or a Tensor (over its own name).
  template <class Leaf>
  DotOptions& name(const Leaf& leaf, std::string leaf_name) & {
    leaf_names.emplace_back(detail::leaf_identity(leaf), std::move(leaf_name));
    return *this;
  }
  /// The name name() gave the leaf whose detail::leaf_identity is `identity`, or none.
  [[nodiscard]] std::optional<std::string> given_name(const void* identity) const {
    for (const auto& [named, given] : leaf_names)
      if (named == identity) return given;
    return std::nullopt;
  }
  /// The same on a temporary (`fg::DotOptions{}.name(x, "x")`), returned by value: it outlives the call.
  template <class Leaf>
  DotOptions name(const Leaf& leaf, std::string leaf_name) && {
    name(leaf, std::move(leaf_name));
    return std::move(*this);
  }
};

}  // namespace fusegrad
