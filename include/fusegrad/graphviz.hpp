// graphviz.hpp -- pictures of graphs: fg::to_dot (also in fusegrad.hpp) and fg::render, which runs Graphviz's dot
// (kept out of fusegrad.hpp: the process and file-system headers it needs cost every translation unit compile time).
#pragma once

#include <fusegrad/graphviz/render.hpp>
#include <fusegrad/graphviz/to_dot.hpp>
