// expect: error: static assertion failed: fusegrad::cat\(axis, a, b...\): the axis comes first
// fail/cat_without_an_axis.cpp -- cat of two Vars without an axis (PyTorch's torch.cat((x, y)), whose dim defaults to
// 0): one error that says where the axis goes (without it: no matching function, and every candidate listed). The legal
// twin gives the axis first.
#include <fusegrad/fusegrad.hpp>

namespace fg = fusegrad;

int main() {
  const fg::Var<double, fg::Shape<3>> x{1.0, 2.0, 3.0};
  const fg::Var<double, fg::Shape<3>> y{4.0, 5.0, 6.0};
#ifdef FUSEGRAD_FAIL
  const auto joined = fg::eval(fg::cat(x, y));
#else
  const auto joined = fg::eval(fg::cat(0, x, y));
#endif
  (void)joined;
  return 0;
}
