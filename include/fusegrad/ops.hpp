// ops.hpp -- every operation fusegrad defines, and their list as a type.
#pragma once

#include <boost/mp11/list.hpp>

#include <fusegrad/ops/abs.hpp>
#include <fusegrad/ops/add.hpp>
#include <fusegrad/ops/argmax.hpp>
#include <fusegrad/ops/argmin.hpp>
#include <fusegrad/ops/broadcast_to.hpp>
#include <fusegrad/ops/cat.hpp>
#include <fusegrad/ops/clamp.hpp>
#include <fusegrad/ops/clone.hpp>
#include <fusegrad/ops/compare.hpp>
#include <fusegrad/ops/cos.hpp>
#include <fusegrad/ops/cumsum.hpp>
#include <fusegrad/ops/div.hpp>
#include <fusegrad/ops/einsum.hpp>
#include <fusegrad/ops/exp.hpp>
#include <fusegrad/ops/expm1.hpp>
#include <fusegrad/ops/gather.hpp>
#include <fusegrad/ops/index_select.hpp>
#include <fusegrad/ops/log.hpp>
#include <fusegrad/ops/log1mexp.hpp>
#include <fusegrad/ops/log1p.hpp>
#include <fusegrad/ops/log_sigmoid.hpp>
#include <fusegrad/ops/log_softmax.hpp>
#include <fusegrad/ops/logsumexp.hpp>
#include <fusegrad/ops/matmul.hpp>
#include <fusegrad/ops/max.hpp>
#include <fusegrad/ops/maximum.hpp>
#include <fusegrad/ops/mean.hpp>
#include <fusegrad/ops/min.hpp>
#include <fusegrad/ops/minimum.hpp>
#include <fusegrad/ops/mul.hpp>
#include <fusegrad/ops/negate.hpp>
#include <fusegrad/ops/outer.hpp>
#include <fusegrad/ops/permute.hpp>
#include <fusegrad/ops/pow.hpp>
#include <fusegrad/ops/prod.hpp>
#include <fusegrad/ops/reciprocal.hpp>
#include <fusegrad/ops/relu.hpp>
#include <fusegrad/ops/reshape.hpp>
#include <fusegrad/ops/sigmoid.hpp>
#include <fusegrad/ops/sin.hpp>
#include <fusegrad/ops/slice.hpp>
#include <fusegrad/ops/softmax.hpp>
#include <fusegrad/ops/softplus.hpp>
#include <fusegrad/ops/sqrt.hpp>
#include <fusegrad/ops/square.hpp>
#include <fusegrad/ops/sub.hpp>
#include <fusegrad/ops/sum.hpp>
#include <fusegrad/ops/tan.hpp>
#include <fusegrad/ops/tanh.hpp>
#include <fusegrad/ops/transpose.hpp>
#include <fusegrad/ops/variance.hpp>
#include <fusegrad/ops/where.hpp>

namespace fusegrad {

// The element-wise ops, which both layers fuse; tests/ops checks that every header in
// ops/ appears here and that each op has a gradient test.
using unary_ops = boost::mp11::mp_list<negate_op, exp_op, log_op, log1p_op, expm1_op, sqrt_op, square_op, abs_op,
                                       sin_op, cos_op, tan_op, tanh_op, sigmoid_op, relu_op, reciprocal_op, softplus_op,
                                       log_sigmoid_op, log1mexp_op, clone_op>;
using binary_ops = boost::mp11::mp_list<add_op, sub_op, mul_op, div_op, pow_op, maximum_op, minimum_op, less_op,
                                        less_equal_op, greater_op, greater_equal_op, equal_op, not_equal_op>;
// The materialised ops: whole-array results, one representative configuration of each (reshape_op
// once per name it takes: reshape, flatten, squeeze, unsqueeze; slice_op as slice and select).
using materialized_ops = boost::mp11::mp_list<
    sum_op<AllAxes, keep_dims::no>, mean_op<AllAxes, keep_dims::no>, max_op<>, min_op<>, argmax_op<>, argmin_op<>,
    prod_op<AllAxes, keep_dims::no>, logsumexp_op<AllAxes, keep_dims::no>, log_softmax_op<Axes<0>>,
    variance_op<AllAxes, keep_dims::no, 1>, stddev_op<AllAxes, keep_dims::no, 1>, cumsum_op<0>, matmul_op, outer_op,
    transpose_op, reshape_op<detail::reshape_to_shape<6>>, reshape_op<detail::flatten_all>,
    reshape_op<detail::squeeze_all>, reshape_op<detail::unsqueeze_static_axis<0>>,
    permute_op<detail::static_axis_order<1, 0>>, broadcast_to_op<detail::broadcast_to_shape<2, 3>>,
    slice_op<detail::runtime_slice>, slice_op<detail::runtime_select>, index_select_op, gather_op, where_op, clamp_op,
    cat_op<2>, einsum_op<2, detail::einsum_static_text<"ij,jk->ik", 2>>>;

}  // namespace fusegrad
