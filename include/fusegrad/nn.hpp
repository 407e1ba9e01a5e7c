// nn.hpp -- fusegrad's neural-network pieces (fusegrad::nn), as PyTorch's torch.nn: losses, layers, a model's
// parameters found by reflection, and saving and loading them.
#pragma once

#include <fusegrad/nn/activations.hpp>
#include <fusegrad/nn/linear.hpp>
#include <fusegrad/nn/losses.hpp>
#include <fusegrad/nn/parameters.hpp>
#include <fusegrad/nn/reduction.hpp>
#include <fusegrad/nn/save_load.hpp>
#include <fusegrad/nn/sequential.hpp>
