// static/protocols_static_test.cpp -- the library's own types model the protocols the layers rely on, and a tape node
// keeps its size. Compile-only: every check is a static_assert, so compiling this file is passing it. (In a header
// each check would cost every translation unit that includes it.)
#include <tuple>

#include <fusegrad/fusegrad.hpp>

namespace {

namespace fg = fusegrad;
namespace detail = fusegrad::detail;
using Vector = fg::Var<double, fg::Shape<fg::dyn>>;

// The sweep writes a gradient whole, without zeros first, only through sole_sink_for: sinks that leave destinations
// unzeroed must model SoleSinks, or the sweep would add into memory that holds no zeros.
static_assert(detail::SoleSinks<detail::basic_var_sinks<std::tuple<double*>, Vector>, Vector>,
              "basic_var_sinks (count_uses) must offer sole_sink_for");
static_assert(detail::SoleSinks<detail::tensor_sinks<double>, fg::Tensor>,
              "tensor_sinks (take_unfilled) must offer sole_sink_for");
static_assert(detail::SoleSinks<detail::tensor_sinks<float>, fg::FloatTensor>,
              "tensor_sinks (take_unfilled) must offer sole_sink_for");

// sum_values carries lanes across blocks: run_segment must fold them into the total after the loop.
static_assert(detail::FoldingConsumer<detail::sum_values<double>>, "sum_values must fold its lanes into the total");
static_assert(detail::FoldingConsumer<detail::sum_values<float>>, "sum_values must fold its lanes into the total");

// A taped graph holds one node per op: every field is sized for that.
static_assert(sizeof(void*) != 8 || sizeof(detail::node<double>) <= 88, "a tape node outgrew its 88 bytes");
static_assert(sizeof(void*) != 8 || sizeof(detail::node<float>) <= 88, "a tape node outgrew its 88 bytes");

}  // namespace
