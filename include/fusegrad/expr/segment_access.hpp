// expr/segment_access.hpp -- how one leaf is read, and its gradient written, inside a fused segment.
#pragma once

#include <algorithm>
#include <array>
#include <cassert>
#include <cstddef>
#include <optional>
#include <type_traits>

#include <Eigen/Core>

#include <fusegrad/detail/carried_sum.hpp>
#include <fusegrad/expr/storage.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>

namespace fusegrad::detail {

// A segment is a maximal element-wise sub-tree; it runs as one strip-mined loop over the
// broadcast extents of its leaves. Inside that loop every leaf must look segment-shaped.
// A leaf is read in one of three ways, chosen once per sweep (at compile time when both
// shapes are static or the leaf is statically one value, and then the access holds nothing
// but what that way needs):
//   stream    -- the leaf has the segment's size: read its memory block by block;
//   repeat    -- the leaf is a single value: read a block-length buffer of copies
//                (step 0), and collect its gradient in block-length lanes that the
//                segment loop holds as a local and fold() sums after it, like the
//                vector accumulator of a hand-written loop;
//   broadcast -- anything else: broadcast_into a segment-sized buffer before the loop and
//                reduce_broadcast_into the leaf's gradient after it.
// So every leaf reads as `values + offset * step` and the loop body has one shape.
enum class access_mode { stream, repeat, broadcast };

// How the segment's gradient reaches the leaf's gradient array. A leaf's own array is added to: every occurrence of
// the leaf writes there, and so may earlier calls. A materialised node's buffer has one writer, its access, which
// the segment's reverse loop reaches once per element per sweep: written over, it needs no zero fill first.
enum class grad_write { add, overwrite };

// Where the gradients that reach a node in its segment's loop end up: nowhere (no operand below takes one), only in
// one-value lanes (every operand of the segment below it that takes one, a leaf, a hoisted sub-tree or a materialised
// node, is one value at compile time, so a uniform factor of the gradient can leave the loop: add_to_lanes), or, for
// some, in memory block by block. What a hoisted or materialised node sends on to its own operands after the loop
// (finish) is another sweep's. Ordered, so that a node's target is its operands' largest.
enum class gradient_target { none, lanes, memory };

template <class T, ShapeLike LeafShape, ShapeLike SegmentShape, grad_write Write = grad_write::add>
class segment_access {
  static constexpr std::size_t leaf_size = static_size_v<LeafShape>;
  static constexpr std::size_t segment_size = static_size_v<SegmentShape>;

 public:
  // Statically one value spread over a larger (or run-time) segment: frames read it as a
  // constant (a register), never from memory; only its gradient goes through the accumulator.
  static constexpr bool uniform = leaf_size == 1 && segment_size != 1;

 private:
  // The way is chosen at compile time when both sizes are static, and for a uniform leaf,
  // which repeats whatever the segment's size turns out to be.
  static constexpr bool static_mode = (leaf_size != dyn && segment_size != dyn) || uniform;
  static constexpr access_mode fixed_mode = !static_mode                ? access_mode::broadcast
                                            : uniform                   ? access_mode::repeat
                                            : leaf_size == segment_size ? access_mode::stream
                                            : leaf_size == 1            ? access_mode::repeat
                                                                        : access_mode::broadcast;
  // A vector in a segment of vectors is as long as the segment or one value: it streams or repeats (a loss over
  // data vectors, the common case, so it carries no broadcast state).
  static constexpr bool both_vectors = ShapeType<LeafShape> && ShapeType<SegmentShape> && requires {
    requires LeafShape::rank == 1 && SegmentShape::rank == 1;
  };
  static constexpr bool may_repeat = !static_mode || fixed_mode == access_mode::repeat;
  static constexpr bool may_broadcast = !both_vectors && (!static_mode || fixed_mode == access_mode::broadcast);
  static constexpr bool may_copy = may_repeat || may_broadcast;
  static constexpr std::size_t repeat_length =
      segment_size == dyn ? std::size_t(block_length) : std::min<std::size_t>(block_length, segment_size);

  template <int>
  struct none {};  // distinct empty types, so [[no_unique_address]] members can all vanish
  template <bool Keep, class X, int Tag>
  using member = std::conditional_t<Keep, X, none<Tag>>;

 public:
  // `values` are the leaf's, shaped `leaf`; `grad` is where its gradient is added (leaf
  // shaped), or nullptr when nobody asked for it. The values may be filled in later:
  // load() reads them, once they are there, before the loop starts.
  segment_access(const T* values, const Extents& leaf, const Extents& segment, T* grad) {
    if constexpr (may_copy) {
      source_ = values;
      target_grad_ = grad;
    }
    if constexpr (!static_mode) {
      const access_mode mode = uniform                         ? access_mode::repeat
                               : leaf.size() == segment.size() ? access_mode::stream
                               : leaf.size() == 1              ? access_mode::repeat
                                                               : access_mode::broadcast;
      step_ = mode == access_mode::repeat ? 0 : 1;
      if constexpr (may_broadcast) {
        mode_ = mode;
        if (mode == access_mode::broadcast) broadcast_.emplace(leaf, segment);  // built only when needed
      } else {
        assert(mode != access_mode::broadcast && "a segment's extents are its leaves' broadcast");
      }
    }
    if constexpr (segment_size == dyn) segment_size_ = segment.size();
    switch (mode()) {
      case access_mode::stream:
        values_ = values;
        grad_ = grad;
        break;
      case access_mode::repeat:
        if constexpr (may_repeat) {
          if constexpr (!uniform) values_ = repeat_values_.data();
          grad_ = nullptr;  // the gradient goes to the loop's lanes
        }
        break;
      case access_mode::broadcast:
        if constexpr (may_broadcast) {
          broadcast_copies& b = copies();
          if constexpr (!has_fixed_storage_v<T, SegmentShape>) b.values.resize(segment.size());
          values_ = b.values.data();
          if (grad) {
            if constexpr (!has_fixed_storage_v<T, SegmentShape>) b.grad.resize(segment.size());
            if constexpr (overwrites_grad)
              fill(grad, leaf.size(), T(0));  // finish() adds the copies' gradient to it
            else
              fill(b.grad.data(), segment.size(), T(0));
            grad_ = b.grad.data();
          }
        }
        break;
    }
  }
  segment_access(const segment_access&) = delete;  // buffers are pointed into: never move
  segment_access& operator=(const segment_access&) = delete;

  // Whether frames write a block's gradient over grad_at(offset) rather than add to it (grad_write).
  static constexpr bool overwrites_grad = Write == grad_write::overwrite;

  // Copies the leaf's values into the repeat or broadcast buffer (streams read in place).
  void load() {
    if constexpr (may_repeat)
      if constexpr (!uniform)
        if (mode() == access_mode::repeat) fill(repeat_values_.data(), used_repeat_length(), source_[0]);
    if constexpr (may_broadcast)
      if (mode() == access_mode::broadcast) broadcast_into(copies().values.data(), source_, leaf(), segment());
  }

  [[nodiscard]] T uniform_value() const noexcept requires uniform { return source_[0]; }

  [[nodiscard]] const T* values_at(Eigen::Index offset) const noexcept { return values_ + offset * step(); }
  [[nodiscard]] T* grad_at(Eigen::Index offset) const noexcept { return grad_ + offset * step(); }
  // Whether a block's gradient goes to grad_at(offset): a streamed or broadcast leaf whose gradient is asked for.
  [[nodiscard]] bool wants_grad() const noexcept { return grad_ != nullptr; }

  // A single value's gradient is summed in lanes, one per position of a block, that the
  // segment loop keeps as a local: so they live in registers, as the vector accumulator of a
  // hand-written loop does. In memory, every block's addition would wait on the last block's
  // store. An aggregate, so that `lanes_type{}` starts at zero.
  // An upstream that is itself one value repeated (what `log(sigma)` receives in `sum(square(y - mu) - log(sigma))`)
  // is the same in every block: frames write it to `repeated` instead, which no block reads, and fold() multiplies it
  // by the segment's length. The loop then carries no accumulator for it.
  // Blocks shorter than the lanes (a segment's last elements) add their sum to `rest`: the lanes are only ever touched
  // whole, since g++ may keep an accumulator that is also touched lane by lane in memory, in every block.
  // A gradient with a uniform factor, u x (the lanes of mu in `sum(square(y - mu) / 2)` receive (dy / 2) 2 (y - mu)
  // (-1)), adds up x alone, a shorter block's to `factored_rest`; fold() multiplies that sum by u (`factor`) once.
  struct lanes {
    static constexpr int length = int(repeat_length);
    Eigen::Array<T, length, 1> sum = zero_block<Eigen::Array<T, length, 1>>();
    T factor = T(1);
    T factored_rest = T(0);
    T rest = T(0);
    T repeated = T(0);
    [[no_unique_address]] carry_for_t<T> carried{};  // float lanes pass their sums on to a double (carried_sum.hpp)
  };
  struct no_lanes {};
  using lanes_type = std::conditional_t<may_repeat, lanes, no_lanes>;
  // What a sweep state over this access carries through its segment loop: the lanes, unless its node takes no
  // gradient (a Const, or a sub-tree over Consts), whose parents' frames pass it none.
  template <bool TakesGrad>
  using registers_for = std::conditional_t<TakesGrad, lanes_type, no_lanes>;
  // Where the gradient of a sweep state over this access ends up (gradient_target).
  template <bool TakesGrad>
  static constexpr gradient_target target_for = !TakesGrad ? gradient_target::none
                                                : uniform  ? gradient_target::lanes
                                                           : gradient_target::memory;

  // Whether the lanes are this leaf's gradient: it repeats and its gradient is asked for.
  // (Frames may add to the lanes regardless; fold() drops them otherwise.)
  [[nodiscard]] bool wants_lanes() const noexcept {
    if constexpr (may_repeat)
      return mode() == access_mode::repeat && target_grad_ != nullptr;
    else
      return false;
  }

  // After a segment's reverse loop: add (or, overwriting, write) what its lanes collected to the leaf's gradient.
  void fold(const lanes& l) requires may_repeat {
    if (wants_lanes()) {
      // The length as a signed count (below 2^59, Extents::max_size), which x86-64 converts in one instruction.
      const auto length = static_cast<Eigen::Index>(segment_length());
      const T total = (l.carried.total(l.sum) + l.factored_rest) * l.factor + l.rest + l.repeated * T(length);
      if constexpr (overwrites_grad)
        target_grad_[0] = total;
      else
        target_grad_[0] += total;
    }
  }
  void fold(const no_lanes&) {}  // nothing was collected

  // The segment's reverse loop passed this leaf no gradient (it is below a comparison): what the loop would have
  // written over holds zeros instead.
  void unreached() {
    if constexpr (overwrites_grad) {
      if (grad_) fill(grad_, segment_length(), T(0));  // streamed, or the broadcast copy
      if constexpr (may_repeat)
        if (mode() == access_mode::repeat && target_grad_) target_grad_[0] = T(0);
    }
  }

  // After the last loop, once per sweep: reduce what the broadcast copies collected into the leaf's gradient.
  void finish() {
    if constexpr (may_broadcast) {
      if (grad_ && mode() == access_mode::broadcast) {
        reduce_broadcast_into(target_grad_, copies().grad.data(), segment(), leaf());
      }
    }
  }

 private:
  using repeat_buffer = member<may_repeat && !uniform, std::array<T, repeat_length>, 0>;
  // What broadcasting needs: segment-sized copies of the values and the gradient, and, for
  // run-time shapes, both extents. Static shapes hold the copies always (fixed-size when
  // small); run-time shapes build all of it only in broadcast mode, since a tensor op makes
  // its accesses on every call and constructing unused buffers showed in its cost.
  struct broadcast_copies {
    scratch_t<T, SegmentShape> values, grad;
  };
  struct broadcast_state {
    Extents leaf, segment;
    broadcast_copies copies;
    broadcast_state(const Extents& l, const Extents& s) : leaf(l), segment(s) {}
  };
  using broadcast_member =
      std::conditional_t<!may_broadcast, none<1>,
                         std::conditional_t<static_mode, broadcast_copies, std::optional<broadcast_state>>>;
  broadcast_copies& copies() {
    if constexpr (static_mode)
      return broadcast_;
    else
      return broadcast_->copies;
  }

  static void fill(T* out, std::size_t n, T value) {
    Eigen::Map<Eigen::Array<T, Eigen::Dynamic, 1>>(out, static_cast<Eigen::Index>(n)).setConstant(value);
  }
  // Blocks never exceed the segment, so short segments fill only what they read.
  [[nodiscard]] std::size_t used_repeat_length() const noexcept {
    return std::min<std::size_t>(repeat_length, segment_length());
  }
  [[nodiscard]] std::size_t segment_length() const noexcept {
    if constexpr (segment_size != dyn)
      return segment_size;
    else
      return segment_size_;
  }
  [[nodiscard]] access_mode mode() const noexcept {
    if constexpr (static_mode)
      return fixed_mode;
    else if constexpr (may_broadcast)
      return mode_;
    else  // streams or repeats: its step says which
      return step_ == 0 ? access_mode::repeat : access_mode::stream;
  }
  [[nodiscard]] Eigen::Index step() const noexcept {
    if constexpr (static_mode)
      return fixed_mode == access_mode::repeat ? 0 : 1;
    else
      return step_;
  }
  [[nodiscard]] Extents leaf() const {
    if constexpr (static_mode)
      return Extents::of<LeafShape>();
    else
      return broadcast_->leaf;
  }
  [[nodiscard]] Extents segment() const {
    if constexpr (static_mode)
      return Extents::of<SegmentShape>();
    else
      return broadcast_->segment;
  }

  const T* values_ = nullptr;
  T* grad_ = nullptr;
  // Left uninitialised where they exist: the constructor fills what the mode reads.
  [[no_unique_address]] member<may_copy, const T*, 2> source_;
  [[no_unique_address]] member<may_copy, T*, 3> target_grad_;
  [[no_unique_address]] member<!static_mode && may_broadcast, access_mode, 4> mode_;
  [[no_unique_address]] member<!static_mode, Eigen::Index, 5> step_;
  [[no_unique_address]] member<segment_size == dyn, std::size_t, 9> segment_size_;
  [[no_unique_address]] repeat_buffer repeat_values_;
  [[no_unique_address]] broadcast_member broadcast_;
};

}  // namespace fusegrad::detail
