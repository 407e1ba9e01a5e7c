// static/headers_alone_static_test.cpp -- what a public header's templates call is declared by the header itself:
// the functions below use <fusegrad/nn.hpp>'s API, tensors' included, with that header alone (this folder is built
// without precompiled headers), so a name its templates find only through another header's includes fails here.
#include <fusegrad/nn.hpp>

namespace fg = fusegrad;

// Tensor::to<U>() names its node "to<float>(tensor of double)" with detail::concat.
fg::FloatTensor tensor_to_float(const fg::Tensor& t) { return t.to<float>(); }
fg::Tensor tensor_to_double(const fg::FloatTensor& t) { return t.to<double>(); }

// A layer, a loss, a backward and a taped expression.
fg::Tensor layer_and_loss(fg::nn::Linear& layer, const fg::Tensor& x, const fg::Tensor& y) {
  const fg::Tensor out = layer(x);
  fg::Tensor(fg::nn::mse_loss(out, y)).backward();
  return fg::taped(fg::sum(fg::relu(out)));
}
