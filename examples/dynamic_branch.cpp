// dynamic_branch.cpp -- PyTorch's dynamic-graph tutorial, its two graphs that change with the program: a branch on the
// loss's value, and b not requiring grad. Prints the figures (checked against examples/data/linreg/REFERENCE.md) and,
// given a directory, writes both graphs' pictures there (DOT, and SVG when Graphviz is installed).
//   example_dynamic_branch pictures/
#include <cmath>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <string>

#include <fusegrad/fusegrad.hpp>
#include <fusegrad/graphviz.hpp>

#include "csv.hpp"

namespace fg = fusegrad;

namespace {

void write_picture(const char* dir, const std::string& name, const std::string& dot) {
  if (!dir) return;
  const std::filesystem::path path = std::filesystem::path(dir) / name;
  std::filesystem::create_directories(dir);
  std::ofstream(path.string() + ".dot") << dot;
  try {
    fg::render(dot, path.string() + ".svg");
  } catch (const fg::error&) {  // no Graphviz: the DOT file is there
  }
}

}  // namespace

int main(int argc, char** argv) {
  const char* dir = argc > 1 ? argv[1] : nullptr;
  const auto train = example::read_xy(FUSEGRAD_EXAMPLES_DATA_DIR "/linreg/train.csv");
  const fg::Tensor x = fg::Tensor::from(train.x);
  const fg::Tensor y = fg::Tensor::from(train.y);
  fg::Tensor b = fg::Tensor::scalar(0.33669036626815796).requires_grad_().name("b");
  fg::Tensor w = fg::Tensor::scalar(0.12880940735340118).requires_grad_().name("w");

  // The branch: which graph gets recorded depends on a value computed on the way.
  fg::Tensor loss = fg::taped(fg::mean(fg::square(b + w * x - y)));
  if (loss.item() > 0) loss = fg::taped(loss + fg::mean(w * x - y));
  write_picture(dir, "branch", fg::to_dot(loss));  // before the backward, which frees the graph
  loss.backward();
  const double branch_loss = loss.item(), branch_db = b.grad().item(), branch_dw = w.grad().item();
  std::printf("with the branch: loss %.16f  dL/db %.16f  dL/dw %.16f\n", branch_loss, branch_db, branch_dw);

  // b as data: it is not recorded, and gets no gradient.
  const fg::Tensor b_data = b.detach();
  w.zero_grad();
  const fg::Tensor yhat = fg::taped(b_data + w * x);
  const fg::Tensor loss_without_b = fg::taped(fg::mean(fg::square(yhat - y)));
  write_picture(dir, "b_without_grad", fg::to_dot(loss_without_b));
  loss_without_b.backward();
  std::printf("b without grad: yhat recorded as %s, dL/dw %.16f, b_data.grad() %s\n", yhat.grad_fn_name().c_str(),
              w.grad().item(), b_data.grad().defined() ? "defined" : "undefined");

  const bool ok = std::abs(branch_loss - 0.8545481670568522) < 1e-12 &&
                  std::abs(branch_db - -3.1124962265216927) < 1e-12 &&
                  std::abs(branch_dw - -1.3431840937622836) < 1e-12 &&
                  std::abs(w.grad().item() - -1.8156430415357463) < 1e-12 && !b_data.grad().defined();
  std::printf("%s\n", ok ? "matches the PyTorch reference" : "DOES NOT match the PyTorch reference");
  return ok ? 0 : 1;
}
