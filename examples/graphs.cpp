// graphs.cpp -- pictures of both graphs: what a run recorded (fg::to_dot of a tensor, torchviz's look) and what the
// compiler built (fg::to_dot and fg::type_name of an expression). Writes <name>.dot, and <name>.svg when Graphviz is
// installed, into the directory given on the command line (default: graphs/).
//   example_graphs pictures/ && xdg-open pictures/fused.svg
#include <boost/core/demangle.hpp>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <string>
#include <typeinfo>

#include <fusegrad/fusegrad.hpp>
#include <fusegrad/graphviz.hpp>

namespace fg = fusegrad;
namespace fs = std::filesystem;

namespace {

void write_picture(const fs::path& dir, const std::string& name, const std::string& dot) {
  std::ofstream(dir / (name + ".dot")) << dot;
  try {
    fg::render(dot, dir / (name + ".svg"));
    std::cout << "  " << (dir / (name + ".svg")).string() << "\n";
  } catch (const fg::error& e) {  // Graphviz missing: the DOT files are still there
    std::cout << "  " << (dir / (name + ".dot")).string() << " (" << e.what() << ")\n";
  }
}

}  // namespace

int main(int argc, char** argv) {
  const fs::path dir = argc > 1 ? argv[1] : "graphs";
  fs::create_directories(dir);
  std::cout << "pictures in " << dir.string() << ":\n";

  // PyTorch's dynamic-graph tutorial: a line fitted to points, parameters w and b.
  fg::Tensor w = fg::Tensor::full({1}, 0.5).requires_grad_().name("w");
  fg::Tensor b = fg::Tensor::full({1}, 0.1).requires_grad_().name("b");
  const fg::Tensor x = fg::Tensor::from({1.0, 2.0, 3.0, 4.0, 5.0}, {5});
  const fg::Tensor y = fg::Tensor::from({2.0, 4.0, 6.0, 8.0, 10.0}, {5});

  // One node per operation, as PyTorch records it.
  fg::Tensor loss = fg::taped(fg::mean(fg::square(b + w * x - y)));
  write_picture(dir, "tutorial_loss", fg::to_dot(loss));

  // b taking no gradient: it is not drawn, and AddBackward has one input.
  const fg::Tensor b_fixed = b.detach();
  write_picture(dir, "tutorial_no_b", fg::to_dot(fg::taped(fg::mean(fg::square(b_fixed + w * x - y)))));

  // A branch on a value: the graph is whatever this run recorded.
  if (loss.item() > 0) loss = fg::taped(loss + fg::mean(w * x - y));
  write_picture(dir, "tutorial_branch", fg::to_dot(loss));

  // The same expression recorded fused (one node, drawn as a frame of its operations) and taped.
  write_picture(dir, "fused", fg::to_dot(fg::Tensor(fg::mean(fg::square(b + w * x - y)))));
  write_picture(dir, "taped", fg::to_dot(fg::taped(fg::mean(fg::square(b + w * x - y)))));

  // The static layer: the graph is a type, drawn from the type.
  fg::Var<double, fg::Shape<3>> v{1.0, 2.0, 3.0};
  const auto f = fg::sum(fg::sin(v) * fg::exp(-v * v));
  write_picture(dir, "expression", fg::to_dot(f, fg::DotOptions{}.name(v, "v")));

  const std::string compiler_name = boost::core::demangle(typeid(f).name());
  std::cout << "\nthe expression's type, as fg::type_name writes it:\n"
            << fg::type_name(f, 60) << "\n"
            << "as the compiler writes it: " << compiler_name.size() << " characters\n";
}
