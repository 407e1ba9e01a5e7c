// tape/tensor.hpp -- fg::Tensor whole: the class, recording an expression (fused, taped), and backward.
#pragma once

#include <fusegrad/tape/basic_tensor.hpp>      // BasicTensor, Tensor, FloatTensor
#include <fusegrad/tape/cast.hpp>              // t.to<float>(), t.to<double>()
#include <fusegrad/tape/functional_grad.hpp>   // fg::grad(output, inputs)
#include <fusegrad/tape/fused.hpp>             // BasicTensor(expr), fused
#include <fusegrad/tape/join.hpp>              // cat, stack, split, chunk of tensors
#include <fusegrad/tape/taped.hpp>             // taped
#include <fusegrad/tape/tensor_backward.hpp>   // BasicTensor::backward
#include <fusegrad/tape/tensor_factories.hpp>  // zeros, from, from_blob, rand, ...
#include <fusegrad/tape/tensor_in_place.hpp>   // mutable_eigen(), sub_, add_, mul_, fill_
#include <fusegrad/tape/tensor_methods.hpp>    // t[i], t.clone()
