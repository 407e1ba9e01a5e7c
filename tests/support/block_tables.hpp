// support/block_tables.hpp -- the blocks random programs are built of (support/random_programs.hpp,
// support/random_static_programs.hpp): a block is a short expression of two operands u and a, given as C++ text
// and as code; a test file brings a table of them. What a table records is read off its expressions.
#pragma once

#include <algorithm>
#include <cstddef>
#include <set>
#include <span>
#include <stdexcept>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <boost/hana/for_each.hpp>
#include <boost/mp11/algorithm.hpp>

#include <fusegrad/fusegrad.hpp>

namespace fusegrad::test {

/// One kind of inner node of a program: an expression of its operands u and a, in C++ as the
/// test file's apply() writes it (fusegrad's names unqualified; a few helpers of the test file).
struct Block {
  const char* text;
  int ops;                   // operations it records taped
  bool analytic;             // complex-differentiable as written: the complex step checks the program
  bool broadcasts_with_a;    // its result has the shape of u and a broadcast; otherwise u's shape
  std::size_t min_rank = 0;  // the ranks of u it applies to
  std::size_t max_rank = 8;
};

/// What a test file gives: `blocks`, its table, and `apply<T>(k, u, a, record)`, block k of u and a
/// with its expression passed to record(expr), which returns the recorded tensor.
template <class B>
concept BlockTable = requires(const BasicTensor<double>& t) {
  { B::blocks } -> std::convertible_to<std::span<const Block>>;
  B::apply(0, t, t, [](const auto& e) { return BasicTensor<double>(e); });
};

// Where the token of a block's text that starts at i ends: a string literal, an identifier or a
// number, or one character.
constexpr std::size_t token_end(std::string_view text, std::size_t i) {
  const auto is_word = [&](std::size_t k) {
    if (k >= text.size()) return false;
    const char c = text[k];
    return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_' ||
           (c == '.' && text[i] >= '0' && text[i] <= '9');
  };
  if (text[i] == '"') {
    std::size_t close = i + 1;
    while (close < text.size() && text[close] != '"') ++close;
    return close < text.size() ? close + 1 : text.size();
  }
  if (!is_word(i)) return i + 1;
  std::size_t stop = i;
  while (is_word(stop)) ++stop;
  return stop;
}

/// The base of a table whose blocks are `Derived::expression<K>(u, a)` (one expression for tensors and
/// static expressions alike): its apply(k, u, a, record) records block k. Blocks that are not analytic
/// exist for real scalar types only.
template <class Derived>
struct expression_block_table {
  template <class T, class Record>
  static BasicTensor<T> apply(int block, const BasicTensor<T>& u, const BasicTensor<T>& a, Record record) {
    return boost::mp11::mp_with_index<std::size(Derived::table)>(std::size_t(block), [&](auto k) -> BasicTensor<T> {
      if constexpr (Derived::table[k].analytic || std::is_floating_point_v<T>)
        return record(Derived::template expression<k>(u, a));
      else
        throw std::logic_error("a block that is not analytic has no complex form");
    });
  }
};

/// `text` with its identifiers u and a replaced by `u` and `a` (string literals left alone).
inline std::string substitute_operands(std::string_view text, std::string_view u, std::string_view a) {
  std::string out;
  for (std::size_t i = 0, stop = 0; i < text.size(); i = stop) {
    stop = token_end(text, i);
    const std::string_view token = text.substr(i, stop - i);
    out.append(token == "u" ? u : token == "a" ? a : token);
  }
  return out;
}

/// Whether the block's expression reads its operand a.
constexpr bool reads_a(const Block& block) {
  const std::string_view text = block.text;
  for (std::size_t i = 0, stop = 0; i < text.size(); i = stop) {
    stop = token_end(text, i);
    if (text.substr(i, stop - i) == "a") return true;
  }
  return false;
}

/// Adds the name of every operation of a static expression to `names`.
template <class E>
void add_op_names(const E& e, std::set<std::string>& names) {
  if constexpr (E::kind != node_kind::leaf) {
    names.insert(std::string(E::op::name));
    boost::hana::for_each(children(e), [&](const auto& child) { add_op_names(child, names); });
  }
}

/// The operations B's blocks record, read off their expressions: each block applied once to
/// tensors of a rank it accepts.
template <BlockTable B>
std::set<std::string> op_names_of_blocks() {
  std::set<std::string> names;
  NoGradGuard guard;
  for (std::size_t b = 0; b < B::blocks.size(); ++b) {
    const std::size_t rank =
        std::max<std::size_t>(B::blocks[b].min_rank, std::min<std::size_t>(2, B::blocks[b].max_rank));
    const std::vector<std::size_t> extents(rank, 3);
    const auto t = BasicTensor<double>::full(Extents(std::span<const std::size_t>(extents)), 0.5);
    B::apply(int(b), t, t, [&](const auto& e) {
      add_op_names(e, names);
      return BasicTensor<double>(e);
    });
  }
  return names;
}

/// The block tables of the test executable: each test file registers its own (a namespace-scope
/// `const bool registered = register_block_table<MyBlocks>();`), so that one test can check that
/// together they draw every operation of ops.hpp.
inline std::vector<std::set<std::string> (*)()>& block_tables() {
  static std::vector<std::set<std::string> (*)()> tables;
  return tables;
}
template <BlockTable B>
bool register_block_table() {
  block_tables().push_back(&op_names_of_blocks<B>);
  return true;
}

}  // namespace fusegrad::test
