// optim.hpp -- fusegrad's optimisers and learning-rate schedules (fusegrad::optim), as PyTorch's torch.optim.
#pragma once

#include <fusegrad/optim/adam.hpp>
#include <fusegrad/optim/lr_scheduler.hpp>
#include <fusegrad/optim/optimizer.hpp>
#include <fusegrad/optim/sgd.hpp>
