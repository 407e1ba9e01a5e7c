// fusegrad.hpp -- the umbrella header: everything a user of fusegrad needs. The static layer alone is static.hpp.
#pragma once

#include <fusegrad/graphviz/to_dot.hpp>
#include <fusegrad/static.hpp>
#include <fusegrad/tape/const_tensor.hpp>
#include <fusegrad/tape/grad_mode.hpp>
#include <fusegrad/tape/print.hpp>
#include <fusegrad/tape/scalar_tensor.hpp>
#include <fusegrad/tape/tensor.hpp>
