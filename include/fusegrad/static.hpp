// static.hpp -- the static layer alone: Var and Const leaves, every operation, eval, value_and_grad,
// value_and_grad_into, grad, vjp, an expression's type name. No Tensor, tape or pictures: a translation unit that
// needs only the static layer compiles faster than with fusegrad.hpp (benchmarks/results/compile-cost.md).
#pragma once

#include <fusegrad/concepts.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/expr/eval.hpp>
#include <fusegrad/expr/expression_graph.hpp>
#include <fusegrad/expr/grad.hpp>
#include <fusegrad/expr/grad_into.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/expr/leaf_mistakes.hpp>
#include <fusegrad/expr/print.hpp>
#include <fusegrad/expr/type_name.hpp>
#include <fusegrad/expr/visit.hpp>
#include <fusegrad/ops.hpp>
#include <fusegrad/shape/any_shape.hpp>
#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/reduce.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>
