// fuzz/einsum_fuzz.cpp -- einsum's run-time subscripts: any string over its alphabet (and characters outside it),
// one to three tensors of any extents. Bad subscripts or shapes must be a fusegrad:: error that leaves the tensors
// as they were; a result must equal a direct sum over every label's values, and backward must give every operand a
// gradient of its shape.
#include <array>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include <fusegrad/fusegrad.hpp>

#include "fuzz/fuzz_input.hpp"

namespace fg = fusegrad;

namespace {

void check(bool ok) {
  if (!ok) std::abort();
}

// The einsum by definition: for every value of every label, the product of the operands'
// elements, added into the output's element. Labels as the subscripts bind them.
template <std::size_t N>
std::vector<double> direct_einsum(const fg::detail::einsum_binding<N>& b, const std::array<fg::Tensor, N>& operands) {
  std::vector<std::size_t> labels;
  for (std::size_t l = 0; l < fg::detail::einsum_labels; ++l)
    if (b.used >> l & 1) labels.push_back(l);
  std::size_t out_size = 1;
  for (std::size_t a = 0; a < b.output_rank; ++a) out_size *= b.extent[b.output[a]];
  std::vector<double> out(out_size, 0.0);
  for (std::size_t l : labels)
    if (b.extent[l] == 0) return out;  // an empty sum
  std::array<std::size_t, fg::detail::einsum_labels> value{};
  while (true) {
    double product = 1;
    for (std::size_t k = 0; k < N; ++k) {
      std::size_t flat = 0;
      for (std::size_t a = 0; a < b.ranks[k]; ++a) {
        const std::size_t extent = operands[k].shape()[a];
        flat = flat * extent + (extent == 1 ? 0 : value[b.axis_labels[k][a]]);  // extent 1: broadcast
      }
      product *= operands[k].data()[flat];
    }
    std::size_t at = 0;
    for (std::size_t a = 0; a < b.output_rank; ++a) at = at * b.extent[b.output[a]] + value[b.output[a]];
    if (out_size) out[at] += product;
    std::size_t j = labels.size();
    while (j > 0 && ++value[labels[j - 1]] == b.extent[labels[j - 1]]) value[labels[--j]] = 0;
    if (j == 0) return out;
  }
}

template <std::size_t N>
void run(fg::fuzz::fuzz_input& in, const std::string& subscripts) {
  std::array<fg::Tensor, N> operands;
  std::array<fg::Extents, N> extents;
  for (std::size_t k = 0; k < N; ++k) {
    extents[k] = in.extents(3, 3);
    std::vector<double> values(extents[k].size());
    for (double& v : values) v = double(int(in.below(7)) - 3);
    operands[k] = fg::Tensor::from(values, extents[k]).requires_grad_();
  }
  fg::Tensor y;
  try {
    y = [&]<std::size_t... K>(std::index_sequence<K...>) { return fg::Tensor(fg::einsum(subscripts, operands[K]...)); }
    (std::make_index_sequence<N>{});
  } catch (const fg::error&) {
    for (std::size_t k = 0; k < N; ++k)  // refused: nothing recorded, every operand unchanged
      check(operands[k].shape() == extents[k] && !operands[k].grad().defined() && operands[k].is_leaf());
    return;
  }
  // Accepted: the subscripts parse and bind, and the value is the direct sum, exactly (small integers).
  const auto parsed = fg::detail::parse_einsum<N>(subscripts);
  check(parsed.error.empty());
  std::array<fg::detail::einsum_operand_shape, N> shapes{};
  for (std::size_t k = 0; k < N; ++k) {
    shapes[k].rank = extents[k].rank();
    for (std::size_t a = 0; a < extents[k].rank(); ++a) shapes[k].extents[a] = extents[k][a];
  }
  const auto bound =
      fg::detail::bind_einsum<N>(subscripts, parsed, std::span<const fg::detail::einsum_operand_shape, N>(shapes));
  check(bound.error.empty());
  if (y.numel() <= 4096) {
    const std::vector<double> expected = direct_einsum(bound, operands);
    check(expected.size() == y.numel());
    for (std::size_t i = 0; i < expected.size(); ++i) check(y.data()[i] == expected[i]);
  }
  fg::Tensor(fg::sum(y)).backward();
  for (std::size_t k = 0; k < N; ++k) check(operands[k].grad().shape() == extents[k]);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  fg::fuzz::fuzz_input in(data, size);
  return fg::fuzz::run_guarded([&] {
    static constexpr char alphabet[] = "ijkiBa,,->... 1";
    const std::size_t operands = 1 + in.below(3);
    std::string subscripts(in.below(25), ' ');
    for (char& c : subscripts) c = alphabet[in.below(sizeof alphabet - 1)];
    switch (operands) {
      case 1:
        run<1>(in, subscripts);
        break;
      case 2:
        run<2>(in, subscripts);
        break;
      default:
        run<3>(in, subscripts);
        break;
    }
  });
}
