// fusegrad.hpp -- the umbrella header: everything a user of fusegrad needs.
#pragma once

#include <fusegrad/concepts.hpp>
#include <fusegrad/error.hpp>
#include <fusegrad/expr/eval.hpp>
#include <fusegrad/expr/expression_graph.hpp>
#include <fusegrad/expr/grad.hpp>
#include <fusegrad/expr/grad_into.hpp>
#include <fusegrad/expr/leaf.hpp>
#include <fusegrad/expr/type_name.hpp>
#include <fusegrad/expr/visit.hpp>
#include <fusegrad/graphviz/to_dot.hpp>
#include <fusegrad/ops.hpp>
#include <fusegrad/shape/any_shape.hpp>
#include <fusegrad/shape/broadcast.hpp>
#include <fusegrad/shape/extents.hpp>
#include <fusegrad/shape/reduce.hpp>
#include <fusegrad/shape/reduce_broadcast.hpp>
#include <fusegrad/tape/const_tensor.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/print.hpp>
#include <fusegrad/tape/scalar_tensor.hpp>
#include <fusegrad/tape/tensor.hpp>
