// compile_cost/include_only.cpp -- what including fusegrad costs before any use.
#include <fusegrad/fusegrad.hpp>
